"""The index's state and how polls fill it: the poll threads, read rounds and the job deque.

:class:`Poller` holds what the index knows (runs, their files, each tag's data per file)
and :meth:`Poller.poll` brings it up to date; the queries over it are
:class:`visualdl._index.index.Index`'s.

The thread model. One poll runs at a time (``_poll_lock``). It lists the logdir through
its store (:class:`~visualdl._index.discovery.Discovery`) and, under the index lock, drops runs and
files that are gone and makes the list of files to read. The files are then read and
decoded *outside* the index lock, so that queries go on meanwhile, by up to
:data:`READ_THREADS` daemon threads that take files from one shared deque (``_jobs``,
guarded by ``_jobs_lock``; :meth:`visualdl._index.index.Index.prioritize` moves a run's
files to its front so that a chart asked for during a long first read answers soon).
Each file is read in rounds of at most :data:`ROUND_BYTES` of decoded data
(:data:`FOREIGN_ROUND_BYTES` for formats of a point per record), each round stored under
the index lock before the next is read, so what a poll holds decoded at once stays
bounded however much the records inflate; inflating and numpy release the GIL, so the
threads overlap. The polling thread waits for them, calling ``progress`` after each file,
but not for a read that has not got anywhere for :data:`STALL_SECONDS` (a hung network
mount): that thread is left to finish on its own (it stores what it reads when it
returns), another takes its place, and the poll, the other files and the process's exit
go on. After the reads, the spill file of scalar points is compacted when it holds more
garbage than points.
"""

from __future__ import annotations

import functools
import logging
import os
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from visualdl._formats.format import SESSION_START
from visualdl._formats.framebatch import Batch
from visualdl._index.cache import ByteCache, VersionedView
from visualdl._index.discovery import Discovery, open_log
from visualdl._index.projector import Projectors, is_config_path, runs_of
from visualdl._index.runs import CACHE_BYTES, POINTS_PER_BYTE, Progress, Run, series_of, split_blocks
from visualdl._index.series import CACHE_DIR_ENV, Series, SpillFile
from visualdl._index.sidecars import Sidecars
from visualdl._index.system import take_system
from visualdl._index.tail import LogFile, Problem
from visualdl._index.wrong import forget_file, note_points
from visualdl._kinds.table import ScalarBlock
from visualdl._storage import Store

__all__ = [
    "FOREIGN_ROUND_BYTES",
    "LogFile",
    "READ_THREADS",
    "ROUND_BYTES",
    "SPILL_GARBAGE_BYTES",
    "STALL_SECONDS",
    "PollResult",
    "Poller",
]

log = logging.getLogger("visualdl.reader")

#: Threads that read and decode files during a poll (the rest of a poll is one thread).
READ_THREADS = min(4, os.cpu_count() or 1)
#: A file is read in rounds of about this many bytes of decoded data (scalar points
#: count 24 bytes each), each stored before the next is read.
ROUND_BYTES = 16 << 20
#: The rounds of the formats of a point or a few per record (``Format.columnar`` false): their
#: bytes outweigh what they decode to, and decoding them in batches holds a few arrays per point.
FOREIGN_ROUND_BYTES = 8 << 20
#: A poll stops waiting for a file whose read has not got anywhere for this long.
STALL_SECONDS = 60.0


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


def _decoder_state(logfile: LogFile) -> dict[str, Any]:
    """What a file's decoder holds (its slots; their lists and dicts copied one level), to go
    back to when a round it decoded is read again (:meth:`LogFile.rewind`)."""
    decoder = logfile.decoder
    state = {}
    for name in getattr(type(decoder), "__slots__", ()):
        if hasattr(decoder, name):
            value = getattr(decoder, name)
            state[name] = value.copy() if isinstance(value, (list, dict)) else value
    return state


def _restore_decoder(logfile: LogFile, state: dict[str, Any]) -> None:
    for name, value in state.items():
        setattr(logfile.decoder, name, value)


def _decode(logfile: LogFile, items: list[tuple[int, Any]]) -> list[tuple[str, str, Any]]:
    """Records of one file as ``(kind, tag, event)``, by its format's decoder; what the
    decoder knows of the writer (its :class:`~visualdl._formats.writerstate.WriterState`) is the file's.

    The file's offset is already past ``items``: whatever the decoder raises, every record
    of them that decodes is delivered, and only a record that makes it raise on its own is
    lost, reported as a problem at its offset (:func:`_decode_apart`).
    """
    decoder = logfile.decoder
    seen = len(decoder.problems)
    try:
        out = decoder.decode(logfile.path, items)
    except Exception:  # boundary: a decoder's bug costs the records that trigger it, not the round
        log.debug("%s: the decoder raised; decoding its records apart", logfile.path, exc_info=True)
        del decoder.problems[seen:]
        out = _decode_apart(logfile, items)
    logfile.writer = decoder.writer
    for offset, message in decoder.problems:
        logfile.problems.append(Problem(logfile.path, offset, message))
        log.warning("%s at byte %d: %s", logfile.path, offset, message)
    decoder.problems.clear()
    return out


