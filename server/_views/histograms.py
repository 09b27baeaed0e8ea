"""The answer of ``/api/histograms``: histograms of one tag, spread evenly over the steps,
their buckets as written or re-binned onto one even grid (:mod:`visualdl.server._rebin`)."""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np

from visualdl._kinds.table import HistogramEvent
from visualdl.server._rebin import rebin_events

__all__ = ["HistogramsAnswer", "histogram_json", "histograms_answer"]


class HistogramsAnswer(TypedDict):
    run: str
    tag: str
    total_entries: int
    bins: int | None
    entries: list[dict[str, Any]]


def histogram_json(
    h: HistogramEvent, edges: np.ndarray | None = None, counts: np.ndarray | None = None
) -> dict[str, Any]:
    """One entry: its buckets as written, or ``edges`` and ``counts`` (re-binned) instead."""
    return {
        "step": h.step,
        "wall_time": h.wall_time,
        "edges": (h.edges if edges is None else edges).tolist(),
        "counts": (h.counts if counts is None else counts).tolist(),
        # No finite values (all NaN or infinite): no range, not min = max = 0.
        "min": None if h.finite_range is None else h.finite_range[0],
        "max": None if h.finite_range is None else h.finite_range[1],
        "sum": h.sum,
        "count": h.count,
        "nan_count": h.nan_count,
        "pos_inf_count": h.pos_inf_count,
        "neg_inf_count": h.neg_inf_count,
    }


def histograms_answer(
    run: str, tag: str, chosen: list[HistogramEvent], total: int, bins: int | None = None
) -> HistogramsAnswer:
    """The answer; with ``bins``, every entry's buckets re-binned onto one grid of that many even
    bins over the values of all of them (an entry without finite values keeps no buckets)."""
    if bins is None:
        entries = [histogram_json(h) for h in chosen]
    else:
        grid, counts = rebin_events(chosen, bins)
        entries = [histogram_json(h, grid if c.size else c, c) for h, c in zip(chosen, counts, strict=True)]
    return {"run": run, "tag": tag, "total_entries": total, "bins": bins, "entries": entries}
