"""The one cache facility of the reader and the server: keyed results within a budget.

Every cache (the index's merged series, job aggregates and event lists per run; the
server's downsampled charts, lists of runs and tags, projections, parsed graph models and
their layouts) is a :class:`ByteCache`, each with its own bounds, so that what a cache
keeps and when it lets go is written once:

* ``budget``: bytes of the values kept (each value's size given, or estimated by
  :func:`nbytes`); ``max_entries``: how many; either may be None (no such bound);
* the least recently used entry goes first once a bound is exceeded; the newest ``keep``
  entries stay whatever their size (a projection larger than the budget is still served
  again until the next one); with ``keep=0`` a value larger than the whole budget is not
  kept, and costs the others nothing;
* :meth:`ByteCache.drop` removes an owner's entries at once (a run dropped), for keys
  that are ``(owner, key)`` pairs; :class:`VersionedView` is one owner's view holding
  ``(version, value)`` pairs, what the index keeps per run.

Thread-safe: one lock per cache, held for dictionary work only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

import numpy as np

__all__ = ["ByteCache", "VersionedView", "nbytes"]

V = TypeVar("V")


def nbytes(value: Any, depth: int = 0) -> int:
    """Roughly what a cached result holds: its arrays' bytes, 64 per other object."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if depth > 4:
        return 64
    if isinstance(value, dict):
        return 64 + sum(nbytes(v, depth + 1) for v in value.values())
    if isinstance(value, list | tuple):
        if len(value) > 64 and not isinstance(value[0], np.ndarray | dict | list | tuple):
            return 64 * len(value)
        return 64 + sum(nbytes(v, depth + 1) for v in value)
    slots = getattr(type(value), "__slots__", None)
    if slots:
        return 64 + sum(nbytes(getattr(value, name, None), depth + 1) for name in slots)
    return 64


class ByteCache(Generic[V]):
    """Values by key within ``budget`` bytes and ``max_entries`` entries, the least
    recently used out first (see the module's docstring for ``keep``)."""

    __slots__ = ("_entries", "_lock", "_size", "budget", "keep", "max_entries", "used")

    def __init__(
        self,
        budget: int | None = None,
        *,
        max_entries: int | None = None,
        keep: int = 0,
        size: Callable[[Any], int] = nbytes,
    ) -> None:
        self.budget = budget
        self.max_entries = max_entries
        self.keep = keep
        #: The bytes of all values kept, as their sizes were given or estimated.
        self.used = 0
        self._size = size
        self._lock = threading.Lock()
        #: key -> (value, size); the order is the order of use, the oldest first.
        self._entries: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()

    def size_of(self, value: Any) -> int:
        """What ``value`` would count against the budget."""
        return self._size(value)

    def get(self, key: Hashable) -> V | None:
        """The value kept under ``key``, now the most recently used; None when none is."""
        with self._lock:
            hit = self._entries.get(key)
            if hit is None:
                return None
            self._entries.move_to_end(key)
            return hit[0]

    def put(self, key: Hashable, value: V, size: int | None = None) -> None:
        """Keep ``value`` (of ``size`` bytes; estimated when not given) under ``key``, then
        drop the least recently used entries beyond the bounds."""
        size = self._size(value) if size is None else size
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.used -= old[1]
            if self.keep == 0 and self.budget is not None and size > self.budget:
                return
            self._entries[key] = (value, size)
            self.used += size
            while len(self._entries) > self.keep and self._over():
                self.used -= self._entries.popitem(last=False)[1][1]

    def _over(self) -> bool:
        if self.max_entries is not None and len(self._entries) > self.max_entries:
            return True
        return self.budget is not None and self.used > self.budget

    def drop(self, owner: Hashable) -> None:
        """Forget every entry whose key is an ``(owner, key)`` pair of ``owner``."""
        with self._lock:
            for k in [k for k in self._entries if isinstance(k, tuple) and k and k[0] == owner]:
                self.used -= self._entries.pop(k)[1]

    def __len__(self) -> int:
        return len(self._entries)


class VersionedView:
    """One owner's part of a :class:`ByteCache`: ``(version, result)`` by key, sized by the result."""

    __slots__ = ("_cache", "_owner")

    def __init__(self, cache: ByteCache[Any]) -> None:
        self._cache = cache
        self._owner = id(self)

    def get(self, key: Hashable) -> tuple[int, Any] | None:
        hit: tuple[int, Any] | None = self._cache.get((self._owner, key))
        return hit

    def __setitem__(self, key: Hashable, entry: tuple[int, Any]) -> None:
        self._cache.put((self._owner, key), entry, self._cache.size_of(entry[1]))

    def clear(self) -> None:
        self._cache.drop(self._owner)