def _halves(items: list[tuple[int, Any]]) -> tuple[list[tuple[int, Any]], list[tuple[int, Any]]] | None:
    """``items`` in two halves of records in file order (a :class:`Batch` cut in two); None
    for a single record."""
    if len(items) > 1:
        half = len(items) // 2
        return items[:half], items[half:]
    offset, item = items[0]
    if not isinstance(item, Batch) or len(item) < 2:
        return None
    half = len(item) // 2
    return [(offset, item.head(half))], [(offset + item.frame(half), item.after(half))]


def _decode_apart(logfile: LogFile, items: list[tuple[int, Any]]) -> list[tuple[str, str, Any]]:
    """The records of ``items``, which made the decoder raise, decoded in halves, in file
    order, down to the records that make it raise alone: each of those is reported and
    skipped. A few bad records cost a few decodes each, not one decode per record."""
    decoder = logfile.decoder
    out: list[tuple[str, str, Any]] = []
    halves = _halves(items)
    stack = [halves[1], halves[0]] if halves else [items]  # the first half on top
    while stack:
        chunk = stack.pop()
        seen = len(decoder.problems)
        try:
            out.extend(decoder.decode(logfile.path, chunk))
            continue
        except Exception as e:  # boundary: see _decode
            del decoder.problems[seen:]
            halves = _halves(chunk)
            if halves:
                stack += [halves[1], halves[0]]
                continue
            offset = chunk[0][0]
            log.warning("%s at byte %d: the decoder raised", logfile.path, offset, exc_info=True)
            decoder.problems.append((offset, f"record could not be decoded ({e!r}); skipped"))
    return out


