"""The data provider: LogReaders over the logdirs, kept fresh by a background thread.

The serving side sees only this interface (keyword-only ``list_*``/``read_*`` calls
returning plain values) and the errors of :mod:`visualdl.errors` (:class:`NotFound`
for an unknown run, tag or entry); no flask here. Downsampled series are cached by
(run, tag, data version, range, budget).
"""

from __future__ import annotations

import bisect
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, cast

import numpy as np

from visualdl._formats.vdlog.logformat import MAX_TAG_LENGTH
from visualdl._index.aggregate import JobSeries
from visualdl._index.downsample import PICKS_PER_BUCKET, downsample, select_range
from visualdl._index.reader import LogReader, ScalarSeries, WriterInfo, _nbytes
from visualdl._kinds.table import KINDS, GraphEvent, HistogramEvent, ImageEvent, TextEvent
from visualdl._storage import is_url, open_store
from visualdl.errors import NotFound, VisualDLError
from visualdl.server._settings import Settings
from visualdl.server._views.distribution import percentile_bands
from visualdl.server._views.jobs import job_overview

__all__ = ["MAX_RUN_LENGTH", "MAX_TAG_LENGTH", "DataProvider", "servable"]

log = logging.getLogger("visualdl.server")

#: Points of all per-rank lines of one chart together, at most (each rank gets a share).
PER_RANK_POINTS = 200_000
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
    reader: LogReader


def _relative(path: str, logdir: str) -> str:
    """``path`` (a file's path or URL) relative to ``logdir``."""
    if is_url(logdir):
        return path[len(logdir.rstrip("/")) + 1 :] if path.startswith(logdir.rstrip("/") + "/") else path
    return os.path.relpath(path, logdir)


#: Bytes of downsampled chart answers kept (at most 256 of them), the oldest dropped first.
CHART_CACHE_BYTES = 64 << 20


