"""Where logs live (layer 3: above the formats, below the SDK and the index).

One :class:`Store` interface, a local and an object-store implementation, and
:func:`open_store`, the one place a logdir string becomes a store. Make the store at the
edge (the CLI, the notebook, ``LogWriter``, ``LogReader``) and pass it along: code below
the edge never turns a string back into a place.

- ``base.py``: :class:`Store` (list, open, stat and resolve for readers; an :class:`Appender`
  for writers) and :class:`Listing`.
- ``local.py``: :class:`LocalStore`, a directory tree whose log files are appended to in place.
- ``objects.py``: :class:`ObjectStore`, any filesystem fsspec knows by a URL (S3, GCS, Azure,
  HDFS, ``memory://``).
- ``segments.py``: how a log in object storage is cut into immutable segments
  (``vdls.<upload ms>.<seq>.<log>``), and how their names read back.
- ``lister.py``: what a logdir in an object store holds, listed incrementally
  (:class:`Lister`: the live runs' newest segments, a full listing now and then).
- ``parts.py``: a log file made of parts (a remote object, or a writer's segments) read as one file.
- ``urls.py``: whether a logdir string names a URL or a local path.
"""

from __future__ import annotations

import os

from visualdl._storage.base import Appender, Listing, Store
from visualdl._storage.local import LocalStore
from visualdl._storage.objects import ObjectStore
from visualdl._storage.urls import is_url, local_path

__all__ = ["Appender", "Listing", "LocalStore", "ObjectStore", "Store", "is_url", "open_store"]


def open_store(logdir: str | os.PathLike[str]) -> Store:
    """The store of ``logdir``: a local directory (a path, or ``file://``), or a prefix in an
    object store (``s3://``, ``gs://``, ``az://``, ``hdfs://``, ``memory://``).
    ``ImportError`` naming the install line when the URL's protocol needs a missing package."""
    name = os.fspath(logdir)
    if is_url(name):
        return ObjectStore(name)
    return LocalStore(local_path(name))
