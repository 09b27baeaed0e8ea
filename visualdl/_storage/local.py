"""A logdir on the local disk: a directory tree, log files appended to in place.

A local copy of a bucket (``aws s3 sync``) holds a writer's segments as files; they
are listed and read as one log, as in the bucket.
"""

from __future__ import annotations

import builtins
import logging
import os
import stat as stat_
from collections.abc import Callable
from typing import BinaryIO

from visualdl._formats.framing import Corruption, scan
from visualdl._storage.base import Appender, Listing, Store
from visualdl._storage.parts import PartsSource
from visualdl._storage.segments import group_segments

__all__ = ["FileAppender", "LocalStore", "drop_torn_tail", "open_regular"]

#: Writers' messages go where they went before the store existed: the writer's logger.
log = logging.getLogger("visualdl.writer")


def open_regular(path: str) -> tuple[BinaryIO, os.stat_result]:
    """``path`` opened for reading, and its stat; ``OSError`` unless it is a regular file.

    Opened non-blocking and checked on the open descriptor: a FIFO (or a file replaced
    by one after it was found) never blocks the caller.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat_.S_ISREG(st.st_mode):
            raise OSError(f"{_what(st.st_mode)}, not a regular file")
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return f, st


def _what(mode: int) -> str:
    if stat_.S_ISFIFO(mode):
        return "a FIFO"
    if stat_.S_ISSOCK(mode):
        return "a socket"
    if stat_.S_ISCHR(mode) or stat_.S_ISBLK(mode):
        return "a device"
    if stat_.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def _unreadable(path: str) -> str:
    """Why ``path``, an entry that does not look like a regular file, cannot be read
    ("" if it can be after all). Never blocks, even on a FIFO."""
    try:
        open_regular(path)[0].close()
    except OSError as e:
        return f"skipped: {e.strerror or e}"
    return ""


def _read_range(name: str, start: int, end: int) -> bytes:
    f, _ = open_regular(name)
    with f:
        f.seek(start)
        return f.read(end - start)


def local_parts(path: str) -> PartsSource:
    """The source of a log file made of local segment files (``path``: the log's path)."""
    return PartsSource(path, _read_range)


class LocalStore(Store):
    """A directory on this machine."""

    def __init__(self, logdir: str) -> None:
        super().__init__(logdir, os.path.abspath(logdir))
        self.requests = {"LIST": 0, "HEAD": 0, "GET": 0}
        self._sources: dict[str, PartsSource] = {}

    def exists(self) -> bool:
        return os.path.isdir(self.logdir)

    def list(self, wanted: Callable[[str], bool], *, sizes: bool = True) -> Listing:
        listing = Listing()
        sources: dict[str, PartsSource] = {}
        if os.path.isdir(self.logdir):
            stack = [self.logdir]
            while stack:
                dirpath = stack.pop()
                files, subdirs = self._entries(dirpath, wanted, listing.problems)
                stack.extend(reversed(subdirs))
                if files:
                    listing.directories[dirpath] = self._group(dirpath, files, sources, listing.problems, sizes)
        self._sources = sources
        return listing

    def _entries(
        self, dirpath: str, wanted: Callable[[str], bool], problems: dict[str, str]
    ) -> tuple[builtins.list[os.DirEntry[str]], builtins.list[str]]:
        """The wanted regular files and the subdirectories (links not followed, as os.walk) of
        ``dirpath``, in name order."""
        files: builtins.list[os.DirEntry[str]] = []
        subdirs: builtins.list[str] = []
        try:
            with os.scandir(dirpath) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            problems[dirpath] = f"cannot list the directory: {e.strerror or e}"
            return files, subdirs
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir():
                    if not entry.is_symlink():
                        subdirs.append(entry.path)
                elif wanted(entry.name):
                    why = "" if entry.is_file() else _unreadable(entry.path)
                    if why:
                        problems[entry.path] = why
                    else:
                        files.append(entry)
            except OSError as e:
                problems[entry.path] = f"cannot read: {e.strerror or e}"
        return files, subdirs

    def _group(
        self,
        dirpath: str,
        files: builtins.list[os.DirEntry[str]],
        sources: dict[str, PartsSource],
        problems: dict[str, str],
        sizes: bool,
    ) -> dict[str, int]:
        """``{log path: size}`` of a directory's files (-1 unless ``sizes``, but for a
        writer's segments, whose parts are stat'ed to be read), the segments as one log."""
        plain, segments = group_segments(entry.name for entry in files)
        if not segments and not sizes:  # the common case, once per directory of a poll: no stat
            return {entry.path: -1 for entry in files}  # in name order already
        by_name = {entry.name: entry for entry in files}
        logs: dict[str, int] = {}
        for name in plain:
            try:
                logs[by_name[name].path] = by_name[name].stat().st_size if sizes else -1
            except OSError as e:
                problems[by_name[name].path] = f"cannot read: {e.strerror or e}"
        for log_name, names in segments.items():
            path = os.path.join(dirpath, log_name)
            parts = []
            try:
                for name in names:
                    parts.append((by_name[name].path, by_name[name].stat().st_size))
            except OSError as e:
                problems[by_name[name].path] = f"cannot read: {e.strerror or e}"
                continue
            source = sources[path] = self._sources.get(path) or local_parts(path)
            source.update(parts, segments=True)
            logs[path] = source.stat()[1]
        return dict(sorted(logs.items()))

    def source(self, path: str) -> PartsSource | None:
        return self._sources.get(path)

    def open(self, path: str) -> BinaryIO:
        source = self._sources.get(path)
        return open_regular(self._inside(path))[0] if source is None else source.open()[0]

    def _inside(self, path: str) -> str:
        """``path`` when it lies below the logdir; ``OSError`` otherwise (a store opens
        only its own files, whoever asks)."""
        if not path.startswith(self.logdir.rstrip(os.sep) + os.sep):
            raise OSError(f"{path}: not a file of the logdir {self.logdir}")
        return path

    def stat(self, path: str) -> tuple[object, int]:
        source = self._sources.get(path)
        if source is not None:
            return source.stat()
        st = os.stat(self._inside(path))
        return (st.st_dev, st.st_ino), st.st_size

    def resolve(self, path: str, name: str) -> str:
        root = os.path.abspath(self.logdir)
        candidate = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(path)), name))
        where = f"{name!r} (named in {path}) lies outside the logdir {self.logdir}"
        if os.path.commonpath([root, candidate]) != root or candidate == root:
            raise ValueError(f"{where}: only files under the logdir are read")
        real_root = os.path.realpath(root)
        real = os.path.realpath(candidate)
        if os.path.commonpath([real_root, real]) != real_root:
            raise ValueError(f"{where} once its symbolic links are followed ({real}): only files under it are read")
        return os.path.join(self.logdir, os.path.relpath(candidate, root))

    def modified(self, path: str) -> float | None:
        if path in self._sources:
            return None
        return os.stat(self._inside(path)).st_mtime

    def relative(self, directory: str) -> str:
        if directory == self.logdir:
            return "."
        return directory[len(self.logdir) :].strip(os.sep).replace(os.sep, "/")

    def appender(
        self,
        directory: str,
        log_name: str,
        *,
        exclusive: bool,
        upload_secs: float,
        upload_bytes: int,
        upload_timeout: float = 0.0,
    ) -> Appender:
        dirpath = os.path.join(self.logdir, directory) if directory else self.logdir
        os.makedirs(dirpath, exist_ok=True)
        return FileAppender(os.path.join(dirpath, log_name), exclusive=exclusive)


