"""The provider's catalogue: its logdirs, their runs by the names the API takes, and the lists
of runs, tags and kinds, each built once per change of the logdirs.

:class:`RunCatalog` is the base of :class:`~visualdl.server._provider.DataProvider`: it holds
the indexes (one per logdir) and the caches every other part of the provider reads through.
A run's index is reached only here, by :meth:`RunCatalog._resolve` (one run) and
:meth:`RunCatalog._located` (every run): nothing outside the provider package calls them.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from visualdl._formats.vdlog.logformat import MAX_TAG_LENGTH
from visualdl._index.cache import ByteCache
from visualdl._index.index import Index
from visualdl._index.writers import running_until
from visualdl._kinds.table import KINDS
from visualdl._storage import is_url, open_store
from visualdl.errors import NotFound
from visualdl.server._data import Health, Kind, LogdirState, ProblemAt, Run, RunScalars, Unservable
from visualdl.server._reload import PollCounters
from visualdl.server._settings import Settings

__all__ = ["BUSY", "CHART_CACHE_BYTES", "MAX_RUN_LENGTH", "MAX_TAG_LENGTH", "RunCatalog", "servable"]

log = logging.getLogger("visualdl.server")

#: Run names are paths under a logdir (PATH_MAX is 4096 on Linux): the longest the API takes.
#: Tags and graph names are at most MAX_TAG_LENGTH characters, as LogWriter writes them.
MAX_RUN_LENGTH = 4096
#: A view over every run (the runs table, a grouped chart) built while the data keeps changing
#: is kept for this many times what it took to build: at most a fifth of the server's time
#: goes to building it again, however often it is asked for.
BUSY = 4.0
#: Bytes of downsampled chart answers kept (at most 256 of them), the oldest dropped first.
CHART_CACHE_BYTES = 64 << 20


def servable(name: str, limit: int) -> bool:
    """Whether the API takes ``name`` as a run, tag or graph name parameter; what it lists, it takes."""
    return 0 < len(name) <= limit and "\x00" not in name


@dataclass(frozen=True, slots=True)
class _Source:
    name: str
    path: str
    reader: Index


def _relative(path: str, logdir: str) -> str:
    """``path`` (a file's path or URL) relative to ``logdir``."""
    if is_url(logdir):
        return path[len(logdir.rstrip("/")) + 1 :] if path.startswith(logdir.rstrip("/") + "/") else path
    return os.path.relpath(path, logdir)


class RunCatalog:
    """The logdirs' runs and their lists; the base every read of the provider goes through."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        readers = [
            (name, Index(open_store(path), load=False, cache_dir=settings.cache_dir)) for name, path in settings.logdirs
        ]
        self._sources = [_Source(name, reader.store.location, reader) for name, reader in readers]
        self._charts: ByteCache[RunScalars] = ByteCache(CHART_CACHE_BYTES, max_entries=256)
        self._lists: ByteCache[tuple[tuple[int, ...], Any, float, float]] = ByteCache()
        self._views: ByteCache[Any] = ByteCache(CHART_CACHE_BYTES // 2, max_entries=64)
        self._table_age = 0.0  # a runs table this young will do while the runs change (.runsource)
        #: How far indexing got, for /api/health and the command line (see :mod:`visualdl.server._reload`).
        self.counters = PollCounters()
        self._poll_failures: dict[str, str] = {}  # logdir -> why its last poll failed

    def poll(self) -> None:
        """Read what was added to every logdir since the last poll; a logdir whose poll fails
        is a problem of that logdir (in :meth:`read_health`), and the others are read."""
        start = time.perf_counter()
        for source in self._sources:
            try:
                source.reader.poll(progress=self.counters.progress)
                self._poll_failures.pop(source.path, None)
            except Exception as e:  # boundary: one logdir must not stop the others, nor the first load
                log.exception("reading %s failed", source.path)
                why = f"reading this logdir failed ({type(e).__name__}: {e}); the next poll tries again"
                self._poll_failures[source.path] = why
        self.counters.polled(time.perf_counter() - start)

    # -- caches ------------------------------------------------------------------------

    def _qualified(self, source: _Source, run: str) -> str:
        if not source.name:
            return run
        return source.name if run == "." else f"{source.name}/{run}"

    def _generation(self, runs_only: bool = False) -> tuple[int, ...]:
        """Changes whenever any logdir's runs, files, writers or tags change (``runs_only``:
        whenever its runs change)."""
        return tuple(source.reader.generation(runs_only=runs_only) for source in self._sources)

    def _listed(
        self,
        what: str,
        build: Callable[[], Any],
        *,
        runs_only: bool = False,
        max_age: float = 0.0,
        until: Callable[[Any], float] | None = None,
    ) -> Any:
        """``build()``, cached until the next change of runs, files, writers or tags: a list of
        10,000 runs is built once, not at every request. ``max_age``: a stale value this young
        will do (while a first read changes the logdir at every file). ``until(value)``: the
        wall time it holds until at most (a running writer falls silent then)."""
        generation = self._generation(runs_only)
        now = time.monotonic()
        hit = self._lists.get(what)
        if hit is not None and (hit[0] == generation or now - hit[2] < max_age) and time.time() < hit[3]:
            return hit[1]
        value = build()
        if what == "runs_table":  # its next rebuild waits BUSY times what this one took
            self._table_age = BUSY * (time.monotonic() - now)
        self._lists.put(what, (generation, value, now, until(value) if until is not None else math.inf), 0)
        return value

    def _remembered(self, key: tuple[Any, ...], build: Callable[[], Any]) -> Any:
        """``build()``, kept under ``key`` with the data's version (:meth:`data_version`): a view
        over many runs (a grouped chart) is built again once a point of any run changed, but
        while points keep coming (a first read, live runs) not more often than :data:`BUSY`
        times its own cost allows: a stale answer a few seconds old, not a server that does
        nothing but build it."""
        version = self.data_version()
        now = time.monotonic()
        hit = self._views.get(key)
        if hit is not None and (hit[0] == version or now - hit[1] < BUSY * hit[2]):
            return hit[3]
        value = build()
        self._views.put(key, (version, now, time.monotonic() - now, value))
        return value

    def data_version(self) -> tuple[tuple[int, int], ...]:
        """Changes whenever any run's data changes, points included."""
        return tuple(source.reader.data_version() for source in self._sources)

    # -- the runs ----------------------------------------------------------------------

    def _runs(self) -> dict[str, tuple[Index, str]]:
        """The runs by the names the API lists and takes (see :meth:`list_unservable` for the others)."""
        return cast("dict[str, tuple[Index, str]]", self._listed("runs", self._build_runs, runs_only=True))

    def _build_runs(self) -> dict[str, tuple[Index, str]]:
        out = {}
        for source in self._sources:
            for run in source.reader.runs():
                name = self._qualified(source, run)
                if servable(name, MAX_RUN_LENGTH):
                    out[name] = (source.reader, run)
        return out

    def _located(self) -> dict[str, tuple[Index, str]]:
        """Every run the API takes, with the index holding it and its name there (no run is
        prioritized: for reads over every run, which read what is loaded)."""
        return self._runs()

    def _resolve(self, run: str) -> tuple[Index, str]:
        """The index holding ``run`` and the run's name in it (:class:`NotFound` if unknown)."""
        found = self._runs().get(run)
        if found is None:
            raise NotFound(f"unknown run {run!r}")
        found[0].prioritize(found[1])  # still being read for the first time: read it next
        return found

    def _by_index(self, runs: list[str]) -> list[tuple[Index, list[tuple[int, str]]]]:
        """The known ones of ``runs`` by the index holding them: ``(index, [(position in runs,
        name there)])`` per index, in the order first met (none is prioritized)."""
        known = self._located()
        out: dict[int, tuple[Index, list[tuple[int, str]]]] = {}
        for i, run in enumerate(runs):
            found = known.get(run)
            if found is not None:
                out.setdefault(id(found[0]), (found[0], []))[1].append((i, found[1]))
        return list(out.values())

    def run_names(self) -> set[str]:
        return set(self._runs())

    def list_runs(self) -> tuple[Run, ...]:
        """Every run the API takes, by name, with its writers."""
        return cast("tuple[Run, ...]", self._listed("list_runs", self._build_list_runs, until=_running_until))

    def _build_list_runs(self) -> tuple[Run, ...]:
        out = []
        for name, (reader, run) in sorted(self._runs().items()):
            try:
                writers = reader.writers(run)
            except NotFound:
                continue  # removed meanwhile
            out.append(Run(name, tuple(writers)))
        return tuple(out)

    def list_tags(self, *, runs: list[str] | None = None) -> dict[str, dict[str, list[str]]]:
        """``{kind: {tag: [runs having it]}}``, every kind present (with no tags: ``{}``).

        The transpose of :meth:`Index.tags` (``{kind: [tags]}`` of one run) over
        ``runs`` (all by default); an unknown name in ``runs`` is :class:`NotFound`.
        """
        known = self._runs()
        wanted = set(runs) if runs else None
        for name in runs or ():
            if name not in known:
                raise NotFound(f"unknown run {name!r}")
        if wanted is None:
            return cast("dict[str, dict[str, list[str]]]", self._listed("tags", lambda: self._build_tags(known, None)))
        return self._build_tags(known, wanted)

    def _build_tags(
        self, known: dict[str, tuple[Index, str]], wanted: set[str] | None
    ) -> dict[str, dict[str, list[str]]]:
        out: dict[str, dict[str, list[str]]] = {}
        for name, (reader, run) in sorted(known.items()):
            if wanted is not None and name not in wanted:
                continue
            try:
                tags = reader.tags(run)
            except NotFound:
                continue  # removed meanwhile
            for kind, names in tags.items():
                bucket = out.setdefault(kind, {})
                for tag in names:
                    if servable(tag, MAX_TAG_LENGTH):
                        bucket.setdefault(tag, []).append(name)
        return out

    def list_kinds(self) -> tuple[Kind, ...]:
        """What the web UI offers a tab for: every record kind of the kinds table, in its order,
        with how many tags (distinct names over all runs) and runs hold it, the ``runs`` table
        after ``scalars`` (once there are two runs), and the ``jobs`` view (runs of two or more
        ranked writers), before ``graphs`` as the UI has always shown it."""
        return cast("tuple[Kind, ...]", self._listed("kinds", self._build_kinds))

    def _build_kinds(self) -> tuple[Kind, ...]:
        tags = self.list_tags()
        out: list[Kind] = []
        for name in KINDS:
            by_tag = tags.get(name, {})
            runs = {run for names in by_tag.values() for run in names}
            title = KINDS[name].title
            count = len(by_tag) + (len(self.settings.models) if name == "graphs" else 0)  # --model files too
            out.append(Kind(name, title, True, count, len(runs)))
        jobs = 0
        for run in self.list_runs():
            places = {(w.role, w.rank) for w in run.writers if w.rank >= 0}
            jobs += len(places) >= 2
        at = next((i for i, kind in enumerate(out) if kind.name == "graphs"), len(out))
        out.insert(at, Kind("jobs", "Jobs", False, 0, jobs))
        known = len(self._runs())  # the runs table: a view once there are runs to compare
        out.insert(1, Kind("runs", "Runs", False, 0, known if known >= 2 else 0))
        return tuple(out)

    def list_unservable(self) -> tuple[Unservable, ...]:
        """Runs, tags and graphs in the logs that the API cannot take as parameters (older or
        foreign writers: names too long, empty, or with NUL), so it does not list them."""
        # Diagnostics in /api/health, which the UI polls: up to 2 s late, built at most that often.
        return cast("tuple[Unservable, ...]", self._listed("not_served", self._build_unservable, max_age=2.0))

    def _build_unservable(self) -> tuple[Unservable, ...]:
        out: list[Unservable] = []
        for source in self._sources:
            for run in source.reader.runs():
                name = self._qualified(source, run)
                if not servable(name, MAX_RUN_LENGTH):
                    out.append(Unservable("run", name, name, MAX_RUN_LENGTH))
                    continue
                try:
                    tags = source.reader.tags(run)
                except NotFound:
                    continue  # removed meanwhile
                for kind, names in tags.items():
                    for tag in names:
                        if not servable(tag, MAX_TAG_LENGTH):
                            out.append(Unservable("tag" if kind != "graphs" else "graph", tag, name, MAX_TAG_LENGTH))
        return tuple(out)

    # -- health ----------------------------------------------------------------------

    def read_health(self) -> Health:
        """The logdirs, whether each exists, what is wrong in their files and which names
        cannot be served (the poll counters are :attr:`counters`)."""
        problems = []
        for source in self._sources:
            if source.path in self._poll_failures:
                problems.append(ProblemAt(source.name or source.path, ".", 0, self._poll_failures[source.path]))
            for p in source.reader.problems:
                where = source.name or source.path
                problems.append(ProblemAt(where, _relative(p.path, source.path), p.offset, p.message))
        logdirs = tuple(LogdirState(s.name, s.path, s.reader.exists()) for s in self._sources)
        degraded = tuple(dict.fromkeys(t for s in self._sources for t in s.reader.troubles()))
        return Health(logdirs, tuple(problems), self.list_unservable(), degraded)


def has_tag(reader: Index, run: str, kind: str, tag: str) -> bool:
    """Whether ``run`` of ``reader`` holds ``tag`` of ``kind`` (an unknown run: :class:`NotFound`)."""
    return tag in reader.tags(run)[kind]


def _running_until(runs: tuple[Run, ...]) -> float:
    """When the first running writer of ``runs`` falls silent: the list is stale then."""
    return min((running_until(run.writers) for run in runs), default=math.inf)
