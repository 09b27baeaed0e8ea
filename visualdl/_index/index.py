"""The index's queries: :class:`Index`, what the server, the notebook and :class:`LogReader`
ask of a logdir.

``Index(logdir)`` finds every log file under ``logdir`` (a run is a directory holding log
files, named by its path relative to ``logdir``, ``.`` for ``logdir`` itself);
:meth:`Index.poll` (:mod:`visualdl._index.polling`) reads what was added since the last
poll. Every file of a run is read, not just the newest. Scalars come back as numpy arrays
ordered by step. Every format of the table (:mod:`visualdl._formats.table`) is found and
followed the same way, and files of several may sit in one run; each format's decoder
turns its records into the same kinds of data, so nothing after decoding knows which
format a point came from (``WriterInfo.format`` says). What is wrong in the files (and
directories that cannot be listed, and paths that are not regular files) is collected in
:attr:`Index.problems` and never raised.

Besides the queries :class:`~visualdl._logreader.LogReader` offers its users, the
index answers what a server needs by public names: :meth:`Index.generation`,
:meth:`Index.prioritize`, :meth:`Index.exists` and :meth:`Index.file_progress`.
"""

from __future__ import annotations

import operator
import os
import time
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, cast

import numpy as np

from visualdl._index.aggregate import JobSeries, aggregate_points
from visualdl._index.blobs import format_of_path, open_blob, read_gathered
from visualdl._index.downsample import Downsampler, select_range
from visualdl._index.ends import SILENT_AFTER, HostMemory
from visualdl._index.polling import Poller
from visualdl._index.projector import Sprite
from visualdl._index.restarts import Resolved
from visualdl._index.runs import CACHE_BYTES, Run, Stream, stream_of
from visualdl._index.series import ScalarSeries, gather, merge, pieces
from visualdl._index.streams import job_points, resolved
from visualdl._index.system import (
    WriterSystem,
    last_host_memory,
    metric_catalog,
    metric_members,
    writer_systems,
)
from visualdl._index.systembands import Member
from visualdl._index.tail import Problem
from visualdl._index.writers import WriterInfo, writer_infos
from visualdl._index.wrong import Divergence, FirstNonfinite, divergence, first_nonfinite, minority_of
from visualdl._kinds.table import (
    HPARAMS_TAG,
    KINDS,
    SCALAR_LAYOUT_TAG,
    AudioEvent,
    EmbeddingsEvent,
    GraphEvent,
    HistogramEvent,
    HParamsEvent,
    ImageEvent,
    PrCurveEvent,
    RocCurveEvent,
    ScalarLayoutEvent,
    TextEvent,
)
from visualdl._storage import Store, open_store
from visualdl.errors import LogFormatError, NotFound

__all__ = ["CHART_PIECE", "STREAMED_POINTS", "Index", "Stream", "WriterInfo"]

#: Points of a series read back at a time for a chart of it (:meth:`Index.chart_scalars`):
#: 1.5 MiB of them, and a few times that while they are downsampled.
CHART_PIECE = 1 << 16
#: A series longer than this is charted a piece at a time: its view (24 bytes a point),
#: cached twice (resolved, merged), would not fit the index's cache anyway, and would be
#: read back whole at every chart. Shorter ones are charted from their cached view, which
#: answers a zoom in a few milliseconds.
STREAMED_POINTS = CACHE_BYTES // 48


