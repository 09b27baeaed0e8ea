"""The job overview: who is alive, who restarted, who is slow, how far apart the trainers are. Pure.

Built from each log file's progress (:mod:`.progress`). Definitions:

* a file's *end* is its footer's time when the writer closed cleanly, else the wall
  time of its last record;
* a file whose process's end is known is ``closed``, ``raised``, ``signalled`` or
  ``crashed`` (:func:`~visualdl._jobs.ends.end_state`); another is ``killed`` when a later
  file of the same place (role and rank) exists, ``silent`` when it has written nothing for
  ``silent_after`` seconds, and ``running`` otherwise; ``ends`` is the timeline of the ends
  (:mod:`.ends`);
* *throughput* of a place is new steps per second over its productive time, over all its
  attempts, and *recent* throughput over the last quarter of that time (restart gaps left
  out: see :mod:`.goodput`, which also measures each place's goodput); *stragglers* are
  places whose recent throughput is below 80% of their role's median;
* *step skew* at time t is, per role, the highest minus the lowest step reached by the
  places alive at t (the step a place had reached is interpolated along its trace).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from visualdl._jobs.ends import EndTimeline, end_state, end_timeline
from visualdl._jobs.goodput import Goodput, Throughput, measure_goodput
from visualdl._jobs.progress import FileProgress, by_place, role_order
from visualdl._kinds.table import ProcessEnd

__all__ = [
    "STRAGGLER_RATIO",
    "JobOverview",
    "Restarted",
    "RoleSize",
    "Skew",
    "WriterState",
    "file_spans",
    "job_overview",
    "time_grid",
]

#: A place is a straggler when its recent throughput is below this much of its role's median.
STRAGGLER_RATIO = 0.8


@dataclass(frozen=True, slots=True)
class RoleSize:
    """A role of the job: its places (role and rank), and the world size its writers declare (-1: none)."""

    role: str
    places: int
    world_size: int


@dataclass(frozen=True, slots=True)
class WriterState:
    """One log file of the job: its writer, its state (see the module docstring), its span
    (NaN: no time known), its points and steps, and how its process ended."""

    role: str
    rank: int
    attempt: int
    host: str
    pid: int
    file: str
    state: str
    start_time: float
    end_time: float
    points: int
    first_step: int | None  # the lowest step logged (the trace's first entry is its first record's highest)
    last_step: int | None
    ended: ProcessEnd | None


@dataclass(frozen=True, slots=True)
class Skew:
    """Per time of the grid, the lowest and highest step of a role's places then, and the
    rank of the lowest (None where no place was alive)."""

    min_step: list[float | None]
    max_step: list[float | None]
    slowest_rank: list[int | None]


@dataclass(frozen=True, slots=True)
class Restarted:
    """A place that wrote more than one file (``files``: its attempts)."""

    role: str
    rank: int
    files: int


@dataclass(frozen=True, slots=True)
class JobOverview:
    """A job at one moment (see the module docstring): its roles, every file's writer, a time
    grid, and per role the places alive at each grid time, the step skew, the throughput of
    each place, the stragglers (slowest first) and the median recent throughput; the places
    that restarted, the timeline of ends and the goodput."""

    roles: tuple[RoleSize, ...]
    writers: tuple[WriterState, ...]
    times: np.ndarray
    alive: dict[str, list[int]]
    skew: dict[str, Skew]
    throughput: dict[str, tuple[Throughput, ...]]
    stragglers: dict[str, list[int]]
    restarts: tuple[Restarted, ...]
    ends: EndTimeline
    median_recent_steps_per_second: dict[str, float | None]
    goodput: Goodput

    @property
    def live(self) -> bool:
        """Whether some writer is still running."""
        return any(w.state == "running" for w in self.writers)

    def hosts(self) -> dict[tuple[str, int], str]:
        """Each place's host (its last file's)."""
        return {(w.role, w.rank): w.host for w in self.writers}


def _finite_or_none(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def time_grid(starts: np.ndarray, ends: np.ndarray, now: float, grid: int) -> np.ndarray:
    """``grid`` times from the earliest start to the latest end of the files' spans (their
    finite ones; ``now`` when none is)."""
    t0 = float(np.nanmin(starts)) if np.isfinite(starts).any() else now
    t1 = float(max(np.nanmax(ends), t0 + 1e-3)) if np.isfinite(ends).any() else max(now, t0 + 1e-3)
    return np.linspace(t0, t1, grid)


def job_overview(
    progress: Sequence[FileProgress], *, now: float, silent_after: float = 60.0, grid: int = 240
) -> JobOverview:
    """The overview of the job whose files' progress is ``progress``, at ``now`` (see the module docstring)."""
    files = by_place(progress)
    writers, starts, ends = file_spans(files, now, silent_after)
    good = measure_goodput(files)
    keys = [(p[0].role, p[0].rank) for p in files]
    heads = [i for i in range(len(keys)) if i == 0 or keys[i] != keys[i - 1]]  # each place's first file
    places = [keys[i] for i in heads]
    roles = sorted({role for role, _ in places}, key=role_order)
    # Spans are finite or NaN (no time known for that file): the grid covers the known ones.
    times = time_grid(starts, ends, now, grid)
    inside, reached = _reached(files, times, starts, ends)
    per_place = _place_rows(inside, reached, heads)
    file_role = np.array([k[0] for k in keys], dtype=object)
    place_role = np.array([r for r, _ in places], dtype=object)
    place_rank = [rank for _, rank in places]
    alive: dict[str, list[int]] = {}
    skew: dict[str, Skew] = {}
    throughput: dict[str, tuple[Throughput, ...]] = {}
    stragglers: dict[str, list[int]] = {}
    for role in roles:
        alive[role] = inside[file_role == role].sum(axis=0).astype(int).tolist()
        members = np.flatnonzero(place_role == role)
        skew[role] = _skew(per_place[members], [place_rank[j] for j in members.tolist()], grid)
        entries = good.throughputs(role, STRAGGLER_RATIO)
        slow_first = sorted(entries, key=lambda e: e.recent_steps_per_second or 0.0)
        stragglers[role] = [e.rank for e in slow_first if e.straggler]
        throughput[role] = tuple(entries)
    counts = np.diff(np.r_[heads, len(files)]).tolist()
    return JobOverview(
        roles=tuple(
            RoleSize(
                role,
                int((place_role == role).sum()),
                max((f[0].world_size for f in files if f[0].role == role), default=-1),
            )
            for role in roles
        ),
        writers=tuple(writers),
        times=times,
        alive=alive,
        skew=skew,
        throughput=throughput,
        stragglers=stragglers,
        restarts=tuple(
            Restarted(role, rank, n)
            for role in roles
            for (r, rank), n in zip(places, counts, strict=True)
            if r == role and n > 1
        ),
        ends=end_timeline([f[0] for f in files]),
        median_recent_steps_per_second={
            role: _median([e.recent_steps_per_second for e in throughput[role]]) for role in roles
        },
        goodput=good,
    )


