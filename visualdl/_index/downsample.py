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

__all__ = ["PICKS_PER_BUCKET", "Downsampler", "downsample", "downsample_lines", "select_range"]

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


def _firsts(positions: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Of sorted ``positions``, the first in each segment that ``starts`` begins: ``(segments, positions)``."""
    segments = np.searchsorted(starts, positions, side="right") - 1
    segments, first = np.unique(segments, return_index=True)
    return segments, positions[first]


class _Bucket:
    """The bucket a piece ended in, which the next piece may go on with: its extremes (their
    keys, and index, step, value, wall time) and its first NaN so far."""

    __slots__ = ("id", "top", "top_key", "bottom", "bottom_key", "nan")

    def __init__(self, bucket: int) -> None:
        self.id = bucket
        self.top: tuple[int, int, float, float] | None = None
        self.top_key = -np.inf
        self.bottom: tuple[int, int, float, float] | None = None
        self.bottom_key = np.inf
        self.nan: tuple[int, int, float, float] | None = None


class Downsampler:
    """:func:`downsample`'s points of a series of ``n`` points (in the step range) given a
    piece at a time, in order (:meth:`add`); :meth:`result` gives the points kept, as
    ``downsample`` would (its contract: the module's docstring)."""

    def __init__(self, n: int, max_points: int) -> None:
        if max_points < 1:
            raise ValueError(f"max_points must be at least 1; got {max_points}")
        self.n = n
        self._all = n <= max_points
        self._ends = max_points < PICKS_PER_BUCKET  # the first and last points only
        self._both = max_points > 1  # (the first only, with one)
        self._width = max(1, -(-n // max(1, max_points // PICKS_PER_BUCKET)))
        self._seen = 0
        #: Points picked so far: (index, step, value, wall time) arrays.
        self._picks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._open: _Bucket | None = None

    def _pick(self, at: np.ndarray, steps: np.ndarray, values: np.ndarray, walls: np.ndarray) -> None:
        self._picks.append((at + self._seen, steps[at], values[at], walls[at]))

    def add(self, steps: np.ndarray, values: np.ndarray, walls: np.ndarray) -> None:
        """The next points of the series, in order."""
        k = steps.size
        if k == 0:
            return
        if self._all:
            self._pick(np.arange(k), steps, values, walls)
        elif self._ends:
            index = self._seen + np.arange(k)
            self._pick(np.flatnonzero((index == 0) | ((index == self.n - 1) & self._both)), steps, values, walls)
        else:
            self._buckets(steps, values, walls)
        self._seen += k

    def _buckets(self, steps: np.ndarray, values: np.ndarray, walls: np.ndarray) -> None:
        width = self._width
        index = self._seen + np.arange(steps.size)
        offset = index % width
        # Every bucket's first and last points (and the series' last).
        self._pick(np.flatnonzero((offset == 0) | (offset == width - 1) | (index == self.n - 1)), steps, values, walls)
        bucket = index // width
        starts = np.concatenate(([0], np.flatnonzero(np.diff(bucket)) + 1))
        lengths = np.diff(np.append(starts, steps.size))
        nan = np.isnan(values)
        high = np.where(nan, -np.inf, values)  # NaN never wins
        low = np.where(nan, np.inf, values)
        tops = np.maximum.reduceat(high, starts)
        bottoms = np.minimum.reduceat(low, starts)
        _, at_top = _firsts(np.flatnonzero(high == np.repeat(tops, lengths)), starts)  # one per segment
        _, at_bottom = _firsts(np.flatnonzero(low == np.repeat(bottoms, lengths)), starts)
        nan_segments, at_nan = _firsts(np.flatnonzero(nan), starts)
        first_nan = np.full(starts.size, -1)
        first_nan[nan_segments] = at_nan

        def point(i: int) -> tuple[int, int, float, float]:
            return self._seen + i, int(steps[i]), float(values[i]), float(walls[i])

        # The first segment goes on with the bucket the last piece ended in, or starts one.
        open_ = self._open
        if open_ is None or open_.id != int(bucket[0]):
            self._close()
            open_ = self._open = _Bucket(int(bucket[0]))
        if tops[0] > open_.top_key or open_.top is None:
            open_.top, open_.top_key = point(int(at_top[0])), float(tops[0])
        if bottoms[0] < open_.bottom_key or open_.bottom is None:
            open_.bottom, open_.bottom_key = point(int(at_bottom[0])), float(bottoms[0])
        if open_.nan is None and first_nan[0] >= 0:
            open_.nan = point(int(first_nan[0]))
        last = starts.size - 1
        if last == 0:
            return
        self._close()  # the first segment's bucket ends in this piece
        for chosen in (at_top[1:last], at_bottom[1:last], first_nan[1:last]):
            self._pick(chosen[chosen >= 0], steps, values, walls)
        open_ = self._open = _Bucket(int(bucket[-1]))  # the last may go on in the next piece
        open_.top, open_.top_key = point(int(at_top[last])), float(tops[last])
        open_.bottom, open_.bottom_key = point(int(at_bottom[last])), float(bottoms[last])
        if first_nan[last] >= 0:
            open_.nan = point(int(first_nan[last]))

    def _close(self) -> None:
        """Pick the extremes and first NaN of the bucket the last piece ended in."""
        open_, self._open = self._open, None
        if open_ is None:
            return
        points = [p for p in (open_.top, open_.bottom, open_.nan) if p is not None]
        index, step, value, wall = zip(*points, strict=True)
        self._picks.append((np.array(index, np.int64), np.array(step, np.int64), np.array(value), np.array(wall)))

    def result(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Steps, values and wall times of the points kept, in order."""
        self._close()
        if not self._picks:
            return np.empty(0, np.int64), np.empty(0), np.empty(0)
        index = np.concatenate([p[0] for p in self._picks])
        _, first = np.unique(index, return_index=True)
        steps = np.concatenate([p[1] for p in self._picks])[first].astype(np.int64, copy=False)
        values = np.concatenate([p[2] for p in self._picks])[first].astype(np.float64, copy=False)
        walls = np.concatenate([p[3] for p in self._picks])[first].astype(np.float64, copy=False)
        return steps, values, walls


def downsample_lines(steps: np.ndarray, lines: list[np.ndarray], max_points: int) -> np.ndarray:
    """Indices of at most ``max_points`` points of ``steps`` that keep the spikes of every one of
    ``lines`` (values at ``steps``, each as :func:`downsample` keeps them at a share of the budget):
    the union of each line's points. The share starts at half the budget and shrinks until the
    union fits (lines that move together share most of their points); at worst it is
    ``max_points // len(lines)`` (at least :data:`PICKS_PER_BUCKET`), whose union always fits
    when that is at least :data:`PICKS_PER_BUCKET`."""
    n = steps.size
    if n <= max_points or not lines:
        return np.arange(n)
    floor = max(PICKS_PER_BUCKET, max_points // len(lines))
    share = max(floor, max_points // 2)
    while True:
        keep = np.unique(np.concatenate([downsample(steps, line, share) for line in lines]))
        if keep.size <= max_points or share == floor:
            return keep
        share = max(floor, share * max_points // keep.size - 1)
