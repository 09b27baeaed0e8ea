"""One byte-bounded cache facility: keyed results, sized in bytes, dropped by owner.

What a reader keeps of its merged results (series resolved across a run's files, job
aggregates, event lists) must stay within a byte budget whatever the number of runs,
and a run's entries must go with the run. :class:`ByteCache` is that, and nothing
about runs: entries are ``(owner, key) -> value`` with a size in bytes, used least
recently first out once the budget is exceeded, and :meth:`ByteCache.drop` removes
an owner's entries at once (a run dropped, a generation gone). A value larger than
the whole budget is not kept. :class:`VersionedView` is one owner's view holding
``(version, value)`` pairs, what the index keeps per run.

Not thread-safe on its own: callers hold the lock that guards what they cache.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

__all__ = ["ByteCache", "VersionedView", "nbytes"]


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


class ByteCache:
    """``(owner, key) -> value`` within :attr:`budget` bytes, the least recently used out first."""

    __slots__ = ("budget", "used", "_size", "_entries")

    def __init__(self, budget: int, size: Callable[[Any], int] = nbytes) -> None:
        self.budget = budget
        self.used = 0
        self._size = size
        #: (owner, key) -> (value, size); insertion order is use order.
        self._entries: dict[tuple[Hashable, Hashable], tuple[Any, int]] = {}

    def size_of(self, value: Any) -> int:
        """What ``value`` would count against the budget."""
        return self._size(value)

    def get(self, owner: Hashable, key: Hashable) -> Any | None:
        """The value kept under ``(owner, key)``, now the most recently used; None when none is."""
        hit = self._entries.pop((owner, key), None)
        if hit is None:
            return None
        self._entries[(owner, key)] = hit
        return hit[0]

    def put(self, owner: Hashable, key: Hashable, value: Any, size: int | None = None) -> None:
        """Keep ``value`` (of ``size`` bytes; measured when not given), dropping the least
        recently used entries beyond the budget; a value above the whole budget is not kept."""
        size = self._size(value) if size is None else size
        old = self._entries.pop((owner, key), None)
        if old is not None:
            self.used -= old[1]
        if size > self.budget:
            return
        self._entries[(owner, key)] = (value, size)
        self.used += size
        while self.used > self.budget:
            oldest = next(iter(self._entries))
            self.used -= self._entries.pop(oldest)[1]

    def drop(self, owner: Hashable) -> None:
        """Forget every entry of ``owner``."""
        for k in [k for k in self._entries if k[0] == owner]:
            self.used -= self._entries.pop(k)[1]


class VersionedView:
    """One owner's part of a :class:`ByteCache`: ``(version, result)`` by key, sized by the result."""

    __slots__ = ("_cache", "_owner")

    def __init__(self, cache: ByteCache) -> None:
        self._cache = cache
        self._owner = id(self)

    def get(self, key: Hashable) -> tuple[int, Any] | None:
        hit: tuple[int, Any] | None = self._cache.get(self._owner, key)
        return hit

    def __setitem__(self, key: Hashable, entry: tuple[int, Any]) -> None:
        self._cache.put(self._owner, key, entry, self._cache.size_of(entry[1]))

    def clear(self) -> None:
        self._cache.drop(self._owner)
