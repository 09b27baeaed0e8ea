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
sample: one pass to bin the samples, one forward fill, one sort per grid column block.
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


#: Samples binned at once: the temporaries of a chunk of members stay small enough for the
#: allocator to reuse them (fresh pages are what large numpy temporaries cost most).
CHUNK_SAMPLES = 1 << 18


def on_grid(members: list[Member], grid: np.ndarray, stale: float) -> np.ndarray:
    """Members x grid: each member's value at each grid time (module docstring)."""
    m, g = len(members), grid.size
    out = np.full((m, g), np.nan)
    if not m or not g:
        return out
    sizes = np.array([x.wall_times.size for x in members], np.int64)
    ends = np.cumsum(sizes)
    lo = 0
    while lo < m:  # a chunk of members at a time, not a loop per sample
        hi = max(lo + 1, int(np.searchsorted(ends, ends[lo] - sizes[lo] + CHUNK_SAMPLES, side="right")))
        hi = min(hi, m)
        _fill(members[lo:hi], sizes[lo:hi], grid, stale, out[lo:hi])
        lo = hi
    return out


def _fill(members: list[Member], sizes: np.ndarray, grid: np.ndarray, stale: float, out: np.ndarray) -> None:
    m, g = len(members), grid.size
    walls = np.concatenate([x.wall_times for x in members]).astype(np.float64, copy=False)
    values = np.concatenate([x.values for x in members]).astype(np.float64, copy=False)
    who = np.repeat(np.arange(m, dtype=np.int64), sizes)
    ok = np.isfinite(walls) & (walls <= grid[-1])
    if not ok.all():
        walls, values, who = walls[ok], values[ok], who[ok]
    if g > 1:
        step = (grid[-1] - grid[0]) / (g - 1)
        cell = np.clip(np.ceil((walls - grid[0]) / step), 0, g - 1).astype(np.int64)
        # a sample at a grid time exactly: its own cell, whatever the rounding above
        over = (cell > 0) & (walls <= grid[np.maximum(cell - 1, 0)])
        cell[over] -= 1
    else:
        cell = np.zeros(walls.size, np.int64)
    key = who * g + cell  # ascending: members in order, each one's samples in time order
    if key.size > 1 and (key[1:] < key[:-1]).any():  # a member's samples out of order (a clock set back)
        order = np.argsort(key, kind="stable")
        key, walls, values = key[order], walls[order], values[order]
    last = np.ones(key.size, bool)
    last[:-1] = key[1:] != key[:-1]
    cells = key[last]
    vflat = np.full(m * g, np.nan)
    tflat = np.full(m * g, -np.inf)
    vflat[cells] = values[last]
    tflat[cells] = walls[last]
    src = np.full(m * g, -1, np.int64)
    src[cells] = cells
    src = np.maximum.accumulate(src.reshape(m, g), axis=1)  # the last filled cell of the row so far
    has = src >= 0
    age = grid[None, :] - np.where(has, tflat[np.maximum(src, 0)], -np.inf)
    keep = has & (age <= stale)
    out[keep] = vflat[src[keep]]


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
