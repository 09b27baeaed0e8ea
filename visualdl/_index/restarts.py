"""Restarts of one process of a job: the newest attempt wins from its first step on. Pure.

A *stream* is one place in a job (a role and a rank; every unranked writer of a run
shares one stream) written by one or more files: the first attempt, then the files
of processes restarted after it was killed (an elastic restart, a resume from a
checkpoint). Training resumed from a checkpoint logs steps again that the killed
attempt already logged; TensorBoard draws both as one zig-zag line.

:func:`resolve` puts a stream's series of one tag together, oldest attempt first. A
file *restarts* the stream when it is a later attempt (both headers carry an attempt
number and the new one is higher), or when its process started after the last point
the earlier files logged for this tag. A restart at step ``s`` replaces every earlier
point with a step ``>= s``: those points come back apart, as ``replaced``, never mixed
into the kept line. Files that ran at the same time (two writers of one process, a
rank logging from two threads into two writers) are merged as they are.

:func:`purge` is the other kind of restart, told by the file itself: a session start
(TensorBoard's ``purge_step``) supersedes what was logged before it from its step on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from visualdl._index.series import ScalarSeries, merge

__all__ = ["Attempt", "Resolved", "purge", "resolve"]


@dataclass(frozen=True, slots=True)
class Attempt:
    """The points of one tag that one file holds, with what is known of its process."""

    series: ScalarSeries
    start_time: float  # the header's: when the writing process started
    attempt: int  # the header's attempt number, -1 if unknown


@dataclass(frozen=True, slots=True)
class Resolved:
    kept: ScalarSeries
    replaced: ScalarSeries
    restarts: int  # how many files restarted the stream (for this tag)


def _slice(series: ScalarSeries, lo: int, hi: int) -> ScalarSeries:
    return ScalarSeries(series.steps[lo:hi], series.values[lo:hi], series.wall_times[lo:hi])


def resolve(attempts: list[Attempt]) -> Resolved:
    """The stream's kept and replaced points; ``attempts`` in any order."""
    order = sorted(attempts, key=lambda a: (a.attempt, a.start_time))
    kept: list[ScalarSeries] = []
    replaced: list[ScalarSeries] = []
    last_wall = -np.inf
    last_attempt = -1
    restarts = 0
    for a in order:
        s = a.series
        if not len(s):
            continue
        later_attempt = a.attempt >= 0 and last_attempt >= 0 and a.attempt > last_attempt
        if kept and (later_attempt or a.start_time >= last_wall):
            first = int(s.steps[0])
            before = len(replaced)
            cut = []
            for part in kept:
                i = int(np.searchsorted(part.steps, first, side="left"))
                if i < len(part):
                    replaced.append(_slice(part, i, len(part)))
                cut.append(_slice(part, 0, i))
            if len(replaced) > before:
                restarts += 1
            kept = cut
        kept.append(s)
        last_wall = max(last_wall, float(s.wall_times.max()))
        last_attempt = max(last_attempt, a.attempt)
    return Resolved(merge(kept), merge(replaced), restarts)


def purge(series: ScalarSeries, starts: list[tuple[float, int]]) -> tuple[ScalarSeries, ScalarSeries]:
    """``series`` without the points that a session start orphaned, and those points.

    A start ``(wall, s)`` orphans every point with a step ``>= s`` written before it
    (a wall time below ``wall``): the session was restarted at ``s``, and what the
    earlier session logged from ``s`` on was superseded. Order is kept.
    """
    if not starts or not len(series):
        return series, merge([])
    orphan = np.zeros(len(series), bool)
    for wall, step in starts:
        orphan |= (series.steps >= step) & (series.wall_times < wall)
    if not orphan.any():
        return series, merge([])
    keep = ~orphan

    def pick(mask: np.ndarray) -> ScalarSeries:
        return ScalarSeries(series.steps[mask], series.values[mask], series.wall_times[mask])

    return pick(keep), pick(orphan)
