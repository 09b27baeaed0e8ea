"""The writers' sinks as a whole, through the life of the process: at exit, after
``fork()``, on SIGTERM, on an uncaught exception.

Every live sink is kept here (weakly). At interpreter exit each is closed (its footer
written, its last segment uploaded); in a forked child each forgets its parent's file and
pending data; in a forked child or a multiprocessing worker, which end without atexit, a
sink is closed when the process ends and flushed on SIGTERM
(:mod:`~visualdl.sdk._sigterm`), which ``Pool.__exit__`` sends its workers. A sink whose
bytes wait in memory for their upload (an object store) is flushed on SIGTERM too.

While a writer is open, how the process ends is recorded by each (:mod:`~visualdl.sdk._ends`):
an uncaught exception in any thread and SIGTERM are written at once, before the flush;
``close()`` records a clean end; a fatal signal (a segfault, an abort) has faulthandler
write a sidecar next to a local log (:mod:`~visualdl.sdk._fatal`). So SIGTERM is caught
(and the pending data written) in every process whose main thread opened a writer, not only in children, unless the
program handles SIGTERM itself.

What the process lives through is an event, not its end: a helper thread's exception, and a
SIGTERM whose handler is the program's own (which decides whether the process ends). Both
are written and flushed at once, as records marked events
(:meth:`~visualdl.sdk._sink.Sink.record_event`), without cutting the uploads off: the
writers go on as before, and the end is what comes later (or, after a kill, none: the
reader infers it). Only a SIGTERM that ends the process (our handler) is an end; it is
the pool's normal end, ``closed``, for a ``multiprocessing.Pool`` worker waiting for its
next task (``with Pool()`` terminates its idle workers), and it takes the process's
fatal-signal sidecars back (no segfault can follow).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING

from visualdl._kinds.table import ProcessEnd
from visualdl.sdk import _ends as ends
from visualdl.sdk import _fatal as fatal
from visualdl.sdk import _sigterm as sigterm

if TYPE_CHECKING:
    from visualdl.sdk._sink import Sink

__all__ = ["forget", "guard_child_exit", "guard_uploads", "opening", "reopened", "track"]

log = logging.getLogger("visualdl.writer")

_LIVE: weakref.WeakSet[Sink] = weakref.WeakSet()
#: How long a SIGTERM waits at most for a sink being opened before it writes the others.
_OPENING_SECS = 1.0
#: Sinks being opened now (:func:`opening`), and the condition telling when that changes.
_opening = 0
_opened = threading.Condition()


@contextlib.contextmanager
def opening() -> Iterator[None]:
    """A sink is being opened: SIGTERM is heard from before its file exists, and a SIGTERM
    meanwhile waits (up to :data:`_OPENING_SECS`) for the sink to be tracked, so that the
    sink's end is recorded (a pool that terminates a worker still opening its writer)."""
    global _opening
    sigterm.install(_flush_all)
    pid = os.getpid()
    with _opened:
        _opening += 1
    try:
        yield
    finally:
        if os.getpid() == pid:  # a child forked meanwhile starts with none being opened
            with _opened:
                _opening -= 1
                _opened.notify_all()


def track(sink: Sink) -> None:
    """Keep ``sink`` for the process's exit (and, in a child process, guard that exit)."""
    _LIVE.add(sink)
    if sink.local_path:
        fatal.watch(sink.local_path, sink.writer_id)
    ends.install(_tell_all)
    sigterm.install(_flush_all)
    if _in_multiprocessing_child():
        guard_child_exit(sink)


def reopened(sink: Sink, old_local_path: str) -> None:
    """``sink`` opened its log anew (in a forked child, or its file was deleted)."""
    if old_local_path and old_local_path != sink.local_path:
        fatal.release(old_local_path)
    if sink.local_path:
        fatal.watch(sink.local_path, sink.writer_id)


def forget(sink: Sink) -> None:
    """``sink`` is closed: nothing to do for it at exit."""
    _LIVE.discard(sink)
    if sink.local_path:
        fatal.release(sink.local_path)
    if not _LIVE:
        ends.uninstall()


def guard_uploads() -> None:
    """A sink's bytes wait in memory for their upload: upload them on SIGTERM (a pod's
    stop), and at exit before the executors a store's client needs are stopped."""
    sigterm.install(_flush_all)
    _close_before_executors_stop()


def _in_multiprocessing_child() -> bool:
    mp = sys.modules.get("multiprocessing")
    return mp is not None and mp.parent_process() is not None


def guard_child_exit(sink: Sink) -> None:
    """In a forked child or a multiprocessing worker, which end without atexit: close
    ``sink`` when a multiprocessing process ends (``os._exit`` skips atexit), and
    write what is pending on SIGTERM (``Pool.__exit__`` and ``Pool.terminate()``)."""
    mp_util = sys.modules.get("multiprocessing.util")
    if mp_util is not None:
        mp_util.Finalize(sink, _close_child_sink, args=(sink,), exitpriority=100)
    sigterm.install(_flush_all)


