"""Which runs and log files a logdir holds: the listing of a local directory tree or of
a store, a writer's segments grouped as one file, and the problems of the listing.

A run is a directory holding log files, named by its path relative to the logdir (``.``
for the logdir itself); a file is a log file when a format of the table claims its name
(:func:`visualdl._formats.table.format_of`).
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable

from visualdl._formats.table import format_of
from visualdl._formats.vdlog.format import VDLOG
from visualdl._index.tail import LogFile, Problem, open_regular
from visualdl._storage import store as _storage

log = logging.getLogger("visualdl.reader")

__all__ = ["Discovery", "is_log_name", "open_log", "unreadable"]


def is_log_name(name: str) -> bool:
    return format_of(name) is not None


def unreadable(path: str) -> str:
    """Why ``path``, a directory entry that does not look like a regular file, cannot be
    read ("" if it can be after all). Never blocks, even on a FIFO."""
    try:
        open_regular(path)[0].close()
    except OSError as e:
        return f"skipped: {e.strerror or e}"
    return ""


def open_log(path: str, source: _storage.PartsSource | None = None) -> LogFile:
    """A file to follow, in the format its name tells; ``source`` gives its bytes when it
    is not one local file."""
    name = path.rpartition("/")[2] if source is not None else os.path.basename(path)
    return LogFile(path, format_of(name) or VDLOG, source=source)


class Discovery:
    """The listing of one logdir, local or in a store, as the polls see it: the runs and
    their log files, where the bytes of the files that are not one local file are
    (:attr:`sources`), and the problems of the latest listing (:attr:`problems`)."""

    def __init__(self, logdir: str) -> None:
        self.logdir = logdir
        #: The listing of a logdir in a store (``s3://...``; see :mod:`visualdl._storage.store`).
        self.lister: _storage.Lister | None = None
        if _storage.is_url(logdir):
            self.lister = _storage.Lister(*_storage.filesystem(logdir), wanted=is_log_name)
        else:
            self.logdir = _storage.local_path(logdir)
        #: Log files that are not one local file (objects, segments) -> where their bytes are.
        self.sources: dict[str, _storage.PartsSource] = {}
        #: Paths found wrong while listing the logdir (not files being read): path -> problem.
        self.problems: dict[str, Problem] = {}

    def exists(self) -> bool:
        """Whether the logdir exists (as the latest listing of a store found it: no request)."""
        if self.lister is not None:
            return self.lister.exists()
        return os.path.isdir(self.logdir)

    def discover(self) -> tuple[dict[str, list[str]], dict[str, str]]:
        """Runs and their log files (regular files only), and what could not be listed or read:
        ``({run: [path, ...]}, {path: problem})``. A writer's segments are one log file
        (:mod:`visualdl._storage.store`), whose parts are kept in :attr:`sources`."""
        if self.lister is not None:
            return self._discover_store(self.lister)
        found: dict[str, list[str]] = {}
        trouble: dict[str, str] = {}
        sources: dict[str, _storage.PartsSource] = {}
        if not os.path.isdir(self.logdir):
            self.sources = sources
            return found, trouble
        stack = [self.logdir]
        while stack:
            dirpath = stack.pop()
            try:
                with os.scandir(dirpath) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as e:
                trouble[dirpath] = f"cannot list the directory: {e.strerror or e}"
                continue
            files = []
            subdirs = []
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                try:
                    if entry.is_dir():
                        if not entry.is_symlink():  # as os.walk: links to directories are not followed
                            subdirs.append(entry.path)
                    elif is_log_name(entry.name):
                        why = "" if entry.is_file() else unreadable(entry.path)
                        if why:
                            trouble[entry.path] = why
                        else:
                            files.append(entry)
                except OSError as e:
                    trouble[entry.path] = f"cannot read: {e.strerror or e}"
            stack.extend(reversed(subdirs))
            if files:
                paths = self._group_local(dirpath, files, sources, trouble)
                run = "." if dirpath == self.logdir else dirpath[len(self.logdir) :].strip(os.sep)
                found[run.replace(os.sep, "/")] = paths
        self.sources = sources
        return found, trouble

    def _group_local(
        self,
        dirpath: str,
        files: list[os.DirEntry[str]],
        sources: dict[str, _storage.PartsSource],
        trouble: dict[str, str],
    ) -> list[str]:
        """The log files of a directory, a writer's segments (a copy of a bucket) as one."""
        plain, segments = _storage.group_segments(entry.name for entry in files)
        if not segments:
            return [entry.path for entry in files]
        by_name = {entry.name: entry for entry in files}
        paths = [by_name[name].path for name in plain]
        for log_name, names in segments.items():
            path = os.path.join(dirpath, log_name)
            parts = []
            try:
                for name in names:
                    parts.append((by_name[name].path, by_name[name].stat().st_size))
            except OSError as e:
                trouble[by_name[name].path] = f"cannot read: {e.strerror or e}"
                continue
            self._keep_source(sources, path, parts, True, _storage.local_parts)
            paths.append(path)
        paths.sort()
        return paths

    def _keep_source(
        self,
        sources: dict[str, _storage.PartsSource],
        path: str,
        parts: list[tuple[str, int]],
        segments: bool,
        make: Callable[[str], _storage.PartsSource],
    ) -> None:
        """The source of ``path`` (the one of the last listing, or a new one), with its parts now."""
        source = sources[path] = self.sources.get(path) or make(path)
        source.update(parts, segments=segments)
        _storage.register(path, source)

    def _discover_store(self, lister: _storage.Lister) -> tuple[dict[str, list[str]], dict[str, str]]:
        """:meth:`discover` of a logdir in a store: from the :class:`~visualdl._storage.store.Lister`."""
        objects, listed = lister.list()
        trouble = {self.logdir: message for message in listed.values()}  # noqa: B035 - one problem: the listing
        found: dict[str, list[str]] = {}
        sources: dict[str, _storage.PartsSource] = {}
        root = lister.root
        remote = functools.partial(_storage.PartsSource, read_range=lister.read_range)
        for directory in sorted(objects):
            names = objects[directory]
            if directory != root and not directory.startswith(root + "/"):
                continue
            run = "." if directory == root else directory[len(root) + 1 :]
            if any(part.startswith(".") for part in run.split("/")):
                continue
            plain, segments = _storage.group_segments(n for n in names if is_log_name(n))
            groups = [(name, [name]) for name in plain] + list(segments.items())
            paths = []
            for name, parts in groups:
                path = lister.url(f"{directory}/{name}")
                located = [(f"{directory}/{part}", names[part]) for part in parts]
                self._keep_source(sources, path, located, name in segments, remote)
                paths.append(path)
            if paths:
                found[run] = sorted(paths)
        self.sources = sources
        return found, trouble

    def note(self, trouble: dict[str, str]) -> set[str]:
        """Keep the listing's problems (reported once while they last); the runs under a
        directory that could not be listed, which are kept as they were."""
        known = self.problems
        for path in [p for p in known if p not in trouble]:
            del known[path]
        for path, message in trouble.items():
            if path not in known or known[path].message != message:
                known[path] = Problem(path, 0, message)
                log.warning("%s: %s", path, message)
        unlisted = set()
        for path, message in trouble.items():
            if message.startswith("cannot list"):
                unlisted.add(os.path.relpath(path, self.logdir).replace(os.sep, "/"))
        return unlisted
