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
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import sys
import threading
import time
import weakref
from typing import TYPE_CHECKING

from visualdl._kinds.table import ProcessEnd
from visualdl.sdk import _ends as ends
from visualdl.sdk import _fatal as fatal
from visualdl.sdk import _sigterm as sigterm

if TYPE_CHECKING:
    from visualdl.sdk._sink import Sink

__all__ = ["forget", "guard_child_exit", "guard_uploads", "reopened", "track"]

log = logging.getLogger("visualdl.writer")

_LIVE: weakref.WeakSet[Sink] = weakref.WeakSet()


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


def _flush_all(deadline: float) -> None:
    """SIGTERM: record it as the end of each writer, then write what is pending."""
    end = ends.signal_end(signal.SIGTERM)
    for sink in list(_LIVE):
        sink.record_end(end)
    for sink in list(_LIVE):
        sink.flush_before_exit(deadline)


def _tell_all(end: ProcessEnd) -> None:
    """An uncaught exception: record it as the end of each writer, and have it written now
    (a thread's exception may be followed by a kill; the main thread's, by the exit's close)."""
    for sink in list(_LIVE):
        sink.record_end(end)
    deadline = time.monotonic() + sigterm.FLUSH_SECS
    for sink in list(_LIVE):
        sink.flush_before_exit(deadline)


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
    for sink in list(_LIVE):
        sink.after_fork_in_child()


atexit.register(_close_all)
os.register_at_fork(after_in_child=_after_fork)
