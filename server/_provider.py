"""The data provider: the runs, tags and data of all logdirs, as typed values.

The serving side and the notebook see only this interface: keyword-only ``list_*``/``read_*``
calls returning the values of :mod:`visualdl.server._data` (or numpy arrays and the kinds'
events), and the errors of :mod:`visualdl.errors` (:class:`NotFound` for an unknown run, tag
or entry). No JSON here (each answer's JSON is built by its view in ``server/_views/``) and
no thread: :meth:`DataProvider.poll` reads what was added, and :mod:`visualdl.server._reload`
calls it in the background. Downsampled series are cached by (run, tag, data version,
range, budget); the lists of runs and tags until the next change of the logdirs.
"""

from __future__ import annotations

import bisect
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, cast

import numpy as np

from visualdl._formats.vdlog.logformat import MAX_TAG_LENGTH
from visualdl._index.aggregate import JobSeries
from visualdl._index.cache import ByteCache
from visualdl._index.downsample import PICKS_PER_BUCKET, downsample, downsample_lines, select_range
from visualdl._index.index import Index, WriterInfo
from visualdl._index.outliers import extreme_runs
from visualdl._index.runtable import RunsTable, attempts_of
from visualdl._index.series import ScalarSeries
from visualdl._index.systembands import Member
from visualdl._index.wrong import Divergence, FirstNonfinite
from visualdl._kinds.table import KINDS, GraphEvent, HistogramEvent, ImageEvent, TextEvent
from visualdl._storage import is_url, open_store
from visualdl.errors import NotFound, VisualDLError
from visualdl.server import _system as system
from visualdl.server._data import (
    Health,
    Kind,
    Line,
    LogdirState,
    LoggedGraph,
    ProblemAt,
    RankLine,
    RoleLine,
    Run,
    RunScalars,
    ScalarRuns,
    Unservable,
)
from visualdl.server._patterns import compile_pattern
from visualdl.server._reload import PollCounters
from visualdl.server._runsource import build_runs_table
from visualdl.server._settings import Settings

__all__ = ["MAX_RUN_LENGTH", "MAX_TAG_LENGTH", "DataProvider", "role_line", "servable"]

#: Points of all per-rank lines of one chart together, at most (each rank gets a share).
PER_RANK_POINTS = 200_000
#: Per file of a run: its writer, wall times, highest steps by then, points, lowest step.
FileProgress = tuple[WriterInfo, np.ndarray, np.ndarray, int, int | None]

#: Run names are paths under a logdir (PATH_MAX is 4096 on Linux): the longest the API takes.
#: Tags and graph names are at most MAX_TAG_LENGTH characters, as LogWriter writes them.
MAX_RUN_LENGTH = 4096


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


#: A view over every run (the runs table, a grouped chart) built while the data keeps changing
#: is kept for this many times what it took to build: at most a fifth of the server's time
#: goes to building it again, however often it is asked for.
BUSY = 4.0
#: Bytes of downsampled chart answers kept (at most 256 of them), the oldest dropped first.
CHART_CACHE_BYTES = 64 << 20


