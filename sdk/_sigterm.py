"""Write what a child process logged when it is terminated: ``with Pool() as pool:`` ends
its workers with SIGTERM, before their writers' next background flush.

In a child that logs (a forked child, a multiprocessing worker), :func:`install` catches
SIGTERM: the pending data is written (for up to :data:`FLUSH_SECS`), then the process
ends by SIGTERM as it would have (exit status ``-SIGTERM``); a second SIGTERM ends it
at once.

Python runs a signal handler only on the main thread, between two bytecodes. A
``Pool`` worker waits for its next task in a lock's ``sem_wait``; a SIGTERM arriving
just before that call leaves the handler pending while the thread sleeps, and the
worker would never end (``Pool.__exit__`` would hang joining it). So the signal is
heard through :func:`signal.set_wakeup_fd`, written by the C-level handler whatever
the main thread does, by a watcher thread. The watcher flushes, then signals the main
thread (a signal sent to a thread asleep in ``sem_wait`` wakes it) until the handler
there ends the process; if that thread never runs Python again, the watcher ends the
process itself (exit status 143).

Nothing is installed when SIGTERM already has a handler or a wakeup fd is in use (the
program's own wins), or off the main thread (Python allows signal handlers only there).
A handler the program sets later replaces ours: each SIGTERM is then still recorded (as an
event: the process may go on) and the pending data written, but the program's handler
alone decides whether and how the process ends (the watcher neither re-sends SIGTERM nor
ends the process). The flush is told which (its ``ending`` argument): only a process that
ends may have its uploads cut off at the deadline.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType

__all__ = ["FLUSH_SECS", "install"]

log = logging.getLogger("visualdl.writer")

#: How long a SIGTERM waits for the pending data to be written before the process ends.
FLUSH_SECS = 5.0
_RETRY_SECS = 0.05


@dataclass
class _Guard:
    pid: int
    read_fd: int
    write_fd: int
    flush: Callable[[float, bool], None]
    flushed: threading.Event = field(default_factory=threading.Event)
    watcher: threading.Thread | None = None

    def listening(self) -> bool:
        """The watcher runs and the wakeup fd is still ours (an asyncio loop may have taken it)."""
        if self.watcher is None or not self.watcher.is_alive():
            return False
        current = signal.set_wakeup_fd(-1)
        ours = current == self.write_fd
        signal.set_wakeup_fd(current, warn_on_full_buffer=not ours)
        return ours

    def close_fds(self) -> None:
        for fd in (self.read_fd, self.write_fd):
            try:
                os.close(fd)
            except OSError:
                pass


_guard: _Guard | None = None


def install(flush: Callable[[float, bool], None]) -> None:
    """On SIGTERM, call ``flush(deadline, ending)`` (``time.monotonic()``; ``ending``: the
    process ends by it, our handler being SIGTERM's still) on a watcher thread, then end the
    process by SIGTERM. Once per process; see the module's docstring for when nothing is
    installed."""
    global _guard
    if _guard is not None and _guard.pid == os.getpid():
        return
    if threading.current_thread() is not threading.main_thread():
        return
    try:
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return
        read_fd, write_fd = os.pipe()
        os.set_blocking(write_fd, False)
        guard = _Guard(os.getpid(), read_fd, write_fd, flush)
        previous = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
        if previous != -1:  # the program listens for signals itself
            signal.set_wakeup_fd(previous)
            guard.close_fds()
            return
        guard.watcher = threading.Thread(target=_watch, args=(guard,), name="visualdl-sigterm", daemon=True)
        guard.watcher.start()
        signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError) as e:  # an embedded interpreter may refuse signals
        log.debug("cannot flush on SIGTERM: %s", e)
        return
    _guard = guard


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    """On the main thread: end the process once the watcher has flushed; until then
    return at once (the interrupted code may hold a writer's lock the flush needs)."""
    guard = _guard
    if guard is None or guard.pid != os.getpid() or guard.flushed.is_set() or not guard.listening():
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)


def _watch(guard: _Guard) -> None:
    """The watcher thread: wait for SIGTERM's byte on the wakeup fd, flush, then have the
    main thread end the process. A SIGTERM the program's own handler took does not end it:
    the watcher then waits for the next one (each is recorded; the writers bound how many)."""
    while True:
        heard = _wait_and_flush(guard)
        if heard is None:
            return
        deadline, ending = heard
        if ending and signal.getsignal(signal.SIGTERM) is _on_sigterm:
            break
        guard.flushed.clear()  # the program's own handler took it: it decides, and goes on
    main = threading.main_thread().ident
    pause = threading.Event()
    while time.monotonic() < deadline + 1.0 and main is not None:
        signal.pthread_kill(main, signal.SIGTERM)  # wakes a main thread asleep in a blocking call
        pause.wait(_RETRY_SECS)
    log.error("the main thread did not handle SIGTERM; ending the process")
    os._exit(128 + signal.SIGTERM)


def _wait_and_flush(guard: _Guard) -> tuple[float, bool] | None:
    """Wait for SIGTERM's byte on the wakeup fd, then flush; the flush's deadline and whether
    the SIGTERM ends the process, or None once the wakeup fd is closed."""
    while True:
        try:
            data = os.read(guard.read_fd, 512)
        except OSError:
            return None
        if not data:
            return None
        if signal.SIGTERM in data:
            break
    deadline = time.monotonic() + FLUSH_SECS
    ending = signal.getsignal(signal.SIGTERM) is _on_sigterm
    try:
        guard.flush(deadline, ending)
    except Exception:  # boundary: the process ends whatever the flush did
        log.exception("flushing on SIGTERM failed")
    finally:
        guard.flushed.set()
    return deadline, ending


def _after_fork_in_child() -> None:
    """A child of a process that installed the guard: undo it (its own writers install
    it again on first use)."""
    global _guard
    guard, _guard = _guard, None
    if guard is None:
        return
    if signal.getsignal(signal.SIGTERM) is _on_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    current = signal.set_wakeup_fd(-1)
    if current != guard.write_fd:
        signal.set_wakeup_fd(current)
    guard.close_fds()


os.register_at_fork(after_in_child=_after_fork_in_child)
