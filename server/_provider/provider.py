"""The data provider: every read of the runs, tags and data of all logdirs, in one class.

:class:`DataProvider` puts together the parts of the provider, one module per concern, each
a class over the catalogue of runs (:class:`~.runs.RunCatalog`): the scalar series
(:class:`~.scalars.ScalarReads`), the charts (:class:`~.charts.ChartReads`), the event kinds
and blobs (:class:`~.events.EventReads`) and the jobs (:class:`~.jobs.JobReads`).
"""

from __future__ import annotations

from typing import Any

from visualdl._index.index import Index
from visualdl.server._provider.charts import ChartReads
from visualdl.server._provider.events import EventReads
from visualdl.server._provider.jobs import JobReads

__all__ = ["DataProvider"]


class DataProvider(ChartReads, EventReads, JobReads):
    """What the HTTP layer and the notebook read from: runs, tags and data of all logdirs."""

    # The back door, until every view reads through typed calls.
    def located(self) -> dict[str, tuple[Index, str]]:
        return self._located()

    def resolve(self, run: str) -> tuple[Index, str]:
        return self._resolve(run)

    def events(self, run: str, kind: str, tag: str) -> tuple[Index, list[Any]]:
        return self._events(run, kind, tag)
