"""The names the rest of the project imported from the reader before its concerns got
modules of their own (:mod:`visualdl._index.logreader`, :mod:`~visualdl._index.index`,
:mod:`~visualdl._index.polling`, :mod:`~visualdl._index.discovery`,
:mod:`~visualdl._index.blobs`, :mod:`~visualdl._index.cache`). Import from those.
"""

from __future__ import annotations

from visualdl._index.aggregate import JobSeries
from visualdl._index.cache import nbytes
from visualdl._index.index import Index, Stream, WriterInfo
from visualdl._index.logreader import LogReader
from visualdl._index.polling import PollResult
from visualdl._index.series import ScalarSeries
from visualdl._index.tail import Problem

__all__ = [
    "Index",
    "JobSeries",
    "LogReader",
    "PollResult",
    "Problem",
    "ScalarSeries",
    "Stream",
    "WriterInfo",
]

_nbytes = nbytes
