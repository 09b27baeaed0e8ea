"""The system metrics of a job as the data provider answers them: typed values, no JSON.

:func:`list_system` is what a run records (each metric once, with its unit and how many
writer files record it); :func:`read_system` gives, per metric asked, per role, the bands
over ranks on a time grid (:mod:`visualdl._index.systembands`) and, for a rank asked,
its own line. A metric is named ``scope/name`` (``host/memory_used``, ``gpu/utilization``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from visualdl._index.downsample import downsample
from visualdl._index.index import Index
from visualdl._index.systembands import Member, RoleBands, on_grid, role_bands, stale_after, time_grid
from visualdl.errors import NotFound

__all__ = ["SystemBands", "SystemLine", "SystemMetricInfo", "list_system", "read_system", "read_system_members"]

#: The order metrics are listed in: the process's, the host's, the GPUs'.
_SCOPE_ORDER = {"process": 0, "host": 1, "gpu": 2}


@dataclass(frozen=True, slots=True)
class SystemMetricInfo:
    metric: str  # "scope/name"
    scope: str
    name: str
    unit: str
    writers: int  # writer files recording it


@dataclass(frozen=True, slots=True)
class SystemLine:
    """One member's own samples (downsampled to the points asked, extremes kept)."""

    role: str
    rank: int
    gpu: int
    host: str
    wall_times: np.ndarray
    values: np.ndarray


@dataclass(frozen=True, slots=True)
class SystemBands:
    """One metric: its grid ``times`` and per role its bands; ``lines`` for the rank asked."""

    metric: str
    scope: str
    name: str
    unit: str
    times: np.ndarray
    roles: tuple[RoleBands, ...]
    lines: tuple[SystemLine, ...]


def list_system(reader: Index, run: str) -> tuple[SystemMetricInfo, ...]:
    found = reader.system_catalog(run)
    infos = [SystemMetricInfo(f"{s}/{n}", s, n, u, count) for (s, n, u), count in found.items()]
    return tuple(sorted(infos, key=lambda i: (_SCOPE_ORDER.get(i.scope, 3), i.name, i.unit)))


def _bands(
    metric: SystemMetricInfo, members: list[Member], role: str | None, rank: int | None, points: int
) -> SystemBands:
    if role is not None:
        members = [m for m in members if m.role == role]
    grid = time_grid(members, points)
    stale = stale_after(members, grid)
    roles = sorted({m.role for m in members}, key=lambda r: (r != "trainer", r))
    bands = []
    for r in roles:
        of_role = [m for m in members if m.role == r]
        bands.append(role_bands(r, of_role, on_grid(of_role, grid, stale)))
    lines = []
    if rank is not None:
        for m in members:
            if m.rank == rank:
                keep = downsample(m.wall_times, m.values, max(points, 4))
                lines.append(SystemLine(m.role, m.rank, m.gpu, m.host, m.wall_times[keep], m.values[keep]))
    return SystemBands(metric.metric, metric.scope, metric.name, metric.unit, grid, tuple(bands), tuple(lines))


def read_system(
    reader: Index,
    run: str,
    *,
    metrics: tuple[str, ...] = (),
    role: str | None = None,
    rank: int | None = None,
    points: int = 200,
) -> tuple[SystemBands, ...]:
    """The bands of ``metrics`` (all of the run's when empty) over the ranks of each role
    (of ``role`` only, when given), and ``rank``'s own lines. :class:`NotFound` names a
    metric the run does not record."""
    known = {i.metric: i for i in list_system(reader, run)}
    missing = [m for m in metrics if m not in known]
    if missing:
        raise NotFound(f"run {run!r} records no system metric {missing[0]!r}; it records {sorted(known)!r}")
    out = []
    for name in metrics or tuple(known):
        info = known[name]
        members = [m for m in reader.system_members(run, info.scope, info.name) if m.unit == info.unit]
        out.append(_bands(info, members, role, rank, points))
    return tuple(out)


def read_system_members(reader: Index, run: str) -> dict[tuple[str, str, str], list[Member]]:
    """Every series of every system metric of ``run``: ``(scope, name, unit) -> members``."""
    return {
        (info.scope, info.name, info.unit): [
            m for m in reader.system_members(run, info.scope, info.name) if m.unit == info.unit
        ]
        for info in list_system(reader, run)
    }
