"""The PR curves kind: precision and recall per threshold, with the confusion counts they
come from, as float64 columns of one length."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from visualdl._kinds.float64 import float64_bytes, float64_columns
from visualdl._kinds.kind import Kind
from visualdl.proto import pb

__all__ = ["KIND", "PR_CURVE_COLUMNS", "PrCurveEvent", "encode_pr_curve"]

#: The columns of a PR curve record, in their field order.
PR_CURVE_COLUMNS = ("thresholds", "tp", "fp", "tn", "fn", "precision", "recall")


@dataclass(frozen=True, slots=True)
class PrCurveEvent:
    """A precision-recall curve: one element per threshold in every array (float64)."""

    step: int
    wall_time: float
    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    tn: np.ndarray
    fn: np.ndarray
    precision: np.ndarray
    recall: np.ndarray


def encode_pr_curve(tag: str, step: int, wall_time: float, columns: dict[str, np.ndarray]) -> pb.Record:
    """``columns``: the arrays of :data:`PR_CURVE_COLUMNS` by name, one element per threshold."""
    curve = pb.PrCurve(tag=tag, step=step, wall_time=wall_time, **float64_bytes(columns, PR_CURVE_COLUMNS))
    return pb.Record(pr_curve=curve)


def _decode_pr_curve(msg: pb.PrCurve, path: str, offset: int) -> list[tuple[str, PrCurveEvent]]:
    columns = float64_columns(msg, PR_CURVE_COLUMNS, f"PR curve {msg.tag!r}")
    return [(msg.tag, PrCurveEvent(msg.step, msg.wall_time, *columns))]


KIND = Kind(
    "pr_curves",
    "pr_curve",
    _decode_pr_curve,
    event=PrCurveEvent,
    encode=encode_pr_curve,
    storage="events",
    title="PR curves",
)
