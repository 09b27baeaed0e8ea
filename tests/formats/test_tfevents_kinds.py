"""Audio, PR curves, hparams and custom scalar layouts of TensorBoard event files, written
by the real tensorboardX and torch.utils.tensorboard writers, read by LogReader exactly as
the writers stored them (read back here with TensorBoard's own protos); a damaged value of
each is a problem, never an exception."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
from kit.writers import WRITERS, import_torch, summary_writer, torch_writer
from test_tfevents_reader import XWriter  # tensorboardX's writer, required

from visualdl import LogReader
from visualdl._formats import framing as _framing
from visualdl._kinds.table import HPARAMS_TAG, SCALAR_LAYOUT_TAG, LayoutCategory, LayoutChart, ScalarLayoutEvent
from visualdl.proto import tb

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
LABELS = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 0])
PREDICTIONS = np.array([0.9, 0.1, 0.8, 0.35, 0.6, 0.2, 0.7, 0.4, 0.55, 0.05])
LAYOUT = {
    "losses": {"both": ["Multiline", ["loss/train", "loss/val"]], "band": ["Margin", ["acc", "acc/lo", "acc/hi"]]},
    "other": {"lr": ["Multiline", ["lr.*"]]},
}


def _values(logdir: str, tag: str) -> list[tuple[Any, Any]]:
    """``(event, value)`` of every value of ``tag`` in the event files under ``logdir``, as
    TensorBoard's own protos read them."""
    from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
    from tensorboard.compat.proto import event_pb2

    out = []
    for root, _, names in sorted(os.walk(logdir)):
        for name in sorted(names):
            if "tfevents" in name:
                for raw in RawEventFileLoader(os.path.join(root, name)).Load():
                    event = event_pb2.Event.FromString(raw)
                    out += [(event, v) for v in event.summary.value if v.tag == tag]
    return out


@pytest.mark.e2e  # torch's writer (torch: an e2e extra)
def test_tfevents_audio_is_the_wav_torch_wrote(tmp_path):
    clip = import_torch().tensor(np.sin(np.arange(400) / 7.0) * 0.8)
    w = torch_writer()(str(tmp_path))
    w.add_audio("speech", clip, 3, sample_rate=16000)
    w.add_audio("speech", -clip, 5, sample_rate=16000)
    w.close()
    reader = LogReader(str(tmp_path))
    events = reader.audio(".", "speech")
    written = _values(str(tmp_path), "speech")
    assert [e.step for e in events] == [3, 5]
    for event, (ev, value) in zip(events, written, strict=True):
        wav = value.audio.encoded_audio_string
        assert wav[:4] == b"RIFF"
        assert (event.wall_time, event.sample_rate, event.channels, event.length_frames, event.size) == (
            ev.wall_time, 16000, value.audio.num_channels, value.audio.length_frames, len(wav),
        )  # fmt: skip
        assert reader.read_blob(event) == wav
        path, offset, length = reader._index.open_blob(event)
        with open(path, "rb") as f:
            f.seek(offset)
            assert f.read(length) == wav
    assert reader.problems == []


@pytest.mark.parametrize("writer", WRITERS)
def test_tfevents_pr_curves_are_what_the_writer_computed(tmp_path, writer):
    w = summary_writer(writer)(str(tmp_path))
    w.add_pr_curve("eval/pr", LABELS, PREDICTIONS, 2, num_thresholds=7)
    w.add_pr_curve("eval/pr", LABELS, PREDICTIONS[::-1].copy(), 4, num_thresholds=7)
    w.close()
    reader = LogReader(str(tmp_path))
    events = reader.pr_curves(".", "eval/pr")
    written = _values(str(tmp_path), "eval/pr")
    assert [e.step for e in events] == [2, 4]
    for event, (ev, value) in zip(events, written, strict=True):
        rows = np.array(value.tensor.float_val, np.float32).reshape(6, 7).astype(np.float64)
        assert event.wall_time == ev.wall_time
        assert event.thresholds.tolist() == [i / 6 for i in range(7)]
        for i, name in enumerate(("tp", "fp", "tn", "fn", "precision", "recall")):
            assert getattr(event, name).tolist() == rows[i].tolist(), name
    # The counts are the inputs': a prediction is positive at threshold t when >= t.
    first = events[0]
    for t, tp, fp in zip(first.thresholds, first.tp, first.fp, strict=True):
        if t < 1:  # both writers bin predictions; no prediction lies on an inner threshold here
            assert (tp, fp) == (((PREDICTIONS >= t) & (LABELS == 1)).sum(), ((PREDICTIONS >= t) & (LABELS == 0)).sum())
    assert reader.problems == []


