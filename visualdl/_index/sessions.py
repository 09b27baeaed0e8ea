"""TensorBoard's session starts, as TensorBoard's own reader applies them. Pure.

A ``SessionLog.START`` at step ``s`` (a restarted TensorFlow session; tensorboardX's and
torch's ``purge_step``) orphans every point read *before it* with a step ``>= s``: the points
of the run's earlier files (event files are read in name order, and their names start with
the time they were created) and of the earlier records of its own file. Points read after it
stay, whatever their step and wall time. Wall times play no part: a writer given explicit
wall times older than the session (replayed logs, a data timestamp, another host's clock)
loses nothing.

A file's own points are not kept in record order once they went back in step (the series is
sorted by step), so a start in the middle of a file orphans that file's earlier points by
wall time instead (those logged before the start's wall time); a start before any point of
its file (what ``purge_step`` writes: a new file that starts with it) orphans none of them.
Event files follow only this rule: they say nothing of attempts, and two sessions that log
the same steps without a start keep both points, as TensorBoard shows them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from visualdl._index.restarts import Resolved, purge
from visualdl._index.series import ScalarSeries, merge

__all__ = ["Start", "in_sessions"]

#: A session start: its wall time, its step, and the scalar points of its file before it.
Start = tuple[float, int, int]


def _split(series: ScalarSeries, mask: np.ndarray) -> tuple[ScalarSeries, ScalarSeries]:
    """``series`` without the points of ``mask``, and those points."""

    def pick(m: np.ndarray) -> ScalarSeries:
        return ScalarSeries(series.steps[m], series.values[m], series.wall_times[m])

    return pick(~mask), pick(mask)


def in_sessions(
    paths: list[str], starts: dict[str, list[Start]], points: Callable[[str], ScalarSeries | None]
) -> Resolved:
    """One tag of the event files ``paths`` (with the run's other event files that hold
    session starts, in ``starts``) put together by TensorBoard's rule: kept and orphaned
    points, and how many starts orphaned any. ``points(path)``: the file's points of the
    tag (None without any)."""
    kept: list[ScalarSeries] = []
    orphaned: list[ScalarSeries] = []
    restarts = 0
    for path in sorted(set(paths) | set(starts)):
        own = points(path) if path in paths else None
        for wall, step, before in starts.get(path, ()):
            dropped = False
            survivors = []
            for part in kept:
                late = part.steps >= step
                if late.any():
                    part, gone = _split(part, late)
                    orphaned.append(gone)
                    dropped = True
                survivors.append(part)
            kept = survivors
            if before and own is not None and len(own):
                own, gone = purge(own, [(wall, step)])
                if len(gone):
                    orphaned.append(gone)
                    dropped = True
            restarts += dropped
        if own is not None and len(own):
            kept.append(own)
    return Resolved(merge(kept), merge(orphaned), restarts)
