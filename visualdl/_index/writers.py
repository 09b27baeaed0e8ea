"""Who wrote each log file of a run, and how its process ended: :class:`WriterInfo` and
:func:`writer_infos`, which :meth:`visualdl._index.index.Index.writers` answers with.

A file's end is what its writer recorded (an end record, a fatal-signal sidecar, a
footer), else what :func:`visualdl._index.ends.infer_end` infers from its silence. An
inferred kill asks whether its host's memory ran out then: of every host-memory sample of
the run's files on that host (whichever writer of the host samples it), the one with the
least memory available in the minute up to a few seconds after the file's last record
(a kill frees the memory: later samples show the host recovered). Those samples are
gathered per host once per call, in wall-time order, and only when some file's end is
inferred, so that a job of 10,000 ranks on one host costs one sort, not 10,000 scans of
10,000 files.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from visualdl._formats.writerstate import WriterState
from visualdl._index.ends import SILENT_AFTER, HostMemory, infer_end, live_until
from visualdl._index.runs import Run
from visualdl._index.sidecars import Sidecars
from visualdl._index.system import SystemStore
from visualdl._kinds.table import ProcessEnd
from visualdl.proto import pb

__all__ = [
    "CARRIED",
    "MEMORY_AFTER_SECS",
    "MEMORY_LOOKBACK_SECS",
    "HostMemories",
    "WriterInfo",
    "running_until",
    "writer_infos",
]

#: The host-memory samples an inferred kill looks at: up to a minute before the writer's
#: last record, and a few seconds after it (its own sampler's last samples may be unflushed).
MEMORY_LOOKBACK_SECS = 60.0
MEMORY_AFTER_SECS = 5.0


@dataclass(frozen=True, slots=True)
class WriterInfo:
    """A log file and the header of the process that wrote it, with what its other records
    said of it (its :class:`~visualdl._formats.writerstate.WriterState`: a field named as
    one of the state's is the state's, carried over as it is)."""

    path: str
    writer_id: str
    host: str
    pid: int
    start_time: float
    sdk_version: str
    display_name: str
    rank: int
    world_size: int
    local_rank: int
    role: str
    job: str
    attempt: int
    launcher: str  # where rank & co were detected from ("" = nowhere / explicit only)
    closed: bool  # a footer was read: the writer closed cleanly
    end_time: float | None = None  # the footer's wall time, when closed
    #: How the writer's process ended: its end record (the last one), else "closed" at the
    #: footer's time for a footer alone; None when neither was read (still running, or killed
    #: without a trace).
    ended: ProcessEnd | None = None
    #: "visualdl"; "tfevents" for a TensorBoard event file (whose writer is known only by
    #: its file's name and first event: no rank, never "closed"); "vdl2" for a VisualDL 2
    #: log file (known by its ``meta_data`` records: start time, display name; no rank,
    #: never "closed").
    format: str = "visualdl"
    #: ``(tag, plugin, values)`` of what the file holds and is not shown (TensorBoard plugins
    #: without a view here: PR curves, audio, hparams, ...; VisualDL 2's kinds of
    #: :data:`visualdl._formats.vdl2.decode.COUNTED_KINDS`, by VisualDL 2's name), so that nothing
    #: vanishes unsaid.
    unshown: tuple[tuple[str, str, int], ...] = ()
    #: Where the writer's process came from (command line, git state, packages), when its
    #: log says (:mod:`visualdl.sdk._provenance`); never to be changed.
    provenance: pb.Provenance | None = None
    #: What the process lived on after, oldest first (a helper thread's uncaught exception,
    #: a SIGTERM the program's own handler took): never its end, which comes later or, after
    #: a kill, is inferred (``"killed"``, with these still on its timeline).
    events: tuple[ProcessEnd, ...] = ()
    #: The file's last sign of life: the wall time of its last scalar record or event, else
    #: its header's start (a writer without an end is inferred gone ``silent_after`` seconds after).
    last_seen: float = math.nan


#: The fields of a file's :class:`WriterState` that its :class:`WriterInfo` holds as they are
#: (those of the same name).
CARRIED: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(WriterState) if f.name in {g.name for g in dataclasses.fields(WriterInfo)}
)


class HostMemories:
    """Every host-memory sample of some files, per host, in wall-time order."""

    __slots__ = ("_hosts",)

    def __init__(self, stores: Iterable[tuple[str, SystemStore]]) -> None:
        parts: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]] = {}
        for host, store in stores:
            parts.setdefault(host, []).extend(store.host_memory_samples())
        self._hosts: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        for host, found in parts.items():
            if not found:
                continue
            walls, used, available, total = (np.concatenate([f[k] for f in found]) for k in range(4))
            keep = ~np.isnan(walls) & ~np.isnan(available)
            order = np.argsort(walls[keep], kind="stable")
            self._hosts[host] = (walls[keep][order], used[keep][order], available[keep][order], total[keep][order])

    def lowest(self, host: str, start: float, stop: float) -> HostMemory | None:
        """The sample of ``host`` between ``start`` and ``stop`` (wall times, both included)
        with the least memory available (the earliest of equals); None when there is none."""
        found = self._hosts.get(host)
        if found is None:
            return None
        walls, used, available, total = found
        lo, hi = np.searchsorted(walls, start, "left"), np.searchsorted(walls, stop, "right")
        if lo >= hi:
            return None
        i = int(lo + np.argmin(available[lo:hi]))
        return HostMemory(float(walls[i]), float(used[i]), float(available[i]), float(total[i]))


def writer_infos(state: Run, sidecars: Sidecars, *, now: float, silent_after: float) -> list[WriterInfo]:
    """One :class:`WriterInfo` per file of ``state`` with a header, in path order (see the
    module docstring); under the index's lock."""
    files = [(path, f) for path, f in sorted(state.files.items()) if f.header is not None]
    newest: dict[tuple[str, int], tuple[int, float, str]] = {}
    for path, f in files:
        h = cast(pb.Header, f.header)
        key = (h.attempt, h.start_time, path)
        newest[(h.role, h.rank)] = max(newest.get((h.role, h.rank), key), key)
    memories: list[HostMemories] = []  # built at the first inferred end

    def host_memory(host: str, last_seen: float) -> HostMemory | None:
        if not memories:
            memories.append(HostMemories(_host_stores(state)))
        return memories[0].lowest(host, last_seen - MEMORY_LOOKBACK_SECS, last_seen + MEMORY_AFTER_SECS)

    out = []
    for path, logfile in files:
        writer: WriterState = logfile.writer
        h = cast(pb.Header, writer.header)
        progress = state.progress.get(path)
        store = state.system.get(path)
        sampled = store.last_wall if store is not None else -math.inf
        last_seen = _last_seen(h.start_time, progress.walls if progress is not None else None, writer.events, sampled)
        last_step = progress.steps[-1] if progress is not None and len(progress.steps) else None  # the highest so far
        dump, dumped_at = sidecars.dump(path)
        ended = infer_end(
            recorded=writer.end,
            closed_at=writer.footer.wall_time if writer.footer is not None else None,
            fatal=dump,
            fatal_time=dumped_at,
            last_seen=last_seen,
            last_step=int(last_step) if last_step is not None else None,
            superseded=newest[(h.role, h.rank)][2] != path,
            now=now,
            foreign=logfile.format.name != "visualdl",
            silent_after=silent_after,
            memory=functools.partial(host_memory, h.host, last_seen),
        )
        out.append(
            WriterInfo(
                path=path,
                writer_id=h.writer_id,
                host=h.host,
                pid=h.pid,
                start_time=h.start_time,
                sdk_version=h.sdk_version,
                display_name=h.display_name,
                rank=h.rank,
                world_size=h.world_size,
                local_rank=h.local_rank,
                role=h.role,
                job=h.job,
                attempt=h.attempt,
                launcher=h.launcher,
                closed=writer.footer is not None,
                end_time=writer.footer.wall_time if writer.footer is not None else None,
                ended=ended,
                format=logfile.format.name,
                unshown=logfile.decoder.unshown(),
                last_seen=last_seen,
                **{name: getattr(writer, name) for name in CARRIED},
            )
        )
    return out


