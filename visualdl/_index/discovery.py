"""Which runs and log files a logdir holds, as its :class:`~visualdl._storage.Store` lists
them, and the problems of the listing.

A run is a directory holding log files, named by its path relative to the logdir (``.``
for the logdir itself, local or in a bucket); a file is a log file when a format of the
table claims its name (:func:`visualdl._formats.table.format_of`). The store groups a
writer's segments as one file and keeps where their bytes are; nothing here knows
whether the logdir is local.
"""

from __future__ import annotations

import logging
import os

from visualdl._formats.fatal import SUFFIX, is_sidecar_name
from visualdl._formats.projector import CONFIG_NAME
from visualdl._formats.table import format_of
from visualdl._formats.vdlog.format import VDLOG
from visualdl._index.projector import is_config_path
from visualdl._index.tail import LogFile, Problem
from visualdl._storage import Store

log = logging.getLogger("visualdl.reader")

__all__ = ["Discovery", "is_log_name", "open_log"]


def is_log_name(name: str) -> bool:
    return format_of(name) is not None


def _wanted(name: str) -> bool:
    return is_log_name(name) or (is_sidecar_name(name) and is_log_name(name[: -len(SUFFIX)])) or name == CONFIG_NAME


def open_log(path: str, store: Store) -> LogFile:
    """A file to follow, in the format its name tells, its bytes read through ``store``."""
    name = path.rpartition("/")[2].rpartition(os.sep)[2]
    return LogFile(path, format_of(name) or VDLOG, source=store.source(path))


class Discovery:
    """The listing of one logdir as the polls see it: the runs and their log files, and
    the problems of the latest listing (:attr:`problems`)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.logdir = store.logdir
        #: Paths found wrong while listing the logdir (not files being read): path -> problem.
        self.problems: dict[str, Problem] = {}
        self.sidecars: dict[str, str] = {}
        #: The projector configs listed (TensorBoard's embeddings beside the logs):
        #: ``(directory as a run name, config path)`` (see :mod:`visualdl._index.projector`).
        self.projector_configs: list[tuple[str, str]] = []

    def exists(self) -> bool:
        """Whether the logdir exists, as the latest listing found it where asking costs a
        request (a store's), else now."""
        return self.store.listed_exists()

    def discover(self) -> tuple[dict[str, list[str]], dict[str, str]]:
        """Runs and their log files (regular files only), and what could not be listed or read:
        ``({run: [path, ...]}, {path: problem})``. A writer's segments are one log file.
        The logs' fatal-signal sidecars listed are kept in :attr:`sidecars`."""
        listing = self.store.list(_wanted, sizes=False)  # each file read is stat'ed as it is read
        found: dict[str, list[str]] = {}
        sidecars: dict[str, str] = {}
        configs: list[tuple[str, str]] = []
        for directory, paths in listing.directories.items():
            configs.extend((self.store.relative(directory), p) for p in paths if is_config_path(p))
            logs = [p for p in paths if not is_sidecar_name(p) and not is_config_path(p)]
            sidecars.update((p[: -len(SUFFIX)], p) for p in paths if is_sidecar_name(p))
            if logs:
                found[self.store.relative(directory)] = logs
        #: Log path -> its fatal-signal sidecar's path, as the latest listing found them.
        self.sidecars = {log: path for log, path in sidecars.items() if is_log_name(os.path.basename(log))}
        self.projector_configs = configs
        return found, dict(listing.problems)

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
