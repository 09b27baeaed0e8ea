"""LogReader: the one reading layer of VisualDL, for the server, notebooks and scripts.

``LogReader(logdir)`` finds every log file under ``logdir`` (a run is a directory
holding log files, named by its path relative to ``logdir``, ``.`` for ``logdir``
itself), reads them all, and :meth:`LogReader.poll` reads only what was added since.
Every file of a run is read, not just the newest. Scalars come back as numpy arrays
ordered by step. TensorBoard's event files (``*tfevents*``) and VisualDL 2's log files
(``vdlrecords.*``; every one of a directory, where VisualDL 2 shows only the newest) are
found and followed the same way, and may sit in one run next to ours;
each format's decoder (:mod:`visualdl._formats.table`) turns its records into the same
kinds of data, so nothing after decoding knows which format a point came from
(``WriterInfo.format`` says).

Files are followed by :class:`~visualdl._index.tail.LogFile`; what is wrong in them (and
directories that cannot be listed, and paths that are not regular files) is collected
in :attr:`LogReader.problems` and never raised.

A poll reads files on daemon threads: a file whose read does not return (a hung
network mount) is left to finish on its own after :data:`STALL_SECONDS`, while the
poll, the other files and the process's exit go on. A file is read in rounds of at
most :data:`ROUND_BYTES` of decoded data, each stored before the next is read, so
that what a poll holds at once stays bounded however much the records inflate.
"""

from __future__ import annotations

import functools
import logging
import operator
import os
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from visualdl._formats.format import SESSION_START
from visualdl._index.aggregate import JobSeries, aggregate
from visualdl._index.blobs import format_of_path, open_blob, read_gathered
from visualdl._index.cache import ByteCache, VersionedView, nbytes
from visualdl._index.discovery import Discovery, open_log
from visualdl._index.restarts import Attempt, Resolved, purge, resolve
from visualdl._index.runs import CACHE_BYTES, Progress, Run, Stream, series_of, split_blocks, stream_of
from visualdl._index.series import ScalarSeries, Series, SpillFile, merge
from visualdl._index.tail import LogFile, Problem
from visualdl._kinds.table import (
    HPARAMS_TAG,
    KINDS,
    SCALAR_LAYOUT_TAG,
    AudioEvent,
    EmbeddingsEvent,
    GraphEvent,
    HistogramEvent,
    HParamsEvent,
    ImageEvent,
    PrCurveEvent,
    RocCurveEvent,
    ScalarBlock,
    ScalarLayoutEvent,
    TextEvent,
)
from visualdl._storage import store as _storage
from visualdl.errors import LogFormatError, NotFound

__all__ = ["JobSeries", "LogReader", "PollResult", "Problem", "ScalarSeries", "Stream", "WriterInfo", "open_blob"]

log = logging.getLogger("visualdl.reader")

#: The names importers of this module used before its concerns moved out.
_nbytes = nbytes
_open_log = open_log

#: Threads that read and decode files during a poll (the rest of a poll is one thread).
READ_THREADS = min(4, os.cpu_count() or 1)
#: A file is read in rounds of about this many bytes of decoded data (scalar points
#: count 24 bytes each), each stored before the next is read.
ROUND_BYTES = 16 << 20
#: The rounds of TensorBoard's and VisualDL 2's files, whose records are a point each: their
#: bytes outweigh what they decode to, and decoding them in batches holds a few arrays per point.
FOREIGN_ROUND_BYTES = 8 << 20
#: A poll stops waiting for a file whose read has not got anywhere for this long.
STALL_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class WriterInfo:
    """A log file and the header of the process that wrote it."""

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


@dataclass(frozen=True, slots=True)
class PollResult:
    files: int
    new_records: int
    bytes_read: int


#: The scratch file of spilled points is rewritten once it holds more garbage than points,
#: and at least this much.
SPILL_GARBAGE_BYTES = 64 << 20


