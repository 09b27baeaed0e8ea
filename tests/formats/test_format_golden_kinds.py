"""Format version 1, pinned for the record kinds added after its first fixture: audio, PR
and ROC curves, hyperparameters, embeddings, scalar layouts, meta, process ends, tag infos,
system metrics and provenance.

``tests/data/format_v1_later_kinds`` holds one framed record of each, cut from logs the
real writers wrote (``tests/data/make_format_v1_later_kinds.py`` and, for the process
end, ``tests/data/make_format_v1_process_end.py``, for the process end marked an event,
``tests/data/make_format_v1_process_end_event.py``, for the tag info,
``tests/data/make_format_v1_tag_info.py``, for system metrics,
``tests/data/make_format_v1_system_metrics.py``, for provenance,
``tests/data/make_format_v1_provenance.py``; run once, never again).
Each is checked against an independent CRC-32C, decoded field by field against values
spelled out here, and produced again byte for byte by today's encoders: a renumbered,
retyped or renamed field fails here. Fix the code, or make a new format version.
"""

from __future__ import annotations

import hashlib
import os
import struct
from types import SimpleNamespace
from typing import Any
from unittest import mock

import numpy as np
import pytest
from kit.paths import DATA as TESTS_DATA
from test_format_golden import _unframe

from visualdl._formats import framing
from visualdl._formats.vdlog.logformat import parse_record
from visualdl._kinds.table import (
    KIND_BY_FIELD,
    LayoutCategory,
    LayoutChart,
    ProcessEnd,
    SystemMetric,
    decode_process_end,
    decode_system_metrics,
    encode_audio,
    encode_embeddings,
    encode_hparams,
    encode_meta,
    encode_pr_curve,
    encode_process_end,
    encode_roc_curve,
    encode_scalar_layout,
    encode_system_metrics,
    encode_tag_info,
)
from visualdl.proto import pb
from visualdl.sdk import _provenance

DATA = os.path.join(TESTS_DATA, "format_v1_later_kinds")
T0 = 1_700_000_000.0  # the generator's clock

#: Every file of the fixture: size and SHA-256. Only an edited fixture changes these.
FILES = {
    "audio.bin": (101, "316a7125b3544b84c61430e5ea7baa2113887f1b67b7e472925b55faff8c6642"),
    "embeddings.bin": (95, "1faf83a0425e87e42a0690258c4b7163a73ddac96fce44a248d021b0f0fdc08d"),
    "hparams.bin": (92, "d63e9155e243bbeade1f2dd269678aa48caccaae2ea5d9d83dd9daa86434a855"),
    "meta.bin": (39, "834c9b95627539f6df9a7d49406a87a9f0154fba0ac3904560606a5842eefa09"),
    "process_end.bin": (190, "eb7705a11461e58e361423656616d2b43366f7f5f17b51cbb5f2798f1193d392"),
    "process_end_event.bin": (192, "10fba5b541944efae892a82c153ad94ccae9681967bb9d9d58baff04d31864e3"),
    "provenance.bin": (172, "3a08bd1499470e3c98a9729ef8b999731d37a30798e9a8b8304e70af9bb98447"),
    "pr_curve.bin": (216, "31a8b1ca8e2fb5378115d1c2203671b98517a3f6945401093d7f58ce99e2207b"),
    "roc_curve.bin": (217, "3dd7ddf21ffb2c528f6613ca814e7f4b972caf39d4a5a5b8ab2a22b4ae0a2378"),
    "scalar_layout.bin": (79, "6dbc57934419960f154f3bb1c4809a743cd24c293bab7c55df744aa0a510ad05"),
    "tag_info.bin": (27, "d99af1e2e22e5dd3910b48429706cf5d87c68a553ddce1cb95c60857719ecd81"),
    "system_metrics.bin": (208, "0cd6f0cc24dbfbd39a6b6a3fefe3dbce5ecc85e922dd79e146c11b0bb99f55c0"),
}

TRACEBACK = (
    'Traceback (most recent call last):\n  File "train.py", line 12, in load\nRuntimeError: CUDA out of memory\n'
)
PROCESS_END = ProcessEnd("exception", T0, "RuntimeError", "CUDA out of memory", TRACEBACK, "", "loader", 1204)

