"""VisualDL 2's PR curves, ROC curves, audio, embeddings and hparams (the ``other`` run of
tests/data/vdl2, written by VisualDL 2.5.3) through LogReader: each comes back exactly as
2.5.3 itself reads it (other.json, made by make_other.py with 2.5.3's own record_pb2),
and a damaged record of each is a problem, never an exception."""

from __future__ import annotations

import base64
import json
import os
import shutil
import struct
from typing import Any

import numpy as np
import pytest
from kit.paths import DATA

from visualdl import LogReader
from visualdl._formats.vdl2 import decode as _vdl2
from visualdl._kinds.table import HPARAMS_TAG
from visualdl.errors import LogFormatError
from visualdl.proto import vdl2

DATA = os.path.join(DATA, "vdl2")
LOGDIR = os.path.join(DATA, "logdir")
with open(os.path.join(DATA, "other.json"), encoding="utf-8") as _file:
    OTHER: dict[str, Any] = json.load(_file)
with open(os.path.join(DATA, "expected.json"), encoding="utf-8") as _file:
    EXPECTED: dict[str, Any] = json.load(_file)


def _of(kind: str) -> list[dict[str, Any]]:
    return [r for r in OTHER["records"] if r["kind"] == kind]


def _passed(kind: str) -> list[dict[str, Any]]:
    """The inputs of the calls that wrote ``kind`` (expected.json)."""
    return [r for f in EXPECTED["runs"]["other"]["files"].values() for r in f["records"] if r["kind"] == kind]


@pytest.fixture(scope="module")
def reader() -> LogReader:
    return LogReader(LOGDIR)


def test_vdl2_other_kinds_are_listed_and_nothing_is_counted(reader):
    tags = reader.tags("other")
    assert tags["pr_curves"] == ["curves/pr"] and tags["roc_curves"] == ["curves/roc"]
    assert tags["audio"] == ["audio/sine"] and tags["embeddings"] == ["emb"]
    assert tags["hparams"] == [HPARAMS_TAG]
    (info,) = reader.writers("other")
    assert info.unshown == ()


def test_vdl2_curves_are_what_the_writer_stored(reader):
    for kind, accessor, rates in (
        ("pr_curve", reader.pr_curves, ("precision", "recall")),
        ("roc_curve", reader.roc_curves, ("tpr", "fpr")),
    ):
        records = _of(kind)
        events = accessor("other", records[0]["tag"])
        assert [(e.step, e.wall_time) for e in events] == [(r["step"], r["timestamp"] / 1000) for r in records]
        for event, r in zip(events, records, strict=True):
            n = len(r["tp"])
            assert event.thresholds.tolist() == [i / (n - 1) for i in range(n)]
            for name in ("tp", "fp", "tn", "fn", *rates):
                assert getattr(event, name).dtype == np.float64
                assert getattr(event, name).tolist() == r[name], name


def test_vdl2_curves_match_the_inputs_written():
    """The 5 thresholds of the fixture: a prediction counts as positive at threshold t when >= t."""
    first = _passed("pr_curve")[0]
    labels, predictions = np.array(first["labels"]), np.array(first["predictions"])
    thresholds = np.arange(5) / 4
    tp = [int(((predictions >= t) & (labels == 1)).sum()) for t in thresholds]
    fp = [int(((predictions >= t) & (labels == 0)).sum()) for t in thresholds]
    assert (_of("pr_curve")[0]["tp"], _of("pr_curve")[0]["fp"]) == (tp, fp)


def test_vdl2_audio_is_the_wav_written(reader):
    (r,) = _of("audio")
    (event,) = reader.audio("other", r["tag"])
    wav = base64.b64decode(r["wav_base64"])
    assert (event.step, event.wall_time) == (r["step"], r["timestamp"] / 1000)
    assert (event.sample_rate, event.channels, event.length_frames, event.size) == (
        r["sample_rate"], r["num_channels"], r["length_frames"], len(wav),
    )  # fmt: skip
    assert reader.read_blob(event) == wav
    path, offset, length = reader._index.open_blob(event)
    with open(path, "rb") as f:
        f.seek(offset)
        assert f.read(length) == wav
    # The samples passed, as 2.5.3 encodes them: int(32767 * x), 16-bit little-endian.
    (passed,) = _passed("audio")
    frames = wav[44:]
    assert list(struct.unpack(f"<{len(frames) // 2}h", frames)) == [int(32767.0 * x) for x in passed["samples_passed"]]


