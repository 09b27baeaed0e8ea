"""The one cache class of the server: least recently used out first, within a budget.

Every cache in ``server/`` (downsampled charts, the lists of runs and tags, projections,
parsed graph models and their layouts) is one of these, each with its own budget, so that
what a cache keeps and when it lets go is written once. The index keeps its own
byte-bounded cache; when it offers one for all, this module is what gets replaced.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Generic, TypeVar

from visualdl._index.reader import _nbytes

__all__ = ["LRUCache", "nbytes"]

V = TypeVar("V")


def nbytes(value: Any) -> int:
    """Roughly what a cached value holds: its arrays' bytes, 64 per other object (the
    same estimate the reader's caches use, so the budgets mean the same thing)."""
    return _nbytes(value)


class LRUCache(Generic[V]):
    """Values by key, thread-safe, dropped least recently used first while there are more
    than ``max_entries`` of them or their sizes add up to more than ``max_bytes`` (None:
    no such bound); the newest ``keep`` entries stay whatever their size, so one answer
    larger than the budget is still kept until the next one."""

    __slots__ = ("_entries", "_lock", "_used", "keep", "max_bytes", "max_entries")

    def __init__(self, *, max_entries: int | None = None, max_bytes: int | None = None, keep: int = 0) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.keep = keep
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._used = 0

    def get(self, key: Hashable) -> V | None:
        """The value of ``key`` (now the most recently used), or None."""
        with self._lock:
            hit = self._entries.get(key)
            if hit is None:
                return None
            self._entries.move_to_end(key)
            return hit[0]

    def put(self, key: Hashable, value: V, size: int = 0) -> None:
        """Keep ``value`` (of ``size`` bytes) under ``key``, then drop what is over the budget."""
        with self._lock:
            old = self._entries.pop(key, None)
            self._used += size - (old[1] if old is not None else 0)
            self._entries[key] = (value, size)
            while len(self._entries) > self.keep and self._over():
                self._used -= self._entries.popitem(last=False)[1][1]

    def _over(self) -> bool:
        if self.max_entries is not None and len(self._entries) > self.max_entries:
            return True
        return self.max_bytes is not None and self._used > self.max_bytes

    @property
    def used(self) -> int:
        """The bytes of all values kept, as their sizes were given."""
        return self._used

    def __len__(self) -> int:
        return len(self._entries)
