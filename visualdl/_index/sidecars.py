"""The fatal-signal sidecars of a logdir's log files (:mod:`visualdl._formats.fatal`), read
through the store with their logs.

The listing names them (:class:`~visualdl._index.discovery.Discovery` keeps them apart
from the logs). After each poll, the sidecar of each log that holds neither an end record
nor a footer is stat'ed, and read only when its size changed and is more than its
writer's one line: 10,000 running ranks cost 10,000 stats a poll and no read.
A sidecar that cannot be read, whose text is not faulthandler's, or whose parse fails in
any way, is a problem reported with its path; it never stops a poll, nor another sidecar.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from visualdl._formats.fatal import MAX_BYTES, FatalDump, parse, preamble
from visualdl._index.tail import Problem
from visualdl._storage import Store

__all__ = ["Sidecars"]

log = logging.getLogger("visualdl.reader")


@dataclass(frozen=True, slots=True)
class _Seen:
    size: int
    dump: FatalDump | None
    modified: float | None
    problem: str = ""  # what is wrong with the sidecar as read (its dump's problem, or its parser's failure)


class Sidecars:
    """What each log's sidecar says: ``dump(log path)`` and ``modified(log path)``."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._seen: dict[str, _Seen] = {}  # log path -> its sidecar as last read
        #: Sidecars found wrong: sidecar path -> problem.
        self.problems: dict[str, Problem] = {}

    def check(self, candidates: Iterable[tuple[str, str, str, int]]) -> bool:
        """Read the sidecars of ``(log path, sidecar path, writer id, writer's pid)`` whose
        size changed and is more than their writer's line; forget those of logs no longer
        given. Whether a dump was found or went away."""
        seen: dict[str, _Seen] = {}
        problems: dict[str, Problem] = {}
        for log_path, path, writer_id, pid in candidates:
            before = self._seen.get(log_path)
            try:
                size = self.store.stat(path)[1]
                if before is not None and before.size == size:
                    seen[log_path] = before
                    if before.problem:
                        problems[path] = Problem(path, 0, before.problem)
                    continue
                if size <= len(preamble(writer_id, pid)):  # its writer's line alone: nothing to read
                    seen[log_path] = _Seen(size, None, None)
                    continue
                with self.store.open(path) as f:
                    if size > MAX_BYTES:
                        f.seek(size - MAX_BYTES)
                    data = f.read(MAX_BYTES)
                modified = self.store.modified(path)
            except OSError as e:
                problems[path] = Problem(path, 0, f"cannot read the fatal-signal sidecar: {e}")
                continue
            try:
                dump = parse(data, writer_id)
                problem = dump.problem if dump is not None else ""
            except Exception as e:  # boundary: a parser's bug costs this sidecar, not the poll
                log.exception("reading %s failed", path)
                dump, problem = None, f"reading the fatal-signal sidecar failed ({type(e).__name__}: {e})"
            if problem:
                problems[path] = Problem(path, 0, problem)
                log.warning("%s: %s", path, problem)  # read again only once it changed: said once
            seen[log_path] = _Seen(size, dump, modified, problem)
        with self._lock:
            changed = {k: v.dump for k, v in seen.items() if v.dump} != {
                k: v.dump for k, v in self._seen.items() if v.dump
            }
            self._seen = seen
            self.problems = problems
        return changed

    def dump(self, log_path: str) -> tuple[FatalDump | None, float | None]:
        """The fatal-signal dump of ``log_path``'s writer and when its sidecar was written."""
        with self._lock:
            seen = self._seen.get(log_path)
        return (None, None) if seen is None else (seen.dump, seen.modified)
