"""What the index keeps of the system metrics of each writer file, apart from the user's tags.

A file's :class:`SystemStore` takes the samples its decoder read (:func:`take_system`, on
each read round) as tables of samples x metrics, one per declaration of the writer's
columns, and gives them back per metric (:class:`SystemSeries`: name, scope, GPU, unit,
wall times and values arrays), joined once when asked. :func:`last_host_memory` is the
last sample of the host's memory: what a writer's process saw last before it ended.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from visualdl._index.ends import HostMemory
from visualdl._index.systembands import Member
from visualdl._kinds.table import SystemBatch, SystemMetric

__all__ = [
    "HostMemory",
    "SystemSeries",
    "SystemStore",
    "WriterSystem",
    "last_host_memory",
    "metric_catalog",
    "metric_members",
    "take_system",
    "writer_systems",
]


@dataclass(frozen=True, slots=True)
class SystemSeries:
    """One metric of one writer: ``values[i]`` at ``wall_times[i]`` (NaN: not measured)."""

    name: str
    scope: str  # "process", "host" or "gpu"
    unit: str
    gpu: int  # the GPU's NVML index; -1 for other scopes
    gpu_name: str
    gpu_uuid: str
    wall_times: np.ndarray
    values: np.ndarray


@dataclass(frozen=True, slots=True)
class WriterSystem:
    """The system metrics of one writer file, with who wrote it and what its sampler skipped."""

    path: str
    role: str
    rank: int
    local_rank: int
    attempt: int
    host: str
    pid: int
    metrics: tuple[SystemSeries, ...]
    skipped: tuple[str, ...]


_KEYS: dict[frozenset[tuple[str, str, str]], frozenset[tuple[str, str, str]]] = {}
_MAX_KEYS = 4096


def _interned(keys: frozenset[tuple[str, str, str]]) -> frozenset[tuple[str, str, str]]:
    """One object for the files declaring the same metrics: a run's catalog counts them at once."""
    found = _KEYS.get(keys)
    if found is not None:
        return found
    if len(_KEYS) < _MAX_KEYS:
        _KEYS[keys] = keys
    return keys


class _Table:
    """The samples of one declaration of columns: wall times, and values a row per metric
    (metrics x samples, so that one metric is contiguous), in chunks until joined."""

    __slots__ = ("metrics", "where", "walls", "values", "ordered")

    def __init__(self, metrics: tuple[SystemMetric, ...]) -> None:
        self.metrics = metrics
        self.where: dict[tuple[str, str], list[int]] = {}  # (scope, name) -> rows
        for j, m in enumerate(metrics):
            self.where.setdefault((m.scope, m.name), []).append(j)
        self.walls: list[np.ndarray] = []
        self.values: list[np.ndarray] = []
        self.ordered = False  # the joined wall times ascend

    def joined(self) -> tuple[np.ndarray, np.ndarray]:
        if len(self.walls) > 1 or not self.values[0].flags.c_contiguous:  # joined once, kept joined
            self.walls[:] = [np.concatenate(self.walls)]
            self.values[:] = [np.ascontiguousarray(np.concatenate(self.values, axis=1))]
            walls = self.walls[0]
            self.ordered = walls.size < 2 or bool((walls[1:] >= walls[:-1]).all())
        return self.walls[0], self.values[0]