@pytest.mark.parametrize("writer", WRITERS)
def test_tfevents_hparams_are_the_session_start_and_the_metrics(tmp_path, writer):
    w = summary_writer(writer)(str(tmp_path))
    w.add_hparams({"lr": 0.1, "batch": 32, "opt": "sgd", "bn": True}, {"hp/acc": 0.9, "hp/loss": 0.25})
    w.close()
    reader = LogReader(str(tmp_path))
    (run,) = [run for run in reader.runs() if reader.tags(run)["hparams"]]  # a subdirectory, as both write it
    assert reader.tags(run)["hparams"] == [HPARAMS_TAG]
    event = reader.hparams(run)
    assert event is not None
    # TensorBoard keeps numbers as doubles (no integers); torch writes a bool as a number.
    flag = True if writer == "tensorboardX" else 1.0
    assert event.hparams == {"lr": 0.1, "batch": 32.0, "opt": "sgd", "bn": flag}
    assert isinstance(event.hparams["bn"], type(flag))
    assert sorted(event.metrics) == ["hp/acc", "hp/loss"]
    ((ev, _),) = _values(str(tmp_path), "_hparams_/session_start_info")
    assert event.wall_time == ev.wall_time
    assert reader.scalars(run, "hp/acc").values.tolist() == [np.float32(0.9).item()]
    assert all(info.unshown == () for r in reader.runs() for info in reader.writers(r))
    assert reader.problems == []


@pytest.mark.parametrize("writer", WRITERS)
def test_tfevents_custom_scalars_are_the_layout(tmp_path, writer):
    w = summary_writer(writer)(str(tmp_path))
    w.add_custom_scalars(LAYOUT)
    w.close()
    reader = LogReader(str(tmp_path))
    assert reader.tags(".")["scalar_layouts"] == [SCALAR_LAYOUT_TAG]
    event = reader.scalar_layout(".")
    assert event is not None
    assert isinstance(event, ScalarLayoutEvent)
    want = tuple(
        LayoutCategory(
            title,
            tuple(
                LayoutChart(chart, multiline=tuple(tags))
                if how == "Multiline"
                else LayoutChart(chart, margin=((tags[0], tags[1], tags[2]),))
                for chart, (how, tags) in charts.items()
            ),
        )
        for title, charts in LAYOUT.items()
    )
    assert sorted(event.categories, key=lambda c: c.title) == sorted(want, key=lambda c: c.title)
    assert reader.problems == []


def test_tfevents_embeddings_are_read_from_the_projector_files(tmp_path):
    """tensorboardX writes projector files beside the events: read under their tag, no problem
    (in full: tests/index/test_projector_files.py)."""
    w = XWriter(str(tmp_path))
    w.add_scalar("x", 1.0, 0)
    w.add_embedding(np.arange(12, dtype=np.float32).reshape(4, 3), metadata=["a", "b", "c", "d"], tag="emb")
    w.close()
    assert os.path.exists(tmp_path / "projector_config.pbtxt")
    reader = LogReader(str(tmp_path))
    assert reader.tags(".")["embeddings"] == ["emb"] and reader.tags(".")["scalars"] == ["x"]
    assert reader.problems == []


def _value(tag: str, plugin: str = "", content: bytes = b"", **field: Any) -> tb.Summary.Value:
    metadata = tb.SummaryMetadata(plugin_data=tb.SummaryMetadata.PluginData(plugin_name=plugin, content=content))
    return tb.Summary.Value(tag=tag, metadata=metadata, **field)


def test_tfevents_damaged_values_of_the_new_kinds_are_problems(tmp_path):
    f32 = tb.DataType.DT_FLOAT
    shape = tb.TensorShapeProto(dim=[tb.TensorShapeProto.Dim(size=5), tb.TensorShapeProto.Dim(size=3)])
    bad = [
        _value("a", audio=tb.Summary.Audio(sample_rate=0, encoded_audio_string=b"RIFF")),
        _value("pr", "pr_curves", tensor=tb.TensorProto(dtype=f32, tensor_shape=shape, float_val=[0.0] * 15)),
        _value("h", "hparams", b"\xff\xff\xff"),
        _value(
            "h2",
            "hparams",
            tb.HParamsPluginData(
                session_start_info=tb.HParamsSessionStartInfo(
                    hparams=[tb.HParamsSessionStartInfo.Entry(key="x", value=tb.HParamValue(list_value=b""))]
                )
            ).SerializeToString(),
        ),
        _value("cs", "custom_scalars", tensor=tb.TensorProto(dtype=tb.DataType.DT_STRING, string_val=[b"\xff\xff"])),
    ]
    events = [tb.Event(wall_time=1.0, step=1, summary=tb.Summary(value=[v])) for v in bad]
    events.append(
        tb.Event(wall_time=2.0, step=2, summary=tb.Summary(value=[tb.Summary.Value(tag="ok", simple_value=1.5)]))
    )
    (tmp_path / "events.out.tfevents.1.host").write_bytes(
        b"".join(_framing.frame(e.SerializeToString()) for e in events)
    )
    reader = LogReader(str(tmp_path))
    assert reader.scalars(".", "ok").values.tolist() == [1.5]
    tags = reader.tags(".")
    assert all(tags[kind] == [] for kind in ("audio", "pr_curves", "hparams", "scalar_layouts"))
    assert len(reader.problems) == len(bad)
    assert all(f"value {v.tag!r}" in p.message for v, p in zip(bad, reader.problems, strict=True))
