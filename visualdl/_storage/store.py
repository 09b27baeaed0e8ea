"""Compatibility names of the storage layer, from before the :class:`~visualdl._storage.Store`.

The reader (:mod:`visualdl._index.reader`), the server and the CLI import these today;
they go once those take a :class:`~visualdl._storage.Store` from
:func:`~visualdl._storage.open_store`:

- ``is_url``/``local_path``/``absolute``/``exists``: ``open_store(logdir)`` once at the
  edge, then ``store.location`` and ``store.exists()``;
- ``Lister``, ``filesystem``, ``group_segments``, ``local_parts``, ``PartsSource``:
  ``store.list(wanted)`` (log paths by directory, segments grouped), ``store.source(path)``;
- ``register``/``open_path`` (a module-global registry of sources): ``store.open(path)``
  and ``store.stat(path)`` on the store that listed the path.
"""

from __future__ import annotations

import os
import weakref
from typing import BinaryIO

from visualdl._storage.lister import CLOCK_SKEW_SECS, FULL_LIST_SECS_PER_PAGE, LIVE_SECS, Lister
from visualdl._storage.local import local_parts, open_regular
from visualdl._storage.objects import _instances, filesystem
from visualdl._storage.parts import PartsSource, RangeFile
from visualdl._storage.segments import SEGMENT_PREFIX, group_segments, segment_name, split_segment
from visualdl._storage.urls import is_url, local_path

__all__ = [
    "CLOCK_SKEW_SECS",
    "FULL_LIST_SECS_PER_PAGE",
    "LIVE_SECS",
    "SEGMENT_PREFIX",
    "Lister",
    "PartsSource",
    "RangeFile",
    "_instances",
    "absolute",
    "exists",
    "filesystem",
    "group_segments",
    "is_url",
    "local_parts",
    "local_path",
    "open_path",
    "register",
    "segment_name",
    "split_segment",
]


def absolute(logdir: str) -> str:
    """Compatibility: ``open_store(logdir).location``."""
    return logdir if is_url(logdir) else os.path.abspath(local_path(logdir))


def exists(logdir: str) -> bool:
    """Compatibility: ``open_store(logdir).exists()``."""
    from visualdl._storage import open_store

    return open_store(logdir).exists()


#: Compatibility: paths of log files that are not one local file -> where their bytes are
#: (set by readers). A :class:`~visualdl._storage.Store` keeps its own sources instead.
_SOURCES: weakref.WeakValueDictionary[str, PartsSource] = weakref.WeakValueDictionary()


def register(path: str, source: PartsSource) -> None:
    """Compatibility: a store keeps the sources of what it listed."""
    _SOURCES[path] = source


def open_path(path: str) -> BinaryIO:
    """Compatibility (``store.open(path)``): a log file's bytes, by the path a reader gave
    it; ``OSError`` when it cannot be read."""
    source = _SOURCES.get(path)
    if source is None:
        return open_regular(path)[0]
    return source.open()[0]
