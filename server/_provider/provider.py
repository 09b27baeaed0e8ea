"""The data provider: every read of the runs, tags and data of all logdirs, in one class.

:class:`DataProvider` puts together the parts of the provider, one module per concern, each
a class over the catalogue of runs (:class:`~.runs.RunCatalog`): the scalar series
(:class:`~.scalars.ScalarReads`), the charts (:class:`~.charts.ChartReads`), the runs table
(:class:`~.runsource.RunsTableReads`), the runs' newest records (:class:`~.records.RecordReads`),
the event kinds and their blobs (:class:`~.events.EventReads`) and the jobs
(:class:`~.jobs.JobReads`).
"""

from __future__ import annotations

from visualdl.server._provider.charts import ChartReads
from visualdl.server._provider.events import EventReads
from visualdl.server._provider.jobs import JobReads
from visualdl.server._provider.records import RecordReads
from visualdl.server._provider.runsource import RunsTableReads

__all__ = ["DataProvider"]


class DataProvider(ChartReads, RunsTableReads, RecordReads, EventReads, JobReads):
    """What the HTTP layer and the notebook read from: runs, tags and data of all logdirs."""
