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

A writer that ends without a fatal signal leaves no sidecar: ``close()`` (and the exit's)
takes its section back, and so does a SIGTERM that ends the process
(:mod:`~visualdl.sdk._lifecycle`). SIGKILL leaves the writer no chance: its section line
stays, saying nothing (no dump). The next writer that opens in the same directory on the
same host removes such a sidecar (:func:`sweep`): one whose log's name gives this host
and a pid that is no process any more, holding that pid's section lines alone, and that
no process holds locked (a live writer holds a shared ``flock`` on its sidecar: one in
another pid namespace of the host is seen so). A sidecar with a dump in it is never
removed: it is how the reader knows of the crash.

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
import re
import threading
from dataclasses import dataclass
from typing import BinaryIO

try:
    import fcntl

    _FLOCK = True
except ImportError:  # pragma: no cover - Windows: no flock, no sweep
    _FLOCK = False

from visualdl._formats.fatal import SUFFIX, preamble, sidecar_of
from visualdl.sdk._options import safe_host

__all__ = ["release", "sweep", "watch"]

#: The sidecar of a log named by the SDK: ``vdl.<time>.<host>.<pid>.<hex>.vdlog...fatal``.
_SIDECAR_NAME = re.compile(r"^vdl\.\d+\.([A-Za-z0-9_-]+)\.(\d{1,9})\.[0-9a-f]+\.vdlog.*" + re.escape(SUFFIX) + "$")
#: A sidecar left by a killed writer is its section lines alone: a few hundred bytes.
_LEFT_BYTES = 4096

log = logging.getLogger("visualdl.writer")


@dataclass
class _Sidecar:
    log_path: str
    path: str
    file: BinaryIO
    start: int  # the sidecar's size before our section
    end: int  # its size after our preamble


_lock = threading.Lock()
#: The directories :func:`sweep` went through (once per process each).
_swept: set[str] = set()
#: The open writers' logs (path -> writer id), in the order they opened.
_watched: dict[str, str] = {}
_active: _Sidecar | None = None
#: faulthandler was enabled by the program before us: it is left alone until no writer is open.
_theirs = False


def watch(log_path: str, writer_id: str) -> None:
    """A writer of the local log ``log_path`` opened (the sidecars killed writers left in
    its directory are removed first, once per directory)."""
    global _theirs
    directory = os.path.dirname(log_path) or "."
    if directory not in _swept:
        _swept.add(directory)
        sweep(directory)
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


def sweep(directory: str) -> int:
    """Remove the sidecars of ``directory`` that writers killed on this host left (see the
    module's docstring); how many. Never raises: a sidecar it cannot read or remove stays.

    A live writer holds a shared ``flock`` on its open sidecar (the kernel drops it when the
    process dies, however): a sidecar locked so is never removed, whatever its pid says (a
    writer in a container of its own on this host, whose pids this process does not see)."""
    if not _FLOCK:
        return 0  # no flock: a live writer's sidecar could not be told apart
    host, removed = safe_host(), 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.endswith(SUFFIX):
            continue
        found = _SIDECAR_NAME.match(entry.name)
        if found is None or found.group(1) != host:
            continue
        pid = int(found.group(2))
        if pid == os.getpid() or _alive(pid):
            continue
        try:
            with open(entry.path, "rb") as f:
                try:
                    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # a live writer holds it
                data = f.read(_LEFT_BYTES + 1)
                if len(data) > _LEFT_BYTES or not _sections_of(data, pid):
                    continue
                os.unlink(entry.path)
                removed += 1
        except OSError as e:
            log.debug("cannot remove the sidecar %s a killed writer left: %s", entry.path, e)
    return removed


def _hold(fd: int) -> None:
    """Hold a shared ``flock`` on our open sidecar while the process lives (see :func:`sweep`)."""
    if not _FLOCK:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as e:  # a filesystem without locks: the pid alone tells then
        log.debug("no lock on the fatal-signal sidecar: %s", e)


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this host (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def _sections_of(data: bytes, pid: int) -> bool:
    """Whether ``data`` is section lines of ``pid``'s writers alone: no dump."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    head = preamble("-", pid)[: -len(f"- pid {pid}\n")]  # the line's start, before the writer id
    tail = f" pid {pid}".encode()
    return bool(lines) and all(
        line.startswith(head) and line.endswith(tail) and b" " not in line[len(head) : -len(tail)] for line in lines
    )


def _take(log_path: str, writer_id: str) -> bool:
    """Point faulthandler at ``log_path``'s sidecar, after a section line of its own."""
    global _active
    path = sidecar_of(log_path)
    try:
        file = open(path, "ab", buffering=0)
    except OSError as e:
        log.warning("no fatal-signal sidecar for %s: %s", log_path, e)
        return False
    _hold(file.fileno())
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
    _swept.clear()
    if _active is not None:
        faulthandler.disable()
        try:
            _active.file.close()
        except OSError:
            pass
        _active = None
    _theirs = False


os.register_at_fork(after_in_child=_after_fork_in_child)
