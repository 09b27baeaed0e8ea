"""The values the data provider answers with: typed, immutable, no JSON.

A view turns one of these into its answer's JSON (``server/_views/``); the notebook draws
its figures from the same values. Arrays are numpy arrays as the index holds them (a view
serializes them natively), so nothing here walks points in Python.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from visualdl._index.index import WriterInfo
from visualdl._index.outliers import RankRuns
from visualdl._index.projector import Sprite
from visualdl._index.series import ScalarSeries
from visualdl._index.wrong import Divergence, FirstNonfinite
from visualdl._kinds.table import EmbeddingsEvent

__all__ = [
    "Embedding",
    "Group",
    "Health",
    "Kind",
    "Line",
    "LogdirState",
    "LoggedGraph",
    "ProblemAt",
    "RankLine",
    "RoleLine",
    "Run",
    "RunScalars",
    "RunsPoints",
    "ScalarRuns",
    "Unservable",
    "WrongMarks",
]


@dataclass(frozen=True, slots=True)
class Run:
    """A run as the API lists it: its name and the writers of its log files."""

    name: str
    writers: tuple[WriterInfo, ...]

    @property
    def closed(self) -> bool:
        """Whether every writer closed cleanly (a footer was read)."""
        return all(w.closed for w in self.writers)

    @property
    def start_time(self) -> float | None:
        return min((w.start_time for w in self.writers), default=None)


@dataclass(frozen=True, slots=True)
class Kind:
    """A tab of the web UI: a record kind of the kinds table (``record``) or a view over
    runs (``jobs``), with how many tags and runs hold it."""

    name: str
    title: str
    record: bool
    tags: int
    runs: int


@dataclass(frozen=True, slots=True)
class Line:
    """One downsampled series: the points kept, and how many the step range held."""

    steps: np.ndarray
    values: np.ndarray
    wall_times: np.ndarray
    range_points: int


@dataclass(frozen=True, slots=True)
class RoleLine:
    """One role of a job: the mean over its ranks (``mean``), the min/max band at the same
    points, the rank at each extreme, how many ranks each point averages, and the
    quantiles of the ranks' values there (``quantiles[j]`` is ``QUANTILES[j]`` of
    :mod:`visualdl._index.aggregate`: p5, p25, the median, p75, p95)."""

    role: str
    ranks: list[int]
    mean: Line
    min: np.ndarray
    max: np.ndarray
    min_rank: np.ndarray
    max_rank: np.ndarray
    count: np.ndarray
    quantiles: np.ndarray
    #: Who holds the minimum and the maximum, by range of steps over the whole step range
    #: asked for (not only the points kept): :func:`visualdl._index.outliers.extreme_runs`.
    min_runs: RankRuns | None = None
    max_runs: RankRuns | None = None
    #: The rank at each quantile's edge at the points kept (a row per quantile, as
    #: ``quantiles``; :attr:`visualdl._index.aggregate.JobSeries.quantile_rank`), and who holds
    #: each by range of steps, as ``min_runs``.
    quantile_rank: np.ndarray | None = None
    quantile_runs: tuple[RankRuns, ...] | None = None
    #: The sample standard deviation over the ranks at the points kept.
    std: np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class RankLine:
    """One rank's own series (asked for with ``ranks="each"``, or alone by its place)."""

    role: str
    rank: int
    line: Line


@dataclass(frozen=True, slots=True)
class RunScalars:
    """One run's series of a tag: ``line`` is the run's (or, for a job, its first role's mean,
    trainers first); ``job`` holds every role of a job (empty otherwise), ``per_rank`` every
    rank's series when asked for (None otherwise)."""

    run: str
    total_points: int
    line: Line
    job: tuple[RoleLine, ...] = ()
    per_rank: tuple[RankLine, ...] | None = None
    #: For a group of runs (``run`` is then its label): what it groups by and its members.
    group: Group | None = None
    #: For a job's line of a chart: where its tag first went wrong (None: not asked for).
    wrong: WrongMarks | None = None


@dataclass(frozen=True, slots=True)
class WrongMarks:
    """The marks of a job's chart of a tag, at their steps: the tag's first non-finite value
    (per role) and where the ranks of the tag part (:mod:`visualdl._index.wrong`)."""

    nonfinite: tuple[FirstNonfinite, ...]
    divergence: tuple[Divergence, ...]


@dataclass(frozen=True, slots=True)
class Group:
    """A group of runs drawn as one line with bands: ``key`` the value of each field grouped
    by (or of the name's regex capture), ``members`` the runs, in natural order; the group's
    band's ranks are positions in ``members``."""

    key: tuple[tuple[str, Any], ...]
    members: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ScalarRuns:
    """A chart: the series of ``tag`` of each run having it; ``missing``: known runs without it."""

    tag: str
    max_points: int
    runs: tuple[RunScalars, ...]
    missing: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RunsPoints:
    """Every point of a tag of many runs, laid end to end (as stored, not downsampled):
    ``lengths[j]`` points of the run at position ``which[j]`` of the runs asked for, one after
    another in ``points``; a run without the tag (or unknown) has no entry."""

    points: ScalarSeries
    lengths: np.ndarray
    which: np.ndarray


@dataclass(frozen=True, slots=True)
class Embedding:
    """One entry of an embeddings tag: its position among the tag's entries by step, its event
    (rows, dimension, labels), how to read its vectors (float32, row after row), and its label
    images (TensorBoard's sprite, with how to read its bytes; None when it has none). The
    readers raise ``OSError`` or :class:`~visualdl.errors.VisualDLError` when the bytes are gone."""

    index: int
    event: EmbeddingsEvent
    read_vectors: Callable[[], bytes]
    sprite: Sprite | None = None
    read_sprite: Callable[[], bytes] | None = None


@dataclass(frozen=True, slots=True)
class LoggedGraph:
    """A graph logged by a run (its newest of that name)."""

    run: str
    name: str
    size: int
    wall_time: float


@dataclass(frozen=True, slots=True)
class Unservable:
    """A name in the logs that the API cannot take as a parameter (``kind``: run, tag or
    graph), so it is not listed; ``limit`` is the longest name the API takes."""

    kind: str
    name: str
    run: str
    limit: int


@dataclass(frozen=True, slots=True)
class ProblemAt:
    """Something wrong in a log file, by logdir and the file's path relative to it."""

    logdir: str
    file: str
    offset: int
    message: str


@dataclass(frozen=True, slots=True)
class LogdirState:
    name: str
    path: str
    exists: bool


@dataclass(frozen=True, slots=True)
class Health:
    """What ``/api/health`` reports besides the poll counters."""

    logdirs: tuple[LogdirState, ...]
    problems: tuple[ProblemAt, ...]
    not_served: tuple[Unservable, ...]
    #: What keeps the index from holding every record read (a full scratch disk), each a
    #: sentence naming the fix: the server is degraded while there is any.
    degraded: tuple[str, ...] = ()