# The WAV the writer made of [0, 0.5, -0.5, 1, -1, 0.25] at 8 kHz: 16-bit PCM, mono.
WAV = (
    b"RIFF0\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00\x80>\x00\x00\x02\x00\x10\x00"
    b"data\x0c\x00\x00\x00" + struct.pack("<6h", 0, 16383, -16383, 32767, -32767, 8191)
)
# Labels [1, 0, 1, 1, 0], predictions [0.9, 0.1, 0.6, 0.4, 0.7], 3 thresholds.
THRESHOLDS = [0.0, 0.5, 1.0]
TP, FP, TN, FN = [3.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 1.0, 2.0], [0.0, 1.0, 3.0]
PRECISION, RECALL = [0.6, 2 / 3, 0.0], [1.0, 2 / 3, 0.0]
TPR, FPR = [1.0, 2 / 3, 0.0], [1.0, 0.5, 0.0]
VECTORS = [[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]]
LAYOUT = (
    LayoutCategory(
        "losses", (LayoutChart("both", multiline=("loss/.*",)), LayoutChart("band", margin=(("m", "lo", "hi"),)))
    ),
)

SYSTEM_METRICS = (
    SystemMetric("rss", "process", "bytes"),
    SystemMetric("cpu", "host", "percent"),
    SystemMetric("utilization", "gpu", "percent", 1, "NVIDIA A100-SXM4-80GB", "GPU-0001"),
)
SYSTEM_VALUES = [[1.5e9, 12.5, 97.0], [1.625e9, 25.0, float("nan")]]


def _f8(values: list[float]) -> bytes:
    return struct.pack(f"<{len(values)}d", *values)


#: Each record as it must decode, built field by field from the values above.
EXPECTED: dict[str, pb.Record] = {
    "audio": pb.Record(
        audio=pb.Audio(tag="sound", step=3, wall_time=T0, sample_rate=8000, length_frames=6, channels=1, wav=WAV)
    ),
    "pr_curve": pb.Record(
        pr_curve=pb.PrCurve(
            tag="pr",
            step=4,
            wall_time=T0,
            thresholds=_f8(THRESHOLDS),
            tp=_f8(TP),
            fp=_f8(FP),
            tn=_f8(TN),
            fn=_f8(FN),
            precision=_f8(PRECISION),
            recall=_f8(RECALL),
        )
    ),
    "roc_curve": pb.Record(
        roc_curve=pb.RocCurve(
            tag="roc",
            step=5,
            wall_time=T0,
            thresholds=_f8(THRESHOLDS),
            tp=_f8(TP),
            fp=_f8(FP),
            tn=_f8(TN),
            fn=_f8(FN),
            tpr=_f8(TPR),
            fpr=_f8(FPR),
        )
    ),
    "hparams": pb.Record(
        hparams=pb.HParams(
            wall_time=T0,
            values=[
                pb.HParamValue(name="lr", float_value=0.125),
                pb.HParamValue(name="layers", int_value=3),
                pb.HParamValue(name="optimizer", string_value="adam"),
                pb.HParamValue(name="bn", bool_value=True),
            ],
            metrics=["acc", "loss"],
        )
    ),
    "embeddings": pb.Record(
        embeddings=pb.Embeddings(
            tag="emb",
            wall_time=T0,
            rows=3,
            dimension=2,
            metadata_header=["letter", "other"],
            metadata=["a", "x", "b", "y", "c", "z"],
            vectors=np.array(VECTORS, "<f4").tobytes(),
        )
    ),
    "scalar_layout": pb.Record(
        scalar_layout=pb.ScalarLayout(
            wall_time=T0,
            categories=[
                pb.LayoutCategory(
                    title="losses",
                    charts=[
                        pb.LayoutChart(title="both", multiline=pb.MultilineChart(tags=["loss/.*"])),
                        pb.LayoutChart(
                            title="band",
                            margin=pb.MarginChart(series=[pb.MarginSeries(value="m", lower="lo", upper="hi")]),
                        ),
                    ],
                )
            ],
        )
    ),
    "meta": pb.Record(meta=pb.Meta(wall_time=T0, display_name="golden run")),
    "process_end": pb.Record(
        process_end=pb.ProcessEnd(
            how="exception",
            wall_time=T0,
            exception_type="RuntimeError",
            message="CUDA out of memory",
            traceback=TRACEBACK,
            thread="loader",
            last_step=1204,
        )
    ),
    "tag_info": pb.Record(tag_info=pb.TagInfo(tag="loss", replicated=True)),
    # A clean work tree: git_dirty set, and false.
    "provenance": pb.Record(
        provenance=pb.Provenance(
            wall_time=T0,
            argv=["train.py", "--lr", "0.1"],
            executable="/usr/bin/python3",
            cwd="/home/user/project",
            python="3.11.7 (CPython)",
            git_commit="0123456789abcdef0123456789abcdef01234567",
            git_branch="main",
            git_dirty=False,
            packages={"torch": "2.3.1"},
        )
    ),
    "system_metrics": pb.Record(
        system_metrics=pb.SystemMetrics(
            metrics=[
                pb.SystemMetric(name="rss", scope="process", unit="bytes"),
                pb.SystemMetric(name="cpu", scope="host", unit="percent"),
                pb.SystemMetric(
                    name="utilization",
                    scope="gpu",
                    unit="percent",
                    gpu_index=1,
                    gpu_name="NVIDIA A100-SXM4-80GB",
                    gpu_uuid="GPU-0001",
                ),
            ],
            wall_times=_f8([T0, T0 + 5.0]),
            values=_f8([v for row in SYSTEM_VALUES for v in row]),
            skipped=["no pynvml"],
        )
    ),
}

