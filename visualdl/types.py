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
    "Divergence",
    "EmbeddingsEvent",
    "FirstNonfinite",
    "GraphEvent",
    "HParamsEvent",
    "HistogramEvent",
    "HostMemory",
    "ImageEvent",
    "JobSeries",
    "LayoutCategory",
    "LayoutChart",
    "PollResult",
    "PrCurveEvent",
    "Problem",
    "ProcessEnd",
    "RecordRef",
    "RocCurveEvent",
    "ScalarLayoutEvent",
    "ScalarSeries",
    "Stream",
    "SystemSeries",
    "TextEvent",
    "WriterInfo",
    "WriterSystem",
]
