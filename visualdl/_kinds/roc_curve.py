"""The ROC curves kind: true and false positive rates per threshold, with the confusion
counts they come from, as float64 columns of one length."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from visualdl._kinds.float64 import float64_bytes, float64_columns
from visualdl._kinds.kind import Kind
from visualdl.proto import pb

__all__ = ["KIND", "ROC_CURVE_COLUMNS", "RocCurveEvent", "encode_roc_curve"]

#: The columns of an ROC curve record, in their field order.
ROC_CURVE_COLUMNS = ("thresholds", "tp", "fp", "tn", "fn", "tpr", "fpr")


@dataclass(frozen=True, slots=True)
class RocCurveEvent:
    """An ROC curve: one element per threshold in every array (float64)."""

    step: int
    wall_time: float
    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    tn: np.ndarray
    fn: np.ndarray
    tpr: np.ndarray
    fpr: np.ndarray


def encode_roc_curve(tag: str, step: int, wall_time: float, columns: dict[str, np.ndarray]) -> pb.Record:
    """``columns``: the arrays of :data:`ROC_CURVE_COLUMNS` by name, one element per threshold."""
    curve = pb.RocCurve(tag=tag, step=step, wall_time=wall_time, **float64_bytes(columns, ROC_CURVE_COLUMNS))
    return pb.Record(roc_curve=curve)


def _decode_roc_curve(msg: pb.RocCurve, path: str, offset: int) -> list[tuple[str, RocCurveEvent]]:
    columns = float64_columns(msg, ROC_CURVE_COLUMNS, f"ROC curve {msg.tag!r}")
    return [(msg.tag, RocCurveEvent(msg.step, msg.wall_time, *columns))]


KIND = Kind(
    "roc_curves",
    "roc_curve",
    _decode_roc_curve,
    event=RocCurveEvent,
    encode=encode_roc_curve,
    storage="events",
    title="ROC curves",
)