class DataProvider:
    """What the HTTP layer and the notebook read from: runs, tags and data of all logdirs."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        readers = [(name, Index(open_store(path), load=False)) for name, path in settings.logdirs]
        self._sources = [_Source(name, reader.store.location, reader) for name, reader in readers]
        self._charts: ByteCache[RunScalars] = ByteCache(CHART_CACHE_BYTES, max_entries=256)
        self._lists: ByteCache[tuple[tuple[int, ...], Any, float]] = ByteCache()
        self._views: ByteCache[Any] = ByteCache(CHART_CACHE_BYTES // 2, max_entries=64)
        self._table_age = 0.0  # a runs table this young will do while the runs change (see runs_table)
        #: How far indexing got, for /api/health and the command line (see :mod:`._reload`).
        self.counters = PollCounters()

    def poll(self) -> None:
        """Read what was added to every logdir since the last poll."""
        start = time.perf_counter()
        for source in self._sources:
            source.reader.poll(progress=self.counters.progress)
        self.counters.polled(time.perf_counter() - start)

    # -- runs and tags ---------------------------------------------------------------

    def _qualified(self, source: _Source, run: str) -> str:
        if not source.name:
            return run
        return source.name if run == "." else f"{source.name}/{run}"

    def _generation(self, runs_only: bool = False) -> tuple[int, ...]:
        """Changes whenever any logdir's runs, files, writers or tags change (``runs_only``:
        whenever its runs change)."""
        return tuple(source.reader.generation(runs_only=runs_only) for source in self._sources)

    def _listed(self, what: str, build: Callable[[], Any], *, runs_only: bool = False, max_age: float = 0.0) -> Any:
        """``build()``, cached until the next change of runs, files, writers or tags: a list of
        10,000 runs is built once, not at every request. ``max_age``: a stale value this young
        will do (while a first read changes the logdir at every file)."""
        generation = self._generation(runs_only)
        now = time.monotonic()
        hit = self._lists.get(what)
        if hit is not None and (hit[0] == generation or now - hit[2] < max_age):
            return hit[1]
        value = build()
        if what == "runs_table":  # its next rebuild waits BUSY times what this one took
            self._table_age = BUSY * (time.monotonic() - now)
        self._lists.put(what, (generation, value, now), 0)
        return value

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

    def remembered(self, key: tuple[Any, ...], build: Callable[[], Any]) -> Any:
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

    def runs_table(self) -> RunsTable:
        """Every run as a row (:mod:`visualdl._index.runtable`, :mod:`visualdl.server._runsource`),
        built once per change of the runs, files, writers or tags (the reload thread builds it
        after each poll, so that no request waits for it); while a first read changes them at
        every file, not more often than :data:`BUSY` times its cost allows."""
        return cast("RunsTable", self._listed("runs_table", lambda: build_runs_table(self), max_age=self._table_age))

    def data_version(self) -> tuple[tuple[int, int], ...]:
        """Changes whenever any run's data changes, points included."""
        return tuple(source.reader.data_version() for source in self._sources)

    def located(self) -> dict[str, tuple[Index, str]]:
        """Every run the API takes, with the index holding it and its name there (no run is
        prioritized: for views over every run, which read what is loaded)."""
        return self._runs()

    def run_names(self) -> set[str]:
        return set(self._runs())

    def resolve(self, run: str) -> tuple[Index, str]:
        """The reader holding ``run`` and the run's name in it (:class:`NotFound` if unknown)."""
        found = self._runs().get(run)
        if found is None:
            raise NotFound(f"unknown run {run!r}")
        found[0].prioritize(found[1])  # still being read for the first time: read it next
        return found

    def list_runs(self) -> tuple[Run, ...]:
        """Every run the API takes, by name, with its writers."""
        return cast("tuple[Run, ...]", self._listed("list_runs", self._build_list_runs))

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

    # -- scalars -----------------------------------------------------------------------

    def read_scalars(
        self,
        *,
        run: str,
        tag: str,
        max_points: int,
        x_min: float | None = None,
        x_max: float | None = None,
        ranks: str = "mean",
        rank: int | None = None,
        role: str | None = None,
        points: str = "kept",
    ) -> RunScalars:
        """One run's series of ``tag`` in the step range, at most ``max_points`` points.

        For a job (a run with two or more ranked writers of ``tag``), ``job`` holds per
        role the mean over ranks with its min/max band, the rank at each extreme (per point,
        and by range of steps) and the quantiles over ranks (p5, p25, median, p75, p95), and
        ``line`` is the first role's mean (trainers first); with ``ranks="each"``,
        ``per_rank`` also holds every rank's own series. With ``rank`` (and ``role``; by
        default the first role having that rank, trainers first), only that rank's own
        series, as ``line`` and the one entry of ``per_rank``: no rank is aggregated.
        ``points="replaced"``: the points earlier writers logged at steps a later one logged
        again (all places of the run, by step), as ``line``, never aggregated.
        """
        reader, local = self.resolve(run)
        if not _has_tag(reader, local, "scalars", tag):
            raise NotFound(f"run {run!r} has no scalar tag {tag!r}")
        version = reader.version(local, "scalars", tag)
        key = (run, tag, version, max_points, x_min, x_max, ranks, rank, role, points)
        hit = self._charts.get(key)
        if hit is not None:
            return hit
        if points == "replaced":
            replaced = reader.scalars(local, tag, replaced=True)
            result = RunScalars(run, len(replaced), _downsampled(replaced, max_points, x_min, x_max))
            self._charts.put(key, result)
            return result
        total = reader.count(local, "scalars", tag)
        if rank is not None:
            result = _one_rank(reader, local, run, tag, rank, role, total, max_points, x_min, x_max)
            self._charts.put(key, result)
            return result
        streamed = reader.chart_scalars(local, tag, max_points=max_points, x_min=x_min, x_max=x_max)
        if streamed is not None:  # one long series: downsampled as it is read back
            kept, in_range = streamed
            result = RunScalars(run, total, Line(kept.steps, kept.values, kept.wall_times, in_range))
            self._charts.put(key, result)
            return result
        jobs = reader.job_scalars(local, tag)
        if sum(len(r) for r, _ in jobs.values()) < 2:
            result = RunScalars(run, total, _downsampled(reader.scalars(local, tag), max_points, x_min, x_max))
        else:
            roles = sorted(jobs, key=lambda r: (r != "trainer", r))
            lines = tuple(role_line(role, *jobs[role], max_points, x_min, x_max) for role in roles)
            per_rank = None
            if ranks == "each":
                places = [(role, rank) for role in roles for rank in jobs[role][0]]
                budget = max(PICKS_PER_BUCKET * 5, min(max_points, PER_RANK_POINTS // len(places)))
                per_rank = tuple(
                    RankLine(
                        role, rank, _downsampled(reader.scalars(local, tag, role=role, rank=rank), budget, x_min, x_max)
                    )
                    for role, rank in places
                )
            result = RunScalars(run, total, lines[0].mean, lines, per_rank)
        self._charts.put(key, result)
        return result

    def read_scalar_runs(
        self,
        *,
        runs: list[str],
        tag: str,
        max_points: int,
        x_min: float | None = None,
        x_max: float | None = None,
        ranks: str = "mean",
        rank: int | None = None,
        role: str | None = None,
        points: str = "kept",
    ) -> ScalarRuns:
        """:meth:`read_scalars` of each of ``runs``; a known run without ``tag`` is listed in
        ``missing`` (the chart shows the others), an unknown one is :class:`NotFound`."""
        series = []
        missing = []
        for run in runs:
            reader, local = self.resolve(run)
            if not _has_tag(reader, local, "scalars", tag):
                missing.append(run)
                continue
            series.append(
                self.read_scalars(
                    run=run,
                    tag=tag,
                    max_points=max_points,
                    x_min=x_min,
                    x_max=x_max,
                    ranks=ranks,
                    rank=rank,
                    role=role,
                    points=points,
                )
            )
        return ScalarRuns(tag, max_points, tuple(series), tuple(missing))

    def read_replaced(self, *, run: str) -> tuple[int, dict[str, int]]:
        """How many times ``run``'s busiest place was written, and per scalar tag with any, how
        many points of earlier writers later ones replaced (:meth:`read_scalars` with
        ``points="replaced"`` gives them)."""
        reader, local = self.resolve(run)
        counts = {}
        for tag in reader.tags(local).get("scalars", []):
            n = len(reader.scalars(local, tag, replaced=True))
            if n:
                counts[tag] = n
        return attempts_of(reader.writers(local)), counts

    def run_version(self, *, run: str) -> tuple[int, int]:
        """A pair that changes whenever anything of ``run`` changes (see :meth:`Index.run_version`)."""
        reader, local = self.resolve(run)
        return reader.run_version(local)

    def read_job(self, *, run: str) -> list[FileProgress]:
        """Per log file of ``run``: its writer, its progress trace and its lowest step, what
        the job page is built from (see :mod:`visualdl.server._views.jobs`)."""
        reader, local = self.resolve(run)
        return reader.file_progress(local)

    def read_job_wrong(self, *, run: str, tag: str | None = None) -> tuple[list[FirstNonfinite], list[Divergence]]:
        """The first non-finite value of each tag of ``run`` (or ``tag``), and where the ranks of
        its replicated tags part (``Settings.replicated_tags`` names more): see
        :mod:`visualdl._index.wrong`."""
        reader, local = self.resolve(run)
        pattern = compile_pattern(self.settings.replicated_tags) if self.settings.replicated_tags else None
        named = (lambda name: pattern.search(name) is not None) if pattern is not None else None
        return reader.first_nonfinite(local, tag=tag), reader.divergence(local, replicated=named, tag=tag)

    def list_system(self, *, run: str) -> tuple[system.SystemMetricInfo, ...]:
        """The system metrics ``run`` records, each once (see :mod:`visualdl.server._system`)."""
        reader, local = self.resolve(run)
        return system.list_system(reader, local)

    def read_system_metric(self, *, run: str, scope: str, name: str) -> list[Member]:
        """Every writer's series of one system metric of ``run`` (empty: not recorded)."""
        reader, local = self.resolve(run)
        return reader.system_members(local, scope, name)

    def read_system_members(self, *, run: str) -> dict[tuple[str, str, str], list[Member]]:
        """Every writer's series of every system metric of ``run``, by ``(scope, name, unit)``."""
        reader, local = self.resolve(run)
        return system.read_system_members(reader, local)

    def read_system(
        self,
        *,
        run: str,
        metrics: tuple[str, ...] = (),
        role: str | None = None,
        rank: int | None = None,
        points: int = 200,
    ) -> tuple[system.SystemBands, ...]:
        """Per system metric of ``run`` (``scope/name``; all when none), its bands over the
        ranks of each role on a grid of ``points`` times, and ``rank``'s own lines."""
        reader, local = self.resolve(run)
        return system.read_system(reader, local, metrics=metrics, role=role, rank=rank, points=points)

    # -- event kinds -----------------------------------------------------------------------

    def events(self, run: str, kind: str, tag: str) -> tuple[Index, list[Any]]:
        """The reader of ``run`` and the events of ``tag`` of ``kind`` there, by step
        (:class:`NotFound` for an unknown run or a tag it does not have)."""
        reader, local = self.resolve(run)
        if not _has_tag(reader, local, kind, tag):
            raise NotFound(f"run {run!r} has no {kind} tag {tag!r}")
        getters: dict[str, Callable[[str, str], list[Any]]] = {
            "images": reader.images,
            "histograms": reader.histograms,
            "text": reader.texts,
            "audio": reader.audio,
            "pr_curves": reader.pr_curves,
            "roc_curves": reader.roc_curves,
            "embeddings": reader.embeddings,
        }
        return reader, getters[kind](local, tag)

    def read_events(self, *, run: str, kind: str, tag: str) -> list[Any]:
        """The events of ``tag`` of ``kind`` in ``run``, by step."""
        return self.events(run, kind, tag)[1]

    def read_image(
        self, *, run: str, tag: str, index: int | None = None, step: int | None = None, sample: int | None = None
    ) -> bytes:
        """The PNG of the ``index``-th image of ``tag`` by step, or at ``step`` the ``sample``-th
        of its images (the last one logged there without ``sample``)."""
        reader, event, index = self._image(run, tag, index, step, sample)
        try:
            return reader.read_blob(event)
        except (OSError, VisualDLError) as e:
            raise NotFound(f"image {index} of {tag!r} in {run!r} cannot be read: {e}") from e

    def locate_image(
        self, *, run: str, tag: str, index: int | None = None, step: int | None = None, sample: int | None = None
    ) -> tuple[str, int, int]:
        """Where the PNG of :meth:`read_image` lies: ``(path, offset, length)``, its record's
        checksums checked, so the server streams it from the file instead of holding it."""
        reader, event, index = self._image(run, tag, index, step, sample)
        try:
            return reader.open_blob(event)
        except (OSError, VisualDLError) as e:
            raise NotFound(f"image {index} of {tag!r} in {run!r} cannot be read: {e}") from e

    def open_log(self, run: str, path: str) -> BinaryIO:
        """The bytes of a log file of ``run`` by the path its reader gave it (where
        :meth:`locate_image` says a blob lies), from the store of the logdir that listed it."""
        return self.resolve(run)[0].open_log(path)

    def _image(
        self, run: str, tag: str, index: int | None, step: int | None, sample: int | None
    ) -> tuple[Index, ImageEvent, int]:
        reader, events = self.events(run, "images", tag)
        at = pick(events, index, step, "image", f"{tag!r} in {run!r}", sample=sample)
        return reader, events[at], at

    def read_histograms(self, *, run: str, tag: str, max_entries: int) -> tuple[list[HistogramEvent], int]:
        """At most ``max_entries`` histograms of ``tag``, spread evenly over the steps (first and
        last included), and how many there are."""
        events: list[HistogramEvent] = self.read_events(run=run, kind="histograms", tag=tag)
        return [events[i] for i in _evenly(len(events), max_entries)], len(events)

    def read_text(self, *, run: str, tag: str) -> list[TextEvent]:
        return self.read_events(run=run, kind="text", tag=tag)

    def graph(self, *, run: str, name: str) -> tuple[GraphEvent, Callable[[], bytes]]:
        """The newest graph ``name`` of ``run``, and how to read its model bytes: a caller
        that has the model already (by the event's file and offset) reads nothing."""
        reader, local = self.resolve(run)
        event = next((e for e in reader.graphs(local) if e.name == name), None)
        if event is None:
            raise NotFound(f"run {run!r} has no graph {name!r}")

        def read() -> bytes:
            try:
                return reader.read_blob(event)
            except (OSError, VisualDLError) as e:
                raise NotFound(f"graph {name!r} of {run!r} cannot be read: {e}") from e

        return event, read

    def list_graphs(self) -> list[LoggedGraph]:
        out: list[LoggedGraph] = []
        for name, (reader, run) in sorted(self._runs().items()):
            try:
                graphs: list[GraphEvent] = reader.graphs(run)
            except NotFound:
                continue  # removed meanwhile
            out.extend(
                LoggedGraph(name, g.name, g.size, g.wall_time) for g in graphs if servable(g.name, MAX_TAG_LENGTH)
            )
        return out

    # -- health ----------------------------------------------------------------------

    def read_health(self) -> Health:
        """The logdirs, whether each exists, what is wrong in their files and which names
        cannot be served (the poll counters are :attr:`counters`)."""
        problems = []
        for source in self._sources:
            for p in source.reader.problems:
                where = source.name or source.path
                problems.append(ProblemAt(where, _relative(p.path, source.path), p.offset, p.message))
        logdirs = tuple(LogdirState(s.name, s.path, s.reader.exists()) for s in self._sources)
        degraded = tuple(dict.fromkeys(t for s in self._sources for t in s.reader.troubles()))
        return Health(logdirs, tuple(problems), self.list_unservable(), degraded)


def _has_tag(reader: Index, run: str, kind: str, tag: str) -> bool:
    """Whether ``run`` of ``reader`` holds ``tag`` of ``kind`` (an unknown run: :class:`NotFound`)."""
    return tag in reader.tags(run)[kind]


def _downsampled(series: ScalarSeries, max_points: int, x_min: float | None, x_max: float | None) -> Line:
    start, stop = select_range(series.steps, x_min, x_max)
    steps = series.steps[start:stop]
    keep = downsample(steps, series.values[start:stop], max_points)
    return Line(steps[keep], series.values[start:stop][keep], series.wall_times[start:stop][keep], int(steps.size))


def _one_rank(
    reader: Index,
    local: str,
    run: str,
    tag: str,
    rank: int,
    role: str | None,
    total: int,
    max_points: int,
    x_min: float | None,
    x_max: float | None,
) -> RunScalars:
    """The series of one place of a job (``role`` None: the first role having ``rank``,
    trainers first), read from that place's streams alone."""
    roles = sorted({r for r, k in reader.streams(local, tag) if k == rank}, key=lambda r: (r != "trainer", r))
    if role is None and roles:
        role = roles[0]
    if role not in roles:
        have = ", ".join(repr(r) for r in roles) or "none"
        raise NotFound(
            f"run {run!r} has no writer of {tag!r} with role {role!r} and rank {rank}; roles with that rank: {have}"
        )
    line = _downsampled(reader.scalars(local, tag, role=role, rank=rank), max_points, x_min, x_max)
    return RunScalars(run, total, line, (), (RankLine(role, rank, line),))


def role_line(
    role: str, ranks: list[int], job: JobSeries, max_points: int, x_min: float | None, x_max: float | None
) -> RoleLine:
    """One role's mean line, min/max band and quantiles; the points kept are those that keep the
    spikes of every one of these lines (:func:`downsample_lines`). Who holds each extreme and
    each quantile's edge is told by range of steps over the whole step range (:func:`extreme_runs`)."""
    start, stop = select_range(job.steps, x_min, x_max)
    steps = job.steps[start:stop]
    lines = [job.mean[start:stop], job.min[start:stop], job.max[start:stop], *job.quantiles[:, start:stop]]
    keep = downsample_lines(steps, lines, max_points) + start
    mean = Line(job.steps[keep], job.mean[keep], job.wall_times[keep], int(steps.size))
    return RoleLine(
        role,
        ranks,
        mean,
        job.min[keep],
        job.max[keep],
        job.min_rank[keep],
        job.max_rank[keep],
        job.count[keep],
        job.quantiles[:, keep],
        extreme_runs(steps, job.min_rank[start:stop]),
        extreme_runs(steps, job.max_rank[start:stop]),
        job.quantile_rank[:, keep],
        tuple(extreme_runs(steps, held) for held in job.quantile_rank[:, start:stop]),
        job.std[keep],
    )


def pick(
    events: list[Any], index: int | None, step: int | None, noun: str, where: str, *, sample: int | None = None
) -> int:
    """The position of the event asked for: at ``step`` the ``sample``-th of the events
    logged there (the last one without ``sample``), or the ``index``-th by step (0 by
    default); :class:`NotFound` saying there is no such ``noun`` ("image") ``where``
    ("'tag' in 'run'") otherwise."""
    if step is not None:
        at = bisect.bisect_right(events, step, key=lambda e: e.step) - 1
        if at < 0 or events[at].step != step:
            raise NotFound(f"{where} has no {noun} at step {step}")
        if sample is None:
            return at
        first = bisect.bisect_left(events, step, key=lambda e: e.step)
        if not 0 <= sample <= at - first:
            raise NotFound(f"{noun} sample {sample} out of range: {where} has {at - first + 1} at step {step}")
        return first + sample
    index = index or 0
    if not 0 <= index < len(events):
        raise NotFound(f"{noun} index {index} out of range: {where} has {len(events)}")
    return index


def _evenly(n: int, k: int) -> list[int]:
    """``k`` indices spread evenly over ``range(n)``, first and last included."""
    if n <= k:
        return list(range(n))
    if k == 1:
        return [n - 1]
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)})
