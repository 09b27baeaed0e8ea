"""The histograms kind: the buckets of a tensor's finite values and counts of the rest,
as float64 columns (one numpy call each way, whatever the number of buckets)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Required, TypedDict

import numpy as np

from visualdl._kinds.float64 import F8
from visualdl._kinds.kind import Kind
from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = ["KIND", "HistogramEvent", "HistogramStats", "check_finite", "encode_histogram"]


@dataclass(frozen=True, slots=True)
class HistogramEvent:
    """A histogram of the finite values; ``edges`` has one more element than ``counts``."""

    step: int
    wall_time: float
    edges: np.ndarray
    counts: np.ndarray
    min: float
    max: float
    sum: float
    sum_squares: float
    count: int
    nan_count: int
    pos_inf_count: int
    neg_inf_count: int

    @property
    def finite_range(self) -> tuple[float, float] | None:
        """``(min, max)`` of the finite values; None when there are none (NaN and
        infinities only), where the record stores no min and max and ``min`` and
        ``max`` read as 0.0."""
        return (self.min, self.max) if self.count else None


class HistogramStats(TypedDict, total=False):
    """The statistics of a histogram's values, as its record stores them (min to
    sum_squares only when there are finite values)."""

    count: Required[int]
    nan_count: Required[int]
    pos_inf_count: Required[int]
    neg_inf_count: Required[int]
    min: float
    max: float
    sum: float
    sum_squares: float


def encode_histogram(
    tag: str, step: int, wall_time: float, edges: np.ndarray, counts: np.ndarray, stats: HistogramStats
) -> pb.Record:
    hist = pb.Histogram(
        tag=tag,
        step=step,
        wall_time=wall_time,
        edges=np.ascontiguousarray(edges, F8).tobytes(),
        counts=np.ascontiguousarray(counts, F8).tobytes(),
        **stats,
    )
    return pb.Record(histogram=hist)


def check_finite(edges: np.ndarray, counts: np.ndarray) -> None:
    """:class:`LogFormatError` unless every edge and count is finite (a writer bins finite
    values only; a crafted or damaged record may hold NaN or an infinity)."""
    if not (np.isfinite(edges).all() and np.isfinite(counts).all()):
        bad = [float(x) for x in (*edges.tolist(), *counts.tolist()) if not np.isfinite(x)]
        raise LogFormatError(f"histogram with edges or counts that are not finite ({bad[0]!r})")


def _decode_histogram(msg: pb.Histogram, path: str, offset: int) -> list[tuple[str, HistogramEvent]]:
    if len(msg.edges) % 8 or len(msg.counts) % 8:
        raise LogFormatError(f"histogram {msg.tag!r}: edges or counts not a whole number of float64")
    edges = np.frombuffer(msg.edges, F8).astype(np.float64)
    counts = np.frombuffer(msg.counts, F8).astype(np.float64)
    # No finite value at all: no buckets, only the non-finite counts.
    if edges.size != counts.size + 1 and not (edges.size == 0 and counts.size == 0):
        raise LogFormatError(f"histogram {msg.tag!r}: {edges.size} edges for {counts.size} counts")
    check_finite(edges, counts)
    event = HistogramEvent(
        msg.step, msg.wall_time, edges, counts, msg.min, msg.max, msg.sum, msg.sum_squares,
        msg.count, msg.nan_count, msg.pos_inf_count, msg.neg_inf_count,
    )  # fmt: skip
    return [(msg.tag, event)]


KIND = Kind(
    "histograms",
    "histogram",
    _decode_histogram,
    event=HistogramEvent,
    encode=encode_histogram,
    storage="events",
    title="Histograms",
)