def _nan_unless_finite(values: list[float]) -> np.ndarray:
    a = np.array(values, float)
    a[~np.isfinite(a)] = np.nan
    return a


def file_spans(
    files: Sequence[FileProgress], now: float, silent_after: float
) -> tuple[list[WriterState], np.ndarray, np.ndarray]:
    """Each file's writer with its state (see the module docstring), and each file's span:
    from the earliest to the latest finite time it holds (NaN when none is: a crafted or
    damaged file's times leave it out of the time grid). ``files`` in :func:`by_place` order."""
    newest: dict[tuple[str, int], int] = {}
    for i, (info, *_rest) in enumerate(files):
        newest[(info.role, info.rank)] = i  # sorted: the last one of a place is its newest
    nan = math.nan
    first = [float(w[0]) if w.size else nan for _, w, *_rest in files]
    last_seen = [float(w[-1]) if w.size else info.start_time for info, w, *_rest in files]
    # Logged wall times may be the user's own (walltime=...): the file's span covers them.
    starts = np.fmin(_nan_unless_finite([f[0].start_time for f in files]), _nan_unless_finite(first))
    told_at = [nan] * len(files)  # the end's time and the footer's, for the files whose end is known
    footer_at = [nan] * len(files)
    running = np.zeros(len(files), bool)
    states = []
    for i, (info, *_rest) in enumerate(files):
        told = end_state(info.ended)
        if told is not None:  # closed, raised, signalled, crashed
            told_at[i] = cast(ProcessEnd, info.ended).wall_time
            footer_at[i] = info.end_time if info.end_time is not None else told_at[i]
        elif newest[(info.role, info.rank)] != i:
            told = "killed"
        elif now - last_seen[i] > silent_after:
            told = "silent"
        else:
            told, running[i] = "running", True
        states.append(told)
    ends = np.fmax(np.fmax(_nan_unless_finite(told_at), _nan_unless_finite(footer_at)), _nan_unless_finite(last_seen))
    ends[running] = now
    writers = [
        WriterState(
            info.role,
            info.rank,
            info.attempt,
            info.host,
            info.pid,
            info.path.rsplit("/", 1)[-1],
            state,
            begin,
            end,
            points,
            first_step,
            int(steps[-1]) if steps.size else None,
            info.ended,
        )
        for (info, _, steps, points, first_step), state, begin, end in zip(
            files, states, starts.tolist(), ends.tolist(), strict=True
        )
    ]
    return writers, starts, ends


