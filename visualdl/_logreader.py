"""LogReader: the one reading API of VisualDL for notebooks and scripts.

``LogReader(logdir)`` reads a logdir at once and follows it as it grows (:meth:`poll`).
It is the public face of :class:`visualdl._index.index.Index`, which it holds, and of the
job analysis (:mod:`visualdl._jobs`: a job's overview, goodput, end timeline and
stragglers, the same values the Jobs page shows): exactly the methods users call (pinned
by ``tests/test_public_api.py``), each asking the index or the analysis, so that both can
grow what the server needs without growing the public API. The values it returns are
importable by their public names from :mod:`visualdl.types`. An edge of the package (above
the job analysis): it never imports the server.
"""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Callable, Collection, Iterator

import numpy as np

from visualdl._index.ends import SILENT_AFTER
from visualdl._index.index import Index
from visualdl._index.runtable import IndexRuns, RunsTable, build_table
from visualdl._index.series import CACHE_DIR_ENV
from visualdl._index.systembands import Member
from visualdl._index.writers import running_until
from visualdl._jobs.ends import end_timeline
from visualdl._jobs.goodput import measure_goodput
from visualdl._jobs.overview import job_overview
from visualdl._jobs.stragglers import job_stragglers
from visualdl.types import (
    AudioEvent,
    Divergence,
    EmbeddingsEvent,
    EndTimeline,
    FirstNonfinite,
    Goodput,
    GraphEvent,
    HistogramEvent,
    HostMemory,
    HParamsEvent,
    ImageEvent,
    JobOverview,
    JobSeries,
    PollResult,
    PrCurveEvent,
    Problem,
    RocCurveEvent,
    ScalarLayoutEvent,
    ScalarSeries,
    StragglerReport,
    Stream,
    TextEvent,
    WriterInfo,
    WriterSystem,
)

__all__ = ["LogReader"]


