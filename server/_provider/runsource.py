"""The server's runs (every logdir's, by the names the API gives them) as the source of the
runs table (:mod:`visualdl._index.runtable`): their writers, newest hparams, and a tag's
points of many runs gathered once per logdir, all read through the provider's own calls."""

from __future__ import annotations

import math
import time
from typing import Any, cast

import numpy as np

from visualdl._index.runtable import RunsTable, build_table
from visualdl._index.series import ScalarSeries
from visualdl._index.writers import WriterInfo, running_until
from visualdl._kinds.table import HParamsEvent
from visualdl.server._provider.records import RecordReads
from visualdl.server._provider.scalars import ScalarReads

__all__ = ["ProviderRuns", "RunsTableReads"]


class RunsTableReads(ScalarReads, RecordReads):
    """Every run as a row (see :meth:`runs_table`)."""

    def runs_table(self) -> RunsTable:
        """Every run as a row (:mod:`visualdl._index.runtable`), built once per change of the
        runs, files, writers or tags (the reload thread builds it after each poll, so that no
        request waits for it); while a first read changes them at every file, not more often
        than :data:`~.runs.BUSY` times its cost allows."""
        built = self._listed("runs_table", self._build_runs_table, max_age=self._table_age, until=lambda b: b[1])
        return cast("RunsTable", built[0])

    def _build_runs_table(self) -> tuple[RunsTable, float]:
        """The table, and when the first running writer of its runs falls silent (its status then changes)."""
        source = ProviderRuns(self)
        now = time.time()  # the statuses are as of then
        until = min((running_until(w, finished_after=now) for w in source._writers.values()), default=math.inf)
        return build_table(source, list(source.names), now=now), until


class ProviderRuns:
    """The provider's runs (every logdir's, by the names the API gives them) as a
    :class:`~visualdl._index.runtable.RunSource`."""

    def __init__(self, provider: RunsTableReads) -> None:
        self._provider = provider
        self._writers = {run.name: run.writers for run in provider.list_runs()}
        self.names = list(self._writers)

    def writers_of(self, run: str) -> tuple[WriterInfo, ...]:
        return self._writers.get(run, ())

    def hparams_of(self, runs: list[str]) -> dict[str, HParamsEvent]:
        return self._provider.read_newest_hparams(runs=runs)

    def points_of(self, runs: list[str], tag: str) -> tuple[ScalarSeries, np.ndarray, np.ndarray]:
        """One gather per logdir (:meth:`ScalarReads.read_runs_points`)."""
        found = self._provider.read_runs_points(runs=runs, tag=tag)
        return found.points, found.lengths, found.which

    def data_version(self) -> Any:
        return self._provider.data_version()
