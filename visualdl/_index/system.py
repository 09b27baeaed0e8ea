"""What the index keeps of the system metrics of each writer file, apart from the user's tags.

A file's :class:`SystemStore` takes the samples its decoder read (:func:`take_system`, on
each read round) as tables of samples x metrics, one per declaration of the writer's
columns, and gives them back per metric (:class:`SystemSeries`: name, scope, GPU, unit,
wall times and values arrays), joined once when asked. :func:`last_host_memory` is the
last sample of the host's memory: what a writer's process saw last before it ended.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from visualdl._kinds.table import SystemBatch, SystemMetric

__all__ = [
    "HostMemory",
    "SystemSeries",
    "SystemStore",
    "WriterSystem",
    "last_host_memory",
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


@dataclass(frozen=True, slots=True)
class HostMemory:
    """The host's memory in bytes at ``wall_time``, as a writer's sampler saw it last."""

    wall_time: float
    used: float
    available: float
    total: float


class SystemStore:
    """The samples of one file: per declaration of columns, chunks of wall times and values."""

    __slots__ = ("_tables", "skipped", "samples")

    def __init__(self) -> None:
        self._tables: dict[tuple[SystemMetric, ...], tuple[list[np.ndarray], list[np.ndarray]]] = {}
        self.skipped: list[str] = []
        self.samples = 0

    def add(self, batches: list[SystemBatch]) -> None:
        for b in batches:
            self.skipped.extend(s for s in b.skipped if s not in self.skipped)
            if not b.wall_times.size:
                continue
            walls, values = self._tables.setdefault(b.metrics, ([], []))
            walls.append(b.wall_times)
            values.append(b.values)
            self.samples += int(b.wall_times.size)

    def _joined(self) -> list[tuple[tuple[SystemMetric, ...], np.ndarray, np.ndarray]]:
        out = []
        for metrics, (walls, values) in self._tables.items():
            if len(walls) > 1:  # joined once, kept joined
                walls[:] = [np.concatenate(walls)]
                values[:] = [np.concatenate(values)]
            out.append((metrics, walls[0], values[0]))
        return out

    def series(self) -> list[SystemSeries]:
        """Each metric's samples over the file, in time order."""
        parts: dict[SystemMetric, tuple[list[np.ndarray], list[np.ndarray]]] = {}
        for metrics, walls, values in self._joined():
            for j, m in enumerate(metrics):
                w, v = parts.setdefault(m, ([], []))
                w.append(walls)
                v.append(values[:, j])
        out = []
        for m, (w, v) in parts.items():
            walls = np.concatenate(w) if len(w) > 1 else w[0]
            values = np.concatenate(v) if len(v) > 1 else np.ascontiguousarray(v[0])
            if len(w) > 1 or (walls.size > 1 and np.any(np.diff(walls) < 0)):
                order = np.argsort(walls, kind="stable")
                walls, values = walls[order], values[order]
            out.append(SystemSeries(m.name, m.scope, m.unit, m.gpu, m.gpu_name, m.gpu_uuid, walls, values))
        return out

    def last_host_memory(self) -> HostMemory | None:
        best: HostMemory | None = None
        for metrics, walls, values in self._joined():
            at = {m.name: j for j, m in enumerate(metrics) if m.scope == "host"}
            if "memory_used" not in at or not walls.size:
                continue
            i = int(np.argmax(walls))
            used, available, total = (
                float(values[i, at[name]]) if name in at else float("nan")
                for name in ("memory_used", "memory_available", "memory_total")
            )
            memory = HostMemory(float(walls[i]), used, available, total)
            if best is None or memory.wall_time > best.wall_time:
                best = memory
        return best


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