class LogReader:
    """Read a logdir written by LogWriter, and follow it as it grows.

    A logdir that does not exist is a ``FileNotFoundError`` naming it, as in the notebook's
    figures (a mistyped path is not an empty logdir); with ``load=False`` the reader waits
    for it instead, each :meth:`poll` looking again.

    Scalar points are kept in a scratch file (created unlinked: nothing is left behind) in
    ``cache_dir``; by default in ``$VISUALDL_CACHE_DIR``, else the system's temporary
    directory, as the server's ``Settings.cache_dir``.

    Thread-safe: one thread may poll while others query.
    """

    def __init__(
        self, logdir: str | os.PathLike[str], *, load: bool = True, cache_dir: str | os.PathLike[str] | None = None
    ) -> None:
        # runs(where=...): built once per generation, and again once a running writer falls silent
        self._table: tuple[int, RunsTable, float] | None = None
        directory = os.environ.get(CACHE_DIR_ENV) if cache_dir is None else os.fspath(cache_dir)
        self._index = Index(logdir, load=load, cache_dir=directory)
        if load and not self._index.exists():
            raise FileNotFoundError(f"logdir {os.fspath(logdir)!r} does not exist")

    def runs(self, *, where: str | None = None) -> list[str]:
        """Runs, sorted by name; ``where``: those a query selects, e.g. ``'lr < 0.3 and opt == "adam"
        and eval/loss.min < 0.1 and name ~ "seed1\\d+"'`` (over hparams, the runs table's columns:
        status, host, start_time, end_time, duration, writers, attempts; and a tag's last, min
        and max; see :mod:`visualdl._index.runquery`). A query that cannot be parsed, or names
        a field no run has, raises :class:`~visualdl._index.runquery.QueryError` saying where. A
        costly query waits for its turn (two at once in a process), never told busy as a server's is."""
        index = self._index
        names = index.runs()
        if where is None:
            return names
        generation = index.generation()
        if self._table is None or self._table[0] != generation or time.time() >= self._table[2]:
            source = _Watched(index)
            self._table = (generation, build_table(source, names, now=source.now), source.until)
        return sorted(self._table[1].select(where, patient=True))  # a script waits its turn, never told busy

    def tags(self, run: str) -> dict[str, list[str]]:
        """Tags of ``run`` by kind: ``{"scalars": [...], "images": [...], ...}``."""
        return self._index.tags(run)

    def streams(self, run: str, tag: str | None = None) -> list[Stream]:
        """The ``(role, rank)`` places of ``run``'s writers (of ``tag``'s writers when given); rank -1: unranked."""
        return self._index.streams(run, tag)

    def scalars(
        self, run: str, tag: str, *, role: str | None = None, rank: int | None = None, replaced: bool = False
    ) -> ScalarSeries:
        """Steps, values and wall times of ``tag`` in ``run`` (read-only numpy arrays) by step.

        All writers' points, merged by step; ``role`` and ``rank`` keep those of one
        place of a job. A process restarted from a checkpoint replaces its earlier
        attempt's points from its first step on (:mod:`visualdl._index.restarts`);
        ``replaced=True`` returns those replaced points instead.
        """
        return self._index.scalars(run, tag, role=role, rank=rank, replaced=replaced)

    def job_scalars(self, run: str, tag: str) -> dict[str, tuple[list[int], JobSeries]]:
        """``tag`` over the ranks of ``run``'s job, per role: ``{role: (ranks, JobSeries)}``.

        Only ranked writers count (unranked ones are not part of a job view).
        """
        return self._index.job_scalars(run, tag)

    def first_nonfinite(self, run: str, *, tag: str | None = None) -> list[FirstNonfinite]:
        """Per scalar tag of ``run`` that holds a NaN or an infinity, the first one: the lowest
        step, then the earliest wall time, with its rank, role and value ("nan", "inf",
        "-inf"); points replaced by a restarted rank do not count. By step; ``tag``: that tag only."""
        return self._index.first_nonfinite(run, tag=tag)

    def divergence(
        self, run: str, *, replicated: Callable[[str], bool] | Collection[str] | None = None, tag: str | None = None
    ) -> list[Divergence]:
        """Per role and replicated tag of ``run`` (declared with ``add_scalar(...,
        replicated=True)``, named in ``replicated`` (tags, or a test of a tag), or found equal
        on every rank on most steps), the first step at which its ranks disagree beyond a
        relative 1e-6, and the ranks outside the majority there. By step; ``tag``: that tag only."""
        if replicated is not None and not callable(replicated):
            names = frozenset(replicated)
            return self._index.divergence(run, replicated=names.__contains__, tag=tag)
        return self._index.divergence(run, replicated=replicated, tag=tag)

    def version(self, run: str, kind: str, tag: str) -> tuple[int, int]:
        """A value that changes whenever the data of ``tag`` of ``kind`` in ``run`` changes."""
        return self._index.version(run, kind, tag)

    def count(self, run: str, kind: str, tag: str) -> int:
        """How many points or entries ``tag`` of ``kind`` has in ``run``."""
        return self._index.count(run, kind, tag)

    def images(self, run: str, tag: str) -> list[ImageEvent]:
        """Every image of ``tag`` by step; :meth:`read_blob` gives an event's PNG bytes."""
        return self._index.images(run, tag)

    def histograms(self, run: str, tag: str) -> list[HistogramEvent]:
        """Every histogram of ``tag`` by step."""
        return self._index.histograms(run, tag)

    def texts(self, run: str, tag: str) -> list[TextEvent]:
        """Every text of ``tag`` by step."""
        return self._index.texts(run, tag)

    def audio(self, run: str, tag: str) -> list[AudioEvent]:
        """Every clip of ``tag`` by step; :meth:`read_blob` gives an event's WAV bytes."""
        return self._index.audio(run, tag)

    def pr_curves(self, run: str, tag: str) -> list[PrCurveEvent]:
        """Every precision-recall curve of ``tag`` by step."""
        return self._index.pr_curves(run, tag)

    def roc_curves(self, run: str, tag: str) -> list[RocCurveEvent]:
        """Every ROC curve of ``tag`` by step."""
        return self._index.roc_curves(run, tag)

    def hparams(self, run: str) -> HParamsEvent | None:
        """The newest hyperparameters of ``run``; None when it has none."""
        return self._index.hparams(run)

    def scalar_layout(self, run: str) -> ScalarLayoutEvent | None:
        """The newest custom scalar layout of ``run`` (charts of several tags); None when it has none."""
        return self._index.scalar_layout(run)

    def embeddings(self, run: str, tag: str) -> list[EmbeddingsEvent]:
        """Every embedding of ``tag`` by step; :meth:`read_blob` gives an event's vectors."""
        return self._index.embeddings(run, tag)

    def graphs(self, run: str) -> list[GraphEvent]:
        """The newest graph of each name in ``run``; :meth:`read_blob` gives its ONNX bytes."""
        return self._index.graphs(run)

    def read_blob(self, event: ImageEvent | GraphEvent | AudioEvent | EmbeddingsEvent) -> bytes:
        """The PNG bytes of an image event, the model bytes of a graph event, the WAV bytes
        of an audio event, the vectors of an embeddings event (float32, row after row)."""
        return self._index.read_blob(event)

    def writers(self, run: str, *, now: float | None = None, silent_after: float = SILENT_AFTER) -> list[WriterInfo]:
        """One entry per log file of ``run``: who wrote it, whether it was closed cleanly, and
        how its process ended (``ended``): ``"closed"``, ``"exception"`` or ``"signal"`` as
        the log says; ``"fatal signal"`` (a segfault, an abort) as its sidecar says, with
        faulthandler's traceback; ``"killed"`` (without a trace) when the log ends without
        an end record and its writer is gone: a later file of the same role and rank exists,
        or nothing came for ``silent_after`` seconds before ``now`` (default: the time of
        the call); None while it runs. The step is the last one logged."""
        return self._index.writers(run, now=now, silent_after=silent_after)

    def system_metrics(self, run: str) -> list[WriterSystem]:
        """The system metrics of ``run`` (``LogWriter(system_metrics=True)``), apart from its
        tags: per writer file (role, rank, local rank, host, pid) its metrics, each with its
        name, scope (process, host, gpu), GPU index, unit, and wall_times and values arrays,
        and what its sampler skipped."""
        return self._index.system_metrics(run)

    def last_host_memory(self, run: str, path: str) -> HostMemory | None:
        """The last sample of the host's memory (used, available, total bytes, wall time)
        in the writer file ``path`` of ``run``; None when it recorded none."""
        return self._index.last_host_memory(run, path)

    def progress(self, run: str) -> list[tuple[WriterInfo, np.ndarray, np.ndarray, int]]:
        """Per file of ``run``: its writer, then wall times and the highest step reached by then
        (one entry per scalar record written, and first one for the file's first point when
        its first record holds later ones too), and the number of scalar points."""
        return self._index.progress(run)

    def job(self, run: str, *, now: float | None = None, silent_after: float = SILENT_AFTER) -> JobOverview:
        """The job ``run`` at ``now`` (default: the time of the call), as the Jobs page shows
        it: each file's state and span, the places alive over a time grid, the step skew and
        throughput per role, the stragglers, the restarts, the timeline of ends and the
        goodput (a writer is ``silent`` after ``silent_after`` seconds without a record)."""
        moment = time.time() if now is None else now
        return job_overview(self._index.file_progress(run), now=moment, silent_after=silent_after)

    def goodput(self, run: str) -> Goodput:
        """How much of each rank's wall time of ``run`` produced new steps, what each restart
        cost and which steps were done twice; ``.totals()`` is the job's, ``.totals(mask)``
        a part's (see :mod:`visualdl._jobs.goodput` for the definitions)."""
        return measure_goodput(self._index.file_progress(run))

    def end_timeline(self, run: str) -> EndTimeline:
        """How ``run``'s processes ended: the first to end uncleanly (the first to close when
        all closed), then the others grouped by how they ended, with counts and times."""
        return end_timeline(self._index.writers(run))

    def stragglers(self, run: str, *, now: float | None = None) -> StragglerReport:
        """Why each straggler of ``run`` is slow: its system metric furthest from its role's
        median at the same time, and its host's (nothing read when there is no straggler)."""
        report = job_stragglers(self.job(run, now=now), functools.partial(self._system_members, run))
        return report

    def _system_members(self, run: str) -> dict[tuple[str, str, str], list[Member]]:
        """Every system metric's series in ``run``, by ``(scope, name, unit)``."""
        index = self._index
        return {
            (scope, name, unit): [m for m in index.system_members(run, scope, name) if m.unit == unit]
            for scope, name, unit in index.system_catalog(run)
        }

    def poll(self, progress: Callable[[int, int, int], None] | None = None) -> PollResult:
        """Find new files and runs, read the bytes added since the last poll, drop removed runs.

        Files are read and decoded outside the query lock, so queries go on meanwhile.
        ``progress(files_done, files_to_read, bytes_read)`` is called after each file.
        """
        return self._index.poll(progress)

    @property
    def problems(self) -> list[Problem]:
        """Everything found wrong in the files so far (corrupt records, unreadable files), then
        what is wrong in the logdir now (directories that cannot be listed, log file names
        that are not regular files)."""
        return self._index.problems

    def __iter__(self) -> Iterator[str]:
        return iter(self._index.runs())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._index.logdir!r}, runs={len(self._index.runs())})"


class _Watched(IndexRuns):
    """The index's runs, noting when the first running writer listed falls silent: a runs
    table built from them says "live" of it until then only (its end is inferred after)."""

    def __init__(self, index: Index) -> None:
        super().__init__(index)
        self.until = math.inf
        self.now = time.time()  # the runs table's statuses are as of then

    def writers_of(self, run: str) -> list[WriterInfo]:
        writers = list(super().writers_of(run))
        self.until = min(self.until, running_until(writers, finished_after=self.now))
        return writers
