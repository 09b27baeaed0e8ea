"""One tag across the ranks of a job: mean, min, max and quantiles per step, and who is at each extreme. Pure.

Contract of :func:`aggregate`, given one step-ordered series per rank:

* ``steps`` are the union of the ranks' steps, ascending; a rank missing a step is
  simply absent there (``count`` says how many ranks have a point at each step);
* ``mean``, ``min`` and ``max`` are over the ranks' values at that step, NaN ignored
  (a step where every value is NaN gives NaN); ±Inf are values like any other;
* ``min_rank``/``max_rank`` name the rank holding the minimum/maximum (the lowest
  rank on ties; -1 where every value is NaN);
* ``quantiles[j]`` is the ``QUANTILES[j]`` quantile of the ranks' values at
  each step as ``np.nanquantile`` computes it (linear interpolation, NaN ignored, NaN where
  every value is NaN), except where the interpolation meets an infinity, where numpy says
  NaN even with a zero weight: there the quantile is the value at a zero weight or between
  equal values, the infinity between a finite value and an infinite one, and NaN only
  between -inf and +inf; row 2 is the median;
* ``quantile_rank[j]`` names the rank at the ``QUANTILES[j]`` edge: the lowest rank holding
  the order statistic numpy's ``nearest`` method gives (index ``round((n - 1) q)`` of the
  ``n`` values, half to even: the nearer of the two values the edge lies between, the edge
  itself where ``(n - 1) q`` is whole); -1 where every value is NaN
  (:mod:`visualdl._index.quantileranks`);
* ``std`` is the sample standard deviation of the ranks' values at the step (n - 1 in the
  denominator, NaN ignored): 0 for a single value, NaN for none, NaN where an infinity is
  among them;
* ``wall_times`` is the latest wall time of the step over the ranks (when the step
  was complete);
* a rank that logged a step twice contributes its last point of that step.

Ranks that logged exactly the same steps (synchronous training) take a fast path over
a ranks x steps matrix, taken a chunk of steps at a time so that the matrix stays under
:data:`CHUNK_BYTES` however many ranks there are (10,000 ranks cost a bounded buffer, not
ranks x steps); otherwise one stable sort of all points (memory in the points themselves),
their quantiles then taken a block of steps of like rank counts at a time under the same
bound. No Python loop per point either way.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from visualdl._index.quantileranks import nearest_order, ranks_of_groups, ranks_of_rows
from visualdl._index.series import ScalarSeries

__all__ = ["CHUNK_BYTES", "QUANTILES", "JobSeries", "aggregate", "aggregate_points", "sorted_quantiles"]

#: The quantiles of :attr:`JobSeries.quantiles`, one row each: p5, p25, the median, p75, p95.
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
#: Bytes of the steps x ranks block either path holds at once (the matrix path: two of them
#: and a mask): the steps are taken in chunks of about ``CHUNK_BYTES // (8 * ranks)``.
CHUNK_BYTES = 4 << 20


@dataclass(frozen=True, slots=True)
class JobSeries:
    steps: np.ndarray  # int64
    mean: np.ndarray
    min: np.ndarray
    max: np.ndarray
    min_rank: np.ndarray  # int64
    max_rank: np.ndarray  # int64
    count: np.ndarray  # int64: ranks with a point at the step
    wall_times: np.ndarray
    quantiles: np.ndarray  # (len(QUANTILES), steps): the QUANTILES over the ranks' values
    quantile_rank: np.ndarray  # (len(QUANTILES), steps) int64: the rank at each quantile's edge
    std: np.ndarray  # the sample standard deviation over the ranks' values

    def __len__(self) -> int:
        return int(self.steps.size)


def _sorted_quantiles(block: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """The :data:`QUANTILES` of each row of ``block`` (steps x values, each row ascending with
    its ``valid`` values first, NaN after), shaped (len(QUANTILES), rows): numpy's ``linear``
    method and its own interpolation formula, so that infinities give what they give there;
    NaN where a row has no value."""
    last = np.maximum(valid - 1, 0)
    virtual = last * np.asarray(QUANTILES)[:, None]
    below = np.floor(virtual)
    gamma = virtual - below
    at = below.astype(np.int64)
    rows = np.arange(block.shape[0])
    a = block[rows, at]
    b = block[rows, np.minimum(at + 1, last)]
    with np.errstate(invalid="ignore"):
        diff = b - a
        out: np.ndarray = a + diff * gamma
        np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
        infinite = ~(np.isfinite(a) & np.isfinite(b))
        if infinite.any():
            # numpy's formula gives NaN wherever it meets an infinity, even with a zero weight
            # (the median of [-2, 1, 3, inf, inf] would be NaN, not 3): the quantile is the lower
            # value at a zero weight or between equal values, the infinite one between a finite
            # and an infinite value, and undefined (NaN) only between -inf and +inf.
            exact = (gamma == 0) | (a == b)
            towards = np.where(np.isfinite(a), b, np.where(np.isfinite(b), a, np.nan))
            out = np.where(infinite, np.where(exact, a, towards), out)
    out[:, valid == 0] = np.nan
    return out


def _order_values(block: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """The order statistic named for each quantile edge (:func:`nearest_order`) of each row of
    ``block`` (sorted as :func:`_sorted_quantiles` takes it), shaped (len(QUANTILES), rows)."""
    values: np.ndarray = block[np.arange(block.shape[0]), nearest_order(valid, QUANTILES)]
    return values


def _grouped_quantiles(
    values: np.ndarray, starts: np.ndarray, count: np.ndarray, valid: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_sorted_quantiles` and :func:`_order_values` of each group of ``values``
    (``count[g]`` values from ``starts[g]``), a block of groups at a time: groups of like
    sizes together (sorted by size), each block padded with NaN to its widest group and kept
    under :data:`CHUNK_BYTES`."""
    out = np.empty((len(QUANTILES), starts.size))
    order_values = np.empty((len(QUANTILES), starts.size))
    order = np.argsort(count, kind="stable")
    sizes = count[order]
    cells = max(1, CHUNK_BYTES // 8)
    g0 = 0
    while g0 < order.size:  # a loop per block, not per point
        # the most groups whose block (groups x the widest of them) fits, at least one
        g1 = max(
            g0 + 1,
            bisect.bisect_right(range(g0 + 1, order.size + 1), cells, key=lambda g: (g - g0) * sizes[g - 1]) + g0,
        )
        groups = order[g0:g1]
        n = sizes[g0:g1]
        block = np.full((groups.size, int(n[-1])), np.nan)
        rows = np.repeat(np.arange(groups.size), n)
        first = np.cumsum(n) - n
        cols = np.arange(rows.size) - first[rows]
        block[rows, cols] = values[starts[groups][rows] + cols]
        block.sort(axis=1)  # NaN last
        out[:, groups] = _sorted_quantiles(block, valid[groups])
        order_values[:, groups] = _order_values(block, valid[groups])
        g0 = g1
    return out, order_values


def _aligned(
    columns: Callable[[int, int, np.ndarray], object], walls: np.ndarray, steps: np.ndarray, ranks: np.ndarray
) -> JobSeries:
    """The fast path, every rank at ``steps``: ``columns(c0, c1, out)`` fills ``out`` (steps
    ``c0:c1`` x ranks) with the ranks' values, ``walls`` is the latest wall time of each step."""
    n_ranks, n = ranks.size, steps.size
    width = max(1, min(n, CHUNK_BYTES // (8 * n_ranks)))
    buf = np.empty(n_ranks * width)
    scratch = np.empty(n_ranks * width)
    mean, mins, maxs, squares = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    min_rank, max_rank = np.empty(n, np.int64), np.empty(n, np.int64)
    valid = np.empty(n, np.int64)
    quantiles = np.empty((len(QUANTILES), n))
    quantile_rank = np.empty((len(QUANTILES), n), np.int64)
    for c0 in range(0, n, width):  # a chunk of steps at a time: the block stays under CHUNK_BYTES
        c1 = min(n, c0 + width)
        w = c1 - c0
        # Steps x ranks, so that every reduction runs along contiguous rows.
        block = buf[: n_ranks * w].reshape(w, n_ranks)
        tmp = scratch[: n_ranks * w].reshape(w, n_ranks)
        columns(c0, c1, block)
        nan = np.isnan(block)
        rows = np.arange(w)
        ok = n_ranks - np.count_nonzero(nan, axis=1)
        valid[c0:c1] = ok
        np.copyto(tmp, block)
        tmp[nan] = 0.0
        with np.errstate(invalid="ignore", divide="ignore"):
            mean[c0:c1] = tmp.sum(axis=1) / ok
            np.subtract(block, mean[c0:c1, None], out=tmp)
            tmp[nan] = 0.0
            np.multiply(tmp, tmp, out=tmp)
            squares[c0:c1] = tmp.sum(axis=1)
        np.copyto(tmp, block)
        tmp[nan] = np.inf
        arg = np.argmin(tmp, axis=1)
        mins[c0:c1] = tmp[rows, arg]
        min_rank[c0:c1] = ranks[arg]
        tmp[nan] = -np.inf
        arg = np.argmax(tmp, axis=1)
        maxs[c0:c1] = tmp[rows, arg]
        max_rank[c0:c1] = ranks[arg]
        block.sort(axis=1)  # NaN last: each step's ok values first
        quantiles[:, c0:c1] = _sorted_quantiles(block, ok)
        # tmp still holds the chunk's values in rank order, -inf standing in for NaN
        if ok.size and ok.min() < n_ranks:
            tmp[nan] = np.nan
        quantile_rank[:, c0:c1] = ranks_of_rows(tmp, _order_values(block, ok), ok, ranks)
    empty = valid == 0
    if empty.any():
        mean[empty] = mins[empty] = maxs[empty] = np.nan
        min_rank[empty] = max_rank[empty] = -1
    count = np.full(n, n_ranks, np.int64)
    std = _std(squares, valid)
    return JobSeries(steps.copy(), mean, mins, maxs, min_rank, max_rank, count, walls, quantiles, quantile_rank, std)


def _std(squares: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """The sample standard deviation from the sums of squared deviations and the counts."""
    with np.errstate(invalid="ignore", divide="ignore"):
        std: np.ndarray = np.sqrt(squares / np.maximum(valid - 1, 1))
    std[valid == 0] = np.nan
    return std


def _last_per_step(s: ScalarSeries) -> ScalarSeries:
    """Drop all but the last point of each repeated step."""
    steps = s.steps
    if steps.size < 2 or not (steps[1:] == steps[:-1]).any():
        return s
    last = np.ones(steps.size, bool)
    last[:-1] = steps[1:] != steps[:-1]
    return ScalarSeries(steps[last], s.values[last], s.wall_times[last])


def aggregate(series: list[ScalarSeries], ranks: list[int]) -> JobSeries:
    """Mean, min, max and quantiles over ``series`` (one per rank, ``ranks[i]`` being the rank
    of ``series[i]``). Ranks at the same steps cost a bounded block beyond their series."""
    if len(series) != len(ranks):
        raise ValueError(f"got {len(series)} series for {len(ranks)} ranks")
    order = np.argsort(np.asarray(ranks, np.int64), kind="stable")
    rank_ids = np.asarray(ranks, np.int64)[order]
    parts = [_last_per_step(series[i]) for i in order]
    keep = [i for i, p in enumerate(parts) if len(p)]
    parts = [parts[i] for i in keep]
    rank_ids = rank_ids[keep]
    if not parts:
        return _empty()
    first = parts[0].steps
    if all(p.steps.size == first.size for p in parts) and all(np.array_equal(p.steps, first) for p in parts[1:]):
        walls = parts[0].wall_times.copy()
        for p in parts[1:]:
            np.maximum(walls, p.wall_times, out=walls)

        def columns(c0: int, c1: int, out: np.ndarray) -> None:
            np.stack([p.values[c0:c1] for p in parts], axis=1, out=out)

        return _aligned(columns, walls, first, rank_ids)
    return _by_step(
        np.concatenate([p.steps for p in parts]),
        np.concatenate([p.values for p in parts]),
        np.concatenate([p.wall_times for p in parts]),
        np.repeat(rank_ids, [len(p) for p in parts]),
    )


def aggregate_points(
    steps: np.ndarray, values: np.ndarray, walls: np.ndarray, lengths: np.ndarray, ranks: np.ndarray
) -> JobSeries:
    """:func:`aggregate` of the ranks' series laid end to end: ``lengths[i]`` points of rank
    ``ranks[i]``, each series in step order, in any order of ranks. What the index gathers
    in one read (:func:`visualdl._index.series.gather`): no Python work per rank."""
    if lengths.size != ranks.size or int(lengths.sum()) != steps.size:
        raise ValueError(
            f"{lengths.size} lengths summing to {int(lengths.sum())} for {ranks.size} ranks and {steps.size} points"
        )
    ends = np.cumsum(lengths)
    repeated = np.zeros(steps.size, bool)  # a rank that logged a step twice: its last point of it
    np.equal(steps[1:], steps[:-1], out=repeated[:-1])
    repeated[ends[(lengths > 0) & (ends < steps.size)] - 1] = False  # one rank's last point, the next one's first
    order = np.argsort(ranks, kind="stable")
    if repeated.any() or (order.size > 1 and (np.diff(order) != 1).any()):
        # In rank order, repeats dropped: one gather of the points kept, part by part.
        kept = np.flatnonzero(~repeated)
        lengths = np.diff(np.searchsorted(kept, np.concatenate(([0], ends))))
        first = np.cumsum(lengths) - lengths
        sizes = lengths[order]
        at = kept[np.repeat(first[order] - (np.cumsum(sizes) - sizes), sizes) + np.arange(int(sizes.sum()))]
        steps, values, walls = steps[at], values[at], walls[at]
        lengths, ranks = sizes, ranks[order]
    present = lengths > 0
    lengths, rank_ids = lengths[present], ranks[present]
    if not lengths.size:
        return _empty()
    n = int(lengths[0])
    if (lengths == n).all() and _same_steps(steps.reshape(lengths.size, n)):
        grid = values.reshape(lengths.size, n)

        def columns(c0: int, c1: int, out: np.ndarray) -> None:
            np.copyto(out, grid[:, c0:c1].T)

        return _aligned(columns, walls.reshape(lengths.size, n).max(axis=0), steps[:n], rank_ids)
    return _by_step(steps, values, walls, np.repeat(rank_ids, lengths))


def _same_steps(grid: np.ndarray) -> bool:
    """Whether every row of ``grid`` (ranks x steps) equals the first, a bounded block at a time."""
    rows = max(1, CHUNK_BYTES // max(1, grid.shape[1]))
    return all(bool((grid[r : r + rows] == grid[0]).all()) for r in range(1, grid.shape[0], rows))


def _empty() -> JobSeries:
    e = np.empty(0)
    ei = np.empty(0, np.int64)
    none = np.empty((len(QUANTILES), 0))
    return JobSeries(ei, e, e, e, ei, ei, ei, e, none, none.astype(np.int64), e)


def _by_step(steps: np.ndarray, values: np.ndarray, walls: np.ndarray, who: np.ndarray) -> JobSeries:
    """The general path: every point, of rank ``who``, the ranks in ascending order."""
    # Stable by step: within a step, points stay in rank order (lowest rank first on ties).
    o = np.argsort(steps, kind="stable")
    steps, values, walls, who = steps[o], values[o], walls[o], who[o]
    starts = np.flatnonzero(np.concatenate(([True], steps[1:] != steps[:-1])))
    n_groups = starts.size
    group = np.repeat(np.arange(n_groups), np.diff(np.append(starts, steps.size)))
    count = np.diff(np.append(starts, steps.size)).astype(np.int64)
    nan = np.isnan(values)
    valid = np.add.reduceat((~nan).astype(np.int64), starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.add.reduceat(np.where(nan, 0.0, values), starts) / valid
    with np.errstate(invalid="ignore"):
        deviation = np.where(nan, 0.0, values - mean[group])
    std = _std(np.add.reduceat(deviation * deviation, starts), valid)
    lo = np.where(nan, np.inf, values)
    hi = np.where(nan, -np.inf, values)
    mins = np.minimum.reduceat(lo, starts)
    maxs = np.maximum.reduceat(hi, starts)
    # The first point of each group equal to its extreme: the lowest rank holding it.
    at_min = np.flatnonzero(lo == mins[group])
    at_max = np.flatnonzero(hi == maxs[group])
    min_rank = np.full(n_groups, -1, np.int64)
    max_rank = np.full(n_groups, -1, np.int64)
    for at, out in ((at_min, min_rank), (at_max, max_rank)):
        g = group[at]  # ascending: the first of each run of equal groups is the lowest rank
        first = np.concatenate(([True], g[1:] != g[:-1]))
        out[g[first]] = who[at[first]]
    empty = valid == 0
    if empty.any():
        mean[empty] = mins[empty] = maxs[empty] = np.nan
        min_rank[empty] = max_rank[empty] = -1
    quantiles, order_values = _grouped_quantiles(values, starts, count, valid)
    quantile_rank = ranks_of_groups(values, starts, who, order_values)
    walls = np.maximum.reduceat(walls, starts)
    return JobSeries(steps[starts], mean, mins, maxs, min_rank, max_rank, count, walls, quantiles, quantile_rank, std)


#: The quantiles of sorted rows, for other views over ranks (the system metrics' bands).
sorted_quantiles = _sorted_quantiles
