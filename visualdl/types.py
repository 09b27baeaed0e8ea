"""The values :class:`~visualdl.LogReader` returns, by their public names.

Each is a frozen dataclass (``Stream`` is a ``(role, rank)`` tuple); their fields are
public and pinned by ``tests/test_public_api.py``. They are defined where the reader builds
them (modules whose names start with ``_``); import them from here::

    from visualdl.types import ScalarSeries, WriterInfo

- Scalars: :class:`ScalarSeries` (:meth:`~visualdl.LogReader.scalars`), :class:`JobSeries`
  (one tag over a job's ranks, :meth:`~visualdl.LogReader.job_scalars`), :data:`Stream`
  (a place in a job).
- Events, one class per kind: :class:`ImageEvent`, :class:`HistogramEvent`,
  :class:`TextEvent`, :class:`GraphEvent`, :class:`AudioEvent`, :class:`PrCurveEvent`,
  :class:`RocCurveEvent`, :class:`HParamsEvent`, :class:`EmbeddingsEvent`,
  :class:`ScalarLayoutEvent` (of :class:`LayoutCategory` and :class:`LayoutChart`); a
  blob's event holds the :class:`RecordRef` that :meth:`~visualdl.LogReader.read_blob` reads.
- Writers: :class:`WriterInfo` (one log file and the process that wrote it) and how that
  process ended, :class:`ProcessEnd`; their system metrics, :class:`WriterSystem` of
  :class:`SystemSeries`, and :class:`HostMemory`.
- What went wrong: :class:`FirstNonfinite`, :class:`Divergence`; in the files,
  :class:`Problem`. A poll's counts: :class:`PollResult`.
- A job, as the Jobs page shows it: :class:`JobOverview` (:meth:`~visualdl.LogReader.job`:
  :class:`RoleSize`, one :class:`WriterState` per file, :class:`Skew` and
  :class:`Throughput` per role, :class:`Restarted`), its :class:`Goodput`
  (:meth:`~visualdl.LogReader.goodput`, totals as :class:`GoodputTotals`), how its processes
  ended, :class:`EndTimeline` (:meth:`~visualdl.LogReader.end_timeline`: a :class:`FirstEnd`
  and :class:`EndGroup` of :class:`EndEntry`), and why its stragglers are slow,
  :class:`StragglerReport` (:meth:`~visualdl.LogReader.stragglers`: each :class:`Straggler`
  with its :class:`Cause`).
"""

from __future__ import annotations

from visualdl._index.aggregate import JobSeries
from visualdl._index.polling import PollResult
from visualdl._index.runs import Stream
from visualdl._index.series import ScalarSeries
from visualdl._index.system import HostMemory, SystemSeries, WriterSystem
from visualdl._index.tail import Problem
from visualdl._index.writers import WriterInfo
from visualdl._index.wrong import Divergence, FirstNonfinite
from visualdl._jobs.ends import EndEntry, EndGroup, EndTimeline, FirstEnd
from visualdl._jobs.goodput import Goodput, GoodputTotals, Throughput
from visualdl._jobs.overview import JobOverview, Restarted, RoleSize, Skew, WriterState
from visualdl._jobs.stragglers import Cause, Straggler, StragglerReport
from visualdl._kinds.table import (
    AudioEvent,
    EmbeddingsEvent,
    GraphEvent,
    HistogramEvent,
    HParamsEvent,
    ImageEvent,
    LayoutCategory,
    LayoutChart,
    PrCurveEvent,
    ProcessEnd,
    RecordRef,
    RocCurveEvent,
    ScalarLayoutEvent,
    TextEvent,
)

__all__ = [
    "AudioEvent",
    "Cause",
    "Divergence",
    "EmbeddingsEvent",
    "EndEntry",
    "EndGroup",
    "EndTimeline",
    "FirstEnd",
    "FirstNonfinite",
    "Goodput",
    "GoodputTotals",
    "GraphEvent",
    "HParamsEvent",
    "HistogramEvent",
    "HostMemory",
    "ImageEvent",
    "JobOverview",
    "JobSeries",
    "LayoutCategory",
    "LayoutChart",
    "PollResult",
    "PrCurveEvent",
    "Problem",
    "ProcessEnd",
    "RecordRef",
    "Restarted",
    "RocCurveEvent",
    "RoleSize",
    "ScalarLayoutEvent",
    "ScalarSeries",
    "Skew",
    "Straggler",
    "StragglerReport",
    "Stream",
    "SystemSeries",
    "TextEvent",
    "Throughput",
    "WriterInfo",
    "WriterState",
    "WriterSystem",
]
