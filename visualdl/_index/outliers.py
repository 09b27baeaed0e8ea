"""Who holds a job's extremes, by range of steps: the rank at the minimum (or maximum) of
each step, as :class:`~visualdl._index.aggregate.JobSeries` gives it, collapsed into runs
of steps held by the same rank. Pure.

Contract of :func:`extreme_runs`, given ``steps`` (ascending) and ``ranks`` (one per step,
-1 where no rank holds the extreme: every value NaN):

* each run of consecutive points held by the same rank is one range ``(first_step,
  last_step, rank, held, points)`` with ``held == points`` (its length); runs of -1 are
  left out;
* when that gives more than ``max_ranges`` ranges (the extreme changing hands at nearly
  every step), the points are cut into ``max_ranges`` windows of equal numbers of points
  instead, each naming the rank that holds the extreme at most of its points (the lowest
  rank on ties), ``held`` at how many of its ``points``; neighbouring windows naming the
  same rank are one range (their counts added). So the answer stays compact (ranges, not
  points) and says when a range is only the most frequent holder (``held < points``);
* ``top`` are the ranks holding the extreme at the most points, most first (the lowest
  rank on ties), with how many: at most ``top`` of them.

Every step is a numpy operation over the whole array: no Python loop per point.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MAX_RANGES", "TOP_RANKS", "RankRuns", "extreme_runs"]

#: Ranges of one extreme at most (beyond: windows naming each one's most frequent holder).
MAX_RANGES = 200
#: Ranks listed as the most frequent holders of an extreme.
TOP_RANKS = 5


@dataclass(frozen=True, slots=True)
class RankRuns:
    """Ranges of steps held by one rank, column-wise (see the module docstring), and the
    most frequent holders."""

    first: np.ndarray  # int64: the first step of each range
    last: np.ndarray  # int64: its last step
    rank: np.ndarray  # int64
    held: np.ndarray  # int64: points of the range at which ``rank`` holds the extreme
    points: np.ndarray  # int64: points of the range
    top_rank: np.ndarray  # int64
    top_held: np.ndarray  # int64

    def __len__(self) -> int:
        return int(self.rank.size)

    def table(self) -> np.ndarray:
        """The ranges as rows ``[first, last, rank, held, points]`` (ranges x 5, int64)."""
        return np.column_stack((self.first, self.last, self.rank, self.held, self.points)).reshape(-1, 5)


def _empty() -> RankRuns:
    e = np.empty(0, np.int64)
    return RankRuns(e, e, e, e, e, e, e)


def _top(ranks: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    held = ranks[ranks >= 0]
    if not held.size:
        e = np.empty(0, np.int64)
        return e, e
    names, counts = np.unique(held, return_counts=True)  # names ascending
    order = np.lexsort((names, -counts))[:top]
    return names[order].astype(np.int64), counts[order].astype(np.int64)


def _merge(
    window: np.ndarray, first: np.ndarray, last: np.ndarray, rank: np.ndarray, held: np.ndarray, points: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Neighbouring windows (``window`` apart by one) of the same rank as one range (their counts added)."""
    if rank.size < 2:
        return first, last, rank, held, points
    apart = (rank[1:] != rank[:-1]) | (window[1:] != window[:-1] + 1)
    starts = np.flatnonzero(np.concatenate(([True], apart)))
    ends = np.append(starts[1:], rank.size) - 1
    return (
        first[starts],
        last[ends],
        rank[starts],
        np.add.reduceat(held, starts),
        np.add.reduceat(points, starts),
    )


def extreme_runs(
    steps: np.ndarray, ranks: np.ndarray, *, max_ranges: int = MAX_RANGES, top: int = TOP_RANKS
) -> RankRuns:
    """The ranges of ``steps`` held by each rank of ``ranks`` (see the module docstring)."""
    if max_ranges < 1:
        raise ValueError(f"max_ranges must be at least 1; got {max_ranges}")
    if steps.shape != ranks.shape:
        raise ValueError(f"got {steps.size} steps for {ranks.size} ranks")
    n = int(ranks.size)
    if n == 0:
        return _empty()
    ranks = ranks.astype(np.int64, copy=False)
    steps = steps.astype(np.int64, copy=False)
    top_rank, top_held = _top(ranks, top)
    starts = np.flatnonzero(np.concatenate(([True], ranks[1:] != ranks[:-1])))
    held_by = ranks[starts] >= 0
    if int(held_by.sum()) <= max_ranges:
        ends = np.append(starts[1:], n) - 1
        length = (ends - starts + 1).astype(np.int64)
        s, e = starts[held_by], ends[held_by]
        return RankRuns(steps[s], steps[e], ranks[s], length[held_by], length[held_by], top_rank, top_held)
    # Windows of equal numbers of points; in each, the rank holding the extreme most often.
    width = -(-n // max_ranges)
    window = np.arange(n) // width
    points = np.bincount(window).astype(np.int64)
    valid = ranks >= 0
    w, r = window[valid], ranks[valid]
    order = np.lexsort((r, w))  # by window, then rank
    w, r = w[order], r[order]
    pair = np.flatnonzero(np.concatenate(([True], (w[1:] != w[:-1]) | (r[1:] != r[:-1]))))
    counts = np.diff(np.append(pair, w.size))
    pw, pr = w[pair], r[pair]
    first_of_window = np.flatnonzero(np.concatenate(([True], pw[1:] != pw[:-1])))
    best = np.maximum.reduceat(counts, first_of_window)
    # The first pair of each window reaching its best count: the lowest rank on ties.
    reach = counts == np.repeat(best, np.diff(np.append(first_of_window, pw.size)))
    winner = np.flatnonzero(reach)
    owner = pw[winner]
    keep = np.concatenate(([True], owner[1:] != owner[:-1]))
    winner, owner = winner[keep], owner[keep]
    lo = owner * width
    hi = np.minimum(lo + width, n) - 1
    first, last, rank, held, pts = _merge(owner, steps[lo], steps[hi], pr[winner], counts[winner], points[owner])
    return RankRuns(first, last, rank, held.astype(np.int64), pts.astype(np.int64), top_rank, top_held)