class Index(Poller):
    """The queries over a logdir's index (its reading: :class:`~visualdl._index.polling.Poller`).

    ``Index(store)`` (or ``Index(logdir)``: its store made by
    :func:`~visualdl._storage.open_store`) reads nothing until :meth:`poll` (``load=True``: at once).
    Its scratch file of scalar points goes into ``cache_dir`` (None: the system's temporary
    directory). Thread-safe: one thread may poll while others query.
    """

    def __init__(
        self, logdir: Store | str | os.PathLike[str], *, load: bool = False, cache_dir: str | None = None
    ) -> None:
        super().__init__(logdir if isinstance(logdir, Store) else open_store(logdir), cache_dir=cache_dir)
        if load:
            self.poll()

    def generation(self, *, runs_only: bool = False) -> int:
        """A number that changes whenever the runs, the files, their writers or the tags change
        (not when points are only added): what lists of runs and tags can be cached by.
        ``runs_only``: one that changes only when the runs change."""
        return self._runs_generation if runs_only else self._generation

    def data_version(self) -> tuple[int, int]:
        """A pair that changes whenever anything of any run changes, points included: what a
        view over every run's data (a tag's summary of each run) is cached by."""
        return (self._generation, self._data_changes)

    def run_version(self, run: str) -> tuple[int, int]:
        """A pair that changes whenever anything of ``run`` changes, points included (its files
        read further, a file or sidecar found or forgotten): what a view of the whole run is
        cached by."""
        with self._lock:
            state = self._runs.get(run)
            return (self._generation, state.changes if state is not None else -1)

    def prioritize(self, run: str, timeout: float = 10.0) -> None:
        """Have the running poll read ``run``'s files next, and wait (up to ``timeout``) until
        they are read: a chart of any run answers in moments after the start, not once a
        logdir of 10,000 runs is read. Returns at once between polls."""
        with self._lock:
            state = self._runs.get(run)
        if state is None:
            return
        with self._jobs_lock:
            jobs = self._jobs
            if jobs is None:
                return
            mine = [job for job in jobs if job[0] is state]
            if mine:  # to the front, the others in their order (the workers share this deque)
                others = [job for job in jobs if job[0] is not state]
                jobs.clear()
                jobs.extend(mine)
                jobs.extend(others)
        deadline = time.monotonic() + timeout
        while any(f.busy for f in list(state.files.values())) and time.monotonic() < deadline:
            time.sleep(0.002)  # the poll's threads read them now

    def exists(self) -> bool:
        """Whether the logdir exists (as the latest listing of a store found it: no request)."""
        return self._discovery.exists()

    def _run(self, run: str) -> Run:
        state = self._runs.get(run)
        if state is None:
            raise NotFound(f"unknown run {run!r}; known runs: {sorted(self._runs)!r}")
        return state

    def runs(self) -> list[str]:
        """Runs, sorted by name."""
        with self._lock:
            return sorted(self._runs)

    def tags(self, run: str) -> dict[str, list[str]]:
        """Tags of ``run`` by kind: ``{"scalars": [...], "images": [...], ...}``."""
        with self._lock:
            state = self._run(run)
            out: dict[str, list[str]] = {name: [] for name in KINDS}
            for (kind, tag), per_file in state.data.items():
                if any(len(store) for store in per_file.values()):
                    out[kind].append(tag)
            for tags in out.values():
                tags.sort()
            return out

    def _cached(self, run: str, kind: str, tag: str) -> tuple[Run, dict[str, Any] | None, Any]:
        state = self._run(run)
        per_file = state.data.get((kind, tag))
        if per_file is None:
            raise NotFound(f"run {run!r} has no {kind} tag {tag!r}")
        hit = state.cache.get((kind, tag))
        if hit is not None and hit[0] == state.versions.get((kind, tag), 0):
            return state, None, hit[1]
        return state, per_file, None

    def _resolved(self, run: str, tag: str) -> dict[Stream, Resolved]:
        """Every stream's points of ``tag``, restarts resolved (see :mod:`visualdl._index.restarts`)."""
        state, per_file, hit = self._cached(run, "scalars", tag)
        if per_file is None:
            return cast("dict[Stream, Resolved]", hit)
        result = resolved(state, per_file)
        state.cache[("scalars", tag)] = (state.versions.get(("scalars", tag), 0), result)
        return result

    def streams(self, run: str, tag: str | None = None) -> list[Stream]:
        """The ``(role, rank)`` places of ``run``'s writers (of ``tag``'s writers when given); rank -1: unranked."""
        with self._lock:
            if tag is not None:
                return [key for key, r in self._resolved(run, tag).items() if len(r.kept)]
            return sorted({stream_of(f.header) for f in self._run(run).files.values() if f.header is not None})

    def scalars(
        self, run: str, tag: str, *, role: str | None = None, rank: int | None = None, replaced: bool = False
    ) -> ScalarSeries:
        """Steps, values and wall times of ``tag`` in ``run`` (read-only numpy arrays) by step.

        All writers' points, merged by step; ``role`` and ``rank`` keep those of one
        place of a job. A process restarted from a checkpoint replaces its earlier
        attempt's points from its first step on (:mod:`visualdl._index.restarts`);
        ``replaced=True`` returns those replaced points instead.
        """
        with self._lock:
            resolved = self._resolved(run, tag)
            unfiltered = role is None and rank is None and not replaced
            if unfiltered:
                state = self._run(run)
                version = state.versions.get(("scalars", tag), 0)
                hit = state.cache.get(("merged", tag))
                if hit is not None and hit[0] == version:
                    return cast(ScalarSeries, hit[1])
            parts = [
                r.replaced if replaced else r.kept
                for (r_role, r_rank), r in resolved.items()
                if (role is None or r_role == role) and (rank is None or r_rank == rank)
            ]
            if not parts and (role is not None or rank is not None):
                raise NotFound(f"run {run!r} has no writer of {tag!r} with role {role!r} and rank {rank!r}")
            merged = merge(parts)
            if unfiltered:
                state.cache[("merged", tag)] = (version, merged)
            return merged

    def runs_points(self, runs: list[str], tag: str) -> tuple[ScalarSeries, np.ndarray, np.ndarray]:
        """Each of ``runs``' points of ``tag`` (as :meth:`scalars` gives them: all writers,
        restarts resolved), laid end to end: the points, how many each run has, and which
        run (its position in ``runs``) each length is of. A run of one file is read in the
        same gather as the others (:func:`visualdl._index.series.gather`); an unknown run or
        one without the tag has no points."""
        with self._lock:
            single: list[tuple[int, Any]] = []
            several: list[tuple[int, ScalarSeries]] = []
            for i, run in enumerate(runs):
                state = self._runs.get(run)
                per_file = state.data.get(("scalars", tag)) if state is not None else None
                if not per_file:
                    continue
                if len(per_file) == 1 and not state.starts:  # type: ignore[union-attr]
                    single.append((i, next(iter(per_file.values()))))
                else:
                    several.append((i, self.scalars(run, tag)))
            points, lengths = gather([s for _, s in single], [s for _, s in several])
        which = np.fromiter((i for i, _ in (*single, *several)), np.int64, len(single) + len(several))
        return points, lengths, which

    def chart_scalars(
        self, run: str, tag: str, *, max_points: int, x_min: float | None = None, x_max: float | None = None
    ) -> tuple[ScalarSeries, int] | None:
        """The points of ``tag`` in ``run`` that :func:`~visualdl._index.downsample.downsample`
        keeps of the step range, and how many the range holds, read back from the scratch
        file a piece of :data:`CHART_PIECE` points at a time: a chart of a series of 100M
        points holds a piece, not the series. None when the tag is not one file's series
        of more than :data:`STREAMED_POINTS` points in step order, with no session restarts
        (then :meth:`scalars` gives what to downsample)."""
        with self._lock:
            state = self._run(run)
            per_file = state.data.get(("scalars", tag))
            if per_file is None:
                raise NotFound(f"run {run!r} has no scalars tag {tag!r}")
            if len(per_file) != 1 or state.starts:
                return None
            (series,) = per_file.values()
            source = series.spilled_chunks() if len(series) > STREAMED_POINTS else None
        if source is None:
            return None
        spill, chunks = source
        n = 0
        for steps, _, _ in pieces(spill, chunks, CHART_PIECE, steps_only=True):
            start, stop = select_range(steps, x_min, x_max)
            n += stop - start
        kept = Downsampler(n, max_points)
        for steps, values, walls in pieces(spill, chunks, CHART_PIECE):
            start, stop = select_range(steps, x_min, x_max)
            kept.add(steps[start:stop], values[start:stop], walls[start:stop])
        return ScalarSeries(*kept.result()), n

    def job_scalars(self, run: str, tag: str) -> dict[str, tuple[list[int], JobSeries]]:
        """``tag`` over the ranks of ``run``'s job, per role: ``{role: (ranks, JobSeries)}``.

        Only ranked writers count (unranked ones are not part of a job view).
        """
        with self._lock:
            state = self._run(run)
            version = state.versions.get(("scalars", tag), 0)
            hit = state.cache.get(("job", tag))
            if hit is not None and hit[0] == version:
                return cast("dict[str, tuple[list[int], JobSeries]]", hit[1])
            per_file = state.data.get(("scalars", tag))
            if per_file is None:
                raise NotFound(f"run {run!r} has no scalars tag {tag!r}")
            by_role = job_points(state, per_file)
        out = {}
        for role, laid in by_role.items():
            points = laid.points
            job = aggregate_points(points.steps, points.values, points.wall_times, laid.lengths, laid.ranks)
            out[role] = (sorted(laid.ranks.tolist()), job)
        with self._lock:
            if state.versions.get(("scalars", tag), 0) == version:
                state.cache[("job", tag)] = (version, out)
        return out

    def first_nonfinite(self, run: str, *, tag: str | None = None) -> list[FirstNonfinite]:
        """Per scalar tag of ``run`` (or ``tag``), its first non-finite value (:mod:`visualdl._index.wrong`)."""
        with self._lock:
            return first_nonfinite(self._run(run), tag)

    def divergence(
        self, run: str, *, replicated: Callable[[str], bool] | None = None, tag: str | None = None
    ) -> list[Divergence]:
        """Per role and replicated tag of ``run`` (or ``tag``), the first step its ranks disagree
        at (:mod:`visualdl._index.wrong`); ``replicated(tag)`` names more replicated tags."""
        with self._lock:
            return divergence(
                self._run(run),
                replicated=replicated,
                minority=lambda role, name, step, value: minority_of(self._resolved(run, name), role, step, value),
                tag=tag,
            )

    def _events(self, run: str, kind: str, tag: str) -> list[Any]:
        with self._lock:
            state, per_file, hit = self._cached(run, kind, tag)
            if per_file is None:
                return list(hit)
            events = [event for path in sorted(per_file) for event in per_file[path]]
            events.sort(key=operator.attrgetter(KINDS[kind].order))
            state.cache[(kind, tag)] = (state.versions.get((kind, tag), 0), events)
            return list(events)

    def version(self, run: str, kind: str, tag: str) -> tuple[int, int]:
        """A value that changes whenever the data of ``tag`` of ``kind`` in ``run`` changes."""
        with self._lock:
            state = self._run(run)
            return id(state), state.versions.get((kind, tag), 0)

    def count(self, run: str, kind: str, tag: str) -> int:
        """How many points or entries ``tag`` of ``kind`` has in ``run``."""
        with self._lock:
            per_file = self._run(run).data.get((kind, tag))
            if per_file is None:
                raise NotFound(f"run {run!r} has no {kind} tag {tag!r}")
            return sum(len(store) for store in per_file.values())

    def images(self, run: str, tag: str) -> list[ImageEvent]:
        """Every image of ``tag`` by step; :meth:`read_blob` gives an event's PNG bytes."""
        return self._events(run, "images", tag)

    def histograms(self, run: str, tag: str) -> list[HistogramEvent]:
        return self._events(run, "histograms", tag)

    def texts(self, run: str, tag: str) -> list[TextEvent]:
        return self._events(run, "text", tag)

    def audio(self, run: str, tag: str) -> list[AudioEvent]:
        """Every clip of ``tag`` by step; :meth:`read_blob` gives an event's WAV bytes."""
        return self._events(run, "audio", tag)

    def pr_curves(self, run: str, tag: str) -> list[PrCurveEvent]:
        return self._events(run, "pr_curves", tag)

    def roc_curves(self, run: str, tag: str) -> list[RocCurveEvent]:
        return self._events(run, "roc_curves", tag)

    def hparams(self, run: str) -> HParamsEvent | None:
        """The newest hyperparameters of ``run``; None when it has none."""
        if HPARAMS_TAG not in self.tags(run)["hparams"]:
            return None
        newest: HParamsEvent = self._events(run, "hparams", HPARAMS_TAG)[-1]
        return newest

    def newest_hparams(self, runs: list[str]) -> dict[str, HParamsEvent]:
        """:meth:`hparams` of each of ``runs`` that has any (unknown runs left out), in one pass
        under the lock: a table of 30,000 runs costs no cached list per run."""
        order = operator.attrgetter(KINDS["hparams"].order)
        out = {}
        with self._lock:
            for run in runs:
                state = self._runs.get(run)
                per_file = state.data.get(("hparams", HPARAMS_TAG)) if state is not None else None
                if per_file:
                    # the last of the newest order, files in name order: what hparams() gives
                    events = [event for path in sorted(per_file) for event in per_file[path]]
                    if events:
                        out[run] = max(reversed(events), key=order)
        return out

    def scalar_layout(self, run: str) -> ScalarLayoutEvent | None:
        """The newest custom scalar layout of ``run`` (charts of several tags); None when it has none."""
        if SCALAR_LAYOUT_TAG not in self.tags(run)["scalar_layouts"]:
            return None
        newest: ScalarLayoutEvent = self._events(run, "scalar_layouts", SCALAR_LAYOUT_TAG)[-1]
        return newest

    def embeddings(self, run: str, tag: str) -> list[EmbeddingsEvent]:
        """Every embedding of ``tag`` by step; :meth:`read_blob` gives an event's vectors."""
        return self._events(run, "embeddings", tag)

    def embedding_sprite(self, event: EmbeddingsEvent) -> tuple[Sprite, Callable[[], bytes]] | None:
        """The label images of an embeddings entry of TensorBoard's projector files (their
        sprite and a reader of its bytes; :mod:`visualdl._index.projector`); None when it has none."""
        sprite = self._projectors.sprite(event.ref) if self._projectors.owns(event.ref) else None
        if sprite is None:
            return None
        return sprite, lambda: self._projectors.read_sprite(sprite)

    def graphs(self, run: str) -> list[GraphEvent]:
        """The newest graph of each name in ``run``; :meth:`read_blob` gives its ONNX bytes."""
        with self._lock:
            names = self.tags(run)["graphs"]
        return [self._events(run, "graphs", name)[-1] for name in names]

    def read_blob(self, event: ImageEvent | GraphEvent | AudioEvent | EmbeddingsEvent) -> bytes:
        """The PNG bytes of an image event, the model bytes of a graph event, the WAV bytes
        of an audio event, the vectors of an embeddings event (float32, row after row)."""
        if isinstance(event, EmbeddingsEvent) and self._projectors.owns(event.ref):
            return self._projectors.vectors(event).astype("<f4", copy=False).tobytes()
        fmt = format_of_path(event.ref.path)
        if fmt.scattered(event):
            return read_gathered(self.store, fmt, cast(EmbeddingsEvent, event))
        path, offset, length = self.open_blob(event)
        f = self.store.open(path)
        with f:
            f.seek(offset)
            data = f.read(length)
        if len(data) != length:
            raise LogFormatError("record is gone (file truncated)", event.ref.path, event.ref.offset)
        return data

    def open_blob(self, event: ImageEvent | GraphEvent | AudioEvent | EmbeddingsEvent) -> tuple[str, int, int]:
        """Where the blob of ``event`` lies, its record checked: ``(path, offset, length)``
        (:func:`visualdl._index.blobs.open_blob`), for a caller that streams it from
        :meth:`open_log` instead of holding it (:meth:`read_blob`)."""
        return open_blob(self.store, event)

    def open_log(self, path: str) -> BinaryIO:
        """The bytes of a log file of this logdir, by the path the index gave it (a
        writer's segments read as one file); ``OSError`` when it cannot be read."""
        return self.store.open(path)

    def writers(self, run: str, *, now: float | None = None, silent_after: float = SILENT_AFTER) -> list[WriterInfo]:
        """One entry per log file of ``run``: who wrote it, whether it was closed cleanly, and
        how its process ended (:func:`visualdl._index.ends.infer_end`, at ``now``: by default
        the time of the call); see :func:`visualdl._index.writers.writer_infos`."""
        now = time.time() if now is None else now
        with self._lock:
            return writer_infos(self._run(run), self._sidecars, now=now, silent_after=silent_after)

    def progress(self, run: str) -> list[tuple[WriterInfo, np.ndarray, np.ndarray, int]]:
        """Per file of ``run``: its writer, then wall times and the highest step reached by then
        (one entry per scalar record written, and first one for the file's first point when
        its first record holds later ones too), and the number of scalar points."""
        return [(info, walls, steps, points) for info, walls, steps, points, _ in self.file_progress(run)]

    def file_progress(self, run: str) -> list[tuple[WriterInfo, np.ndarray, np.ndarray, int, int | None]]:
        """:meth:`progress` and, last, the lowest step each file logged (None: no scalars)."""
        infos = self.writers(run)
        with self._lock:
            progress = self._run(run).progress
            out: list[tuple[WriterInfo, np.ndarray, np.ndarray, int, int | None]] = []
            for info in infos:
                p = progress.get(info.path)
                if p is None:
                    out.append((info, np.empty(0), np.empty(0, np.int64), 0, None))
                else:
                    out.append((info, np.array(p.walls), np.array(p.steps, np.int64), p.points, p.first))
            return out

    def system_metrics(self, run: str) -> list[WriterSystem]:
        """Per writer file of ``run`` with system samples: its metrics (see :mod:`._index.system`)."""
        with self._lock:
            state = self._run(run)
            return writer_systems(state.files, state.system)

    def system_catalog(self, run: str) -> dict[tuple[str, str, str], int]:
        """The system metrics of ``run``: ``(scope, name, unit) -> writer files recording it``."""
        with self._lock:
            state = self._run(run)
            return metric_catalog(state.files, state.system)

    def system_members(self, run: str, scope: str, name: str) -> list[Member]:
        """Every series of one system metric in ``run`` (one per writer file, and GPU)."""
        with self._lock:
            state = self._run(run)
            return metric_members(state.files, state.system, scope, name)

    def last_host_memory(self, run: str, path: str) -> HostMemory | None:
        """The last sample of the host's memory in the writer file ``path`` of ``run`` (None: none)."""
        with self._lock:
            return last_host_memory(self._run(run).system.get(path))

    @property
    def problems(self) -> list[Problem]:
        """Everything found wrong in the files so far (corrupt records, unreadable files), then
        what is wrong in the logdir now (directories that cannot be listed, log file names
        that are not regular files)."""
        with self._lock:
            found = [p for state in self._runs.values() for f in state.files.values() for p in f.problems]
            return (
                found
                + list(self._discovery.problems.values())
                + list(self._sidecars.problems.values())
                + list(self._projectors.problems)
            )

    def __iter__(self) -> Iterator[str]:
        return iter(self.runs())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.logdir!r}, runs={len(self._runs)})"

    #: The names the server used before they were public.
    _await_run = prioritize
    _exists = exists
    _progress = file_progress
