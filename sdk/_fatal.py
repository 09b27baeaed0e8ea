"""Fatal signals (a segfault or an abort in a native library, ``os.abort()``): while a writer
of a local log is open, ``faulthandler`` writes the Python traceback of every thread into
the log's sidecar file (:mod:`visualdl._formats.fatal`) before the process dies of its
signal, as it would have.

One sidecar per process (faulthandler has one file): the first writer's open now. When
that writer closes, the next open writer's sidecar takes over; when the last one closes,
faulthandler is disabled again. A closed writer's section is taken back, and a sidecar
left empty is removed.

The program's own faulthandler wins: when faulthandler is enabled as the first writer
opens (``PYTHONFAULTHANDLER``, ``-X faulthandler``, torchrun's ``@record``), it is left
alone (it keeps writing where it did, stderr as a rule) and no sidecar is written; the
reader then sees the process as killed without a trace. faulthandler cannot be asked
where it writes, so a program that enables it *after* a writer opened has it disabled
when the last writer closes.

Object stores get no sidecar: a process that segfaults cannot upload anything. A local
spool (the dump kept on the host's disk, uploaded next to its log by the next writer that
opens on that host) would tell a crash when the launcher restarts the rank on the same
host (torchrun's elastic agent does), not when the machine or pod is gone (a preemption,
where such a rank reads as killed anyway); it is not built.
"""

from __future__ import annotations

import faulthandler
import logging
import os
import threading
from dataclasses import dataclass
from typing import BinaryIO

from visualdl._formats.fatal import preamble, sidecar_of

__all__ = ["release", "watch"]

log = logging.getLogger("visualdl.writer")


@dataclass
class _Sidecar:
    log_path: str
    path: str
    file: BinaryIO
    start: int  # the sidecar's size before our section
    end: int  # its size after our preamble


_lock = threading.Lock()
#: The open writers' logs (path -> writer id), in the order they opened.
_watched: dict[str, str] = {}
_active: _Sidecar | None = None
#: faulthandler was enabled by the program before us: it is left alone until no writer is open.
_theirs = False


def watch(log_path: str, writer_id: str) -> None:
    """A writer of the local log ``log_path`` opened."""
    global _theirs
    with _lock:
        if not _watched and _active is None:
            _theirs = faulthandler.is_enabled()
        _watched[log_path] = writer_id
        if _active is None and not _theirs:
            _take(log_path, writer_id)


def release(log_path: str) -> None:
    """The writer of ``log_path`` closed: take its section back; hand faulthandler to the next
    open writer, or disable it when none is."""
    global _active
    with _lock:
        if _watched.pop(log_path, None) is None:
            return
        if _active is None or _active.log_path != log_path:
            return
        _give_back(_active)
        _active = None
        for path, writer_id in _watched.items():
            if _take(path, writer_id):
                return
        faulthandler.disable()


def _take(log_path: str, writer_id: str) -> bool:
    """Point faulthandler at ``log_path``'s sidecar, after a section line of its own."""
    global _active
    path = sidecar_of(log_path)
    try:
        file = open(path, "ab", buffering=0)
    except OSError as e:
        log.warning("no fatal-signal sidecar for %s: %s", log_path, e)
        return False
    try:
        start = os.fstat(file.fileno()).st_size
        file.write(preamble(writer_id, os.getpid()))
        faulthandler.enable(file, all_threads=True)
    except (OSError, RuntimeError, ValueError) as e:
        log.warning("no fatal-signal sidecar for %s: %s", log_path, e)
        file.close()
        return False
    _active = _Sidecar(log_path, path, file, start, start + len(preamble(writer_id, os.getpid())))
    return True


def _give_back(sidecar: _Sidecar) -> None:
    """Take our section back (nothing followed the preamble), and the file when it is empty."""
    faulthandler.disable()
    try:
        size = os.fstat(sidecar.file.fileno()).st_size
        if size == sidecar.end:
            if sidecar.start == 0:
                os.unlink(sidecar.path)
            else:
                os.truncate(sidecar.file.fileno(), sidecar.start)
    except OSError as e:
        log.warning("cannot tidy the fatal-signal sidecar %s: %s", sidecar.path, e)
    finally:
        sidecar.file.close()


def _after_fork_in_child() -> None:
    """A forked child must not write its crash into its parent's sidecar: it starts with none
    (its own writers open their own)."""
    global _active, _theirs, _lock
    _lock = threading.Lock()
    _watched.clear()
    if _active is not None:
        faulthandler.disable()
        try:
            _active.file.close()
        except OSError:
            pass
        _active = None
    _theirs = False


os.register_at_fork(after_in_child=_after_fork_in_child)
