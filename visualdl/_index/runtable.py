"""The runs as one table: what the runs table shows, what the query language selects from
(:mod:`visualdl._index.runquery`) and what groups are made of.

One row per run, in natural order (``seed2`` before ``seed10``): its name; its status
(``live``, ``finished``, ``crashed``, ``killed``), from the newest writer of each place of
the run (a rank restarted after a kill is not a killed run); a file of another writer
(TensorBoard's, VisualDL 2's), which records no end, is ``finished`` once its last record is
:data:`~visualdl._index.ends.SILENT_AFTER` seconds old (the reader's idle rule), its end
then that record's time; its host(s), start, end and
duration; how many writers wrote it, and how many times its busiest place was written (a
rank restarted, a script run twice into one directory: the later attempt replaces what it
logs again); its hparams. A tag's summaries (the last
value, the least and the greatest finite ones) are columns computed the first time a query,
a sort or a view names them, and kept with the table until a run's points change. The table is built once per change of
the logdirs' runs and writers (the provider's generation) and each query is a few numpy
operations over its columns.
"""

from __future__ import annotations

import math
import re
import shlex
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from visualdl._index.ends import SILENT_AFTER
from visualdl._index.runcolumns import Column, RunTable, column_of
from visualdl._index.runquery import parse
from visualdl._index.series import ScalarSeries
from visualdl._index.writers import WriterInfo
from visualdl._kinds.table import HParamsEvent
from visualdl.errors import NotFound

__all__ = [
    "PROVENANCE_FIELDS",
    "STATUSES",
    "IndexRuns",
    "RunSource",
    "RunsTable",
    "attempts_of",
    "build_table",
    "natural_key",
    "provenance_of",
]


class RunSource(Protocol):
    """What a table of runs is built from: the index's own runs (``LogReader``), or the
    server's over several logdirs (``DataProvider``), by the names each gives its runs."""

    def writers_of(self, run: str) -> Sequence[WriterInfo]: ...

    def hparams_of(self, runs: list[str]) -> dict[str, HParamsEvent]:
        """The newest hparams of each of ``runs`` that has any."""
        ...

    def points_of(self, runs: list[str], tag: str) -> tuple[ScalarSeries, np.ndarray, np.ndarray]:
        """``runs``' points of ``tag`` laid end to end, how many each has, and which run (its
        position in ``runs``) each length is of (:meth:`visualdl._index.index.Index.runs_points`)."""
        ...

    def data_version(self) -> Any:
        """Changes whenever any run's points change."""
        ...


#: A run's status, worst first: one writer's end decides it over the others'.
STATUSES = ("crashed", "killed", "live", "finished")
#: The columns every row has, besides its name, hparams, tag summaries and the versions of
#: the packages its writers imported (``packages.torch``, ...).
META_FIELDS = ("status", "host", "start_time", "end_time", "duration", "writers", "attempts")
#: The columns of where a run's process came from (its newest writer's provenance record).
PROVENANCE_FIELDS = ("command", "git_commit", "git_branch", "git_dirty", "python", "cwd")

_NUMBER = re.compile(r"(\d+(?:\.\d+)?)")


def natural_key(name: str) -> tuple[tuple[Any, ...], str]:
    """Sorts ``seed2`` before ``seed10`` and ``lr0.01`` before ``lr0.1``: numbers in a name
    compare as numbers (text parts and numbers alternate, so equal positions hold the same
    type); names equal as numbers (``seed01``, ``seed1``) by their text."""
    parts = _NUMBER.split(name)
    return tuple(float(p) if i % 2 else p for i, p in enumerate(parts)), name


def attempts_of(writers: Sequence[WriterInfo]) -> int:
    """How many times the busiest place of the run was written: a rank's files (its restarts),
    or the files of unranked writers (a script run twice into one directory); at least 1."""
    per_place: dict[tuple[str, int], int] = {}
    for w in writers:
        place = (w.role, w.rank) if w.rank >= 0 else ("", -1)
        per_place[place] = per_place.get(place, 0) + 1
    return max(per_place.values(), default=1)


def _end_of(w: WriterInfo, now: float) -> float | None:
    """When ``w``'s writer ended: its footer, its end record or the one inferred, the last
    record of a foreign file that stopped growing; None while it runs."""
    if w.end_time is not None:
        return w.end_time
    if w.ended is not None:
        return w.ended.wall_time
    return w.last_seen if _foreign_finished(w, now) else None


def _foreign_finished(w: WriterInfo, now: float) -> bool:
    """Whether ``w`` is a file of another writer (no end records) that stopped growing:
    its last record is :data:`~visualdl._index.ends.SILENT_AFTER` seconds old."""
    return w.format != "visualdl" and w.ended is None and not w.closed and now - w.last_seen > SILENT_AFTER