PR_COLUMNS = {
    "thresholds": THRESHOLDS,
    "tp": TP,
    "fp": FP,
    "tn": TN,
    "fn": FN,
    "precision": PRECISION,
    "recall": RECALL,
}
ROC_COLUMNS = {"thresholds": THRESHOLDS, "tp": TP, "fp": FP, "tn": TN, "fn": FN, "tpr": TPR, "fpr": FPR}


def _columns(values: dict[str, list[float]]) -> dict[str, np.ndarray]:
    return {name: np.array(column) for name, column in values.items()}


def _provenance_record() -> pb.Record:
    """The record as the SDK builds it today (``sdk/_provenance.py``) for the process the
    golden one describes, at ``T0``."""
    process = EXPECTED["provenance"].provenance
    with (
        mock.patch.object(_provenance, "_cached", (process, os.getpid())),
        mock.patch.object(_provenance, "time", SimpleNamespace(time=lambda: T0)),
    ):
        return _provenance.provenance_record()


#: Today's encoders, given the values the writers were given.
ENCODED: dict[str, Any] = {
    "audio": lambda: encode_audio("sound", 3, T0, WAV, 8000, 6, 1),
    "pr_curve": lambda: encode_pr_curve("pr", 4, T0, _columns(PR_COLUMNS)),
    "roc_curve": lambda: encode_roc_curve("roc", 5, T0, _columns(ROC_COLUMNS)),
    "hparams": lambda: encode_hparams(T0, {"lr": 0.125, "layers": 3, "optimizer": "adam", "bn": True}, ["acc", "loss"]),
    "embeddings": lambda: encode_embeddings(
        "emb", 0, T0, np.array(VECTORS, np.float32), ["letter", "other"], ["a", "x", "b", "y", "c", "z"]
    ),
    "scalar_layout": lambda: encode_scalar_layout(T0, LAYOUT),
    "meta": lambda: encode_meta(T0, "golden run"),
    "process_end": lambda: encode_process_end(PROCESS_END),
    "tag_info": lambda: encode_tag_info("loss", replicated=True),
    "provenance": _provenance_record,
    "system_metrics": lambda: encode_system_metrics(
        np.array([T0, T0 + 5.0]), np.array(SYSTEM_VALUES), SYSTEM_METRICS, ("no pynvml",)
    ),
}


def _golden(kind: str) -> bytes:
    with open(os.path.join(DATA, f"{kind}.bin"), "rb") as f:
        return f.read()


def test_format_golden_kinds_fixture_files_are_the_committed_ones():
    found = {}
    for name in sorted(os.listdir(DATA)):
        data = _golden(name.removesuffix(".bin"))
        found[name] = (len(data), hashlib.sha256(data).hexdigest())
    assert found == FILES, "tests/data/format_v1_later_kinds was changed: restore it from git, never regenerate it"


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_format_golden_kinds_record_framing(kind):
    record = _golden(kind)
    payload = _unframe(record)  # every framing byte checked by an independent CRC-32C
    assert list(framing.scan(record)) == [framing.Frame(0, payload), len(record)]
    assert framing.frame(payload) == record


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_format_golden_kinds_record_decodes_field_by_field(kind):
    record = parse_record(_unframe(_golden(kind)))
    assert record.WhichOneof("kind") == kind
    assert record == EXPECTED[kind]


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_format_golden_kinds_record_is_written_again_byte_for_byte(kind):
    assert framing.frame(EXPECTED[kind].SerializeToString()) == _golden(kind)
    assert framing.frame(ENCODED[kind]().SerializeToString()) == _golden(kind)


