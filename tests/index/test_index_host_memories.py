"""The host-memory samples an inferred kill looks at (``_index/writers.py``): gathered per
host from every file's samples, the lowest in a window found by a search."""

from __future__ import annotations

import numpy as np

from visualdl._index.system import SystemStore
from visualdl._index.writers import HostMemories
from visualdl._kinds.system_metrics import SystemBatch, SystemMetric

HOST = tuple(SystemMetric(n, "host", "bytes") for n in ("memory_used", "memory_available", "memory_total"))
PROC = (SystemMetric("rss", "process", "bytes"),)


def _store(walls, available, metrics=HOST):
    store = SystemStore()
    walls = np.asarray(walls, float)
    if metrics is HOST:
        values = np.stack([100.0 - np.asarray(available, float), available, np.full(walls.size, 100.0)], axis=1)
    else:
        values = np.ones((walls.size, len(metrics)))
    store.add([SystemBatch(metrics, walls, values)])
    return store


def _available(memory):
    assert memory is not None
    return memory.available


def test_host_memories_lowest_in_the_window_of_any_file_of_the_host():
    memories = HostMemories(
        [
            ("a", _store([10, 20, 30], [50, 40, 5])),
            ("a", _store([15, 25], [30, np.nan])),  # NaN available: never the lowest
            ("b", _store([20], [1])),  # another host
            ("a", _store([12], [0], metrics=PROC)),  # no host memory
        ]
    )
    low = memories.lowest("a", 10, 25)
    assert low is not None
    assert (low.wall_time, low.available, low.used, low.total) == (15.0, 30.0, 70.0, 100.0)
    assert _available(memories.lowest("a", 10, 30)) == 5.0  # the window's ends included
    assert memories.lowest("a", 31, 99) is None
    assert _available(memories.lowest("b", 0, 99)) == 1.0
    assert memories.lowest("c", 0, 99) is None


def test_host_memories_agree_with_a_scan_of_every_sample():
    rng = np.random.default_rng(3)
    stores, rows = [], []
    for f in range(40):
        walls = np.sort(rng.uniform(0, 1000, 30))
        available = rng.uniform(0, 100, 30)
        stores.append((f"h{f % 3}", _store(walls, available)))
        rows += [(f"h{f % 3}", w, a) for w, a in zip(walls, available, strict=True)]
    memories = HostMemories(stores)
    for host, start in [("h0", 100.0), ("h1", 500.0), ("h2", 900.0)]:
        inside = [(a, w) for h, w, a in rows if h == host and start <= w <= start + 65]
        low = memories.lowest(host, start, start + 65)
        assert low is not None
        assert (low.available, low.wall_time) == min(inside)