def _unshown(logfile: LogFile) -> tuple[tuple[str, str, int], ...]:
    return logfile.decoder.unshown()


def _decode(logfile: LogFile, items: list[tuple[int, Any]]) -> list[tuple[str, str, Any]]:
    """Records of one file as ``(kind, tag, event)``, by its format's decoder; what the
    decoder knows of the writer (its header, its footer) is the file's."""
    decoder = logfile.decoder
    out = decoder.decode(logfile.path, items)
    if logfile.header is None:
        logfile.header = decoder.header
    logfile.footer = decoder.footer
    for offset, message in decoder.problems:
        logfile.problems.append(Problem(logfile.path, offset, message))
        log.warning("%s at byte %d: %s", logfile.path, offset, message)
    decoder.problems.clear()
    return out


class LogReader:
    """Read a logdir written by LogWriter, and follow it as it grows.

    Thread-safe: one thread may poll while others query.
    """

    def __init__(self, logdir: str | os.PathLike[str], *, load: bool = True) -> None:
        #: Which runs and files the logdir holds, and what could not be listed.
        self._discovery = Discovery(os.fspath(logdir))
        self.logdir = self._discovery.logdir
        self._runs: dict[str, Run] = {}
        #: Scalar points go to a scratch file as they are read (see :mod:`visualdl._index.series`).
        self._spill = SpillFile()
        self._cache = ByteCache(CACHE_BYTES)
        #: Changes whenever the runs, the files, their writers or the tags change (not when
        #: points are only added): what lists of runs and tags can be cached by.
        self._generation = 0
        self._runs_generation = 0  # changes whenever the runs change
        self._signatures: dict[str, tuple[bool, bool, tuple[tuple[str, str, int], ...]]] = {}
        self._lock = threading.RLock()  # guards the index; queries take it
        self._poll_lock = threading.Lock()  # one poll at a time
        #: The files the running poll has yet to read (None between polls), and its lock.
        self._jobs: deque[tuple[Run, LogFile]] | None = None
        self._jobs_lock = threading.Lock()
        if load:
            self.poll()

    # -- reading -------------------------------------------------------------------

    def poll(self, progress: Callable[[int, int, int], None] | None = None) -> PollResult:
        """Find new files and runs, read the bytes added since the last poll, drop removed runs.

        Files are read and decoded outside the query lock, so queries go on meanwhile.
        ``progress(files_done, files_to_read, bytes_read)`` is called after each file.
        """
        with self._poll_lock:
            now = time.monotonic()
            found, trouble = self._discovery.discover()
            todo: list[tuple[Run, LogFile]] = []
            with self._lock:
                unlisted = self._discovery.note(trouble)

                def hidden(run: str) -> bool:  # under a directory that could not be listed
                    return any(u == "." or run == u or run.startswith(u + "/") for u in unlisted)

                for run in [r for r in self._runs if r not in found and not hidden(r)]:
                    self._drop_run(run)
                for run, paths in found.items():
                    state = self._runs.get(run)
                    if state is None:
                        state = self._runs[run] = Run(cache=VersionedView(self._cache))
                        self._generation += 1
                        self._runs_generation += 1
                    for gone in [p for p in state.files if p not in paths and p not in trouble]:
                        self._forget(state, gone)
                    for path in paths:
                        logfile = state.files.get(path)
                        if logfile is not None and (logfile.busy or not logfile.due(now)):
                            continue  # still being read by an earlier poll; or finished, and checked lately
                        status = "grown" if logfile is None else logfile.status()
                        if status == "replaced":
                            self._forget(state, path)
                            logfile = None
                        if logfile is None:
                            logfile = state.files[path] = open_log(path, self._discovery.sources.get(path))
                        if status != "same":
                            todo.append((state, logfile))
            result = self._read_files(todo, progress)
            self._compact_spill()
            return result

    def _read_files(
        self, todo: list[tuple[Run, LogFile]], progress: Callable[[int, int, int], None] | None
    ) -> PollResult:
        """Read ``todo`` on up to READ_THREADS daemon threads; wait for them, but not for a read
        that has not got anywhere for STALL_SECONDS (it stores what it reads when it returns).

        Inflating and numpy release the GIL, so the threads overlap; each stores its own
        rounds, so at most READ_THREADS rounds wait decoded in memory.
        """
        if not todo:
            return PollResult(0, 0, 0)
        jobs = deque(todo)
        lock = self._jobs_lock
        self._jobs = jobs
        running: dict[int, tuple[LogFile, float]] = {}  # thread number -> file, last sign of progress
        done: queue.SimpleQueue[tuple[LogFile, int, int]] = queue.SimpleQueue()
        for _, logfile in todo:
            logfile.busy = True

        def beat(number: int, logfile: LogFile) -> None:
            with lock:
                running[number] = (logfile, time.monotonic())

        def work(number: int) -> None:
            while True:
                with lock:
                    if not jobs:
                        running.pop(number, None)
                        return
                    state, logfile = jobs.popleft()
                    running[number] = (logfile, time.monotonic())
                records = nbytes = 0
                try:
                    records, nbytes = self._load(state, logfile, functools.partial(beat, number, logfile))
                except Exception as e:  # boundary: one file must not stop the others
                    log.exception("reading %s failed", logfile.path)
                    logfile.problems.append(Problem(logfile.path, logfile.offset, f"reading failed: {e!r}"))
                finally:
                    logfile.busy = False
                    done.put((logfile, records, nbytes))

        threads = 0

        def start_thread() -> None:
            nonlocal threads
            threads += 1
            threading.Thread(target=work, args=(threads,), name=f"visualdl-read-{threads}", daemon=True).start()

        for _ in range(min(READ_THREADS, len(todo))):
            start_thread()
        left = len(todo)
        abandoned: set[int] = set()  # id() of the files the poll stopped waiting for
        records = nbytes = files = 0
        while left:
            try:
                logfile, n_records, n_bytes = done.get(timeout=min(1.0, STALL_SECONDS / 4))
            except queue.Empty:
                now = time.monotonic()
                with lock:
                    stuck = [f for f, t in running.values() if now - t >= STALL_SECONDS and id(f) not in abandoned]
                    more = bool(jobs)
                for logfile in stuck:
                    abandoned.add(id(logfile))
                    left -= 1
                    log.warning("reading %s has not got anywhere for %.0f s; the poll goes on without it",
                                logfile.path, STALL_SECONDS)  # fmt: skip
                    if more:
                        start_thread()  # in place of the stuck one
                continue
            if id(logfile) in abandoned:
                abandoned.discard(id(logfile))
                continue
            left -= 1
            files += 1
            records += n_records
            nbytes += n_bytes
            if progress is not None:
                progress(files, len(todo), n_bytes)
        with lock:
            self._jobs = None
        return PollResult(len(todo), records, nbytes)

    def _load(self, state: Run, logfile: LogFile, beat: Callable[[], None]) -> tuple[int, int]:
        """Read ``logfile`` round by round, storing each: ``(events, bytes)``."""
        records = nbytes = 0
        while True:
            start = logfile.offset
            budget = ROUND_BYTES if logfile.format.columnar else FOREIGN_ROUND_BYTES
            decoded = _decode(logfile, logfile.read(budget))
            nbytes += logfile.offset - start
            records += len(decoded)
            with self._lock:
                if decoded and state.files.get(logfile.path) is logfile:
                    self._store(state, logfile.path, decoded)
                signature = (logfile.header is not None, logfile.footer is not None, _unshown(logfile))
                if self._signatures.get(logfile.path) != signature:
                    self._signatures[logfile.path] = signature
                    self._generation += 1
            beat()
            if not logfile.more:
                return records, nbytes

    def _forget(self, state: Run, path: str) -> None:
        self._generation += 1
        self._signatures.pop(path, None)
        state.files.pop(path, None)
        state.progress.pop(path, None)
        if state.starts.pop(path, None) is not None:
            self._scalars_changed(state)
        for key, per_file in list(state.data.items()):
            store = per_file.pop(path, None)
            if store is not None:
                state.versions[key] = state.versions.get(key, 0) + 1
                if isinstance(store, Series):
                    store.forget()
                if not per_file:  # the tag is gone with its last file (new data makes it new again)
                    del state.data[key]

    def _drop_run(self, run: str) -> None:
        self._generation += 1
        self._runs_generation += 1
        state = self._runs.pop(run)
        state.cache.clear()
        for series in series_of([state]):
            series.forget()

    def _compact_spill(self) -> None:
        """Copy the spilled points into a fresh file once the old one holds more garbage
        (rewritten chunks, forgotten files) than points, and at least 64 MiB of it."""
        spill = self._spill
        if spill.garbage < max(SPILL_GARBAGE_BYTES, spill.size - spill.garbage):
            return
        with self._lock:
            fresh = SpillFile()
            for series in series_of(self._runs.values()):
                series.move(fresh)
            self._spill = fresh

    def _store(self, state: Run, path: str, decoded: list[tuple[str, str, Any]]) -> None:
        """Add one file's new events to the index.

        Scalar blocks of all the records read are joined and split per tag with a few
        numpy calls, so each series grows once per poll, not once per record.
        """
        blocks: list[ScalarBlock] = []
        data = state.data
        versions = state.versions
        keys = len(data)
        for kind, tag, event in decoded:
            if kind == "scalars":
                blocks.append(event)
                continue
            if kind == SESSION_START:
                state.starts.setdefault(path, []).append(event)
                self._scalars_changed(state)
                continue
            data.setdefault((kind, tag), {}).setdefault(path, []).append(event)
            versions[(kind, tag)] = versions.get((kind, tag), 0) + 1
        if blocks:
            state.progress.setdefault(path, Progress()).add(blocks)
        for tag, steps, values, walls in split_blocks(blocks):
            tag = sys.intern(tag)  # one string per tag name, whatever the number of runs and files
            per_file = data.setdefault(("scalars", tag), {})
            series = per_file.get(path)
            if series is None:
                series = per_file[path] = Series(self._spill)
            series.extend(steps, values, walls)
            versions[("scalars", tag)] = versions.get(("scalars", tag), 0) + 1
        if len(data) != keys:  # a new tag
            self._generation += 1

    @staticmethod
    def _scalars_changed(state: Run) -> None:
        """Every scalar tag of the run may have changed (a session start purges them all)."""
        for key in [k for k in state.data if k[0] == "scalars"]:
            state.versions[key] = state.versions.get(key, 0) + 1

    def _await_run(self, run: str, timeout: float = 10.0) -> None:
        """Have the running poll read ``run``'s files next, and wait (up to ``timeout``) until
        they are read: a chart of any run answers in moments after the start, not once a
        logdir of 10,000 runs is read. Returns at once between polls."""
        with self._lock:
            state = self._runs.get(run)
        if state is None:
            return
        with self._jobs_lock:
            jobs = self._jobs
            if jobs is None:
                return
            mine = [job for job in jobs if job[0] is state]
            if mine:  # to the front, the others in their order (the workers share this deque)
                others = [job for job in jobs if job[0] is not state]
                jobs.clear()
                jobs.extend(mine)
                jobs.extend(others)
        deadline = time.monotonic() + timeout
        while any(f.busy for f in list(state.files.values())) and time.monotonic() < deadline:
            time.sleep(0.002)  # the poll's threads read them now

    @property
    def _lister(self) -> _storage.Lister | None:
        """The listing of a logdir in a store (None: a local logdir)."""
        return self._discovery.lister

    def _exists(self) -> bool:
        """Whether the logdir exists (as the latest listing of a store found it: no request)."""
        return self._discovery.exists()

    # -- queries -------------------------------------------------------------------

    def _run(self, run: str) -> Run:
        state = self._runs.get(run)
        if state is None:
            raise NotFound(f"unknown run {run!r}; known runs: {sorted(self._runs)!r}")
        return state

    def runs(self) -> list[str]:
        """Runs, sorted by name."""
        with self._lock:
            return sorted(self._runs)

    def tags(self, run: str) -> dict[str, list[str]]:
        """Tags of ``run`` by kind: ``{"scalars": [...], "images": [...], ...}``."""
        with self._lock:
            state = self._run(run)
            out: dict[str, list[str]] = {name: [] for name in KINDS}
            for (kind, tag), per_file in state.data.items():
                if any(len(store) for store in per_file.values()):
                    out[kind].append(tag)
            for tags in out.values():
                tags.sort()
            return out

    def _cached(self, run: str, kind: str, tag: str) -> tuple[Run, dict[str, Any] | None, Any]:
        state = self._run(run)
        per_file = state.data.get((kind, tag))
        if per_file is None:
            raise NotFound(f"run {run!r} has no {kind} tag {tag!r}")
        hit = state.cache.get((kind, tag))
        if hit is not None and hit[0] == state.versions.get((kind, tag), 0):
            return state, None, hit[1]
        return state, per_file, None

    def _resolved(self, run: str, tag: str) -> dict[Stream, Resolved]:
        """Every stream's points of ``tag``, restarts resolved (see :mod:`visualdl._index.restarts`)."""
        state, per_file, hit = self._cached(run, "scalars", tag)
        if per_file is None:
            return cast("dict[Stream, Resolved]", hit)
        grouped: dict[Stream, list[Attempt]] = {}
        for path in sorted(per_file):  # name order: time-stamped names, oldest first
            logfile = state.files.get(path)
            header = logfile.header if logfile is not None else None
            key = stream_of(header)
            start = header.start_time if header is not None else 0.0
            attempt = header.attempt if header is not None else -1
            grouped.setdefault(key, []).append(Attempt(per_file[path].view(), start, attempt))
        result = {key: resolve(attempts) for key, attempts in sorted(grouped.items())}
        starts = [start for path in sorted(state.starts) for start in state.starts[path]]
        if starts:  # TensorBoard's session restarts: what they orphaned is replaced
            for key, r in result.items():
                kept, orphaned = purge(r.kept, starts)
                if len(orphaned):
                    result[key] = Resolved(kept, merge([r.replaced, orphaned]), r.restarts + 1)
        state.cache[("scalars", tag)] = (state.versions.get(("scalars", tag), 0), result)
        return result

    def streams(self, run: str, tag: str | None = None) -> list[Stream]:
        """The ``(role, rank)`` places of ``run``'s writers (of ``tag``'s writers when given); rank -1: unranked."""
        with self._lock:
            if tag is not None:
                return [key for key, r in self._resolved(run, tag).items() if len(r.kept)]
            return sorted({stream_of(f.header) for f in self._run(run).files.values() if f.header is not None})

    def scalars(
        self, run: str, tag: str, *, role: str | None = None, rank: int | None = None, replaced: bool = False
    ) -> ScalarSeries:
        """Steps, values and wall times of ``tag`` in ``run`` (read-only numpy arrays) by step.

        All writers' points, merged by step; ``role`` and ``rank`` keep those of one
        place of a job. A process restarted from a checkpoint replaces its earlier
        attempt's points from its first step on (:mod:`visualdl._index.restarts`);
        ``replaced=True`` returns those replaced points instead.
        """
        with self._lock:
            resolved = self._resolved(run, tag)
            unfiltered = role is None and rank is None and not replaced
            if unfiltered:
                state = self._run(run)
                version = state.versions.get(("scalars", tag), 0)
                hit = state.cache.get(("merged", tag))
                if hit is not None and hit[0] == version:
                    return cast(ScalarSeries, hit[1])
            parts = [
                r.replaced if replaced else r.kept
                for (r_role, r_rank), r in resolved.items()
                if (role is None or r_role == role) and (rank is None or r_rank == rank)
            ]
            if not parts and (role is not None or rank is not None):
                raise NotFound(f"run {run!r} has no writer of {tag!r} with role {role!r} and rank {rank!r}")
            merged = merge(parts)
            if unfiltered:
                state.cache[("merged", tag)] = (version, merged)
            return merged

    def job_scalars(self, run: str, tag: str) -> dict[str, tuple[list[int], JobSeries]]:
        """``tag`` over the ranks of ``run``'s job, per role: ``{role: (ranks, JobSeries)}``.

        Only ranked writers count (unranked ones are not part of a job view).
        """
        with self._lock:
            state = self._run(run)
            version = state.versions.get(("scalars", tag), 0)
            hit = state.cache.get(("job", tag))
            if hit is not None and hit[0] == version:
                return cast("dict[str, tuple[list[int], JobSeries]]", hit[1])
            by_role: dict[str, list[tuple[int, ScalarSeries]]] = {}
            for (role, rank), r in self._resolved(run, tag).items():
                if rank >= 0 and len(r.kept):
                    by_role.setdefault(role, []).append((rank, r.kept))
        out = {}
        for role, items in sorted(by_role.items()):
            ranks = [rank for rank, _ in items]
            out[role] = (ranks, aggregate([series for _, series in items], ranks))
        with self._lock:
            if state.versions.get(("scalars", tag), 0) == version:
                state.cache[("job", tag)] = (version, out)
        return out

    def _events(self, run: str, kind: str, tag: str) -> list[Any]:
        with self._lock:
            state, per_file, hit = self._cached(run, kind, tag)
            if per_file is None:
                return list(hit)
            events = [event for path in sorted(per_file) for event in per_file[path]]
            events.sort(key=operator.attrgetter(KINDS[kind].order))
            state.cache[(kind, tag)] = (state.versions.get((kind, tag), 0), events)
            return list(events)

    def version(self, run: str, kind: str, tag: str) -> tuple[int, int]:
        """A value that changes whenever the data of ``tag`` of ``kind`` in ``run`` changes."""
        with self._lock:
            state = self._run(run)
            return id(state), state.versions.get((kind, tag), 0)

    def count(self, run: str, kind: str, tag: str) -> int:
        """How many points or entries ``tag`` of ``kind`` has in ``run``."""
        with self._lock:
            per_file = self._run(run).data.get((kind, tag))
            if per_file is None:
                raise NotFound(f"run {run!r} has no {kind} tag {tag!r}")
            return sum(len(store) for store in per_file.values())

    def images(self, run: str, tag: str) -> list[ImageEvent]:
        """Every image of ``tag`` by step; :meth:`read_blob` gives an event's PNG bytes."""
        return self._events(run, "images", tag)

    def histograms(self, run: str, tag: str) -> list[HistogramEvent]:
        return self._events(run, "histograms", tag)

    def texts(self, run: str, tag: str) -> list[TextEvent]:
        return self._events(run, "text", tag)

    def audio(self, run: str, tag: str) -> list[AudioEvent]:
        """Every clip of ``tag`` by step; :meth:`read_blob` gives an event's WAV bytes."""
        return self._events(run, "audio", tag)

    def pr_curves(self, run: str, tag: str) -> list[PrCurveEvent]:
        return self._events(run, "pr_curves", tag)

    def roc_curves(self, run: str, tag: str) -> list[RocCurveEvent]:
        return self._events(run, "roc_curves", tag)

    def hparams(self, run: str) -> HParamsEvent | None:
        """The newest hyperparameters of ``run``; None when it has none."""
        if HPARAMS_TAG not in self.tags(run)["hparams"]:
            return None
        newest: HParamsEvent = self._events(run, "hparams", HPARAMS_TAG)[-1]
        return newest

    def scalar_layout(self, run: str) -> ScalarLayoutEvent | None:
        """The newest custom scalar layout of ``run`` (charts of several tags); None when it has none."""
        if SCALAR_LAYOUT_TAG not in self.tags(run)["scalar_layouts"]:
            return None
        newest: ScalarLayoutEvent = self._events(run, "scalar_layouts", SCALAR_LAYOUT_TAG)[-1]
        return newest

    def embeddings(self, run: str, tag: str) -> list[EmbeddingsEvent]:
        """Every embedding of ``tag`` by step; :meth:`read_blob` gives an event's vectors."""
        return self._events(run, "embeddings", tag)

    def graphs(self, run: str) -> list[GraphEvent]:
        """The newest graph of each name in ``run``; :meth:`read_blob` gives its ONNX bytes."""
        with self._lock:
            names = self.tags(run)["graphs"]
        return [self._events(run, "graphs", name)[-1] for name in names]

    def read_blob(self, event: ImageEvent | GraphEvent | AudioEvent | EmbeddingsEvent) -> bytes:
        """The PNG bytes of an image event, the model bytes of a graph event, the WAV bytes
        of an audio event, the vectors of an embeddings event (float32, row after row)."""
        fmt = format_of_path(event.ref.path)
        if fmt.scattered(event):
            return read_gathered(fmt, cast(EmbeddingsEvent, event))
        path, offset, length = open_blob(event)
        f = _storage.open_path(path)
        with f:
            f.seek(offset)
            data = f.read(length)
        if len(data) != length:
            raise LogFormatError("record is gone (file truncated)", event.ref.path, event.ref.offset)
        return data

    def writers(self, run: str) -> list[WriterInfo]:
        """One entry per log file of ``run``: who wrote it, and whether it was closed cleanly."""
        with self._lock:
            out = []
            for path, logfile in sorted(self._run(run).files.items()):
                h = logfile.header
                if h is None:
                    continue
                info = WriterInfo(
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
                    closed=logfile.footer is not None,
                    end_time=logfile.footer.wall_time if logfile.footer is not None else None,
                    format=logfile.format.name,
                    unshown=_unshown(logfile),
                )
                out.append(info)
            return out

    def progress(self, run: str) -> list[tuple[WriterInfo, np.ndarray, np.ndarray, int]]:
        """Per file of ``run``: its writer, then wall times and the highest step reached by then
        (one entry per scalar record written), and the number of scalar points."""
        return [(info, walls, steps, points) for info, walls, steps, points, _ in self._progress(run)]

    def _progress(self, run: str) -> list[tuple[WriterInfo, np.ndarray, np.ndarray, int, int | None]]:
        """:meth:`progress` and, last, the lowest step each file logged (None: no scalars)."""
        infos = self.writers(run)
        with self._lock:
            progress = self._run(run).progress
            out: list[tuple[WriterInfo, np.ndarray, np.ndarray, int, int | None]] = []
            for info in infos:
                p = progress.get(info.path)
                if p is None:
                    out.append((info, np.empty(0), np.empty(0, np.int64), 0, None))
                else:
                    out.append((info, np.array(p.walls), np.array(p.steps, np.int64), p.points, p.first))
            return out

    @property
    def problems(self) -> list[Problem]:
        """Everything found wrong in the files so far (corrupt records, unreadable files), then
        what is wrong in the logdir now (directories that cannot be listed, log file names
        that are not regular files)."""
        with self._lock:
            found = [p for state in self._runs.values() for f in state.files.values() for p in f.problems]
            return found + list(self._discovery.problems.values())

    def __iter__(self) -> Iterator[str]:
        return iter(self.runs())

    def __repr__(self) -> str:
        return f"LogReader({self.logdir!r}, runs={len(self._runs)})"
