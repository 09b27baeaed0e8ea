"""Goodput of a job: how much of each rank's wall time produced new steps, and what each restart cost. Pure.

Built from the same progress traces as the job page (:mod:`.overview`): per log file its
writer's header and one ``(wall time, highest step so far)`` entry per scalar record (and
one for the file's first point), so times are known to a flush (``flush_secs``). A
*place* is a ``(role, rank)``; its *attempts* are its files, in the order of their attempt
number then start time. All of it is numpy over the traces of every place at once, so a
job of 10,000 ranks costs a few sorts and sums, not a Python loop per point.

Definitions, per place:

* Its entries (of all its attempts) are merged in order of wall time (ties: attempt
  order), and its *high mark* after an entry is the highest step of any entry so far. An
  entry is *new* when its step is above the high mark before it (the place's first entry
  is new).
* *Wall time*: from the place's first start (the earliest of its headers' start times and
  its entries' times) to its last end (the latest of its footers' times and its entries'
  times). A place still running (or killed, or silent) ends at its last entry: its wall
  time does not grow between two flushes.
* A *restart* is an attempt followed by another attempt of the same place (``restarts`` =
  attempts - 1). Its *gap* opens at the followed attempt's last entry (by wall time) and
  closes at the first new entry stamped after it, of any attempt: the new attempt has
  redone what was lost and logged a step above the highest one reached before. A gap not
  closed by the place's end (the new attempt never passed the old high mark, or is still
  redoing) runs to the place's end and its place is *recovering*. An attempt that logged
  nothing opens no gap of its own: it lies inside the gap of the attempt before it.
* Between two consecutive merged entries, the time is *lost* when a gap was open at the
  first of the two, and *productive* otherwise. ``lost_seconds`` is the union of the gaps
  (gaps that overlap, a restart during the redo of another, count once);
  ``productive_seconds`` is the rest of the time from the first entry to the last. The
  time from the first start to the first entry (start-up) and from the last entry to the
  footer (shutdown) is neither: ``wall >= productive + lost``.
* *Overlapping attempts* (a new attempt started before the old one stopped logging) are
  one merged timeline: time is never counted twice, and while the old one still logs new
  steps the place is productive; its gap opens only at its last entry.
* *Clock skew*: entries are ordered by the times they hold, so an interval is never
  negative; a host whose clock is behind makes its entries come earlier, and a gap closes
  at the first new entry stamped after it opened (a new attempt stamped wholly before the
  old one's last entry leaves the gap open: recovering). Non-finite times are left out.
* *Steps done twice* by an attempt: its logged steps at or below the highest step of the
  place's earlier attempts, counted as step numbers ``min(its highest, earlier highest) -
  its lowest + 1`` (at least 0): what it redid after resuming from an older checkpoint.
  Steps are step numbers, so a job logging every 10th step counts 10 per logged step.
* *Goodput* = ``productive_seconds / wall_seconds`` (null when the wall time is 0 or
  unknown).
* *Throughput* (:class:`Throughput`, the job page's ``steps_per_second``): new steps over productive time, over
  all attempts: the rise of the high mark across productive intervals divided by their
  time; a restart's gap (its redo, and the record that passed the old mark) is left out.
  ``recent_steps_per_second`` is the same over the last quarter of the place's productive
  time (at least its last productive interval), which may span attempts; a rank that just
  restarted keeps the rate it had before, so its gap never makes it a straggler, and a rank
  still redoing is marked ``recovering`` rather than slow.

Per role and for the job: ``wall_seconds`` is the span from the first start to the last
end of any of its places; ``rank_seconds``, ``productive_seconds``, ``lost_seconds``,
``restarts`` and ``steps_done_twice`` are sums over its places (rank-seconds), and
``goodput`` is productive over rank-seconds. A rank stalled by another's restart (a
barrier) counts that wait as productive: its log alone cannot tell waiting from working.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from visualdl._jobs.progress import FileProgress, by_place, role_order

__all__ = ["Goodput", "GoodputTotals", "Throughput", "measure_goodput"]


@dataclass(frozen=True, slots=True)
class Goodput:
    """Per place (in order of role then rank; ``index`` maps ``(role, rank)`` to a position),
    one array entry each: its span (``begin``, ``end``; ``wall`` = end - begin), its
    ``productive`` and ``lost`` seconds, ``restarts``, steps done ``twice``, throughput over
    its productive time (``rate``) and over the last quarter of it (``recent``, steps/s), its
    highest step (``last_step``) and whether it is still redoing lost work (``recovering``);
    ``gaps`` has one row per restart. Times in seconds; NaN where unknown. :meth:`totals`
    sums them for the job or a part of it (see the module docstring for the definitions)."""

    places: list[tuple[str, int]]
    index: dict[tuple[str, int], int]
    begin: np.ndarray
    end: np.ndarray
    productive: np.ndarray
    lost: np.ndarray
    restarts: np.ndarray
    twice: np.ndarray
    rate: np.ndarray
    recent: np.ndarray
    last_step: np.ndarray  # -1: no step logged
    recovering: np.ndarray
    #: One row per restart: place, attempt followed, next attempt, gap open and close
    #: times (close NaN: recovering), lost seconds, steps done twice by the next attempt.
    gaps: dict[str, np.ndarray]

    @property
    def wall(self) -> np.ndarray:
        span: np.ndarray = self.end - self.begin
        return span

    def throughputs(self, role: str, straggler_ratio: float = 0.0) -> list[Throughput]:
        """The throughput of ``role``'s places, in order of rank; a place whose recent throughput
        is below ``straggler_ratio`` of the role's median is marked a straggler (none when 0)."""
        rows = [i for i, (r, _) in enumerate(self.places) if r == role]
        rows.sort(key=lambda i: self.places[i][1])
        pick = np.array(rows, np.int64)
        recent = self.recent[pick]
        known = np.isfinite(recent)
        median = float(np.median(recent[known])) if known.any() else 0.0
        slow = (recent < straggler_ratio * median) if median else np.zeros(recent.size, bool)
        return [
            Throughput(self.places[i][1], _number(rate), _number(late), last if last >= 0 else None, recovering, s)
            for i, rate, late, last, recovering, s in zip(
                rows,
                self.rate[pick].tolist(),
                recent.tolist(),
                self.last_step[pick].tolist(),
                self.recovering[pick].tolist(),
                slow.tolist(),
                strict=True,
            )
        ]

    def totals(self, mask: np.ndarray | None = None) -> GoodputTotals:
        """The totals of the places in ``mask`` (all when None; see the module docstring: sums
        of rank-seconds)."""
        if mask is None:
            mask = np.ones(len(self.places), bool)
        wall = self.wall[mask]
        known = np.isfinite(wall)
        rank_seconds = float(wall[known].sum())
        productive = float(self.productive[mask].sum())
        begin = self.begin[mask]
        end = self.end[mask]
        start = float(np.nanmin(begin)) if np.isfinite(begin).any() else math.nan
        stop = float(np.nanmax(end)) if np.isfinite(end).any() else math.nan
        return GoodputTotals(
            start_time=_number(start),
            end_time=_number(stop),
            wall_seconds=_number(stop - start),
            rank_seconds=rank_seconds,
            productive_seconds=productive,
            lost_seconds=float(self.lost[mask].sum()),
            restarts=int(self.restarts[mask].sum()),
            steps_done_twice=int(self.twice[mask].sum()),
            recovering=int(self.recovering[mask].sum()),
            goodput=productive / rank_seconds if rank_seconds > 0 else None,
        )

    def roles(self) -> list[str]:
        """The roles of the places, trainers first."""
        return sorted({role for role, _ in self.places}, key=role_order)


