"""The kinds added after the first release of format version 1: each encoder's record
decodes to the event it describes, and inconsistent records are refused."""

from __future__ import annotations

import numpy as np
import pytest

from visualdl._kinds import table as _kinds
from visualdl._kinds.table import (
    KIND_BY_FIELD,
    LayoutCategory,
    LayoutChart,
    encode_audio,
    encode_embeddings,
    encode_hparams,
    encode_pr_curve,
    encode_roc_curve,
    encode_scalar_layout,
)
from visualdl.errors import LogFormatError
from visualdl.proto import pb


def _decode(record: pb.Record) -> list:
    field = record.WhichOneof("kind")
    again = pb.Record.FromString(record.SerializeToString())
    return KIND_BY_FIELD[field].decode(getattr(again, field), "f", 7)


def test_kinds_audio_round_trip():
    ((tag, event),) = _decode(encode_audio("a", 3, 1.5, b"RIFFxxxx", 16000, 2, 1))
    assert tag == "a"
    assert (event.step, event.wall_time, event.sample_rate) == (3, 1.5, 16000)
    assert (event.length_frames, event.channels) == (2, 1)
    assert (event.size, event.ref) == (8, _kinds.RecordRef("f", 7))


@pytest.mark.parametrize("kind", ["pr", "roc"])
def test_kinds_curves_round_trip(kind):
    names = _kinds.PR_CURVE_COLUMNS if kind == "pr" else _kinds.ROC_CURVE_COLUMNS
    columns = {name: np.arange(3, dtype=float) + i for i, name in enumerate(names)}
    encode = encode_pr_curve if kind == "pr" else encode_roc_curve
    ((tag, event),) = _decode(encode("c", 2, 9.0, columns))
    assert (tag, event.step, event.wall_time) == ("c", 2, 9.0)
    for name in names:
        assert getattr(event, name).tolist() == columns[name].tolist()


def test_kinds_curve_with_ragged_columns_is_refused():
    record = encode_pr_curve("c", 0, 0.0, {name: np.zeros(3) for name in _kinds.PR_CURVE_COLUMNS})
    record.pr_curve.recall = np.zeros(2).tobytes()
    with pytest.raises(LogFormatError, match="different lengths"):
        _decode(record)


def test_kinds_hparams_keep_their_types():
    values: dict[str, int | float | str | bool] = {"lr": 0.1, "layers": 3, "opt": "sgd", "bn": True, "big": -(2**62)}
    ((tag, event),) = _decode(encode_hparams(5.0, values, ["acc", "loss"]))
    assert tag == _kinds.HPARAMS_TAG
    assert event.hparams == values
    assert [type(v) for v in event.hparams.values()] == [float, int, str, bool, int]
    assert event.metrics == ("acc", "loss")


def test_kinds_embeddings_round_trip_and_refuse_short_vectors():
    vectors = np.arange(6, dtype=np.float32).reshape(3, 2)
    record = encode_embeddings("e", 0, 1.0, vectors, ["a", "b"], ["1", "x", "2", "y", "3", "z"])
    ((tag, event),) = _decode(record)
    assert (tag, event.rows, event.dimension, event.metadata_header) == ("e", 3, 2, ("a", "b"))
    assert event.metadata == (("1", "x"), ("2", "y"), ("3", "z"))
    record.embeddings.vectors = record.embeddings.vectors[:-4]
    with pytest.raises(LogFormatError, match="bytes of vectors"):
        _decode(record)


def test_kinds_scalar_layout_round_trip():
    categories = (
        LayoutCategory("loss", (LayoutChart("all", multiline=("train/.*", "eval/loss")),)),
        LayoutCategory("acc", (LayoutChart("band", margin=(("acc", "acc_lo", "acc_hi"),)),), closed=True),
    )
    ((tag, event),) = _decode(encode_scalar_layout(4.0, categories))
    assert (tag, event.wall_time, event.categories) == (_kinds.SCALAR_LAYOUT_TAG, 4.0, categories)
