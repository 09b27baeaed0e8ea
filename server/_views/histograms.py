"""The answer of ``/api/histograms``: histograms of one tag, spread evenly over the steps."""

from __future__ import annotations

from typing import Any, TypedDict

from visualdl._kinds.table import HistogramEvent

__all__ = ["HistogramsAnswer", "histogram_json", "histograms_answer"]


class HistogramsAnswer(TypedDict):
    run: str
    tag: str
    total_entries: int
    entries: list[dict[str, Any]]


def histogram_json(h: HistogramEvent) -> dict[str, Any]:
    return {
        "step": h.step,
        "wall_time": h.wall_time,
        "edges": h.edges.tolist(),
        "counts": h.counts.tolist(),
        # No finite values (all NaN or infinite): no range, not min = max = 0.
        "min": None if h.finite_range is None else h.finite_range[0],
        "max": None if h.finite_range is None else h.finite_range[1],
        "sum": h.sum,
        "count": h.count,
        "nan_count": h.nan_count,
        "pos_inf_count": h.pos_inf_count,
        "neg_inf_count": h.neg_inf_count,
    }


def histograms_answer(run: str, tag: str, chosen: list[HistogramEvent], total: int) -> HistogramsAnswer:
    return {"run": run, "tag": tag, "total_entries": total, "entries": [histogram_json(h) for h in chosen]}