def running_until(
    writers: Iterable[WriterInfo], silent_after: float = SILENT_AFTER, *, finished_after: float | None = None
) -> float:
    """The wall time at which the first of ``writers`` read as running (no end) is inferred
    killed by its silence alone (:func:`visualdl._index.ends.live_until`): what was built
    from them is stale then. ``math.inf`` when none is running. ``finished_after``: also
    when a file of another writer, live at that time, turns finished by the runs table's rule
    (its last record ``silent_after`` seconds old: :mod:`visualdl._index.runtable`)."""
    writers = list(writers)
    until = live_until(((w.last_seen, w.format != "visualdl") for w in writers if w.ended is None), silent_after)
    if finished_after is not None:
        for w in writers:
            flip = w.last_seen + silent_after
            if w.format != "visualdl" and w.ended is None and not w.closed and flip > finished_after:
                until = min(until, flip)
    return until


def _host_stores(state: Run) -> Iterable[tuple[str, SystemStore]]:
    for path, store in state.system.items():
        logfile = state.files.get(path)
        header = getattr(logfile, "header", None) if logfile is not None else None
        if header is not None:
            yield header.host, store


def _last_seen(start_time: float, walls: Any, events: tuple[ProcessEnd, ...] = (), sampled: float = -math.inf) -> float:
    """A file's last sign of life: its last scalar record's wall time, else its header's start,
    or its last event's or its last system-metrics sample's (``sampled``) when later: the
    process was there then (a run that logs a scalar every few minutes, its sampler every
    few seconds, is alive between its scalars)."""
    seen = start_time
    if walls is not None and len(walls):
        last = float(walls[-1])
        if math.isfinite(last):
            seen = max(last, start_time) if math.isfinite(start_time) else last
    for event in events:
        if math.isfinite(event.wall_time) and not event.wall_time <= seen:
            seen = event.wall_time
    if math.isfinite(sampled) and not sampled <= seen:
        seen = sampled
    return seen