class Poller:
    """The index's state, and the polls that bring it up to date (the thread model: above).

    Thread-safe: one thread may poll while others read the state under ``_lock``.
    """

    def __init__(self, store: Store, *, cache_dir: str | None = None) -> None:
        #: Where the logdir is: what lists it and opens its files.
        self.store = store
        #: The logdir as it was named (a local path, or a URL).
        self.logdir = store.logdir
        #: Which runs and files the logdir holds, and what could not be listed.
        self._discovery = Discovery(store)
        #: What the fatal-signal sidecars of the logs without an end say.
        self._sidecars = Sidecars(store)
        #: The embeddings that TensorBoard's projector configs of the runs name.
        self._projectors = Projectors(store)
        #: The runs holding entries of projector configs: the only ones a poll revisits for them.
        self._projector_runs: set[str] = set()
        self._runs: dict[str, Run] = {}
        #: Scalar points go to a scratch file as they are read (see :mod:`visualdl._index.series`),
        #: in ``cache_dir`` (None: the system's temporary directory).
        self._cache_dir = cache_dir
        self._spill = SpillFile(cache_dir)
        #: Why the last poll could not store everything it read in the scratch file (None: it could).
        self._spill_error: str | None = None
        self._spill_failures = 0  # during the running poll
        self._cache: ByteCache[Any] = ByteCache(CACHE_BYTES)
        #: Changes whenever the runs, the files, their writers or the tags change (not when
        #: points are only added): what lists of runs and tags can be cached by.
        self._generation = 0
        self._runs_generation = 0  # changes whenever the runs change
        self._data_changes = 0  # changes whenever any file is read further or forgotten
        self._signatures: dict[str, tuple[tuple[bool, ...], tuple[tuple[str, str, int], ...]]] = {}
        self._lock = threading.RLock()  # guards the index; queries take it
        self._poll_lock = threading.Lock()  # one poll at a time
        #: The files the running poll has yet to read (None between polls), and its lock.
        self._jobs: deque[tuple[Run, LogFile]] | None = None
        self._jobs_lock = threading.Lock()

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
                            logfile = state.files[path] = open_log(path, self.store)
                        if status != "same":
                            todo.append((state, logfile))
            self._spill_failures = 0
            result = self._read_files(todo, progress)
            if failed := self._checked("the fatal-signal sidecars", self._check_sidecars):
                self._sidecars.problems = {**self._sidecars.problems, failed.path: failed}
            if failed := self._checked("the projector files", self._check_projectors):
                self._projectors.problems = [*(p for p in self._projectors.problems if p != failed), failed]
            self._compact_spill()
            with self._lock:
                if self._spill_failures == 0 and self._spill_error is not None:
                    log.warning("the scratch file of scalar points takes points again")
                    self._spill_error = None
            return result

    def _checked(self, what: str, check: Callable[[], None]) -> Problem | None:
        """``check()``; what it raises is logged and returned as a problem of the logdir (said
        with the check's own problems until a check goes through), and the poll goes on. Each
        check keeps a file's errors to that file: this is the last boundary, for a fault of
        the check itself."""
        try:
            check()
        except Exception as e:  # boundary: a check's fault must not stop the poll, nor the next logdir
            log.exception("checking %s of %s failed", what, self.logdir)
            return Problem(
                self.logdir, 0, f"checking {what} failed ({type(e).__name__}: {e}); the next poll tries again"
            )
        return None

    def _check_sidecars(self) -> None:
        """Read the sidecars of the logs that hold no end (see :mod:`visualdl._index.sidecars`)."""
        sidecars = self._discovery.sidecars
        with self._lock:
            candidates = [
                (path, sidecars[path], logfile.header.writer_id, logfile.header.pid)
                for state in self._runs.values()
                for path, logfile in state.files.items()
                if path in sidecars
                and logfile.header is not None
                and logfile.writer.end is None
                and logfile.writer.footer is None
            ]
        if self._sidecars.check(candidates):
            with self._lock:
                self._generation += 1

    def _check_projectors(self) -> None:
        """Read what changed of the runs' projector configs and the files they name (see
        :mod:`visualdl._index.projector`), and put their entries under the embeddings tags
        of their runs, each config as one file of the tag."""
        configs = runs_of(self._discovery.projector_configs)
        with self._lock:
            configs = {run: paths for run, paths in configs.items() if run in self._runs}
        found = self._projectors.check(configs)
        with self._lock:
            # Only the runs with entries now or before: a poll of 30,000 runs without projector
            # files does not walk every run's tags.
            for run in self._projector_runs | found.keys():
                state = self._runs.get(run)
                if state is not None:
                    self._put_projector(state, found.get(run, {}))
            self._projector_runs = {run for run in found if found[run] and run in self._runs}

    def _put_projector(self, state: Run, by_config: dict[str, dict[str, list[Any]]]) -> None:
        new = {(("embeddings", tag), path): events for path, tags in by_config.items() for tag, events in tags.items()}
        changed = False
        for key, per_file in list(state.data.items()):
            if key[0] != "embeddings":
                continue
            for path in [p for p in per_file if is_config_path(p) and (key, p) not in new]:
                del per_file[path]
                changed = True
                state.versions[key] = state.versions.get(key, 0) + 1
            if not per_file:
                del state.data[key]
        for (key, path), events in new.items():
            per_file = state.data.setdefault(key, {})
            if per_file.get(path) != events:
                per_file[path] = events
                changed = True
                state.versions[key] = state.versions.get(key, 0) + 1
        if changed:
            state.changes += 1
            self._data_changes += 1
            self._generation += 1

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
            before = _decoder_state(logfile), len(logfile.problems)
            decoded = _decode(logfile, logfile.read(budget))
            with self._lock:
                if decoded and state.files.get(logfile.path) is logfile:
                    try:
                        self._store(state, logfile.path, decoded)
                    except OSError as e:  # the scratch file is full: this round is read again later
                        logfile.rewind(start)
                        _restore_decoder(logfile, before[0])  # as if the round had not been read:
                        del logfile.problems[before[1] :]  # its problems and uncounted values come again
                        self._spill_failed(e)
                        return records, nbytes
                if state.files.get(logfile.path) is logfile:
                    take_system(state.system, logfile.path, logfile.decoder)
                    if logfile.offset != start:
                        state.changes += 1
                        self._data_changes += 1
            nbytes += logfile.offset - start
            records += len(decoded)
            with self._lock:
                signature = (logfile.writer.listing(), _unshown(logfile))
                if self._signatures.get(logfile.path) != signature:
                    self._signatures[logfile.path] = signature
                    self._generation += 1
            beat()
            if not logfile.more:
                return records, nbytes

    def _forget(self, state: Run, path: str) -> None:
        self._generation += 1
        state.changes += 1
        self._data_changes += 1
        self._signatures.pop(path, None)
        state.files.pop(path, None)
        state.progress.pop(path, None)
        state.system.pop(path, None)
        if state.starts.pop(path, None) is not None:
            self._scalars_changed(state)
        tags = [key[1] for key, per_file in state.data.items() if key[0] == "scalars" and path in per_file]
        for key, per_file in list(state.data.items()):
            store = per_file.pop(path, None)
            if store is not None:
                state.versions[key] = state.versions.get(key, 0) + 1
                if isinstance(store, Series):
                    store.forget()
                if not per_file:  # the tag is gone with its last file (new data makes it new again)
                    del state.data[key]
        forget_file(state, path, tags)

    def _drop_run(self, run: str) -> None:
        self._generation += 1
        self._runs_generation += 1
        state = self._runs.pop(run)
        state.cache.clear()
        for series in series_of([state]):
            series.forget()

    def _spill_failed(self, error: OSError) -> None:
        """The scratch file could not take what was read (a full disk): said in :meth:`troubles`
        until a poll stores everything again."""
        with self._lock:
            first = self._spill_error is None
            self._spill_error = (
                f"the scratch file of scalar points cannot grow in {self._spill.directory!r} "
                f"({error.strerror or error}); what could not be stored is read again at the next "
                f"polls: free space there, or set {CACHE_DIR_ENV} to a directory on a larger disk"
            )
            self._spill_failures += 1
        if first:
            log.warning("%s", self._spill_error)

    def troubles(self) -> list[str]:
        """What keeps the index from holding every record read, in sentences naming the fix
        (empty when nothing does): a full scratch disk."""
        with self._lock:
            return [self._spill_error] if self._spill_error is not None else []

    def _compact_spill(self) -> None:
        """Copy the spilled points into a fresh file once the old one holds more garbage
        (rewritten chunks, forgotten files) than points, and at least 64 MiB of it."""
        spill = self._spill
        if spill.garbage < max(SPILL_GARBAGE_BYTES, spill.size - spill.garbage):
            return
        with self._lock:
            try:
                fresh = SpillFile(self._cache_dir)
                moves = [(series, series.copy_to(fresh)) for series in series_of(self._runs.values())]
            except OSError as e:  # a full disk: the old file goes on, garbage and all
                self._spill_failed(e)
                return
            for series, chunks in moves:
                series.moved(fresh, chunks)
            self._spill = fresh

    def _store(self, state: Run, path: str, decoded: list[tuple[str, str, Any]]) -> None:
        """Add one file's new events to the index, all or nothing: ``OSError`` when the
        scratch file cannot take the points (a full disk), and then nothing is stored.

        Scalar blocks of all the records read are joined and split per tag with a few
        numpy calls, so each series grows once per poll, not once per record.
        """
        data = state.data
        versions = state.versions
        keys = len(data)
        blocks: list[ScalarBlock] = [event for kind, _, event in decoded if kind == "scalars"]
        progress = state.progress.get(path) or Progress()
        blocks, refused = progress.admit(blocks, state.files[path].offset) if blocks else ([], 0)
        # The points first: writing them to the scratch file is what may fail.
        extended: list[tuple[str, Series, Any]] = []
        parts: list[tuple[str, Any, Any, Any]] = []
        try:
            for tag, steps, values, walls in split_blocks(blocks):
                tag = sys.intern(tag)  # one string per tag name, whatever the number of runs and files
                series = data.get(("scalars", tag), {}).get(path) or Series(self._spill)
                extended.append((tag, series, series.checkpoint()))
                series.extend(steps, values, walls)
                parts.append((tag, steps, values, walls))
        except OSError:
            for _, series, mark in extended:
                series.restore(mark)
            raise
        for tag, series, _ in extended:
            data.setdefault(("scalars", tag), {})[path] = series
            versions[("scalars", tag)] = versions.get(("scalars", tag), 0) + 1
        note_points(state, path, parts)  # the first non-finite values, the ranks' agreement
        if blocks or refused:
            state.progress[path] = progress
            progress.add(blocks)
        if refused:
            self._refused(state.files[path], progress, refused)
        for kind, tag, event in decoded:
            if kind == "scalars":
                continue
            if kind == SESSION_START:
                state.starts.setdefault(path, []).append(event)
                self._scalars_changed(state)
                continue
            data.setdefault((kind, tag), {}).setdefault(path, []).append(event)
            versions[(kind, tag)] = versions.get((kind, tag), 0) + 1
        if len(data) != keys:  # a new tag
            self._generation += 1

    @staticmethod
    def _refused(logfile: LogFile, progress: Progress, points: int) -> None:
        """``points`` more of the file's were past its budget (:data:`~visualdl._index.runs.POINTS_PER_BYTE`):
        said once, in a problem that names the file."""
        if not progress.refused:
            message = (
                f"{progress.points + points:,} scalar points in {logfile.offset:,} bytes is more than "
                f"{POINTS_PER_BYTE} a byte, which no writer of ours comes near: the {points:,} past the first "
                f"{progress.points:,} are not read (a crafted or corrupt file; write it again to see them)"
            )
            logfile.problems.append(Problem(logfile.path, logfile.offset, message))
            log.warning("%s at byte %d: %s", logfile.path, logfile.offset, message)
        progress.refused += points

    @staticmethod
    def _scalars_changed(state: Run) -> None:
        """Every scalar tag of the run may have changed (a session start purges them all)."""
        for key in [k for k in state.data if k[0] == "scalars"]:
            state.versions[key] = state.versions.get(key, 0) + 1
