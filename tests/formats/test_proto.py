"""The generated code in proto/ is fresh and loads with the installed protobuf runtime."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from kit.paths import DATA, ROOT

from visualdl.proto import pb, tb, vdl2

PROTO_DIR = os.path.join(ROOT, "proto")


@pytest.mark.parametrize("schema", ["visualdl_log", "tensorboard_event", "vdl2_record"])
def test_generated_code_matches_schema(tmp_path, schema):
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", "-I", PROTO_DIR, f"--python_out={tmp_path}",
         f"--pyi_out={tmp_path}", os.path.join(PROTO_DIR, f"{schema}.proto")],
        check=True,
    )  # fmt: skip
    for name in (f"{schema}_pb2.py", f"{schema}_pb2.pyi"):
        with open(os.path.join(PROTO_DIR, name), encoding="utf-8") as committed:
            with open(tmp_path / name, encoding="utf-8") as fresh:
                assert committed.read() == fresh.read(), (
                    f"proto/{name} is stale: regenerate with "
                    f"python -m grpc_tools.protoc -I proto --python_out=proto --pyi_out=proto proto/{schema}.proto"
                )


def test_generated_code_loads_with_runtime():
    record = pb.Record(text=pb.Text(tag="t", step=3, text="x"))
    assert pb.Record.FromString(record.SerializeToString()).text.step == 3


def test_tensorboard_schema_reads_tensorboards_bytes():
    """Same field numbers as TensorBoard's own event.proto: its bytes read back field for field."""
    from tensorboard.compat.proto import event_pb2, summary_pb2

    theirs = event_pb2.Event(
        wall_time=1.5,
        step=7,
        summary=summary_pb2.Summary(
            value=[
                summary_pb2.Summary.Value(
                    tag="loss",
                    simple_value=0.25,
                    metadata=summary_pb2.SummaryMetadata(
                        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars"),
                        display_name="Loss",
                    ),
                ),
                summary_pb2.Summary.Value(
                    tag="h", histo=summary_pb2.HistogramProto(min=-1, bucket_limit=[0, 1], bucket=[2, 3])
                ),
            ]
        ),
    )
    ours = tb.Event.FromString(theirs.SerializeToString())
    assert (ours.wall_time, ours.step) == (1.5, 7)
    first, second = ours.summary.value
    assert (first.tag, first.simple_value, first.metadata.plugin_data.plugin_name) == ("loss", 0.25, "scalars")
    assert first.metadata.display_name == "Loss"
    assert list(second.histo.bucket_limit) == [0, 1] and list(second.histo.bucket) == [2, 3]
    start = event_pb2.Event(step=3, session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.START))
    assert tb.Event.FromString(start.SerializeToString()).session_log.status == tb.SessionLog.START


def test_vdl2_schema_reads_visualdl2_bytes():
    """Field for field, the first record of a file written by VisualDL 2.5.3 (tests/data/vdl2)."""
    path = os.path.join(DATA, "vdl2", "logdir", "scalars", "vdlrecords.1700000000.log")
    with open(path, "rb") as f:
        data = f.read()
    end = 8 + int.from_bytes(data[:8], "little")
    (meta,) = vdl2.Record.FromString(data[8:end]).values
    assert (meta.tag, meta.id, meta.WhichOneof("one_value")) == ("meta_data_tag", 0, "meta_data")
    assert meta.meta_data.display_name == "baseline \u03b1"
    (scalar,) = vdl2.Record.FromString(data[end + 8 : end + 8 + int.from_bytes(data[end : end + 8], "little")]).values
    assert (scalar.tag, scalar.id, scalar.timestamp, scalar.value) == ("train/loss", 0, 1700000001000, 2.0)