def _close_child_sink(sink: Sink) -> None:
    """A multiprocessing process ends: its target's exception, which ``multiprocessing``
    catches and prints itself (``sys.excepthook`` never sees it), is still in flight
    while its finalizers run. Record it as the end, then close."""
    exc, tb = sys.exc_info()[1:]
    if exc is not None and not (isinstance(exc, SystemExit) and exc.code in (0, None)):
        sink.record_end(ends.exception_end(exc, tb, threading.current_thread().name))
    sink.close()


def _flush_all(deadline: float, ending: bool) -> None:
    """SIGTERM: record it on each writer (its end when it ends the process, else an event),
    then write what is pending; a process that ends gives its fatal-signal sidecars back."""
    with _opened:  # a sink being opened: wait for it to be tracked (not long: the others wait)
        _opened.wait_for(lambda: _opening == 0, timeout=max(0.0, min(_OPENING_SECS, deadline - time.monotonic())))
    sinks = list(_LIVE)
    if ending:
        end = _idle_pool_worker_end() or ends.signal_end(signal.SIGTERM)
        for sink in sinks:
            sink.record_end(end)
    else:
        event = ends.signal_end(signal.SIGTERM)
        for sink in sinks:
            sink.record_event(event)
    for sink in sinks:
        sink.flush_before_exit(deadline, exiting=ending)
    if ending:
        for sink in sinks:
            if sink.local_path:
                fatal.release(sink.local_path)


def _tell_all(end: ProcessEnd, final: bool) -> None:
    """An uncaught exception: record it on each writer (the main thread's as its end, a helper
    thread's as an event) and have it written now (a thread's exception may be followed by a
    kill; the main thread's, by the exit's close, which bounds the uploads itself)."""
    for sink in list(_LIVE):
        if final:
            sink.record_end(end)
        else:
            sink.record_event(end)
    deadline = time.monotonic() + sigterm.FLUSH_SECS
    for sink in list(_LIVE):
        sink.flush_before_exit(deadline)


def _idle_pool_worker_end() -> ProcessEnd | None:
    """A clean end when this process is a ``multiprocessing.Pool`` worker that runs no task:
    its main thread waits for the next one, or is still in the pool's ``initializer`` (the
    pool ends its workers by SIGTERM, ``with Pool()``'s exit and ``terminate()``, however
    far they got in starting); None otherwise (a task interrupted). Reads the main thread's
    stack: from the innermost frame out, only ``multiprocessing``'s own (and this SIGTERM
    handler's) down to the pool's ``worker`` loop, or any down to its initializer's call."""
    pool = sys.modules.get("multiprocessing.pool")
    worker = getattr(pool, "worker", None)
    main = threading.main_thread()
    if worker is None or not _in_multiprocessing_child() or main.ident is None:
        return None
    frame = sys._current_frames().get(main.ident)
    package = os.path.dirname(getattr(pool, "__file__", "") or "")
    ours = sigterm.__file__
    idle = True
    inner = None
    while frame is not None:
        code = frame.f_code
        if code is worker.__code__:
            if not idle and not _starting(frame, inner):
                return None
            return ProcessEnd("closed", time.time(), thread=main.name)
        inside = os.path.dirname(code.co_filename) == package and code.co_name not in ("mapstar", "starmapstar")
        idle = idle and (inside or code.co_filename == ours)
        inner, frame = frame, frame.f_back
    return None


def _starting(worker: FrameType, inner: FrameType | None) -> bool:
    """Whether the pool's ``worker`` frame calls its ``initializer`` (``inner``: the frame it calls)."""
    try:
        initializer = worker.f_locals.get("initializer")
    except Exception:  # noqa: BLE001 - boundary: another thread's frame, read as it runs
        return False
    code = getattr(initializer, "__code__", None)
    return inner is not None and code is not None and inner.f_code is code


def _close_all() -> None:
    for sink in list(_LIVE):
        try:
            sink.close()
        except Exception as e:  # noqa: BLE001 - boundary: interpreter exit
            log.error("at exit: %s", e)


_early_close = False


def _close_before_executors_stop() -> None:
    """Close the writers at exit before ``concurrent.futures`` stops its executors, which a
    store's client needs to upload the last segment. Those stop in ``threading``'s exit
    hooks, before ``atexit``'s; hooks registered later run first."""
    global _early_close
    register = getattr(threading, "_register_atexit", None)
    if _early_close or register is None:
        return
    try:
        register(_close_all)
        _early_close = True
    except RuntimeError:  # the interpreter is shutting down already
        pass


def _after_fork() -> None:
    global _opening, _opened
    _opening, _opened = 0, threading.Condition()  # the parent's opening is not the child's
    for sink in list(_LIVE):
        sink.after_fork_in_child()


atexit.register(_close_all)
os.register_at_fork(after_in_child=_after_fork)