@dataclass(frozen=True, slots=True)
class GoodputTotals:
    """A job's or a role's goodput: its span (first start to last end, ``wall_seconds``) and
    sums over its places (rank-seconds); ``goodput`` is productive over rank-seconds (None:
    no time known)."""

    start_time: float | None
    end_time: float | None
    wall_seconds: float | None
    rank_seconds: float
    productive_seconds: float
    lost_seconds: float
    restarts: int
    steps_done_twice: int
    recovering: int
    goodput: float | None


@dataclass(frozen=True, slots=True)
class Throughput:
    """One place's new steps per second over its productive time, and over its last quarter
    (None: unknown), its highest step (None: none), whether it is still redoing lost work,
    and whether the job page calls it a straggler."""

    rank: int
    steps_per_second: float | None
    recent_steps_per_second: float | None
    last_step: int | None
    recovering: bool
    straggler: bool = False


def _number(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _segment_cummax(values: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """The running maximum of integer ``values`` restarted at each segment (``segment`` is
    sorted): one accumulate over the values lifted per segment above every earlier
    segment's, or over their dense ranks when the lifted values would not fit in 64 bits."""
    if values.size == 0:
        return values.copy()
    heads = np.flatnonzero(np.r_[True, segment[1:] != segment[:-1]])
    low = np.minimum.reduceat(values, heads)
    high = np.maximum.reduceat(values, heads)
    span = [int(h) - int(lo) + 1 for h, lo in zip(high.tolist(), low.tolist(), strict=True)]
    if sum(span) < 2**62:
        lift = np.zeros(heads.size, np.int64)
        lift[1:] = np.cumsum(span[:-1])
        lift -= low  # each segment's values + its lift lie in [0, the sum of the spans)
        counts = np.diff(np.r_[heads, values.size])
        shift = np.repeat(lift, counts)
        return np.maximum.accumulate(values + shift) - shift
    uniq, rank = np.unique(values, return_inverse=True)
    width = np.int64(uniq.size)
    composite = segment.astype(np.int64) * width + rank.reshape(-1)
    top = np.maximum.accumulate(composite) - segment.astype(np.int64) * width
    out: np.ndarray = uniq[top]
    return out


def _sums(at: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """``weights`` summed by ``at`` into ``size`` floats (also when there is nothing to sum)."""
    return np.bincount(at, weights=weights, minlength=size).astype(float, copy=False)


def measure_goodput(files: Sequence[FileProgress]) -> Goodput:
    """The goodput of each place of a job from its files' progress (see the module docstring)."""
    files = by_place(files)
    keys = [(p[0].role, p[0].rank) for p in files]
    places = list(dict.fromkeys(keys))
    index = {place: i for i, place in enumerate(places)}
    n_places, n_files = len(places), len(files)
    file_place = np.array([index[k] for k in keys], np.int64)
    final = np.ones(n_files, bool)  # the last attempt of its place
    final[:-1] = file_place[1:] != file_place[:-1]
    starts = np.array([p[0].start_time for p in files], float)
    footers = np.array([p[0].end_time if p[0].closed and p[0].end_time is not None else math.nan for p in files])
    lowest = np.array([-1 if p[4] is None else p[4] for p in files], np.int64)
    has_low = np.array([p[4] is not None for p in files], bool)
    sizes = np.array([p[1].size for p in files], np.int64)
    walls = np.concatenate([np.asarray(p[1], float) for p in files]) if n_files else np.empty(0)
    steps = np.concatenate([np.asarray(p[2], np.int64) for p in files]) if n_files else np.empty(0, np.int64)
    file_of = np.repeat(np.arange(n_files), sizes)
    # Each file's highest step (its trace is a running maximum; a time lost does not lose it).
    top = np.full(n_files, -1, np.int64)
    if steps.size:
        top[sizes > 0] = np.maximum.reduceat(steps, (np.cumsum(sizes) - sizes)[sizes > 0])
    keep = np.isfinite(walls)
    if not keep.all():
        walls, steps, file_of = walls[keep], steps[keep], file_of[keep]
    place_of = file_place[file_of]

    # The merged timeline of each place: by place, then wall time, then attempt order (the
    # files' order already, unless attempts overlap or a clock went back).
    n = walls.size
    same = place_of[1:] == place_of[:-1]
    if np.any(same & (walls[1:] < walls[:-1])):
        order = np.lexsort((file_of, walls, place_of))
        w, s, pl = walls[order], steps[order], place_of[order]
        position = np.empty(n, np.int64)
        position[order] = np.arange(n)
    else:
        w, s, pl = walls, steps, place_of
        position = np.arange(n)
    first = np.ones(n, bool)
    first[1:] = pl[1:] != pl[:-1]
    last = np.ones(n, bool)
    last[:-1] = first[1:]
    high = _segment_cummax(s, pl)
    new = first.copy()
    new[1:] |= s[1:] > high[:-1]
    # Gaps open at the last entry (by time) of each followed attempt.
    latest = np.full(n_files, -1, np.int64)
    counts = np.bincount(file_of, minlength=n_files)
    some = counts > 0
    if n:  # the entries of a file are contiguous before the sort
        latest[some] = np.maximum.reduceat(position, (np.cumsum(counts) - counts)[some])
    opens_at = latest[(~final) & (latest >= 0)]
    opens = np.zeros(n, bool)
    opens[opens_at] = True
    event = np.where(opens | new, np.arange(n), 0)
    gap_open = opens[np.maximum.accumulate(event)] if n else np.zeros(0, bool)  # after each entry

    # Intervals between consecutive entries of a place.
    step_rise = np.zeros(n)
    dur = np.zeros(n)
    lost_here = np.zeros(n, bool)
    if n:
        dur[1:] = w[1:] - w[:-1]
        step_rise[1:] = (high[1:] - high[:-1]).astype(float)
        lost_here[1:] = gap_open[:-1]
    dur[first] = 0.0
    step_rise[first] = 0.0
    lost_here[first] = False
    good = ~lost_here
    productive = _sums(pl, dur * good, n_places)
    rise = _sums(pl, step_rise * good, n_places)
    lost = _sums(pl, dur * lost_here, n_places)

    # Each place's span: headers' starts, footers' times, its entries' times.
    begin = np.full(n_places, np.inf)
    end = np.full(n_places, -np.inf)
    np.fmin.at(begin, file_place, starts)
    np.fmax.at(end, file_place, footers)
    begin[pl[first]] = np.fmin(begin[pl[first]], w[first])
    end[pl[last]] = np.fmax(end[pl[last]], w[last])
    begin[~np.isfinite(begin)] = np.nan
    end[~np.isfinite(end)] = np.nan
    recovering = np.zeros(n_places, bool)
    recovering[pl[last]] = gap_open[last]
    tail = np.zeros(n_places)
    tail[pl[last]] = np.where(gap_open[last], end[pl[last]] - w[last], 0.0)
    lost += np.nan_to_num(tail)
    last_step = np.full(n_places, -1, np.int64)
    if n_files:  # a place's files are contiguous, and each place has one at least
        last_step = np.maximum.reduceat(top, np.flatnonzero(np.r_[True, file_place[1:] != file_place[:-1]]))

    # Throughput: the rise of the high mark over productive time, and over its last quarter.
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(productive > 0, rise / productive, np.nan)
        timed = dur * good
        done = np.cumsum(timed)  # over all places, to the end of each interval
        at_end = np.zeros(n_places)
        at_end[pl[last]] = done[last]
        left_after = at_end[pl] - done  # productive time of the place after each interval
        # the intervals from the one where the last quarter of the place's productive time begins
        window = good & ~first & ((left_after + timed <= productive[pl] / 4) | (left_after <= 0))
        recent_time = _sums(pl, timed * window, n_places)
        recent_rise = _sums(pl, step_rise * window, n_places)
        recent = np.where(recent_time > 0, recent_rise / recent_time, np.nan)

    # Steps done twice: each attempt's steps at or below its place's earlier highest.
    earlier = np.full(n_files, -1, np.int64)
    if n_files:
        running = _segment_cummax(top, file_place)
        earlier[1:] = np.where(file_place[1:] == file_place[:-1], running[:-1], -1)
    redo = np.minimum(top, earlier) - lowest + 1
    twice_file = np.where(has_low & (earlier >= 0) & (top >= 0), np.maximum(redo, 0), 0)
    twice = _sums(file_place, twice_file, n_places).astype(np.int64)
    restarts = np.bincount(file_place, minlength=n_places) - 1

    # One row per restart: the followed attempt, when its gap opened and closed.
    followed = np.flatnonzero(~final)
    at = latest[followed]
    upcoming = np.full(n + 1, n, np.int64)
    if n:
        upcoming[:n] = np.where(new, np.arange(n), n)
        upcoming = np.minimum.accumulate(upcoming[::-1])[::-1]
    nxt = upcoming[np.where(at >= 0, at + 1, n)]
    closed = (at >= 0) & (nxt < n)
    closed[closed] = pl[nxt[closed]] == file_place[followed[closed]]
    opened = np.where(at >= 0, w[np.maximum(at, 0)] if n else np.nan, np.nan)
    shut = np.where(closed, w[np.minimum(nxt, max(n - 1, 0))] if n else np.nan, np.nan)
    gap_lost = np.where(closed, shut, end[file_place[followed]]) - opened
    gaps = {
        "place": file_place[followed],
        "attempt": np.array([files[i][0].attempt for i in followed], np.int64),
        "next_attempt": np.array([files[i + 1][0].attempt for i in followed], np.int64),
        "opened": opened,
        "closed": shut,
        "lost": gap_lost,
        "twice": twice_file[followed + 1].astype(np.int64),
    }
    return Goodput(
        places, index, begin, end, productive, lost, restarts, twice, rate, recent, last_step, recovering, gaps
    )
