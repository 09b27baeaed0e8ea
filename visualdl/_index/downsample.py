"""Downsampling of scalar series that never hides a spike. Pure functions, no I/O.

Contract of :func:`downsample`: given points ordered by step and a budget of
``max_points``, return the indices of at most ``max_points`` points such that

* with ``max_points >= len(series)`` (after the x range), every point is kept;
* otherwise the points are cut into ``max_points // 5`` consecutive buckets of (nearly)
  equal numbers of points, and of every bucket are kept its first and last points, the
  point of its minimum and of its maximum value (the first such point on ties; NaN
  ignored; +Inf counts as a maximum, -Inf as a minimum) and its first NaN point, if any;
* the series' first and last points (in the range) are always kept;
* indices come back sorted and unique.

So no spike is ever lost, whatever the budget; a zoomed-in range gets up to
``max_points`` points of that range, reaching full resolution. Deterministic: the same
input gives the same output. Every step is a numpy operation over the whole array
(O(n)), no Python loop per point.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["PICKS_PER_BUCKET", "downsample", "select_range"]

#: Points kept per bucket at most: first, last, min, max, first NaN.
PICKS_PER_BUCKET = 5


def _clip_int(x: int) -> int:
    return max(-(2**63), min(2**63 - 1, x))


def select_range(steps: np.ndarray, x_min: float | None, x_max: float | None) -> tuple[int, int]:
    """``[start, stop)`` of the points of ``steps`` (sorted) with ``x_min <= step <= x_max``."""
    # Integer bounds for integer steps: searchsorted then compares in int64, without
    # converting the whole array to float (and without float rounding above 2**53).
    integral = steps.dtype.kind in "iu"
    if x_min is not None and integral:
        x_min = _clip_int(math.ceil(x_min))
    if x_max is not None and integral:
        x_max = _clip_int(math.floor(x_max))
    start = 0 if x_min is None else int(np.searchsorted(steps, x_min, side="left"))
    stop = steps.size if x_max is None else int(np.searchsorted(steps, x_max, side="right"))
    return start, max(start, stop)


def downsample(steps: np.ndarray, values: np.ndarray, max_points: int) -> np.ndarray:
    """Indices of the points to keep (see the module docstring for the contract)."""
    n = steps.size
    if max_points < 1:
        raise ValueError(f"max_points must be at least 1; got {max_points}")
    if n <= max_points:
        return np.arange(n)
    if max_points < PICKS_PER_BUCKET:
        return np.array([0, n - 1])[:max_points]
    nbuckets = max_points // PICKS_PER_BUCKET
    width = -(-n // nbuckets)  # points per bucket; the last buckets may be short or empty
    total = nbuckets * width
    nan = np.isnan(values)
    has_nan = bool(nan.any())
    padded = np.empty(total)
    np.copyto(padded[:n], values)
    base = np.arange(nbuckets) * width
    picks = [base, np.minimum(base + width - 1, n - 1)]
    if not has_nan:
        # Padding with the last value: in the last real bucket it ties with a real point
        # that comes first (argmax/argmin take the first on ties), and a bucket that is all
        # padding picks an index >= n, dropped below. No NaN masks to build.
        padded[n:] = values[-1]
        grid = padded.reshape(nbuckets, width)
        picks.append(base + np.argmax(grid, axis=1))
        picks.append(base + np.argmin(grid, axis=1))
    else:
        # NaN (and the padding) become -inf for the maximum, +inf for the minimum: they
        # never win over a number. One buffer, rewritten in place.
        grid = padded.reshape(nbuckets, width)
        padded[n:] = -np.inf
        padded[:n][nan] = -np.inf
        picks.append(base + np.argmax(grid, axis=1))
        padded[n:] = np.inf
        padded[:n][nan] = np.inf
        picks.append(base + np.argmin(grid, axis=1))
        real_nan = np.zeros(total, bool)
        real_nan[:n] = nan
        rows = real_nan.reshape(nbuckets, width)
        has = rows.any(axis=1)
        picks.append((base + np.argmax(rows, axis=1))[has])
    out = np.unique(np.concatenate(picks))
    return out[out < n]