class DataProvider:
    """What the HTTP layer reads from: runs, tags and data of all logdirs."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._sources = [
            _Source(name, open_store(path).location, LogReader(path, load=False)) for name, path in settings.logdirs
        ]
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple[Any, ...], tuple[dict[str, Any], int]] = OrderedDict()
        self._cache_limit = 256
        self._cache_bytes_limit = CHART_CACHE_BYTES
        self._cache_bytes = 0
        self._lists: dict[str, tuple[tuple[int, ...], Any, float]] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.loaded = threading.Event()  # set after the first full poll
        self.polls = 0
        self.last_poll_seconds = 0.0
        self.last_poll_time = 0.0
        self.files_total = 0
        self.files_read = 0
        self.bytes_read = 0

    # -- lifetime ------------------------------------------------------------------

    def start(self) -> None:
        """Index in the background: the first poll, then one every ``reload_interval``."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="visualdl-reload", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.poll()
                self.list_kinds()  # the lists of runs and tags built here, not in a request
            except Exception:  # boundary: the reload thread must go on
                log.exception("reloading the logdirs failed")
            self._stop.wait(self.settings.reload_interval)

    def poll(self) -> None:
        """Read what was added to every logdir since the last poll."""
        start = time.perf_counter()
        for source in self._sources:
            source.reader.poll(progress=self._progress)
        self.polls += 1
        self.last_poll_seconds = time.perf_counter() - start
        self.last_poll_time = time.time()
        self.loaded.set()

    def _progress(self, done: int, total: int, nbytes: int) -> None:
        self.files_read, self.files_total = done, total
        self.bytes_read += nbytes

    # -- runs and tags ---------------------------------------------------------------

    def _qualified(self, source: _Source, run: str) -> str:
        if not source.name:
            return run
        return source.name if run == "." else f"{source.name}/{run}"

    def _generation(self, runs_only: bool = False) -> tuple[int, ...]:
        """Changes whenever any logdir's runs, files, writers or tags change (``runs_only``:
        whenever its runs change)."""
        if runs_only:
            return tuple(source.reader._runs_generation for source in self._sources)
        return tuple(source.reader._generation for source in self._sources)

    def _listed(self, what: str, build: Callable[[], Any], *, runs_only: bool = False, max_age: float = 0.0) -> Any:
        """``build()``, cached until the next change of runs, files, writers or tags: a list of
        10,000 runs is built once, not at every request. ``max_age``: a stale value this young
        will do (while a first read changes the logdir at every file)."""
        generation = self._generation(runs_only)
        now = time.monotonic()
        with self._lock:
            hit = self._lists.get(what)
            if hit is not None and (hit[0] == generation or now - hit[2] < max_age):
                return hit[1]
        value = build()
        with self._lock:
            self._lists[what] = (generation, value, now)
        return value

    def _runs(self) -> dict[str, tuple[LogReader, str]]:
        """The runs by the names the API lists and takes (see :meth:`not_served` for the others)."""
        return cast("dict[str, tuple[LogReader, str]]", self._listed("runs", self._build_runs, runs_only=True))

    def _build_runs(self) -> dict[str, tuple[LogReader, str]]:
        out = {}
        for source in self._sources:
            for run in source.reader.runs():
                name = self._qualified(source, run)
                if servable(name, MAX_RUN_LENGTH):
                    out[name] = (source.reader, run)
        return out

    def run_names(self) -> set[str]:
        return set(self._runs())

    def _resolve(self, run: str) -> tuple[LogReader, str]:
        found = self._runs().get(run)
        if found is None:
            raise NotFound(f"unknown run {run!r}")
        found[0]._await_run(found[1])  # still being read for the first time: read it next
        return found

    def list_runs(self) -> list[dict[str, Any]]:
        return cast("list[dict[str, Any]]", self._listed("list_runs", self._build_list_runs))

    def _build_list_runs(self) -> list[dict[str, Any]]:
        out = []
        for name, (reader, run) in sorted(self._runs().items()):
            try:
                writers = reader.writers(run)
            except NotFound:
                continue  # removed meanwhile
            out.append(
                {
                    "name": name,
                    "files": len(writers),
                    "closed": all(w.closed for w in writers),
                    "start_time": min((w.start_time for w in writers), default=None),
                    "writers": [_writer_json(w) for w in writers],
                }
            )
        return out

    def list_tags(self, *, runs: list[str] | None = None) -> dict[str, dict[str, list[str]]]:
        """``{kind: {tag: [runs having it]}}``, every kind present (with no tags: ``{}``).

        The transpose of :meth:`LogReader.tags` (``{kind: [tags]}`` of one run) over
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
        self, known: dict[str, tuple[LogReader, str]], wanted: set[str] | None
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

    def list_kinds(self) -> list[dict[str, Any]]:
        """What the web UI offers a tab for: every record kind of the kinds table, in its order,
        with how many tags (distinct names over all runs) and runs hold it, and the ``jobs`` view
        (runs of two or more ranked writers), before ``graphs`` as the UI has always shown it."""
        return cast("list[dict[str, Any]]", self._listed("kinds", self._build_kinds))

    def _build_kinds(self) -> list[dict[str, Any]]:
        tags = self.list_tags()
        out: list[dict[str, Any]] = []
        for name in KINDS:
            by_tag = tags.get(name, {})
            runs = {run for names in by_tag.values() for run in names}
            title = _TITLES.get(name, name.capitalize())
            count = len(by_tag) + (len(self.settings.models) if name == "graphs" else 0)  # --model files too
            kind = {"name": name, "title": title, "record": True, "tags": count, "runs": len(runs)}
            out.append(kind)
        jobs = 0
        for run in self.list_runs():
            places = {(w["role"], w["rank"]) for w in run["writers"] if w["rank"] >= 0}
            jobs += len(places) >= 2
        at = next((i for i, kind in enumerate(out) if kind["name"] == "graphs"), len(out))
        out.insert(at, {"name": "jobs", "title": "Jobs", "record": False, "tags": 0, "runs": jobs})
        return out

    def not_served(self) -> list[dict[str, Any]]:
        """Runs, tags and graphs in the logs that the API cannot take as parameters (older or
        foreign writers: names too long, empty, or with NUL), so it does not list them."""
        # Diagnostics in /api/health, which the UI polls: up to 2 s late, built at most that often.
        return cast("list[dict[str, Any]]", self._listed("not_served", self._build_not_served, max_age=2.0))

    def _build_not_served(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []

        def add(what: str, name: str, run: str, limit: int) -> None:
            shown = name if len(name) <= 80 else name[:80] + "…"
            rule = f"{what} names must be 1 to {limit} characters without NUL; this one is not served"
            out.append({"kind": what, "name": shown, "run": run[:200], "length": len(name), "message": rule})

        for source in self._sources:
            for run in source.reader.runs():
                name = self._qualified(source, run)
                if not servable(name, MAX_RUN_LENGTH):
                    add("run", name, name, MAX_RUN_LENGTH)
                    continue
                try:
                    tags = source.reader.tags(run)
                except NotFound:
                    continue  # removed meanwhile
                for kind, names in tags.items():
                    for tag in names:
                        if not servable(tag, MAX_TAG_LENGTH):
                            add("tag" if kind != "graphs" else "graph", tag, name, MAX_TAG_LENGTH)
        return out

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
    ) -> dict[str, Any]:
        """One run's series of ``tag`` in the step range, at most ``max_points`` points.

        For a job (a run with two or more ranked writers of ``tag``), ``job`` holds per
        role the mean over ranks with its min/max band and the rank at each extreme, and
        the top-level arrays are the first role's mean (trainers first); with
        ``ranks="each"``, ``per_rank`` also holds every rank's own series.
        """
        reader, local = self._resolve(run)
        if not _has_tag(reader, local, "scalars", tag):
            raise NotFound(f"run {run!r} has no scalar tag {tag!r}")
        version = reader.version(local, "scalars", tag)
        key = (run, tag, version, max_points, x_min, x_max, ranks)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit[0]
        jobs = reader.job_scalars(local, tag)
        total = reader.count(local, "scalars", tag)
        if sum(len(r) for r, _ in jobs.values()) < 2:
            result = _downsampled(reader.scalars(local, tag), max_points, x_min, x_max)
        else:
            roles = sorted(jobs, key=lambda r: (r != "trainer", r))
            entries = [_job_json(role, *jobs[role], max_points, x_min, x_max) for role in roles]
            first = entries[0]
            result = {k: first[k] for k in ("steps", "values", "wall_times", "nonfinite", "range_points")}
            result["job"] = entries
            if ranks == "each":
                places = [(role, rank) for role in roles for rank in jobs[role][0]]
                budget = max(PICKS_PER_BUCKET * 5, min(max_points, PER_RANK_POINTS // len(places)))
                result["per_rank"] = [
                    {
                        "role": role,
                        "rank": rank,
                        **_downsampled(reader.scalars(local, tag, role=role, rank=rank), budget, x_min, x_max),
                    }
                    for role, rank in places
                ]
        result.update(run=run, total_points=total)
        size = _nbytes(result)
        with self._lock:
            old = self._cache.pop(key, None)
            self._cache_bytes += size - (old[1] if old is not None else 0)
            self._cache[key] = (result, size)
            while len(self._cache) > self._cache_limit or self._cache_bytes > self._cache_bytes_limit:
                self._cache_bytes -= self._cache.popitem(last=False)[1][1]
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
    ) -> dict[str, Any]:
        """:meth:`read_scalars` of each of ``runs``; a known run without ``tag`` is listed in
        ``missing`` (the chart shows the others), an unknown one is :class:`NotFound`."""
        series = []
        missing = []
        for run in runs:
            reader, local = self._resolve(run)
            if not _has_tag(reader, local, "scalars", tag):
                missing.append(run)
                continue
            series.append(
                self.read_scalars(run=run, tag=tag, max_points=max_points, x_min=x_min, x_max=x_max, ranks=ranks)
            )
        return {"tag": tag, "max_points": max_points, "runs": series, "missing": missing}

    def read_job(self, *, run: str) -> dict[str, Any]:
        """The job page of ``run`` (see :mod:`visualdl.server._views.jobs`)."""
        reader, local = self._resolve(run)
        progress = reader._progress(local)  # with each file's lowest step
        return {"run": run, **job_overview(progress, now=time.time())}

    # -- images, histograms, text, graphs ----------------------------------------------------

    def events(self, run: str, kind: str, tag: str) -> tuple[LogReader, list[Any]]:
        """The reader of ``run`` and the events of ``tag`` of ``kind`` there, by step
        (:class:`NotFound` for an unknown run or a tag it does not have)."""
        return self._events(run, kind, tag)

    def resolve(self, run: str) -> tuple[LogReader, str]:
        """The reader holding ``run`` and the run's name in it (:class:`NotFound` if unknown)."""
        return self._resolve(run)

    def _events(self, run: str, kind: str, tag: str) -> tuple[LogReader, list[Any]]:
        reader, local = self._resolve(run)
        getters: dict[str, Callable[[str, str], list[Any]]] = {
            "images": reader.images,
            "histograms": reader.histograms,
            "text": reader.texts,
            "audio": reader.audio,
            "pr_curves": reader.pr_curves,
            "roc_curves": reader.roc_curves,
            "embeddings": reader.embeddings,
        }
        if not _has_tag(reader, local, kind, tag):
            raise NotFound(f"run {run!r} has no {kind} tag {tag!r}")
        return reader, getters[kind](local, tag)

    def list_images(self, *, run: str, tag: str) -> dict[str, Any]:
        _, events = self._events(run, "images", tag)
        return {
            "run": run,
            "tag": tag,
            "steps": [e.step for e in events],
            "wall_times": [e.wall_time for e in events],
            "widths": [e.width for e in events],
            "heights": [e.height for e in events],
        }

    def read_image(self, *, run: str, tag: str, index: int | None = None, step: int | None = None) -> bytes:
        """The PNG of the ``index``-th image of ``tag`` by step, or of the last one logged at ``step``."""
        reader, event, index = self._image(run, tag, index, step)
        try:
            return reader.read_blob(event)
        except (OSError, VisualDLError) as e:
            raise NotFound(f"image {index} of {tag!r} in {run!r} cannot be read: {e}") from e

    def locate_image(
        self, *, run: str, tag: str, index: int | None = None, step: int | None = None
    ) -> tuple[str, int, int]:
        """Where the PNG of :meth:`read_image` lies: ``(path, offset, length)``, its record's
        checksums checked, so the server streams it from the file instead of holding it."""
        reader, event, index = self._image(run, tag, index, step)
        try:
            return reader.open_blob(event)
        except (OSError, VisualDLError) as e:
            raise NotFound(f"image {index} of {tag!r} in {run!r} cannot be read: {e}") from e

    def open_log(self, path: str) -> BinaryIO:
        """The bytes of a log file by the path a reader gave it (where :meth:`locate_image`
        says a blob lies), from the store of the logdir that listed it."""
        errors = []
        for source in self._sources:
            try:
                return source.reader.open_log(path)
            except OSError as e:  # not this logdir's file
                errors.append(str(e))
        raise OSError(f"{path}: cannot be read from any logdir ({'; '.join(errors)})")

    def _image(self, run: str, tag: str, index: int | None, step: int | None) -> tuple[LogReader, ImageEvent, int]:
        reader, events = self._events(run, "images", tag)
        at = pick(events, index, step, "image", f"{tag!r} in {run!r}")
        return reader, events[at], at

    def read_histograms(self, *, run: str, tag: str, max_entries: int) -> dict[str, Any]:
        _, events = self._events(run, "histograms", tag)
        chosen = _evenly(len(events), max_entries)
        return {
            "run": run,
            "tag": tag,
            "total_entries": len(events),
            "entries": [_histogram_json(events[i]) for i in chosen],
        }

    def read_distribution(self, *, run: str, tag: str) -> dict[str, Any]:
        _, events = self._events(run, "histograms", tag)
        percentiles, bands = percentile_bands(events)
        return {
            "run": run,
            "tag": tag,
            "steps": [e.step for e in events],
            "wall_times": [e.wall_time for e in events],
            "percentiles": percentiles,
            "bands": [[_finite_or_none(v) for v in row] for row in bands.tolist()],
        }

    def read_text(self, *, run: str, tag: str) -> dict[str, Any]:
        _, events = self._events(run, "text", tag)
        entries: list[TextEvent] = events
        return {
            "run": run,
            "tag": tag,
            "entries": [{"step": e.step, "wall_time": e.wall_time, "text": e.text} for e in entries],
        }

    def graph(self, *, run: str, name: str) -> tuple[GraphEvent, Callable[[], bytes]]:
        """The newest graph ``name`` of ``run``, and how to read its model bytes: a caller
        that has the model already (by the event's file and offset) reads nothing."""
        reader, local = self._resolve(run)
        event = next((e for e in reader.graphs(local) if e.name == name), None)
        if event is None:
            raise NotFound(f"run {run!r} has no graph {name!r}")

        def read() -> bytes:
            try:
                return reader.read_blob(event)
            except (OSError, VisualDLError) as e:
                raise NotFound(f"graph {name!r} of {run!r} cannot be read: {e}") from e

        return event, read

    def list_graphs(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for name, (reader, run) in sorted(self._runs().items()):
            try:
                graphs: list[GraphEvent] = reader.graphs(run)
            except NotFound:
                continue  # removed meanwhile
            out.extend(
                {"run": name, "name": g.name, "size": g.size, "wall_time": g.wall_time}
                for g in graphs
                if servable(g.name, MAX_TAG_LENGTH)
            )
        return out

    # -- health ----------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        problems = []
        for source in self._sources:
            for p in source.reader.problems:
                where = {"logdir": source.name or source.path, "file": _relative(p.path, source.path)}
                problems.append({**where, "offset": p.offset, "message": p.message})
        return {
            "status": "ok" if self.loaded.is_set() else "loading",
            "loaded": self.loaded.is_set(),
            "files_read": self.files_read,
            "files_total": self.files_total,
            "bytes_read": self.bytes_read,
            "polls": self.polls,
            "last_poll_seconds": round(self.last_poll_seconds, 4),
            "last_poll_time": self.last_poll_time or None,
            "reload_interval": self.settings.reload_interval,
            "logdirs": [{"name": s.name, "path": s.path, "exists": s.reader._exists()} for s in self._sources],
            "problems": problems,
            "not_served": self.not_served(),
        }


#: The web UI's tab titles of the kinds whose name is no title.
_TITLES = {
    "pr_curves": "PR curves",
    "roc_curves": "ROC curves",
    "hparams": "Hyperparameters",
    "embeddings": "Projector",
    "scalar_layouts": "Custom scalars",
}


def _has_tag(reader: LogReader, run: str, kind: str, tag: str) -> bool:
    """Whether ``run`` of ``reader`` holds ``tag`` of ``kind`` (an unknown run: :class:`NotFound`)."""
    return tag in reader.tags(run)[kind]


def _writer_json(w: WriterInfo) -> dict[str, Any]:
    fields = ("host", "pid", "display_name", "rank", "world_size", "role", "job", "attempt", "closed", "format")
    out = {name: getattr(w, name) for name in fields}
    # What a foreign file holds that no view shows yet, so that nothing vanishes unsaid.
    out["unshown"] = [{"tag": tag, "kind": kind, "count": count} for tag, kind, count in w.unshown]
    return out


def _finite_or_none(value: float) -> float | None:
    return value if np.isfinite(value) else None


def _downsampled(series: ScalarSeries, max_points: int, x_min: float | None, x_max: float | None) -> dict[str, Any]:
    start, stop = select_range(series.steps, x_min, x_max)
    steps = series.steps[start:stop]
    values = series.values[start:stop]
    walls = series.wall_times[start:stop]
    keep = downsample(steps, values, max_points)
    out = _scalar_json(steps[keep], values[keep], walls[keep])
    out["range_points"] = int(steps.size)
    return out


def _job_json(
    role: str, ranks: list[int], job: JobSeries, max_points: int, x_min: float | None, x_max: float | None
) -> dict[str, Any]:
    """One role's mean line and min/max band; the points kept are those that keep the spikes
    of any of the three (each downsampled at a third of the budget, then joined)."""
    start, stop = select_range(job.steps, x_min, x_max)
    steps = job.steps[start:stop]
    if steps.size <= max_points:
        keep = np.arange(start, stop)
    else:
        third = max(PICKS_PER_BUCKET, max_points // 3)
        keep = (
            np.union1d(
                np.union1d(
                    downsample(steps, job.mean[start:stop], third), downsample(steps, job.min[start:stop], third)
                ),
                downsample(steps, job.max[start:stop], third),
            )
            + start
        )
    out = _scalar_json(job.steps[keep], job.mean[keep], job.wall_times[keep])
    lo = _scalar_json(job.steps[keep], job.min[keep], job.wall_times[keep])
    hi = _scalar_json(job.steps[keep], job.max[keep], job.wall_times[keep])
    out.update(
        role=role,
        ranks=ranks,
        min=lo["values"],
        min_nonfinite=lo["nonfinite"],
        max=hi["values"],
        max_nonfinite=hi["nonfinite"],
        min_rank=job.min_rank[keep].tolist(),
        max_rank=job.max_rank[keep].tolist(),
        count=job.count[keep].tolist(),
        range_points=int(steps.size),
    )
    return out


def _scalar_json(steps: np.ndarray, values: np.ndarray, walls: np.ndarray) -> dict[str, Any]:
    """The arrays for JSON (numpy, serialized natively); non-finite values are written as
    null and listed in ``nonfinite`` as ``[index, "nan" | "inf" | "-inf"]``."""
    finite = np.isfinite(values)
    out: dict[str, Any] = {"steps": steps, "values": values, "wall_times": walls, "nonfinite": []}
    if not finite.all():
        bad = np.flatnonzero(~finite)
        out["nonfinite"] = [
            [int(i), "nan" if np.isnan(values[i]) else ("inf" if values[i] > 0 else "-inf")] for i in bad.tolist()
        ]
    return out


def _histogram_json(h: HistogramEvent) -> dict[str, Any]:
    return {
        "step": h.step,
        "wall_time": h.wall_time,
        "edges": h.edges.tolist(),
        "counts": h.counts.tolist(),
        # No finite values (all NaN or infinite): no range, not min = max = 0.
        "min": None if h.finite_range is None else h.finite_range[0],
        "max": None if h.finite_range is None else h.finite_range[1],
        "sum": h.sum,
        "count": h.count,
        "nan_count": h.nan_count,
        "pos_inf_count": h.pos_inf_count,
        "neg_inf_count": h.neg_inf_count,
    }


def pick(events: list[Any], index: int | None, step: int | None, noun: str, where: str) -> int:
    """The position of the event asked for: the last one logged at ``step``, or the
    ``index``-th by step (0 by default); :class:`NotFound` saying there is no such
    ``noun`` ("image") ``where`` ("'tag' in 'run'") otherwise."""
    if step is not None:
        at = bisect.bisect_right(events, step, key=lambda e: e.step) - 1
        if at < 0 or events[at].step != step:
            raise NotFound(f"{where} has no {noun} at step {step}")
        return at
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
