"""One tag across the ranks of a job: mean, min and max per step, and who is at each extreme. Pure.

Contract of :func:`aggregate`, given one step-ordered series per rank:

* ``steps`` are the union of the ranks' steps, ascending; a rank missing a step is
  simply absent there (``count`` says how many ranks have a point at each step);
* ``mean``, ``min`` and ``max`` are over the ranks' values at that step, NaN ignored
  (a step where every value is NaN gives NaN); ±Inf are values like any other;
* ``min_rank``/``max_rank`` name the rank holding the minimum/maximum (the lowest
  rank on ties; -1 where every value is NaN);
* ``wall_times`` is the latest wall time of the step over the ranks (when the step
  was complete);
* a rank that logged a step twice contributes its last point of that step.

Ranks that logged exactly the same steps (synchronous training) take a fast path over
a ranks x steps matrix; otherwise one stable sort of all points. No Python loop per
point either way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from visualdl._index.series import ScalarSeries

__all__ = ["JobSeries", "aggregate"]


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

    def __len__(self) -> int:
        return int(self.steps.size)


def _last_per_step(s: ScalarSeries) -> ScalarSeries:
    """Drop all but the last point of each repeated step."""
    steps = s.steps
    if steps.size < 2 or not (steps[1:] == steps[:-1]).any():
        return s
    last = np.ones(steps.size, bool)
    last[:-1] = steps[1:] != steps[:-1]
    return ScalarSeries(steps[last], s.values[last], s.wall_times[last])


def _aligned(parts: list[ScalarSeries], ranks: np.ndarray) -> JobSeries:
    values = np.stack([p.values for p in parts])
    nan = np.isnan(values)
    lo = np.where(nan, np.inf, values)
    hi = np.where(nan, -np.inf, values)
    arg_lo = np.argmin(lo, axis=0)
    arg_hi = np.argmax(hi, axis=0)
    cols = np.arange(values.shape[1])
    valid = (~nan).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(nan, 0.0, values).sum(axis=0) / valid
    empty = valid == 0
    mins = lo[arg_lo, cols]
    maxs = hi[arg_hi, cols]
    min_rank = ranks[arg_lo]
    max_rank = ranks[arg_hi]
    if empty.any():
        mean[empty] = mins[empty] = maxs[empty] = np.nan
        min_rank[empty] = max_rank[empty] = -1
    walls = np.stack([p.wall_times for p in parts]).max(axis=0)
    count = np.full(values.shape[1], len(parts), np.int64)
    return JobSeries(parts[0].steps.copy(), mean, mins, maxs, min_rank, max_rank, count, walls)


def aggregate(series: list[ScalarSeries], ranks: list[int]) -> JobSeries:
    """Mean, min and max over ``series`` (one per rank, ``ranks[i]`` being the rank of ``series[i]``)."""
    if len(series) != len(ranks):
        raise ValueError(f"got {len(series)} series for {len(ranks)} ranks")
    order = np.argsort(np.asarray(ranks, np.int64), kind="stable")
    rank_ids = np.asarray(ranks, np.int64)[order]
    parts = [_last_per_step(series[i]) for i in order]
    keep = [i for i, p in enumerate(parts) if len(p)]
    parts = [parts[i] for i in keep]
    rank_ids = rank_ids[keep]
    if not parts:
        e = np.empty(0)
        ei = np.empty(0, np.int64)
        return JobSeries(ei, e, e, e, ei, ei, ei, e)
    first = parts[0].steps
    if all(p.steps.size == first.size for p in parts) and all(np.array_equal(p.steps, first) for p in parts[1:]):
        return _aligned(parts, rank_ids)
    steps = np.concatenate([p.steps for p in parts])
    values = np.concatenate([p.values for p in parts])
    walls = np.concatenate([p.wall_times for p in parts])
    who = np.repeat(rank_ids, [len(p) for p in parts])
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
    return JobSeries(steps[starts], mean, mins, maxs, min_rank, max_rank, count, np.maximum.reduceat(walls, starts))
