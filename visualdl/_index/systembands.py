"""One system metric across the ranks of a job: quantile bands over ranks on a time grid. Pure.

The ranks' samples are taken at their own times (every few seconds, never in step), so
they are put on a common grid first. Contract of :func:`on_grid`, for ``grid`` evenly
spaced from the first sample to the last:

* a member (a writer's metric; for a GPU metric, one GPU of a writer) has at grid time
  ``g`` the value of its last sample at or before ``g``, when that sample is at most
  ``stale`` seconds older than ``g`` (NaN otherwise: not yet started, or gone);
* ``stale`` is three times the median interval between samples (of the first 64 members'
  last 1,000), and at least the grid's step, so that a member is never missing between
  two of its samples.

:func:`role_bands` then gives at each grid time, over the members of a role that have a
value there (NaN ignored), the quantiles (:data:`~visualdl._index.aggregate.QUANTILES`, as
``np.nanquantile`` computes them), the minimum and maximum with the rank (and GPU) holding
them (the lowest rank on ties), and how many members had a value. No Python loop per
sample: a binary search of the grid times per member, one sort of the members' values per
grid time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from visualdl._index.aggregate import QUANTILES, sorted_quantiles

__all__ = ["Member", "RoleBands", "on_grid", "role_bands", "stale_after", "time_grid"]


@dataclass(frozen=True, slots=True)
class Member:
    """One series over time: a writer's metric (of one GPU for scope gpu)."""

    role: str
    rank: int
    gpu: int
    host: str
    wall_times: np.ndarray
    values: np.ndarray
    unit: str = ""


@dataclass(frozen=True, slots=True)
class RoleBands:
    """A role's bands at each grid time: ``quantiles`` is (len(QUANTILES), grid)."""

    role: str
    members: int
    count: np.ndarray  # int64: members with a value
    quantiles: np.ndarray
    min: np.ndarray
    max: np.ndarray
    min_rank: np.ndarray  # int64, -1 where no member has a value
    max_rank: np.ndarray
    min_gpu: np.ndarray  # int64, -1 for other scopes or no value
    max_gpu: np.ndarray


def time_grid(members: list[Member], points: int) -> np.ndarray:
    """``points`` times from the members' first sample to their last (one point: the last)."""
    firsts = [float(m.wall_times[0]) for m in members if m.wall_times.size]
    lasts = [float(m.wall_times[-1]) for m in members if m.wall_times.size]
    if not firsts:
        return np.empty(0)
    t0, t1 = min(firsts), max(lasts)
    if points < 2 or t1 <= t0:
        return np.array([t1])
    return np.linspace(t0, t1, points)


def stale_after(members: list[Member], grid: np.ndarray) -> float:
    """How old a member's last sample may be for it to still count (module docstring)."""
    step = float(grid[1] - grid[0]) if grid.size > 1 else 0.0
    diffs = [np.diff(m.wall_times[-1000:]) for m in members[:64] if m.wall_times.size > 1]  # a sample of them
    interval = float(np.median(np.concatenate(diffs))) if diffs else 0.0
    return max(step, 3.0 * interval) if interval > 0 or step > 0 else float("inf")


def on_grid(members: list[Member], grid: np.ndarray, stale: float) -> np.ndarray:
    """Members x grid: each member's value at each grid time (module docstring). Each
    member's wall times ascend (the store sorts them): a binary search per grid time, so a
    member costs its grid's length, not its samples (days of samples, 200 grid times)."""
    m, g = len(members), grid.size
    out = np.full((m, g), np.nan)
    oldest = grid - stale  # the oldest sample that still counts at each grid time
    for i, x in enumerate(members):  # a loop over the members, none over their samples
        walls = x.wall_times
        # the last sample at or before each grid time, if it is not older than ``oldest``
        at = np.searchsorted(walls, grid, side="right") - 1
        keep = at >= np.searchsorted(walls, oldest, side="left")
        out[i, keep] = x.values[at[keep]]
    return out


def role_bands(role: str, members: list[Member], matrix: np.ndarray) -> RoleBands:
    """The bands of ``matrix`` (members x grid, the members of ``role``, sorted by rank)."""
    g = matrix.shape[1]
    ranks = np.array([x.rank for x in members], np.int64)
    gpus = np.array([x.gpu for x in members], np.int64)
    nan = np.isnan(matrix)
    count = (~nan).sum(axis=0).astype(np.int64)
    block = np.ascontiguousarray(matrix.T)
    block.sort(axis=1)  # NaN last
    quantiles = sorted_quantiles(block, count) if g else np.empty((len(QUANTILES), 0))
    some = count > 0
    lo = np.argmin(np.where(nan, np.inf, matrix), axis=0) if members else np.zeros(g, np.int64)
    hi = np.argmax(np.where(nan, -np.inf, matrix), axis=0) if members else np.zeros(g, np.int64)
    rows = np.arange(g)
    mins = np.where(some, block[rows, 0], np.nan)
    maxs = np.where(some, block[rows, np.maximum(count - 1, 0)], np.nan)
    none = np.int64(-1)
    return RoleBands(
        role,
        len(members),
        count,
        quantiles,
        mins,
        maxs,
        np.where(some, ranks[lo], none) if members else np.full(g, -1, np.int64),
        np.where(some, ranks[hi], none) if members else np.full(g, -1, np.int64),
        np.where(some, gpus[lo], none) if members else np.full(g, -1, np.int64),
        np.where(some, gpus[hi], none) if members else np.full(g, -1, np.int64),
    )
