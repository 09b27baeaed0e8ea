"""The sink: one log file, the data waiting for it, and the thread that writes it.

The caller's thread only appends: scalar points go into per-tag ``array`` columns
(three C-level appends, no Python object per point), other records into a list of
pending items whose expensive part (PNG, binning, serialisation) is a callable run
later. The background thread wakes every ``flush_secs``, when ``max_queue`` items are
pending, or on ``flush()``; it swaps the buffers out under the lock, encodes outside
it, and appends whole frames to the log's :class:`~visualdl._storage.Appender` (a local
file, where a killed process leaves at worst a partial last record, which readers treat
as not yet written; or an object store's segments, uploaded when due).

Memory is bounded by backpressure: once ``max_pending_bytes`` are waiting, callers
block until the writer catches up (``stats()["blocked_seconds"]`` counts it). Nothing
is dropped. Scalar points do not wait for the records the writer is encoding (a big
image): they are bounded by what waits besides, so memory stays below twice the limit
plus one oversized record (which is let in alone).

A failure of the background thread (disk full, permission denied, file deleted, an
upload not done within its ``upload_timeout``) is logged once and raised once, from the
next ``add_*``, ``flush()`` or ``close()``, as a ``WriterError``; an ``add_*`` keeps its
own data before raising it. The unwritten bytes are kept and retried with backoff (a
full disk is not hammered: up to :data:`RETRY_CAP_SECS` between attempts, sooner on
``flush()``), without copying them again, and recovery is logged once. While the writer
is failing, an ``add_*`` that would pass ``max_pending_bytes`` raises instead of
waiting: its data is refused, the training loop never hangs. A deleted file or logdir
is recreated with a fresh header.

``close()`` (and the interpreter's exit) waits at most ``close_timeout`` seconds for the
last writes and uploads, then raises (logs, at exit) a ``WriterError`` saying how many
bytes and records were not written.

After ``fork()`` the child's sinks forget the parent's file and pending data (the
parent writes those) and open a file of their own on first use; exit, fork and SIGTERM
are handled for all sinks at once by :mod:`~visualdl.sdk._lifecycle`.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from array import array
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NoReturn, cast

import numpy as np

from visualdl._formats.framing import frame
from visualdl._kinds.scalars import MAX_POINTS_PER_RECORD
from visualdl._kinds.table import BuiltRecord, ProcessEnd, encode_process_end, encode_scalars
from visualdl._storage.base import Appender
from visualdl.errors import WriterError
from visualdl.proto import pb
from visualdl.sdk import _lifecycle as lifecycle

if TYPE_CHECKING:
    from visualdl.sdk._options import WriterOptions

__all__ = ["DEFAULT_CLOSE_TIMEOUT", "MAX_EVENTS", "RETRY_CAP_SECS", "NullSink", "Sink"]

log = logging.getLogger("visualdl.writer")

#: A pending non-scalar record: a callable building it on the background thread.
Item = Callable[[], pb.Record | BuiltRecord]
_POINT_BYTES = 24
#: Writers split scalar batches here; readers refuse larger records (decompression bombs).
_MAX_POINTS_PER_RECORD = MAX_POINTS_PER_RECORD
#: Seconds ``close()`` (and exit) waits for the last writes and uploads, by default.
DEFAULT_CLOSE_TIMEOUT = 30.0
#: Events of the process's timeline (:meth:`Sink.record_event`) a writer writes at most.
MAX_EVENTS = 16
#: A failed write is retried after 0.1 s, then twice as long each time, up to this.
RETRY_CAP_SECS = 5.0
_RETRY_FIRST_SECS = 0.1


class Sink:
    """Owns one log file. ``open_file()`` returns ``(appender, header_record)``: the log's
    :class:`~visualdl._storage.Appender`, which only the background thread and ``close()``
    write to. ``options`` are its writer's (:class:`~visualdl.sdk._options.WriterOptions`):
    ``flush_secs``, ``max_queue``, ``max_pending_bytes``, ``fsync`` and ``close_timeout``."""

    def __init__(self, open_file: Callable[[], tuple[Appender, pb.Record]], options: WriterOptions) -> None:
        self._open_file = open_file
        #: The writer's options, checked (the sink keeps the few it reads on every call apart).
        self.options = options
        self._close_timeout = options.close_timeout
        self._flush_secs = options.flush_secs
        self._wake_at = max(1, options.max_queue)
        self._max_pending_bytes = options.max_pending_bytes
        self._fsync = options.fsync
        self.path = ""
        self._appender: Appender | None = None
        self._init_state()
        with lifecycle.opening():  # a SIGTERM from here on waits for the sink, then ends it
            self._open()
            self._start()
            self._attention = False
            lifecycle.track(self)

    def _init_state(self) -> None:
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._wake = threading.Event()
        self._scalars: dict[str, tuple[array[int], array[float], array[float]]] = {}
        self._items: list[tuple[Item, int]] = []
        self._queued = 0  # scalar points + items added since the writer last took the buffers
        # _queued at which the next put looks at the pressure (from the first point: the bound
        # may be reached before max_queue points wait)
        self._check_at = max(1, min(self._wake_at, self._max_pending_bytes // _POINT_BYTES))
        self._inflight = 0  # points + items the writer took and has not written yet
        self._item_bytes = 0  # bytes of the items queued
        self._inflight_bytes = 0  # bytes of the items taken and not written yet
        # Encoded chunks a failed write left behind, in order: (bytes, records, scalar points).
        self._unwritten: deque[tuple[bytes, int, int]] = deque()
        self._unwritten_bytes = 0
        self._write_failing = False  # the last write failed: retried at _retry_at
        self._upload_failing = False  # the last upload failed (past its upload_timeout)
        self._retry_at = 0.0
        self._retry_wait = _RETRY_FIRST_SECS
        self._close_deadline = float("inf")
        self._error: BaseException | None = None  # to raise on the caller's next call
        self._last_error: BaseException | None = None
        self._flush_requested = 0
        self._flushed = 0  # the highest flush generation written
        self._failed = 0  # the highest flush generation whose write failed
        self._thread: threading.Thread | None = None
        # True when a put must first call _attend(): closed, error pending, no thread yet.
        self._attention = True
        self._close_started = False  # one thread closes; the others wait for it
        self._closing = False  # no more data accepted; the thread ends after its last drain
        self._closed = False
        self._footer_written = False  # a buffered appender: the footer went into the last upload
        self._records = 0
        self._points = 0
        self._blocked = 0.0
        self._dropped_samples = 0  # system-metrics samples refused at the memory bound
        self._last_step: int | None = None  # of the last scalar logged, for the process's end
        self._end_recorded = False  # how the process ended is written once, the first time told
        self._events = 0  # events of the process's timeline written (a thread's exception, ...)

    # -- caller's thread -------------------------------------------------------------

    def put_scalar(self, tag: str, step: int, value: float, wall_time: float) -> None:
        with self._lock:
            if self._attention and (error := self._attend()) is not None:
                self._keep_points_then_raise(error, [(tag, value)], step, wall_time)
            if self._queued >= self._check_at:
                self._pressure()
            columns = self._scalars.get(tag)
            if columns is None:
                columns = self._scalars[tag] = (array("q"), array("d"), array("d"))
            columns[0].append(step)
            columns[1].append(value)
            columns[2].append(wall_time)
            self._queued += 1
            self._last_step = step

    def put_scalars(self, points: list[tuple[str, float]], step: int, wall_time: float) -> None:
        with self._lock:
            if self._attention and (error := self._attend()) is not None:
                self._keep_points_then_raise(error, points, step, wall_time)
            if self._queued + len(points) >= self._check_at:
                self._pressure()
            self._append_points(points, step, wall_time)
            self._last_step = step

    def put_item(self, item: Item, nbytes: int) -> None:
        with self._lock:
            if self._attention and (error := self._attend()) is not None:
                self._keep_item_then_raise(error, item, nbytes)
            if self._queued >= self._check_at or self._pending_bytes() + nbytes > self._max_pending_bytes:
                self._pressure(nbytes, record=True)
            self._append_item(item, nbytes)
            self._set_check_at()  # the points that fit before the next look are fewer now

    def put_sample(self, record: pb.Record, nbytes: int) -> bool:
        """A record of the system-metrics sampler's thread: queued unless the writer is
        closing (False: the sampler stops). Never blocks and never takes the writer's error
        (the training thread's next call reports it); a sample that would pass
        ``max_pending_bytes`` is dropped (``stats()["dropped_samples"]``)."""
        with self._lock:
            if self._close_started or self._closing or self._closed or self._thread is None:
                return False
            if self._pending_bytes() + nbytes > self._max_pending_bytes:
                self._dropped_samples += 1
                return True
            self._append_item(lambda: record, nbytes)
            return True

    def _append_points(self, points: list[tuple[str, float]], step: int, wall_time: float) -> None:
        for tag, value in points:
            columns = self._scalars.get(tag)
            if columns is None:
                columns = self._scalars[tag] = (array("q"), array("d"), array("d"))
            columns[0].append(step)
            columns[1].append(value)
            columns[2].append(wall_time)
        self._queued += len(points)

    def _append_item(self, item: Item, nbytes: int) -> None:
        self._items.append((item, nbytes))
        self._queued += 1
        self._item_bytes += nbytes

    # An add_* that has an earlier failure of the writer to report keeps its own data,
    # then raises; only when the memory bound is reached (the disk is failing) is the
    # call's data refused. No closures here: put_scalar would pay for their cells.

    def _keep_points_then_raise(
        self, error: WriterError, points: list[tuple[str, float]], step: int, wall_time: float
    ) -> NoReturn:
        if self._waiting_bytes() + len(points) * _POINT_BYTES <= self._max_pending_bytes:
            self._append_points(points, step, wall_time)
            self._set_check_at()
            self._wake.set()
        raise error

    def _keep_item_then_raise(self, error: WriterError, item: Item, nbytes: int) -> NoReturn:
        if self._pending_bytes() + nbytes <= self._max_pending_bytes:
            self._append_item(item, nbytes)
            self._set_check_at()
            self._wake.set()
        raise error

    def _pending_bytes(self) -> int:
        """Bytes of everything not yet written: what bounds a new record."""
        points = (self._queued + self._inflight) * _POINT_BYTES
        return points + self._item_bytes + self._inflight_bytes + self._unwritten_bytes + self._not_uploaded()

    def _waiting_bytes(self) -> int:
        """What bounds new scalar points: the pending bytes but the records the writer is
        encoding now. Those were let in already; a big image's minutes of compression must
        not stall the scalars logged after it."""
        points = (self._queued + self._inflight) * _POINT_BYTES
        return points + self._item_bytes + self._unwritten_bytes + self._not_uploaded()

    def _not_uploaded(self) -> int:
        """Bytes appended that have not reached the store yet (a log in an object store)."""
        return self._appender.waiting if self._appender is not None else 0

    def _attend(self) -> WriterError | None:
        """Under the lock, before accepting data: refuse when closed or when the thread
        died, start the thread (in a forked child: on first use). Returns the error of
        the background writer to raise once the call's data is kept."""
        if self._closed or self._closing:
            raise ValueError(f"this LogWriter is closed ({self.path}); create a new one to log more")
        if self._thread is None:
            self._start()
            lifecycle.guard_child_exit(self)
        elif not self._thread.is_alive():
            raise WriterError(f"the writer thread of {self.path} died: {self._last_error}") from self._last_error
        self._attention = False
        return self._take_error()

    def _pressure(self, incoming: int = _POINT_BYTES, *, record: bool = False) -> None:
        """Under the lock, before accepting data: wake the writer; while ``incoming`` more
        bytes would pass the limit, wait for it (backpressure), or raise its error.

        Called once per ``max_queue`` points, or sooner when the memory limit is near:
        ``_check_at`` is set to the next point count that needs a look. A ``record`` is
        measured against all pending bytes, scalar points against :meth:`_waiting_bytes`.
        """
        pending = self._pending_bytes if record else self._waiting_bytes
        if not self._write_failing:  # a failing disk is retried on its own schedule
            self._wake.set()
        if pending() + incoming > self._max_pending_bytes:
            start = time.perf_counter()
            try:
                while pending() + incoming > self._max_pending_bytes and pending():
                    if self._error is not None:
                        self._raise_error()  # the disk is failing: refuse rather than grow
                    if self._write_failing or self._upload_failing:
                        raise WriterError(
                            f"writing {self.path} is failing ({self._last_error}) and max_pending_bytes="
                            f"{self._max_pending_bytes} wait for it: this call's data is not kept; "
                            "free the disk or fix the store, or catch WriterError and log less"
                        ) from self._last_error
                    if self._thread is None or not self._thread.is_alive():
                        raise WriterError(f"the writer thread of {self.path} is not running")
                    self._wake.set()
                    self._changed.wait(0.5)
            finally:
                self._blocked += time.perf_counter() - start
        self._set_check_at()

    def _set_check_at(self) -> None:
        room = (self._max_pending_bytes - self._waiting_bytes()) // _POINT_BYTES
        self._check_at = self._queued + max(1, min(self._wake_at, room))

    def _take_error(self) -> WriterError | None:
        """The background writer's error to report (once), as a WriterError."""
        error, self._error = self._error, None
        if error is None or isinstance(error, WriterError):
            return error
        wrapped = WriterError(f"writing {self.path} failed: {error}")
        wrapped.__cause__ = error  # as ``raise ... from error``
        return wrapped

    def _raise_error(self) -> None:
        error = self._take_error()
        if error is not None:
            raise error

    def flush(self, deadline: float | None = None) -> None:
        """Return once everything added so far is in the OS (and on disk with fsync); with a
        ``deadline`` (``time.monotonic()``, close's), a ``WriterError`` once it passes."""
        with self._lock:
            if self._closed:
                return  # nothing can be pending
            pending = self._attend()  # reported once what the call asks for is done
            self._flush_requested += 1
            target = self._flush_requested
            self._wake.set()
            late = False
            while self._flushed < target and self._failed < target:
                wait = 0.5 if deadline is None else min(0.5, deadline - time.monotonic())
                if wait <= 0:
                    late = True
                    break
                self._changed.wait(wait)
                if self._thread is None or not self._thread.is_alive():
                    break
            if late:
                raise WriterError(f"flush of {self.path} did not finish within close_timeout={self._close_timeout:g} s")
            if self._flushed < target:
                self._error = None  # raised here, not again on the next call
                cause = self._last_error
                raise WriterError(f"flush of {self.path} failed: {cause}") from cause
            if pending is not None:
                raise pending
            self._raise_error()  # written, but something to report (a deleted file was recreated)

    def close(self) -> None:
        """Flush, write the footer and close the file, waiting at most ``close_timeout``
        seconds for the writes and uploads; a ``WriterError`` says what was not written.
        Other threads calling close() meanwhile wait for it; later calls do nothing."""
        with self._lock:
            if self._close_started:
                while not self._closed:
                    self._changed.wait(0.5)
                return
            self._close_started = True
            self._close_deadline = time.monotonic() + self._close_timeout
            if self._appender is not None:
                self._appender.stop_by(self._close_deadline)
            if self._thread is None and not self._queued:
                self._closed = self._attention = True  # a forked child that never logged
                lifecycle.forget(self)
                return
            self._record_end(ProcessEnd("closed", time.time(), thread=threading.current_thread().name))
        error: BaseException | None = None
        try:
            self.flush(self._close_deadline)
        except WriterError as e:
            error = e
        with self._lock:
            self._closing = self._attention = True
            self._wake.set()
        stuck = False
        if self._thread is not None:
            self._thread.join(max(0.0, self._close_deadline - time.monotonic()) + 1.0)
            stuck = self._thread.is_alive()
        try:
            if stuck:  # a store call that ignores its deadline: the thread keeps the appender
                error = WriterError(
                    f"closing {self.path}: the writer thread was still busy after close_timeout="
                    f"{self._close_timeout:g} s; {self._pending_bytes()} bytes pending are not written"
                )
                log.error("%s", error)
            elif self._appender is not None:
                try:
                    while self._unwritten:  # a failing disk: one last attempt
                        chunk, records, points = self._unwritten[0]
                        self._write(chunk)
                        self._unwritten.popleft()
                        self._records += records
                        self._points += points
                    if not self._footer_written:
                        self._write(_footer_frame(self._records, self._points))
                    if self._appender is not None:
                        self._appender.flush(self._close_deadline)  # the footer, or bytes whose upload failed
                except OSError as e:
                    error = OSError(f"{e}{self._unsent()}") if self._unwritten else e
                    log.error("closing %s: %s", self.path, error)
                self._close_appender()
        finally:
            with self._lock:
                self._closed = True
                self._changed.notify_all()
            lifecycle.forget(self)
        if error is not None:
            if isinstance(error, WriterError):
                raise error
            raise WriterError(f"closing {self.path} failed: {error}") from error

    def record_end(self, end: ProcessEnd) -> None:
        """Write how the process ended (its step: this writer's last scalar step), unless an
        end is written already (the first one wins) or the writer is closing. Never raises;
        follow with :meth:`flush_before_exit` to have it written now."""
        with self._lock:
            if self._close_started or (self._thread is None and not self._queued):
                return  # closed, or a forked child that never logged: no file to end
            self._record_end(end)

    def record_event(self, event: ProcessEnd) -> None:
        """Write what the process went through and lives on after (a helper thread's uncaught
        exception, a SIGTERM the program's own handler takes), as an end record marked an
        event: a reader keeps it on the writer's timeline, and takes the end from a later
        record (the end the process comes to) or, with none (a kill), infers it. At most
        :data:`MAX_EVENTS` per writer; nothing once its end is recorded. Never raises."""
        with self._lock:
            if self._close_started or self._end_recorded or (self._thread is None and not self._queued):
                return
            if self._events >= MAX_EVENTS:
                return
            self._events += 1
            self._append_end(event, event=True)

    def _record_end(self, end: ProcessEnd) -> None:
        if self._end_recorded:
            return
        self._end_recorded = True
        self._append_end(end)

    def _append_end(self, end: ProcessEnd, *, event: bool = False) -> None:
        record = encode_process_end(replace(end, step=self._last_step), event=event)
        self._append_item(lambda: record, record.ByteSize())

    def _unsent(self) -> str:
        """What a failing disk kept from the file, for an error message."""
        records = sum(r for _, r, _ in self._unwritten)
        points = sum(p for _, _, p in self._unwritten)
        size = sum(len(b) for b, _, _ in self._unwritten)
        return f"; {size} bytes ({records} records, {points} scalar points) are not written"

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {
                "path": self.path,
                "records": self._records,
                "scalar_points": self._points,
                "pending_bytes": self._pending_bytes(),
                "blocked_seconds": self._blocked,
                "dropped_samples": self._dropped_samples,
            }

    # -- background thread -----------------------------------------------------------

    def _start(self) -> None:
        name = f"visualdl-writer:{os.path.basename(self.path) or os.getpid()}"
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                self._wake.wait(self._flush_secs)
                self._wake.clear()
                closing = self._closing
                self._drain()
            except BaseException as e:  # boundary: keep the error for the caller
                log.exception("the writer thread of %s failed", self.path)
                with self._lock:
                    self._error = self._last_error = e
                    self._failed = self._flush_requested
                    self._attention = True
                    self._changed.notify_all()
                if not isinstance(e, Exception):
                    return
                closing = self._closing
            if closing:
                return

    def _drain(self) -> None:
        with self._lock:
            target = self._flush_requested
            urgent = target > self._flushed or self._close_started
            batches = [(tag, columns) for tag, columns in self._scalars.items() if columns[0]]
            for tag, _ in batches:
                self._scalars[tag] = (array("q"), array("d"), array("d"))
            items, self._items = self._items, []
            self._inflight, self._queued = self._queued, 0
            self._inflight_bytes, self._item_bytes = self._item_bytes, 0
            self._set_check_at()
        records = points = 0
        chunks = []
        error: BaseException | None = None
        try:
            for record in _scalar_records(batches):
                chunks.append(frame(record.SerializeToString()))
                records += 1
            points += sum(len(columns[0]) for _, columns in batches)
        except Exception as e:  # noqa: BLE001 - boundary: report, keep the other records
            log.error("could not encode the scalars of %s: %s", self.path, e)
            error = e
        items.reverse()
        while items:  # popped: each item (an image's pixels) is freed once its record is built
            try:
                chunks.append(frame(items.pop()[0]().SerializeToString()))
                records += 1
            except Exception as e:  # noqa: BLE001 - boundary: one bad item must not stop the writer
                log.error("could not encode a record for %s: %s", self.path, e)
                error = e
        data = b"".join(chunks)
        del chunks
        if data:  # behind what a failed write left, never joined to it (no copy of the backlog)
            self._unwritten.append((data, records, points))
        del data
        error, written, done = self._write_unwritten(urgent, target, error)
        uploaded = True
        out = self._appender
        if written and out is not None and out.buffered and (urgent or self._closing or out.due()):
            if self._close_started and not self._footer_written:  # close()'s flush: one last upload, not two
                out.write(_footer_frame(self._records + done[0], self._points + done[1]))
                self._footer_written = True
            try:
                out.flush()
                if self._upload_failing:
                    log.warning("uploading %s works again", self.path)
                self._upload_failing = False
            except OSError as e:  # the bytes stay in the appender, for the next drain
                if not self._upload_failing:
                    log.error("%s", e)
                    error = e
                self._last_error = e
                self._upload_failing = True
                uploaded = False
        with self._lock:
            self._inflight = self._inflight_bytes = 0
            self._unwritten_bytes = sum(len(chunk) for chunk, _, _ in self._unwritten)
            self._records += done[0]
            self._points += done[1]
            if written and uploaded:
                self._flushed = max(self._flushed, target)
            elif urgent:
                self._failed = max(self._failed, target)
            if error is not None:
                self._error = self._last_error = error
                self._attention = True
            self._set_check_at()
            self._changed.notify_all()

    def _write_unwritten(
        self, urgent: bool, target: int, error: BaseException | None
    ) -> tuple[BaseException | None, bool, tuple[int, int]]:
        """Write the chunks waiting, oldest first, each dropped once written: at once when
        the last write worked or a flush asks, else once the backoff after a failure is
        over. Returns the error to report (a failure, reported once until the writes work
        again), whether all are written, and the records and points written."""
        if self._write_failing and not urgent and time.monotonic() < self._retry_at:
            return error, False, (0, 0)
        records = points = 0
        try:
            while self._unwritten:
                chunk, r, p = self._unwritten[0]
                error = self._write(chunk) or error
                self._unwritten.popleft()
                records += r
                points += p
            if self._fsync and self._appender is not None and (records or target):
                self._appender.sync()
        except OSError as e:
            waiting = sum(len(chunk) for chunk, _, _ in self._unwritten)
            self._retry_at = time.monotonic() + self._retry_wait
            if not self._write_failing:
                log.error(
                    "writing %s failed: %s (%d bytes kept; retried every %g s at most until it works)",
                    self.path, e, waiting, RETRY_CAP_SECS,
                )  # fmt: skip
                error = e
            self._last_error = e
            self._retry_wait = min(self._retry_wait * 2, RETRY_CAP_SECS)
            self._write_failing = True
            return error, False, (records, points)
        if self._write_failing:
            log.warning("writing %s works again", self.path)
        self._write_failing = False
        self._retry_wait = _RETRY_FIRST_SECS
        return error, True, (records, points)

    def _write(self, data: bytes) -> WriterError | None:
        """Append ``data`` whole (the appender undoes a partial write). Opens a new log when
        there is none (after ``fork()``) or the file was deleted, and says so."""
        if self._appender is None or self._appender.gone():
            deleted, was_local = self.path, getattr(self, "local_path", "")
            self._open()
            lifecycle.reopened(self, was_local)
            notice = None
            if deleted:
                notice = WriterError(f"log file {deleted} was deleted; continuing in {self.path}")
                log.error("%s", notice)
            cast(Appender, self._appender).write(data)
            return notice
        self._appender.write(data)
        return None

    def _close_appender(self) -> None:
        out, self._appender = self._appender, None
        if out is not None:
            out.close()

    def _open(self) -> None:
        self._close_appender()
        out, header = self._open_file()
        out.begin(frame(header.SerializeToString()))
        self.path, self._appender = out.path, out
        #: The writer's id and, for a log written in place (a local file), the log whose
        #: fatal-signal sidecar faulthandler may write (:mod:`~visualdl.sdk._fatal`).
        self.writer_id = header.header.writer_id
        self.local_path = "" if out.buffered else out.path
        if out.buffered:  # what waits for its upload must go up before the process ends
            lifecycle.guard_uploads()

    def flush_before_exit(self, deadline: float, *, exiting: bool = False) -> None:
        """On SIGTERM (from :mod:`~visualdl.sdk._sigterm`'s watcher thread) or an uncaught
        exception (:mod:`~visualdl.sdk._ends`): have the writer thread write what is pending,
        waiting until ``deadline`` (``time.monotonic()``) at most. Never raises; no footer
        (the process may be ending without ``close()``). ``exiting``: the process ends at
        ``deadline`` (a SIGTERM that ends it): no upload is attempted past it. Otherwise the
        process may live on (a helper thread's exception, a SIGTERM the program handles, the
        main thread's exception, whose exit closes the writer with its own bound): the wait
        ends at ``deadline``, the uploads do not, and the writer goes on as before."""
        if not self._lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
            log.error("on SIGTERM: %s stayed busy; its last %.1f s of data are lost", self.path, self._flush_secs)
            return
        try:
            thread = self._thread
            if self._closed or thread is None or not thread.is_alive():
                return
            if exiting and self._appender is not None:
                self._appender.stop_by(deadline)
            self._flush_requested += 1
            target = self._flush_requested
            self._wake.set()
            while self._flushed < target and self._failed < target and thread.is_alive():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    log.error("on SIGTERM: flushing %s took too long; its pending data is lost", self.path)
                    return
                self._changed.wait(min(remaining, 0.5))
        finally:
            self._lock.release()

    def after_fork_in_child(self) -> None:
        """In a forked child: forget the parent's file and pending data (the parent writes
        those); a file of the child's own is opened on first use."""
        if self._appender is not None:
            self._appender.abandon()  # the parent writes (or uploads) what waits
        self._appender = None
        self.path = self.local_path = ""
        self._init_state()


def _footer_frame(records: int, points: int) -> bytes:
    footer = pb.Footer(wall_time=time.time(), records=records, scalar_points=points)
    return frame(pb.Record(footer=footer).SerializeToString())


def _scalar_records(batches: list[tuple[str, tuple[array[int], array[float], array[float]]]]) -> list[pb.Record]:
    """Records of the scalar points taken in one drain: all tags in one record, split
    only past ``_MAX_POINTS_PER_RECORD`` points (a single tag's points across records)."""
    records = []
    tags: list[str] = []
    counts: list[int] = []
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    size = 0

    def emit() -> None:
        nonlocal size
        steps, values, walls = (np.concatenate([p[i] for p in parts]) for i in range(3))
        records.append(encode_scalars(tags[:], counts[:], steps, values, walls))
        tags.clear()
        counts.clear()
        parts.clear()
        size = 0

    for tag, (steps, values, walls) in batches:
        s = np.frombuffer(steps, np.int64)
        v = np.frombuffer(values, np.float64)
        w = np.frombuffer(walls, np.float64)
        lo = 0
        while lo < s.size:
            hi = min(s.size, lo + _MAX_POINTS_PER_RECORD - size)
            tags.append(tag)
            counts.append(hi - lo)
            parts.append((s[lo:hi], v[lo:hi], w[lo:hi]))
            size += hi - lo
            lo = hi
            if size >= _MAX_POINTS_PER_RECORD:
                emit()
    if tags:
        emit()
    return records


class NullSink:
    """The sink of ``LogWriter(write_to_disk=False)``: arguments are checked, nothing is kept."""

    path = ""

    def put_scalar(self, tag: str, step: int, value: float, wall_time: float) -> None:
        pass

    def put_scalars(self, points: list[tuple[str, float]], step: int, wall_time: float) -> None:
        pass

    def put_item(self, item: Item, nbytes: int) -> None:
        pass

    def put_sample(self, record: pb.Record, nbytes: int) -> bool:
        return False  # nothing is kept: the sampler stops

    def record_end(self, end: ProcessEnd) -> None:
        pass

    def record_event(self, event: ProcessEnd) -> None:
        pass

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass

    def stats(self) -> dict[str, Any]:
        return {
            "path": "",
            "records": 0,
            "scalar_points": 0,
            "pending_bytes": 0,
            "blocked_seconds": 0.0,
            "dropped_samples": 0,
        }