#: Files whose grid rows are computed at once: a bound on the temporary arrays (a few
#: times 8 bytes x files x grid).
ROWS_AT_ONCE = 2048


def _reached(
    files: Sequence[FileProgress], times: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per file and time of the grid: whether the file's span covers the time, and the step
    it had reached then, interpolated along its trace (NaN outside its span and before its
    first entry; its last step after its last entry). The same as ``np.interp`` of each
    file's trace with ``left=NaN``, for every file at once: each grid time's entry of a file
    is the count of the file's entries at or before it, one ``bincount`` and ``cumsum``."""
    inside = (times >= starts[:, None]) & (times <= ends[:, None])
    out = np.full(inside.shape, np.nan)
    for lo in range(0, len(files), ROWS_AT_ONCE):
        hi = min(lo + ROWS_AT_ONCE, len(files))
        out[lo:hi] = _interpolated(files[lo:hi], times)
    out[~inside] = np.nan
    return inside, out


def _interpolated(files: Sequence[FileProgress], times: np.ndarray) -> np.ndarray:
    n, grid = len(files), times.size
    walls = np.concatenate([np.asarray(p[1], float) for p in files]) if n else np.empty(0)
    steps = np.concatenate([np.asarray(p[2], float) for p in files]) if n else np.empty(0)
    owner = np.repeat(np.arange(n), [p[1].size for p in files])
    keep = np.isfinite(walls)  # an entry without a time cannot be placed
    if not keep.all():
        walls, steps, owner = walls[keep], steps[keep], owner[keep]
    if walls.size > 1 and ((walls[1:] < walls[:-1]) & (owner[1:] == owner[:-1])).any():
        order = np.lexsort((walls, owner))  # each trace in time order, as np.interp needs
        walls, steps, owner = walls[order], steps[order], owner[order]
    lengths = np.bincount(owner, minlength=n)
    offsets = np.cumsum(lengths) - lengths
    cell = np.searchsorted(times, walls, "left")  # the first grid time at or after each entry
    counts = np.bincount(owner * (grid + 1) + cell, minlength=n * (grid + 1)).reshape(n, grid + 1)[:, :grid]
    k = np.cumsum(counts, axis=1)  # entries at or before each grid time
    final = np.full(n, np.nan)  # each trace's last step
    final[lengths > 0] = steps[(offsets + lengths - 1)[lengths > 0]]
    after = (k >= lengths[:, None]) & (k > 0)  # at or after the last entry: its step
    out = np.where(after, final[:, None], np.nan)
    between = (k > 0) & ~after
    if between.any():
        row = np.broadcast_to(offsets[:, None], (n, grid))[between] + k[between]
        x0, x1, y0, y1 = walls[row - 1], walls[row], steps[row - 1], steps[row]
        t = np.broadcast_to(times, (n, grid))[between]
        out[between] = y0 + (t - x0) * (y1 - y0) / (x1 - x0)
    return out


def _place_rows(inside: np.ndarray, reached: np.ndarray, heads: list[int]) -> np.ndarray:
    """Per place (its files ``heads[p]`` up to the next head) and grid time: the step of its
    last file (in attempt order) whose span covers the time, NaN where none does (``reached``
    is NaN outside a file's span). The later files of the places that restarted overwrite
    the first ones', an attempt number at a time."""
    first = np.asarray(heads, np.int64)
    rows: np.ndarray = reached[first]
    counts = np.diff(np.r_[first, inside.shape[0]])
    for later in range(1, int(counts.max()) if counts.size else 0):
        which = np.flatnonzero(counts > later)
        files = first[which] + later
        rows[which] = np.where(inside[files], reached[files], rows[which])
    return rows


def _skew(matrix: np.ndarray, ranks: list[int], grid: int) -> Skew:
    """Per time of the grid, the lowest and highest step of a role's places then, and the
    rank of the lowest (None where no place was alive)."""
    if matrix.shape[0] == 0:
        return Skew([None] * grid, [None] * grid, [None] * grid)
    missing = np.isnan(matrix)
    some = ~missing.all(axis=0)
    low = np.where(missing, np.inf, matrix)
    slowest = np.argmin(low, axis=0)
    lo = np.where(some, low.min(axis=0), np.nan)
    hi = np.where(some, np.where(missing, -np.inf, matrix).max(axis=0), np.nan)
    return Skew(
        [_finite_or_none(v) for v in lo.tolist()],
        [_finite_or_none(v) for v in hi.tolist()],
        [int(ranks[j]) if s else None for j, s in zip(slowest.tolist(), some.tolist(), strict=True)],
    )


def _median(xs: list[float | None]) -> float | None:
    real = [x for x in xs if x is not None]
    return float(np.median(real)) if real else None