def test_format_golden_kinds_events_decode_to_the_logged_values():
    def decode(kind: str) -> list[tuple[str, Any]]:
        message = getattr(parse_record(_unframe(_golden(kind))), kind)
        return KIND_BY_FIELD[kind].decode(message, "golden", 0)

    ((tag, audio),) = decode("audio")
    assert (tag, audio.step, audio.wall_time, audio.sample_rate, audio.length_frames, audio.channels, audio.size) == (
        "sound",
        3,
        T0,
        8000,
        6,
        1,
        len(WAV),
    )
    for kind, last in (("pr_curve", (PRECISION, RECALL)), ("roc_curve", (TPR, FPR))):
        ((tag, curve),) = decode(kind)
        step = 4 if kind == "pr_curve" else 5
        assert (tag, curve.step, curve.wall_time, curve.thresholds.tolist()) == (kind[:-6], step, T0, THRESHOLDS)
        assert (curve.tp.tolist(), curve.fp.tolist(), curve.tn.tolist(), curve.fn.tolist()) == (TP, FP, TN, FN)
        ends = (curve.precision, curve.recall) if kind == "pr_curve" else (curve.tpr, curve.fpr)
        assert [e.tolist() for e in ends] == list(last)
    ((_, hparams),) = decode("hparams")
    assert hparams.hparams == {"lr": 0.125, "layers": 3, "optimizer": "adam", "bn": True}
    assert [type(v) for v in hparams.hparams.values()] == [float, int, str, bool]
    assert (hparams.wall_time, hparams.metrics) == (T0, ("acc", "loss"))
    ((tag, emb),) = decode("embeddings")
    assert (tag, emb.step, emb.wall_time, emb.rows, emb.dimension) == ("emb", 0, T0, 3, 2)
    assert (emb.metadata_header, emb.metadata) == (("letter", "other"), (("a", "x"), ("b", "y"), ("c", "z")))
    ((_, layout),) = decode("scalar_layout")
    assert (layout.wall_time, layout.categories) == (T0, LAYOUT)


def test_format_golden_kinds_process_end_decodes_to_the_recorded_end():
    message = parse_record(_unframe(_golden("process_end"))).process_end
    assert decode_process_end(message) == PROCESS_END


def test_format_golden_kinds_process_end_event_decodes_field_by_field():
    record = _golden("process_end_event")
    payload = _unframe(record)
    assert list(framing.scan(record)) == [framing.Frame(0, payload), len(record)]
    expected = pb.Record()
    expected.CopyFrom(EXPECTED["process_end"])
    expected.process_end.event = True
    assert parse_record(payload) == expected
    assert framing.frame(expected.SerializeToString()) == record
    assert framing.frame(encode_process_end(PROCESS_END, event=True).SerializeToString()) == record


def test_format_golden_kinds_process_end_event_is_the_end_record_and_one_field_more():
    """What a reader older than the flag reads: the process-end record it knows, the flag an
    unknown field it skips (so it takes the last record as the end, as before)."""
    event = parse_record(_unframe(_golden("process_end_event"))).process_end
    assert event.event is True
    event.event = False
    assert event == parse_record(_unframe(_golden("process_end"))).process_end
    assert decode_process_end(event) == PROCESS_END


def test_format_golden_kinds_process_end_event_is_kept_as_an_event_by_the_decoder():
    from visualdl._formats.vdlog.decoder import RecordDecoder

    decoder = RecordDecoder()
    assert decoder.decode("golden", [(0, parse_record(_unframe(_golden("process_end_event"))))]) == []
    assert decoder.writer.end is None
    assert decoder.writer.events == (PROCESS_END,)


def test_format_golden_kinds_tag_info_is_kept_by_the_decoder():
    from visualdl._formats.vdlog.decoder import RecordDecoder

    decoder = RecordDecoder()
    assert decoder.decode("golden", [(0, parse_record(_unframe(_golden("tag_info"))))]) == []
    assert decoder.writer.tag_info == {"loss": True}


def test_format_golden_kinds_provenance_is_kept_by_the_decoder():
    from visualdl._formats.vdlog.decoder import RecordDecoder

    decoder = RecordDecoder()
    assert decoder.decode("golden", [(0, parse_record(_unframe(_golden("provenance"))))]) == []
    kept = decoder.writer.provenance
    assert kept is not None and kept == EXPECTED["provenance"].provenance
    assert (kept.wall_time, list(kept.argv), dict(kept.packages)) == (
        T0,
        ["train.py", "--lr", "0.1"],
        {"torch": "2.3.1"},
    )
    assert kept.HasField("git_dirty") and kept.git_dirty is False  # known clean, not unknown


def test_format_golden_kinds_system_metrics_decode_to_the_sampled_values():
    message = parse_record(_unframe(_golden("system_metrics"))).system_metrics
    batch = decode_system_metrics(message, (), "golden", 0)
    assert (batch.metrics, batch.skipped, batch.wall_times.tolist()) == (SYSTEM_METRICS, ("no pynvml",), [T0, T0 + 5])
    np.testing.assert_array_equal(batch.values, np.array(SYSTEM_VALUES))
