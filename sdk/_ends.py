"""How the process ends, told to every open writer: an uncaught exception (in the main
thread or any other) or a signal (SIGTERM; SIGINT, which Python raises as
``KeyboardInterrupt``). ``close()`` tells its own writer (:mod:`~visualdl.sdk._sink`).

What happened at the end of the process is its end; what it lived through is an *event*
of its timeline. The main thread's uncaught exception ends the interpreter: an end. A
helper thread's uncaught exception ends that thread only (``threading.excepthook``
reports it and the program goes on): an event, written at once (a kill may follow), and
followed by the end the process comes to (``close()``'s, a signal's, the main thread's
exception). Its record is marked an event, so a kill without a trace after it reads as
that kill (the reader infers it), with the exception on the timeline.

:func:`install` wraps ``sys.excepthook`` and ``threading.excepthook`` while a writer is
open (:mod:`~visualdl.sdk._lifecycle` calls it when a writer opens and :func:`uninstall`
when the last one closes); each wrapper tells the writers, then calls the hook it
wrapped, so the program's own hooks and Python's report run as before. A hook the
program sets later is left alone: ours then stays under it (called by it or not, and
not wrapped a second time by a later writer), telling only while a writer is open. A
forked child inherits the wrappers, which then tell the child's own writers.
SIGTERM's end is told by the lifecycle's SIGTERM flush, before it writes.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from types import TracebackType

from visualdl._kinds.table import ProcessEnd

__all__ = ["exception_end", "install", "signal_end", "uninstall"]

log = logging.getLogger("visualdl.writer")

#: Told how the process ends, or what it went through (``final`` False: an event, the
#: process goes on): records it on every open writer and has it written.
Tell = Callable[[ProcessEnd, bool], None]

_tell: Tell | None = None
_previous_sys: Callable[[type[BaseException], BaseException, TracebackType | None], object] | None = None
_previous_threading: Callable[[threading.ExceptHookArgs], object] | None = None
#: Our hooks are in the chains (on top, or under a hook the program set since).
_sys_in_chain = False
_threading_in_chain = False
#: A hook running on this thread: a chain that calls ours again gets Python's own report.
_running = threading.local()


def install(tell: Tell) -> None:
    """Tell ``tell`` of uncaught exceptions from now on. Idempotent."""
    global _tell, _previous_sys, _previous_threading, _sys_in_chain, _threading_in_chain
    _tell = tell
    if not _sys_in_chain:
        _previous_sys, sys.excepthook = sys.excepthook, _sys_hook
        _sys_in_chain = True
    if not _threading_in_chain:
        _previous_threading, threading.excepthook = threading.excepthook, _threading_hook
        _threading_in_chain = True


def uninstall() -> None:
    """No writer is open: give the hooks back, where nobody wrapped ours since."""
    global _tell, _sys_in_chain, _threading_in_chain
    _tell = None
    if sys.excepthook is _sys_hook and _previous_sys is not None:
        sys.excepthook = _previous_sys
        _sys_in_chain = False
    if threading.excepthook is _threading_hook and _previous_threading is not None:
        threading.excepthook = _previous_threading
        _threading_in_chain = False


def exception_end(exc: BaseException, tb: TracebackType | None, thread: str) -> ProcessEnd:
    """The end of an uncaught exception; a ``KeyboardInterrupt`` is SIGINT's."""
    text = "".join(traceback.format_exception(type(exc), exc, tb))
    kind = type(exc)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    how, sig = ("signal", "SIGINT") if isinstance(exc, KeyboardInterrupt) else ("exception", "")
    return ProcessEnd(how, time.time(), name, str(exc), text, sig, thread)


def signal_end(signum: int) -> ProcessEnd:
    """The end of a signal the process received (on the main thread, as Python handles them)."""
    return ProcessEnd("signal", time.time(), signal=signal.Signals(signum).name, thread=threading.main_thread().name)


def _told(end: ProcessEnd, final: bool) -> None:
    tell = _tell
    if tell is None:
        return
    try:
        tell(end, final)
    except Exception:  # boundary: the program's own error is what must be reported
        log.exception("recording how the process ended failed")


def _sys_hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    if getattr(_running, "sys", False):  # a chain that leads back to us
        sys.__excepthook__(kind, exc, tb)
        return
    _running.sys = True
    try:
        thread = threading.current_thread()  # a program's thread hook may call this one
        _told(exception_end(exc, tb, thread.name), thread is threading.main_thread())
        previous = _previous_sys if _previous_sys is not None else sys.__excepthook__
        previous(kind, exc, tb)
    finally:
        _running.sys = False


def _threading_hook(args: threading.ExceptHookArgs) -> None:
    if getattr(_running, "threading", False):  # a chain that leads back to us
        threading.__excepthook__(args)
        return
    _running.threading = True
    try:
        if args.exc_value is not None and not isinstance(args.exc_value, SystemExit):
            name = args.thread.name if args.thread is not None else threading.current_thread().name
            _told(exception_end(args.exc_value, args.exc_traceback, name), False)
        previous = _previous_threading if _previous_threading is not None else threading.__excepthook__
        previous(args)
    finally:
        _running.threading = False