class FileAppender(Appender):
    """A local log file, appended to with ``os.write``: a killed process leaves at worst a
    partial last record, which readers treat as not yet written."""

    def __init__(self, path: str, *, exclusive: bool) -> None:
        super().__init__(path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
        if exclusive:
            self._fd = os.open(path, flags | os.O_EXCL, 0o644)
        else:
            self._fd = os.open(path, flags, 0o644)
            drop_torn_tail(path, self._fd)

    def begin(self, header: bytes) -> None:
        self.write(header)

    def write(self, data: bytes) -> None:
        start = os.lseek(self._fd, 0, os.SEEK_END)
        view = memoryview(data)
        try:
            while view:
                n = os.write(self._fd, view)
                view = view[n:]
        except OSError:
            try:
                os.ftruncate(self._fd, start)
            except OSError:
                pass
            raise

    def sync(self) -> None:
        if self._fd >= 0:
            os.fsync(self._fd)

    def gone(self) -> bool:
        return self._fd < 0 or os.fstat(self._fd).st_nlink == 0

    def close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            try:
                os.close(fd)
            except OSError as e:
                log.error("closing %s failed: %s", self.path, e)


def drop_torn_tail(path: str, fd: int) -> None:
    """Before appending to an existing log file: cut an incomplete last record (left by
    a killed writer), which would otherwise hide what is appended after it, and junk
    that no valid record follows."""
    size = os.fstat(fd).st_size
    end = 0
    window = 64 << 20
    with open(path, "rb") as f:
        while end < size:
            f.seek(end)
            buf = f.read(min(window, size - end))
            items = list(scan(buf))
            resume = end + int(items[-1])  # type: ignore[arg-type]  # scan ends with the resume offset
            last = items[-2] if len(items) > 1 else None
            if isinstance(last, Corruption) and last.at_end:
                resume = end + last.offset  # junk up to the end: cut it too
            if resume == end:
                if len(buf) < size - end:
                    window *= 2  # one record larger than the window
                    continue
                break
            end = resume
    if end < size:
        log.warning("cutting an incomplete last record of %d bytes from %s before appending", size - end, path)
        os.ftruncate(fd, end)