class SystemStore:
    """The samples of one file: a :class:`_Table` per declaration of columns."""

    __slots__ = ("_tables", "skipped", "samples", "keys", "last_wall", "_last", "_last_table")

    def __init__(self) -> None:
        self._tables: dict[tuple[SystemMetric, ...], _Table] = {}
        self.skipped: list[str] = []
        self.samples = 0
        #: ``(scope, name, unit)`` of every metric declared (one frozenset, shared by files alike).
        self.keys: frozenset[tuple[str, str, str]] = frozenset()
        #: The latest finite wall time of a sample: a sign of the writer's life (-inf: none).
        self.last_wall = -math.inf
        # the last batch's columns (a decoder passes the same tuple on) and their table
        self._last: tuple[SystemMetric, ...] | None = None
        self._last_table: _Table | None = None

    def add(self, batches: list[SystemBatch]) -> None:
        for b in batches:
            self.skipped.extend(s for s in b.skipped if s not in self.skipped)
            if not b.wall_times.size:
                continue
            table = self._tables.get(b.metrics) if b.metrics is not self._last else self._last_table
            if table is None:
                table = self._tables[b.metrics] = _Table(b.metrics)
                self.keys = _interned(self.keys | {(m.scope, m.name, m.unit) for m in b.metrics})
            self._last, self._last_table = b.metrics, table
            table.walls.append(b.wall_times)
            table.values.append(b.values.T)
            self.samples += int(b.wall_times.size)
            finite = b.wall_times[np.isfinite(b.wall_times)]
            if finite.size:
                self.last_wall = max(self.last_wall, float(finite.max()))

    def series(self) -> list[SystemSeries]:
        """Each metric's samples over the file, in time order."""
        keys: dict[tuple[str, str], None] = {}
        for table in self._tables.values():
            keys.update(dict.fromkeys(table.where))
        out = []
        for scope, name in keys:
            for m, walls, values in self.column(scope, name):
                out.append(SystemSeries(m.name, m.scope, m.unit, m.gpu, m.gpu_name, m.gpu_uuid, walls, values))
        return out

    def column(self, scope: str, name: str) -> list[tuple[SystemMetric, np.ndarray, np.ndarray]]:
        """Each metric of ``scope`` and ``name`` (one per GPU for scope gpu): wall times and
        values, in time order; the values a row of the joined table, no copy."""
        if len(self._tables) == 1:  # the usual file: one declaration, in time order
            (table,) = self._tables.values()
            rows = table.where.get((scope, name))
            if rows is None:
                return []
            walls, values = table.joined()
            if table.ordered:
                return [(table.metrics[j], walls, values[j]) for j in rows]
        found: dict[SystemMetric, tuple[list[np.ndarray], list[np.ndarray]]] = {}
        for table in self._tables.values():
            rows = table.where.get((scope, name))
            if rows is None:
                continue
            walls, values = table.joined()
            for j in rows:
                w, v = found.setdefault(table.metrics[j], ([], []))
                w.append(walls)
                v.append(values[j])
        out = []
        for m, (w, v) in found.items():
            if len(w) == 1 and (w[0].size < 2 or bool((w[0][1:] >= w[0][:-1]).all())):
                out.append((m, w[0], v[0]))
                continue
            walls, values = np.concatenate(w), np.concatenate(v)
            order = np.argsort(walls, kind="stable")
            out.append((m, walls[order], values[order]))
        return out

    def last_host_memory(self) -> HostMemory | None:
        """The newest sample of the host's memory."""
        best: HostMemory | None = None
        for walls, used, available, total in self.host_memory_samples():
            if walls.size:
                i = int(np.argmax(walls))
                if best is None or walls[i] > best.wall_time:
                    best = HostMemory(float(walls[i]), float(used[i]), float(available[i]), float(total[i]))
        return best

    def host_memory_samples(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """Per table holding the host's memory: its wall times, and the memory used,
        available and total (bytes; NaN where a table lacks one), no copy of a present column."""
        out = []
        for table in self._tables.values():
            if ("host", "memory_used") not in table.where:
                continue
            walls, values = table.joined()
            nan = np.full(walls.shape, np.nan)
            used, available, total = (
                values[table.where[("host", name)][0]] if ("host", name) in table.where else nan
                for name in ("memory_used", "memory_available", "memory_total")
            )
            out.append((walls, used, available, total))
        return out


def take_system(system: dict[str, SystemStore], path: str, decoder: Any) -> None:
    """Move the samples a file's decoder read into its store (under the index's lock)."""
    batches = getattr(decoder, "system", None)
    if batches:
        store = system.get(path)
        if store is None:
            store = system[path] = SystemStore()
        store.add(batches)
        batches.clear()


def last_host_memory(store: SystemStore | None) -> HostMemory | None:
    """The last host-memory sample of a file's store (None: it has none)."""
    return store.last_host_memory() if store is not None else None


def writer_systems(files: dict[str, Any], stores: dict[str, SystemStore]) -> list[WriterSystem]:
    """Per file of a run that has system samples or notes (``files``: path -> LogFile), its metrics."""
    out = []
    for path, store in sorted(stores.items()):
        logfile = files.get(path)
        h = getattr(logfile, "header", None)
        if h is None:
            continue
        out.append(
            WriterSystem(
                path,
                h.role,
                h.rank,
                h.local_rank,
                h.attempt,
                h.host,
                h.pid,
                tuple(store.series()),
                tuple(store.skipped),
            )
        )
    return out


def metric_catalog(files: dict[str, Any], stores: dict[str, SystemStore]) -> dict[tuple[str, str, str], int]:
    """``(scope, name, unit) -> writer files`` recording it, over a run's stores (no arrays joined)."""
    alike: dict[int, tuple[frozenset[tuple[str, str, str]], int]] = {}  # files of the same metrics at once
    for path, store in stores.items():
        if getattr(files.get(path), "header", None) is not None:
            keys = store.keys
            alike[id(keys)] = (keys, alike.get(id(keys), (keys, 0))[1] + 1)
    out: dict[tuple[str, str, str], int] = {}
    for keys, count in alike.values():
        for key in keys:
            out[key] = out.get(key, 0) + count
    return out


def metric_members(files: dict[str, Any], stores: dict[str, SystemStore], scope: str, name: str) -> list[Member]:
    """Every series of the metric ``scope``/``name`` in a run: one per writer file (and GPU),
    sorted by role, rank, GPU; with its unit, the most common one."""
    out = []
    for path, store in stores.items():
        h = getattr(files.get(path), "header", None)
        if h is None:
            continue
        for m, walls, values in store.column(scope, name):
            out.append(Member(h.role, int(h.rank), m.gpu, h.host, walls, values, m.unit))
    out.sort(key=lambda x: (x.role, x.rank, x.gpu))
    return out
