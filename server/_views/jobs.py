"""The job page: who is alive, who restarted, who is slow, how far apart the trainers are. Pure.

Built from :meth:`visualdl._index.logreader.LogReader.progress`: per log file its writer's header
(role, rank, attempt, start time, footer) and its progress trace, one ``(wall time,
highest step so far)`` entry per scalar record (about one per flush). Nothing here
reads points, so a job of 1,000 ranks costs a few thousand small numpy calls.

Definitions:

* a file's *end* is its footer's time when the writer closed cleanly, else the wall
  time of its last record;
* a file whose process's end is known is ``closed``, ``raised``, ``signalled`` or
  ``crashed`` (:func:`~visualdl.server._views.job_ends.end_state`); another is ``killed``
  when a later file of the same place (role and rank) exists, ``silent`` when it has
  written nothing for ``silent_after`` seconds, and ``running`` otherwise; ``ends`` is
  the timeline of the ends (:mod:`~visualdl.server._views.job_ends`);
* *throughput* of a place is new steps per second over its productive time, over all its
  attempts, and *recent* throughput over the last quarter of that time (restart gaps left
  out: see :mod:`.goodput`, which also measures each place's goodput); *stragglers* are
  places whose recent throughput is below 80% of their role's median;
* *step skew* at time t is, per role, the highest minus the lowest step reached by the
  places alive at t (the step a place had reached is interpolated along its trace).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from visualdl._index.index import WriterInfo
from visualdl._kinds.table import ProcessEnd
from visualdl.server._views.goodput import goodput_answer, measure_goodput
from visualdl.server._views.job_ends import end_state, end_timeline, ended_json

__all__ = ["job_answer", "job_overview"]

Progress = tuple[WriterInfo, np.ndarray, np.ndarray, int, int | None]

STRAGGLER_RATIO = 0.8


def _finite_or_none(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def _finite(pick: Callable[[list[float]], float], *times: float) -> float:
    """``pick`` (``min`` or ``max``) of the finite ``times``; NaN when none is (a crafted or
    damaged file's times): such a file is left out of the time grid, its times are null."""
    finite = [float(t) for t in times if math.isfinite(t)]
    return pick(finite) if finite else math.nan


def job_overview(
    progress: Sequence[Progress], *, now: float, silent_after: float = 60.0, grid: int = 240
) -> dict[str, Any]:
    """The job page's JSON for one run (see the module docstring)."""
    files = sorted(progress, key=lambda p: (p[0].role, p[0].rank, p[0].attempt, p[0].start_time))
    writers, starts, ends = _writers(files, now, silent_after)
    good = measure_goodput(files)
    places: dict[tuple[str, int], list[int]] = {}
    for i, (info, *_rest) in enumerate(files):
        places.setdefault((info.role, info.rank), []).append(i)
    roles = sorted({role for role, _ in places}, key=lambda r: (r != "trainer", r))
    # Spans are finite or NaN (no time known for that file): the grid covers the known ones.
    t0 = float(np.nanmin(starts)) if np.isfinite(starts).any() else now
    t1 = float(max(np.nanmax(ends), t0 + 1e-3)) if np.isfinite(ends).any() else max(now, t0 + 1e-3)
    times = np.linspace(t0, t1, grid)
    alive: dict[str, list[int]] = {}
    skew: dict[str, dict[str, list[Any]]] = {}
    throughput: dict[str, list[dict[str, Any]]] = {}
    stragglers: dict[str, list[int]] = {}
    restarts = []
    for role in roles:
        members = [i for i, (info, *_rest) in enumerate(files) if info.role == role]
        cover = (starts[members, None] <= times) & (ends[members, None] >= times)
        alive[role] = cover.sum(axis=0).astype(int).tolist()
        rows = []
        ranks = []
        entries: list[dict[str, Any]] = []
        for (r_role, rank), idx in places.items():
            if r_role != role:
                continue
            if len(idx) > 1:
                restarts.append({"role": role, "rank": rank, "files": len(idx)})
            rows.append(_steps_over_time(files, idx, times, starts, ends))
            ranks.append(rank)
            entries.append(good.throughput((role, rank)))
        skew[role] = _skew(rows, ranks, grid)
        stragglers[role] = _mark_stragglers(entries)
        throughput[role] = sorted(entries, key=lambda e: e["rank"])
    return {
        "roles": [
            {
                "role": role,
                "places": sum(1 for r, _ in places if r == role),
                "world_size": max((f[0].world_size for f in files if f[0].role == role), default=-1),
            }
            for role in roles
        ],
        "writers": writers,
        "times": times.tolist(),
        "alive": alive,
        "skew": skew,
        "throughput": throughput,
        "stragglers": stragglers,
        "restarts": restarts,
        "ends": end_timeline([f[0] for f in files]),
        "median_recent_steps_per_second": {
            role: _median([e["recent_steps_per_second"] for e in throughput[role]]) for role in roles
        },
        "goodput": goodput_answer(good),
    }


def _writers(
    files: Sequence[Progress], now: float, silent_after: float
) -> tuple[list[dict[str, Any]], np.ndarray, np.ndarray]:
    """Each file's writer with its state (see the module docstring), and each file's span."""
    newest: dict[tuple[str, int], int] = {}
    for i, (info, *_rest) in enumerate(files):
        newest[(info.role, info.rank)] = i  # sorted: the last one of a place is its newest
    writers = []
    starts = np.empty(len(files))
    ends = np.empty(len(files))
    for i, (info, walls, steps, points, first) in enumerate(files):
        last_seen = float(walls[-1]) if walls.size else info.start_time
        # Logged wall times may be the user's own (walltime=...): the file's span covers them.
        begin = _finite(min, info.start_time, float(walls[0]) if walls.size else math.nan)
        told = end_state(info.ended)
        if told is not None:  # closed, raised, signalled, crashed
            state = told
            told_at = cast(ProcessEnd, info.ended).wall_time
            end = _finite(max, info.end_time if info.end_time is not None else told_at, told_at, last_seen)
        elif newest[(info.role, info.rank)] != i:
            state, end = "killed", _finite(max, last_seen)
        elif now - last_seen > silent_after:
            state, end = "silent", _finite(max, last_seen)
        else:
            state, end = "running", now
        starts[i], ends[i] = begin, end
        writers.append(
            {
                "role": info.role,
                "rank": info.rank,
                "attempt": info.attempt,
                "host": info.host,
                "pid": info.pid,
                "file": info.path.rsplit("/", 1)[-1],
                "state": state,
                "start_time": begin,
                "end_time": end,
                "points": points,
                "first_step": first,  # the lowest step logged (the trace's first entry is its first record's highest)
                "last_step": int(steps[-1]) if steps.size else None,
                "ended": ended_json(info.ended),
            }
        )
    return writers, starts, ends


def _steps_over_time(
    files: Sequence[Progress], idx: list[int], times: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> np.ndarray:
    """The step a place (its files ``idx``) had reached at each of ``times``, interpolated
    along its traces, only while one of its files was alive (NaN otherwise)."""
    row = np.full(times.size, np.nan)
    for i in idx:
        w, s = files[i][1], files[i][2]
        if w.size:
            inside = (times >= starts[i]) & (times <= ends[i])
            row[inside] = np.interp(times[inside], w, s.astype(float), left=np.nan)
    return row


def _skew(rows: list[np.ndarray], ranks: list[int], grid: int) -> dict[str, list[Any]]:
    """Per time of the grid, the lowest and highest step of a role's places then, and the
    rank of the lowest (None where no place was alive)."""
    matrix = np.array(rows) if rows else np.empty((0, grid))
    with np.errstate(all="ignore"):
        some = np.asarray(~np.isnan(matrix).all(axis=0), bool) if rows else np.zeros(grid, bool)
        lo = np.where(some, np.nanmin(np.where(np.isnan(matrix), np.inf, matrix), axis=0), np.nan)
        hi = np.where(some, np.nanmax(np.where(np.isnan(matrix), -np.inf, matrix), axis=0), np.nan)
        slowest = np.argmin(np.where(np.isnan(matrix), np.inf, matrix), axis=0) if rows else np.zeros(grid, int)
    return {
        "min_step": [_finite_or_none(v) for v in lo],
        "max_step": [_finite_or_none(v) for v in hi],
        "slowest_rank": [int(ranks[j]) if s else None for j, s in zip(slowest, some, strict=True)],
    }


def _mark_stragglers(entries: list[dict[str, Any]]) -> list[int]:
    """Mark each place whose recent throughput is below the ratio of its role's median, and
    return their ranks, slowest first."""
    recent = [e["recent_steps_per_second"] for e in entries if e["recent_steps_per_second"] is not None]
    median = float(np.median(recent)) if recent else None
    for e in entries:
        r = e["recent_steps_per_second"]
        e["straggler"] = bool(median and r is not None and r < STRAGGLER_RATIO * median)
    slow_first = sorted(entries, key=lambda e: e["recent_steps_per_second"] or 0.0)
    return [e["rank"] for e in slow_first if e["straggler"]]


def _median(xs: list[float | None]) -> float | None:
    real = [x for x in xs if x is not None]
    return float(np.median(real)) if real else None


def job_answer(run: str, progress: Sequence[Progress], *, now: float) -> dict[str, Any]:
    """The answer of ``/api/job``: the job page of ``run`` at ``now``."""
    return {"run": run, **job_overview(progress, now=now)}