def _status(writers: Any, now: float) -> str:
    newest: dict[tuple[str, int], Any] = {}
    for w in writers:
        place = (w.role, w.rank) if w.rank >= 0 else (w.path, -1)
        old = newest.get(place)
        if old is None or (w.attempt, w.start_time) >= (old.attempt, old.start_time):
            newest[place] = w
    worst = len(STATUSES) - 1
    for w in newest.values():
        how = w.ended.how if w.ended is not None else None
        if how in ("exception", "fatal signal"):
            status = "crashed"
        elif how in ("signal", "killed"):
            status = "killed"
        elif w.closed or how == "closed" or _foreign_finished(w, now):
            status = "finished"
        else:
            status = "live"
        worst = min(worst, STATUSES.index(status))
    return STATUSES[worst]


@dataclass(slots=True)
class RunsTable:
    """Every run of the provider as a row (see the module docstring)."""

    names: list[str]
    meta: dict[str, list[Any]]  # META_FIELDS -> one value per run
    hparams: dict[str, list[Any]]  # hparam -> one value per run (None: the run has none)
    source: RunSource
    _summaries: dict[tuple[str, str], tuple[Any, Column | None]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _table: RunTable | None = None

    def __len__(self) -> int:
        return len(self.names)

    @property
    def table(self) -> RunTable:
        if self._table is None:
            self._table = RunTable(
                self.names,
                {name: column_of(values) for name, values in self.meta.items()},
                {name: column_of(values) for name, values in self.hparams.items()},
                self.summary,
            )
        return self._table

    def summary(self, tag: str, which: str) -> Column | None:
        """``tag``'s ``which`` (last, min or max) of every run; None when no run has the tag."""
        version = self.source.data_version()
        with self._lock:
            hit = self._summaries.get((tag, which))
            if hit is None or hit[0] != version:
                self._summarize(tag, version)
            return self._summaries[(tag, which)][1]

    def _summarize(self, tag: str, version: Any) -> None:
        """Every run's last, least and greatest finite value of ``tag``: one gather of all the
        runs' points and a reduction per run boundary, no Python per run or point."""
        n = len(self.names)
        points, lengths, which = self.source.points_of(self.names, tag)
        last, low, high = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
        has_last, has_low = np.zeros(n, bool), np.zeros(n, bool)
        present = lengths > 0
        runs, sizes = which[present], lengths[present]
        if runs.size:  # each run's points in step order, one after the other
            values = points.values
            offsets = (np.cumsum(lengths) - lengths)[present]
            last[runs], has_last[runs] = values[offsets + sizes - 1], True
            finite = np.isfinite(values)
            count = np.add.reduceat(finite.astype(np.int64), offsets)
            low[runs] = np.minimum.reduceat(np.where(finite, values, np.inf), offsets)
            high[runs] = np.maximum.reduceat(np.where(finite, values, -np.inf), offsets)
            has_low[runs] = count > 0
        empty = np.empty(n, object)
        no_text = np.zeros(n, bool)
        found = bool(runs.size)
        for summary, numbers, known in (("last", last, has_last), ("min", low, has_low), ("max", high, has_low)):
            self._summaries[(tag, summary)] = (version, Column(numbers, known, empty, no_text) if found else None)

    def select(self, where: str | None, *, patient: bool = False) -> list[str]:
        """The runs ``where`` selects, in natural order (all of them without a query); ``patient``:
        a costly query waits for its turn as long as it takes (:meth:`~visualdl._index.runquery.Query.select`)."""
        if not where:
            return list(self.names)
        return parse(where).matching(self.table, patient=patient)

    def order(self, rows: np.ndarray, by: str, descending: bool) -> np.ndarray:
        """``rows`` (indices) sorted by the column ``by``: numbers, then texts, then runs without
        the field; ties in natural order (the rows' own order). ``descending`` reverses the
        numbers and the texts, never the missing ones' place."""
        column = self.table.field(by)
        if column is None:
            raise NotFound(f"no field {by!r} to sort by ({self.table.fields_hint()})")
        numbers = column.numbers[rows]
        is_number = column.is_number[rows]
        texts = np.where(column.is_text[rows], column.texts[rows], "")
        rank_text = np.unique(texts.astype(str), return_inverse=True)[1]
        group = np.where(is_number, 0, np.where(column.is_text[rows], 1, 2))
        sign = -1.0 if descending else 1.0
        key_number = np.where(is_number, np.nan_to_num(numbers * sign, nan=np.inf), 0.0)
        key_text = rank_text * (-1 if descending else 1)
        order = np.lexsort((np.arange(rows.size), key_text, key_number, group))
        return rows[order]

    def row(self, i: int, tags: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.names[i]}
        for name, values in self.meta.items():
            out[name] = values[i]
        out["hparams"] = {k: _json_value(v[i]) for k, v in self.hparams.items() if v[i] is not None}
        out["metrics"] = {}
        for tag in tags:
            entry = {}
            for which in RunTable.SUMMARIES:
                column = self.summary(tag, which)
                if column is not None and column.is_number[i]:
                    entry[which] = _json_value(float(column.numbers[i]))
            out["metrics"][tag] = entry or None
        return out


class IndexRuns:
    """The runs of one index (what ``LogReader.runs(where=...)`` selects from) as a :class:`RunSource`."""

    def __init__(self, index: Any) -> None:
        self._index = index

    def writers_of(self, run: str) -> Sequence[WriterInfo]:
        writers: Sequence[WriterInfo] = self._index.writers(run)
        return writers

    def hparams_of(self, runs: list[str]) -> dict[str, HParamsEvent]:
        found: dict[str, HParamsEvent] = self._index.newest_hparams(runs)
        return found

    def points_of(self, runs: list[str], tag: str) -> tuple[ScalarSeries, np.ndarray, np.ndarray]:
        laid: tuple[ScalarSeries, np.ndarray, np.ndarray] = self._index.runs_points(runs, tag)
        return laid

    def data_version(self) -> Any:
        return self._index.data_version()


def _json_value(value: Any) -> Any:
    """NaN and infinities as the strings "nan", "inf", "-inf" (JSON has none)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def provenance_of(writers: Sequence[WriterInfo]) -> dict[str, Any]:
    """The run's provenance columns (:data:`PROVENANCE_FIELDS` and ``packages.NAME``) from its
    newest writer that recorded one; empty when none did."""
    found = [w for w in writers if w.provenance is not None]
    if not found:
        return {}
    p = max(found, key=lambda w: (w.start_time if math.isfinite(w.start_time) else -math.inf, w.path)).provenance
    assert p is not None
    out: dict[str, Any] = {
        "command": shlex.join(p.argv) if p.argv else None,
        "git_commit": p.git_commit or None,
        "git_branch": p.git_branch or None,
        "git_dirty": p.git_dirty if p.HasField("git_dirty") else None,
        "python": p.python or None,
        "cwd": p.cwd or None,
    }
    for name, version in sorted(p.packages.items()):
        out[f"packages.{name}"] = version
    return out


def _column(columns: dict[str, list[Any]], key: str, n: int) -> list[Any]:
    """``columns[key]``, made (``n`` missing values) the first time only: ``setdefault`` would
    build the default list at every call, n x n for a column of every run."""
    found = columns.get(key)
    if found is None:
        found = columns[key] = [None] * n
    return found


def build_table(source: RunSource, runs: Sequence[str], *, now: float | None = None) -> RunsTable:
    """The table of ``runs`` (any order; rows in natural order), its statuses as of ``now``
    (None: the time of the call)."""
    names = sorted(runs, key=natural_key)
    now = time.time() if now is None else now
    meta: dict[str, list[Any]] = {name: [] for name in (*META_FIELDS, *PROVENANCE_FIELDS)}
    packages: dict[str, list[Any]] = {}
    hparams: dict[str, list[Any]] = {}
    for run in names:
        writers = source.writers_of(run)
        starts = [w.start_time for w in writers if math.isfinite(w.start_time)]
        ends = [_end_of(w, now) for w in writers]
        known = [e for e in ends if e is not None]
        start = min(starts) if starts else None
        end = max(known) if known and len(known) == len(ends) else None  # ended: every writer has
        meta["status"].append(_status(writers, now) if writers else "live")
        meta["host"].append(",".join(sorted({w.host for w in writers if w.host})) or None)
        meta["start_time"].append(start)
        meta["end_time"].append(end)
        meta["duration"].append(end - start if end is not None and start is not None else None)
        meta["writers"].append(len(writers))
        meta["attempts"].append(attempts_of(writers))
        came_from = provenance_of(writers)
        for key in PROVENANCE_FIELDS:
            meta[key].append(came_from.get(key))
        for key, value in came_from.items():
            if key.startswith("packages."):
                _column(packages, key, len(names))[len(meta["status"]) - 1] = value
    events = source.hparams_of(names)
    for i, run in enumerate(names):
        event = events.get(run)
        if event is not None:
            for key, value in event.hparams.items():
                _column(hparams, key, len(names))[i] = value
    meta.update(sorted(packages.items()))
    table = RunsTable(names, meta, dict(sorted(hparams.items())), source)
    _ = table.table  # its columns too, here (the server's reload thread), not at a first query
    return table
