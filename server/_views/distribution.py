"""Percentile bands of histograms over steps (the "distribution" view). Pure numpy.

The percentiles are TensorBoard's: the normal distribution's -inf, -1.5, -1, -0.5, 0,
+0.5, +1, +1.5, +inf sigma points (0, 6.68, 15.87, 30.85, 50, 69.15, 84.13, 93.32 and
100 percent). Within a bucket, values are taken as spread evenly (linear
interpolation of the cumulative counts); 0 and 100 are the exact min and max.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

import numpy as np

from visualdl._kinds.table import HistogramEvent

__all__ = ["PERCENTILES", "DistributionAnswer", "distribution_answer", "percentile_bands", "percentiles_of"]

PERCENTILES = [0.0, 6.68, 15.87, 30.85, 50.0, 69.15, 84.13, 93.32, 100.0]


def percentiles_of(event: HistogramEvent, percentiles: Sequence[float] = PERCENTILES) -> np.ndarray:
    """Approximate ``percentiles`` (0..100) of the finite values behind one histogram; NaN if none."""
    counts, edges = event.counts, event.edges
    total = float(counts.sum()) if counts.size else 0.0
    if total <= 0:
        return np.full(len(percentiles), np.nan)
    cumulative = np.concatenate(([0.0], np.cumsum(counts)))
    targets = np.asarray(percentiles, np.float64) / 100.0 * total
    # np.interp over the cumulative counts: the value below which `target` values lie.
    # Zero-count buckets make flat stretches; interp picks the first edge reaching the target.
    out = np.interp(targets, cumulative, edges)
    out[np.asarray(percentiles) <= 0] = event.min
    out[np.asarray(percentiles) >= 100] = event.max
    clipped: np.ndarray = np.clip(out, event.min, event.max)
    return clipped


def percentile_bands(events: Sequence[HistogramEvent]) -> tuple[list[float], np.ndarray]:
    """``(PERCENTILES, array of shape (len(events), len(PERCENTILES)))``."""
    if not events:
        return PERCENTILES, np.empty((0, len(PERCENTILES)))
    return PERCENTILES, np.stack([percentiles_of(e) for e in events])


class DistributionAnswer(TypedDict):
    run: str
    tag: str
    steps: list[int]
    wall_times: list[float]
    percentiles: list[float]
    bands: list[list[float | None]]


def distribution_answer(run: str, tag: str, events: Sequence[HistogramEvent]) -> DistributionAnswer:
    """The answer of ``/api/distribution``: per step, the percentile bands (null where none)."""
    percentiles, bands = percentile_bands(events)
    return {
        "run": run,
        "tag": tag,
        "steps": [e.step for e in events],
        "wall_times": [e.wall_time for e in events],
        "percentiles": percentiles,
        "bands": [[v if np.isfinite(v) else None for v in row] for row in bands.tolist()],
    }
