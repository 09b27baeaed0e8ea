"""The generated code in proto/ is fresh and loads with the installed protobuf runtime."""

from __future__ import annotations

import os
import subprocess
import sys

from visualdl.proto import pb

PROTO_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "proto")


def test_generated_code_matches_schema(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", "-I", PROTO_DIR, f"--python_out={tmp_path}",
         f"--pyi_out={tmp_path}", os.path.join(PROTO_DIR, "visualdl_log.proto")],
        check=True,
    )  # fmt: skip
    for name in ("visualdl_log_pb2.py", "visualdl_log_pb2.pyi"):
        with open(os.path.join(PROTO_DIR, name), encoding="utf-8") as committed:
            with open(tmp_path / name, encoding="utf-8") as fresh:
                assert committed.read() == fresh.read(), (
                    f"proto/{name} is stale: regenerate with "
                    "python -m grpc_tools.protoc -I proto --python_out=proto --pyi_out=proto proto/visualdl_log.proto"
                )


def test_generated_code_loads_with_runtime():
    record = pb.Record(text=pb.Text(tag="t", step=3, text="x"))
    assert pb.Record.FromString(record.SerializeToString()).text.step == 3
