"""Histograms re-binned onto an even grid for display. Pure numpy.

Writers bucket values unevenly: torch's and TensorFlow's default buckets grow
exponentially away from 0 (hundreds of them, the narrowest under 1e-12 wide), so a
bucket's count says little about the values' density, and a chart of the buckets as
written shows uniform values as a V (counts) or a spike at 0 (densities). Like
TensorBoard, the charts draw the buckets re-binned onto ``bins`` equal bins, taking the
values as spread evenly within each bucket as written: the cumulative count is
interpolated linearly across a bucket and read at the new edges. A bucket of zero width
(values all equal) is a point: its count goes whole to the bin holding it (bins are
``[a, b)``, the last ``[a, b]``).

Only what is drawn is re-binned: the API without ``bins`` and :class:`LogReader` give
the buckets as written.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from visualdl._kinds.table import HistogramEvent

__all__ = ["DEFAULT_BINS", "MAX_BINS", "even_grid", "prepared", "rebin", "rebin_events"]

#: The bins a chart draws (TensorBoard's number).
DEFAULT_BINS = 30
#: Bins asked for at most.
MAX_BINS = 1000

_HUGE = np.finfo(np.float64).max


def prepared(
    edges: ArrayLike, counts: ArrayLike, low: float | None = None, high: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The buckets that hold values, their outer edges made drawable.

    Empty buckets at either end are dropped. When ``low`` and ``high`` (the values' min and
    max) lie in the first and last of the buckets left, those are cut to them: no value
    lies beyond (and an outer edge of ``±inf`` or ``±DBL_MAX``, TensorFlow's first and
    last bucket limits, becomes the value there). Otherwise such an edge is replaced by
    its bucket's other edge, making the bucket a point. Edges that decrease (a damaged
    record) are taken as their running maximum, counts below 0 as 0. ``(empty, empty)``
    when no bucket holds a value; ``ValueError`` for an inner edge that is not finite.
    """
    edges = np.asarray(edges, np.float64)
    counts = np.asarray(counts, np.float64)
    if edges.size != counts.size + 1 and not (edges.size == 0 and counts.size == 0):
        raise ValueError(f"{edges.size} edges for {counts.size} counts: a histogram has one edge more than counts")
    counts = np.where(counts > 0, counts, 0.0)  # NaN or below 0 (a damaged record): nothing
    held = np.flatnonzero(counts)
    if held.size == 0:
        return np.empty(0), np.empty(0)
    first, last = int(held[0]), int(held[-1])
    edges = edges[first : last + 2].copy()
    counts = counts[first : last + 1]
    if not np.isfinite(edges[1:-1]).all():
        raise ValueError(f"histogram edges must be finite but for the outermost two; got {edges[:8].tolist()!r}")
    outer = ~np.isfinite(edges) | (np.abs(edges) >= _HUGE)
    cut = False
    if low is not None and high is not None and np.isfinite(low) and np.isfinite(high) and low <= high:
        fits_low = (outer[0] or edges[0] <= low) and (outer[1] or low <= edges[1])
        fits_high = (outer[-2] or edges[-2] <= high) and (outer[-1] or high <= edges[-1])
        if fits_low and fits_high:
            edges[0], edges[-1] = low, high
            outer[0] = outer[-1] = False
            cut = True
    if outer[0]:
        edges[0] = edges[1]
    if outer[-1]:
        edges[-1] = edges[-2]
    if not np.isfinite(edges).all():  # one bucket from -inf to inf, and no min and max
        raise ValueError("a histogram of one bucket without a finite edge has no place to be drawn")
    edges = np.maximum.accumulate(edges)
    if cut:
        edges = np.clip(edges, low, high)
    return edges, counts


def even_grid(low: float, high: float, bins: int) -> np.ndarray:
    """``bins + 1`` evenly spaced edges from ``low`` to ``high`` (both exact); a single value
    ``x`` gets a range around it (``x ± |x| / 10``, or ``± 1`` for 0)."""
    if not 1 <= bins <= MAX_BINS:
        raise ValueError(f"bins must be from 1 to {MAX_BINS}; got {bins!r}")
    if not (np.isfinite(low) and np.isfinite(high) and low <= high):
        raise ValueError(f"the grid's range must be finite and increasing; got {low!r} to {high!r}")
    if low == high:
        pad = abs(low) / 10 or 1.0
        low, high = max(low - pad, -_HUGE), min(high + pad, _HUGE)
    t = np.arange(bins + 1, dtype=np.float64) / bins
    # low * (1 - t) + high * t: no overflow where high - low would pass the largest float.
    grid: np.ndarray = np.maximum.accumulate(np.clip(low * (1 - t) + high * t, low, high))
    grid[0], grid[-1] = low, high
    return grid


def rebin(edges: ArrayLike, counts: ArrayLike, grid: ArrayLike) -> np.ndarray:
    """The counts of the buckets ``edges``/``counts`` on the bins of ``grid`` (increasing edges).

    The values are taken as spread evenly within each bucket, a zero-width bucket as a
    point in the bin holding it. Counts beyond the grid go to its first or last bin, so
    the total is kept (up to rounding, 1e-12 of it). No loop over buckets: the cumulative
    count at each edge of the grid by one ``searchsorted``.
    """
    edges, counts = prepared(edges, counts)
    grid = np.asarray(grid, np.float64)
    if grid.ndim != 1 or grid.size < 2 or not (np.diff(grid) >= 0).all():
        raise ValueError(f"the grid must be at least two edges that do not decrease; got {grid[:8].tolist()!r}")
    bins = grid.size - 1
    if counts.size == 0:
        return np.zeros(bins)
    cumulative = np.concatenate(([0.0], np.cumsum(counts)))
    total = cumulative[-1]
    # Below each inner edge g of the grid: whole buckets up to the last one starting before g,
    # and of that bucket k (edges[k] < g <= edges[k + 1], so it is not of zero width) the
    # share left of g. A point at g is not below it: it goes to the bin starting at g.
    inner = grid[1:-1]
    k = np.searchsorted(edges, inner, side="left") - 1
    within = (k >= 0) & (k < counts.size)
    kk = np.clip(k, 0, counts.size - 1)
    # Halved where differences of edges near the largest float would overflow.
    scale = 0.5 if max(abs(edges[0]), abs(edges[-1]), abs(grid[0]), abs(grid[-1])) > _HUGE / 4 else 1.0
    left, width = edges[kk] * scale, edges[kk + 1] * scale - edges[kk] * scale
    share = np.divide(inner * scale - left, width, out=np.ones(inner.size), where=within & (width > 0))
    share = np.clip(share, 0.0, 1.0)
    below = np.where(k < 0, 0.0, np.where(within, cumulative[kk] + counts[kk] * share, total))
    return np.diff(np.concatenate(([0.0], below, [total])))


def rebin_events(events: Sequence[HistogramEvent], bins: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """One even grid of ``bins`` bins for all of ``events`` (from the lowest to the highest
    value any of them holds), and each one's counts on it; an event without finite values
    gets no counts (an empty array). The grid is empty when no event has a value."""
    held = [prepared(e.edges, e.counts, *(e.finite_range or (None, None))) for e in events]
    spans = [(float(edges[0]), float(edges[-1])) for edges, counts in held if counts.size]
    if not spans:
        return np.empty(0), [np.empty(0) for _ in events]
    grid = even_grid(min(lo for lo, _ in spans), max(hi for _, hi in spans), bins)
    return grid, [rebin(edges, counts, grid) if counts.size else np.empty(0) for edges, counts in held]
