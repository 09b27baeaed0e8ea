"""How a writer's process ended, when its log does not say: inferred from what the reader
sees. Pure: no file, no clock (the caller passes ``now``).

* An end record in the log (closed, an exception, SIGTERM/SIGINT) is the end. Events (a
  helper thread's exception, a SIGTERM the program handled: records the process lived on
  after) never are: a writer with events alone has no end record, and the rules below apply.
* Else a fatal-signal dump in the log's sidecar (:mod:`visualdl._formats.fatal`) is a
  ``"fatal signal"`` end: the signal, faulthandler's traceback, the sidecar's time.
* Else a footer alone is a clean close (a writer older than end records).
* Else the writer is gone without a trace (``"killed"``: SIGKILL, the OOM killer, a
  preempted machine) when it is not running any more: a later file of the same place
  (role and rank) exists (*superseded*), or nothing was written for ``silent_after``
  seconds (*silent*; a hung process looks the same, and its ``cause`` says so). Its time
  and step are the last the log holds. When the host's last memory sample before the end
  shows the memory nearly exhausted, the cause is ``"probably out of memory"``.
* Else it is running: None.

A file read as running stays so only until ``silent_after`` seconds after its last sign of
life: :func:`live_until` says when the first of some files' ends changes by the clock
alone, so that what was built from them (the runs table's status, the list of runs) is
built again then, not kept "live" forever.

The host's memory sample is asked of an argument (a callable giving a :class:`HostMemory`),
so that whatever records system metrics can pass it, and pay for finding it only for a kill.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from visualdl._formats.fatal import FatalDump
from visualdl._kinds.process_end import ProcessEnd

__all__ = [
    "MEMORY_EXHAUSTED",
    "MEMORY_SAMPLE_SECS",
    "OUT_OF_MEMORY",
    "SILENT_AFTER",
    "HANG_OR_KILL",
    "HostMemory",
    "infer_end",
    "live_until",
    "memory_exhausted",
]

#: Seconds without a record after which a file's writer counts as gone (as the job page's "silent").
SILENT_AFTER = 60.0
#: The host's memory is nearly exhausted when less than this share of it is available.
MEMORY_EXHAUSTED = 0.05
#: A memory sample counts for an end only when taken at most this long before it.
MEMORY_SAMPLE_SECS = 60.0
OUT_OF_MEMORY = "probably out of memory"
HANG_OR_KILL = "silent: killed without a trace, or hung"


@dataclass(frozen=True, slots=True)
class HostMemory:
    """One sample of the host's memory (bytes) and when it was taken (seconds since the epoch)."""

    wall_time: float
    used: float
    available: float
    total: float


def memory_exhausted(sample: HostMemory | None, end_time: float) -> bool:
    """Whether ``sample`` shows the host's memory nearly exhausted shortly before ``end_time``."""
    if sample is None or not (math.isfinite(sample.total) and sample.total > 0):
        return False
    if not (math.isfinite(sample.wall_time) and math.isfinite(end_time)):
        return False
    if not (end_time - MEMORY_SAMPLE_SECS <= sample.wall_time <= end_time + MEMORY_SAMPLE_SECS):
        return False
    available = sample.available if math.isfinite(sample.available) else sample.total - sample.used
    if not math.isfinite(available):
        return False
    return available < MEMORY_EXHAUSTED * sample.total


def infer_end(
    *,
    recorded: ProcessEnd | None,
    closed_at: float | None,
    fatal: FatalDump | None,
    fatal_time: float | None,
    last_seen: float,
    last_step: int | None,
    superseded: bool,
    now: float,
    silent_after: float = SILENT_AFTER,
    memory: Callable[[], HostMemory | None] | None = None,
    foreign: bool = False,
) -> ProcessEnd | None:
    """How a writer's process ended (see the module docstring). ``closed_at``: the footer's
    time (None: no footer); ``fatal_time``: when the sidecar was written (None: unknown,
    then ``last_seen``); ``last_seen``: the wall time of the log's last record (or its
    start); ``last_step``: the highest step the log holds. ``foreign``: a file of another
    writer (TensorBoard's, VisualDL 2's), which never writes an end: nothing is inferred.
    ``memory`` gives the host's memory sample that tells an out-of-memory kill; it is asked
    only for an end inferred as killed."""
    if recorded is not None:
        return recorded
    if fatal is not None and fatal.signal:
        when = fatal_time if fatal_time is not None and math.isfinite(fatal_time) else last_seen
        return ProcessEnd("fatal signal", when, signal=fatal.signal, traceback=fatal.traceback, step=last_step)
    if closed_at is not None:
        return ProcessEnd("closed", closed_at)
    if foreign or (not superseded and not (now - last_seen > silent_after)):
        return None
    sample = memory() if memory is not None else None
    cause = OUT_OF_MEMORY if memory_exhausted(sample, last_seen) else ("" if superseded else HANG_OR_KILL)
    return ProcessEnd("killed", last_seen, step=last_step, cause=cause)


def live_until(running: Iterable[tuple[float, bool]], silent_after: float = SILENT_AFTER) -> float:
    """The wall time at which the first file of ``running`` (``(last_seen, foreign)`` of each
    file read as running: no end, not superseded) is inferred killed by its silence alone;
    ``math.inf`` when none will be (foreign files never are)."""
    first = math.inf
    for last_seen, foreign in running:
        if not foreign and math.isfinite(last_seen):
            first = min(first, last_seen + silent_after)
    return first