def test_vdl2_embeddings_are_the_rows_written(reader):
    (r,) = _of("embeddings")
    (event,) = reader.embeddings("other", r["tag"])
    assert (event.step, event.wall_time, event.rows, event.dimension) == (r["step"], r["timestamp"] / 1000, 4, 3)
    assert event.metadata_header == ("label",)
    assert event.metadata == tuple(tuple(labels) for labels in r["labels"])
    vectors = np.frombuffer(reader.read_blob(event), "<f4").reshape(event.rows, event.dimension)
    assert vectors.astype(np.float64).tolist() == r["vectors"]
    (passed,) = _passed("embeddings")
    assert vectors.tolist() == np.array(passed["mat"], np.float32).tolist()
    with pytest.raises(LogFormatError):  # no one span to stream: read_blob gathers the rows
        reader._index.open_blob(event)


def test_vdl2_hparams_keep_their_types(reader):
    (r,) = _of("hparam")
    event = reader.hparams("other")
    assert event is not None and event.wall_time == r["timestamp"] / 1000
    assert event.hparams == {h["name"]: h["value"] for h in r["hparams"]}
    assert [type(v) for v in event.hparams.values()] == [float, int, str]
    assert event.metrics == tuple(m["name"] for m in r["metrics"])


def _frame(value: vdl2.Record.Value) -> bytes:
    payload = vdl2.Record(values=[value]).SerializeToString()
    return struct.pack("<Q", len(payload)) + payload


def test_vdl2_damaged_records_of_the_new_kinds_are_problems(tmp_path):
    bad = [
        vdl2.Record.Value(tag="a", id=1, audio=vdl2.Record.Audio(sample_rate=0.5, encoded_audio_string=b"RIFF")),
        vdl2.Record.Value(tag="p", id=1, pr_curve=vdl2.Record.PRCurve(TP=[1, 2], FP=[1], TN=[1, 2], FN=[0, 0])),
        vdl2.Record.Value(tag="r", id=1, roc_curve=vdl2.Record.ROC_Curve(TP=[1], FP=[1], TN=[1], FN=[1], tpr=[1, 2])),
        vdl2.Record.Value(
            tag="e",
            embeddings=vdl2.Record.Embeddings(
                embeddings=[
                    vdl2.Record.Embedding(label=["x"], vectors=[1, 2]),
                    vdl2.Record.Embedding(label=["y"], vectors=[1]),
                ]
            ),
        ),
        vdl2.Record.Value(tag="h", hparam=vdl2.Record.HParam(hparamInfos=[vdl2.Record.HParam.HparamInfo(name="x")])),
    ]
    good = vdl2.Record.Value(tag="ok", id=2, value=1.5)
    run = tmp_path / "run"
    run.mkdir()
    (run / "vdlrecords.1.log").write_bytes(b"".join(_frame(v) for v in [*bad, good]))
    reader = LogReader(str(tmp_path))
    assert reader.scalars("run", "ok").values.tolist() == [1.5]
    tags = reader.tags("run")
    assert all(tags[kind] == [] for kind in ("audio", "pr_curves", "roc_curves", "embeddings", "hparams"))
    assert len(reader.problems) == len(bad)
    kinds = [p.message.split(" ")[0] for p in reader.problems]
    assert kinds == ["audio", "pr_curve", "roc_curve", "embeddings", "hparam"]


def test_vdl2_embeddings_changed_on_disk_are_a_format_error(tmp_path):
    shutil.copytree(os.path.join(LOGDIR, "other"), tmp_path / "other")
    reader = LogReader(str(tmp_path))
    (event,) = reader.embeddings("other", "emb")
    path = event.ref.path
    with open(path, "r+b") as f:
        f.truncate(event.ref.offset + 20)
    with pytest.raises(LogFormatError):
        reader.read_blob(event)


def test_vdl2_decode_gathers_vectors_of_the_value_only():
    value = vdl2.Record.Value(tag="t", text=vdl2.Record.Text(encoded_text_string="x"))
    with pytest.raises(LogFormatError):
        _vdl2.embedding_vectors(vdl2.Record(values=[value]).SerializeToString())
