"""Rank x time heatmaps of a job: one row per rank of a role, one column per cell of the job's
time grid, a value per cell (throughput, or any metric that gives such a matrix). Pure.

A metric gives a :class:`HeatmapMatrix`: row labels (ranks, ascending), the time grid's
edges, a ``rows x columns`` matrix (NaN: no value there) and the overlays (restarts and
process ends, by row and time); ``/api/job/heatmap``'s view sends it as bytes.

A metric plugs in with one entry of :data:`METRICS`: a function ``(source, run, role,
now) -> HeatmapMatrix`` (the source is the data provider, :class:`JobData`); the system
metrics of :data:`SYSTEM_HEATMAPS` do so through :func:`system_heatmap` (the mean of a
rank's samples in each cell, :func:`system_matrix`). It gets the job's grid and overlays
from :func:`job_grid` and :func:`overlays` (so every metric's columns and markers line up
with the job overview) and fills the matrix its own way; :func:`throughput_heatmap` is the
first.

*Throughput* of a rank in a cell is the steps it made there over the seconds it was
observed making them: along the progress trace of each of its files (``(wall time,
highest step)`` entries, as the job page reads them), the step reached is interpolated
at the cell's edges clipped to the trace's span; a rank's files (restarts) add their
steps and seconds. No trace inside a cell: no value.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from visualdl._index.systembands import Member
from visualdl._jobs.overview import WriterState, file_spans, time_grid
from visualdl._jobs.progress import FileProgress, by_place, role_order
from visualdl.errors import NotFound

__all__ = [
    "GRID",
    "METRICS",
    "HeatmapMatrix",
    "JobGrid",
    "Overlays",
    "JobData",
    "job_grid",
    "overlays",
    "system_matrix",
    "throughput_heatmap",
    "throughput_matrix",
]

#: Edges of the job's time grid (as the job page's ``times``): GRID - 1 cells.
GRID = 240
#: Trace lookups per block (files x edges) of the throughput matrix: its memory stays bounded.
BLOCK_CELLS = 1 << 20


class JobData(Protocol):
    """What a heatmap reads (the :class:`~visualdl.server._provider.DataProvider`)."""

    def read_job(self, *, run: str) -> Sequence[FileProgress]: ...

    def read_system_metric(self, *, run: str, scope: str, name: str) -> Sequence[Member]: ...


@dataclass(frozen=True, slots=True)
class Overlays:
    """Markers over the heatmap, column-wise: the row (index into the rows), the wall time, the
    kind (``restart``: a later attempt of the rank started; ``end``: one of its files ended) and
    a sentence for the hover."""

    row: list[int]
    time: list[float]
    kind: list[str]
    text: list[str]


@dataclass(frozen=True, slots=True)
class HeatmapMatrix:
    """What a metric gives: the role drawn, row labels (its ranks, ascending), the grid's edges
    (columns + 1 wall times), the ``rows x columns`` values (NaN: none), the overlays and the
    values' unit."""

    role: str
    rows: list[int]
    times: np.ndarray
    matrix: np.ndarray
    overlays: Overlays
    unit: str


@dataclass(frozen=True, slots=True)
class JobGrid:
    """The job's files (sorted by role, rank, attempt, start), their writers as the job page
    lists them (state, start and end times), and the job's time grid."""

    files: list[FileProgress]
    writers: list[WriterState]
    times: np.ndarray

    def roles(self) -> list[str]:
        """The roles of ranked writers, trainers first."""
        return sorted({f[0].role for f in self.files if f[0].rank >= 0}, key=role_order)

    def members(self, role: str) -> list[int]:
        """Indices of the ranked files of ``role`` (sorted by rank, attempt)."""
        return [i for i, f in enumerate(self.files) if f[0].role == role and f[0].rank >= 0]


def job_grid(progress: Sequence[FileProgress], *, now: float, silent_after: float = 60.0, grid: int = GRID) -> JobGrid:
    """The job's files, writers and time grid, as the job overview computes them."""
    files = by_place(progress)
    writers, starts, ends = file_spans(files, now, silent_after)
    return JobGrid(files, writers, time_grid(starts, ends, now, grid))


def overlays(grid: JobGrid, role: str, rows: list[int]) -> Overlays:
    """The restarts (a later attempt's start) and file ends (not of running files) of ``role``'s
    ranks, on their rows."""
    row_of = {rank: i for i, rank in enumerate(rows)}
    out = Overlays([], [], [], [])
    seen: set[int] = set()
    for i in grid.members(role):
        w = grid.writers[i]
        row = row_of.get(w.rank)
        if row is None:
            continue
        attempt = "—" if w.attempt < 0 else str(w.attempt)
        if row in seen and math.isfinite(w.start_time):
            out.row.append(row)
            out.time.append(float(w.start_time))
            out.kind.append("restart")
            out.text.append(f"attempt {attempt} started")
        seen.add(row)
        if w.state != "running" and math.isfinite(w.end_time):
            out.row.append(row)
            out.time.append(float(w.end_time))
            out.kind.append("end")
            out.text.append(f"attempt {attempt} {_how(w)}")
    return out


def _how(w: WriterState) -> str:
    """How a file ended, for a marker's hover: ``raised OSError``, ``ended by SIGTERM``."""
    ended = w.ended
    if ended is None:
        return "killed without a trace" if w.state == "killed" else w.state
    if ended.how == "exception":
        return f"raised {ended.exception_type}"
    if ended.how == "signal":
        return f"ended by {ended.signal}"
    if ended.how == "killed":  # inferred: no end record
        return f"killed ({ended.cause})" if ended.cause else "killed without a trace"
    return ended.how


def throughput_matrix(
    files: Sequence[FileProgress], members: list[int], edges: np.ndarray
) -> tuple[list[int], np.ndarray]:
    """Steps per second of each rank of the files ``members`` in each cell between ``edges``
    (see the module docstring): the ranks, ascending, and the ``ranks x (edges - 1)`` matrix."""
    ranks = sorted({files[i][0].rank for i in members})
    row_of = {rank: r for r, rank in enumerate(ranks)}
    cells = edges.size - 1
    steps_done = np.zeros((len(ranks), max(cells, 0)))
    seconds = np.zeros((len(ranks), max(cells, 0)))
    traced = []
    for i in members:  # per file, not per point: its trace's finite entries
        walls, steps = files[i][1], files[i][2]
        ok = np.isfinite(walls)
        if int(ok.sum()) >= 2:
            traced.append((row_of[files[i][0].rank], walls[ok], steps[ok].astype(np.float64)))
    block = max(1, BLOCK_CELLS // max(1, edges.size))
    for b0 in range(0, len(traced), block):  # a block of files at a time
        part = traced[b0 : b0 + block]
        rows = np.array([p[0] for p in part])  # ascending: the files are sorted by rank
        done, secs = _interpolated(part, edges)
        first = np.flatnonzero(np.concatenate(([True], rows[1:] != rows[:-1])))  # a rank's files together
        if first.size < rows.size:  # restarts: a rank's attempts add up
            done, secs = np.add.reduceat(done, first, axis=0), np.add.reduceat(secs, first, axis=0)
        steps_done[rows[first]] += done
        seconds[rows[first]] += secs
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(seconds > 0, steps_done / seconds, np.nan)
    return ranks, rate


def _interpolated(part: list[tuple[int, np.ndarray, np.ndarray]], edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per file of ``part``, the steps made and the seconds observed in each cell: its trace
    interpolated at the edges clipped to the trace's span, all files in one search."""
    sizes = np.array([p[1].size for p in part])
    off = np.concatenate(([0], np.cumsum(sizes)))
    walls = np.concatenate([p[1] for p in part])
    steps = np.concatenate([p[2] for p in part])
    file_of = np.repeat(np.arange(len(part)), sizes)
    base = float(min(walls.min(), edges[0]))
    span = float(max(walls.max(), edges[-1]) - base) + 1.0
    # One sorted key over all files (file, then time); a trace's times made non-decreasing.
    keys = np.maximum.accumulate(file_of * span + (walls - base))
    lo, hi = walls[off[:-1]], walls[off[1:] - 1]
    t = np.clip(edges[None, :], lo[:, None], hi[:, None])  # files x edges
    q = np.arange(len(part))[:, None] * span + (t - base)
    pos = np.searchsorted(keys, q, side="right") - 1
    pos = np.clip(pos, off[:-1, None], off[1:, None] - 2)
    k0, k1 = keys[pos], keys[pos + 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(k1 > k0, (q - k0) / (k1 - k0), 0.0)
    reached = steps[pos] + np.clip(frac, 0.0, 1.0) * (steps[pos + 1] - steps[pos])
    return np.diff(reached, axis=1), np.diff(t, axis=1)


def _role(grid: JobGrid, role: str | None, run: str) -> str:
    roles = grid.roles()
    if role is None and roles:
        return roles[0]
    if role not in roles:
        have = ", ".join(repr(r) for r in roles) or "none"
        raise NotFound(f"run {run!r} has no ranked writer with role {role!r}; its roles: {have}")
    return role


def throughput_heatmap(source: JobData, run: str, role: str | None, now: float) -> HeatmapMatrix:
    """Steps per second of each rank of ``role`` over the job's time grid."""
    grid = job_grid(source.read_job(run=run), now=now)
    role = _role(grid, role, run)
    rows, matrix = throughput_matrix(grid.files, grid.members(role), grid.times)
    return HeatmapMatrix(role, rows, grid.times, matrix, overlays(grid, role, rows), "steps/s")


#: A heatmap's metric: ``(source, run, role or None for the first, now) -> matrix``.
Metric = Callable[[JobData, str, str | None, float], HeatmapMatrix]


def system_matrix(
    rows: list[int], hosts: dict[int, str], members: Sequence[Member], scope: str, edges: np.ndarray
) -> np.ndarray:
    """Per row (rank) and cell of the grid ``edges``: the mean of the rank's samples of a
    system metric in that cell (its GPUs' mean for scope ``gpu``; for scope ``host``, those
    of the host the rank ran on). NaN where none. One ``bincount`` over every sample."""
    row_of = {rank: i for i, rank in enumerate(rows)}
    cols = edges.size - 1
    picked: list[tuple[int, Member]] = []
    if scope == "host":
        by_host: dict[str, list[int]] = {}
        for rank, host in hosts.items():
            by_host.setdefault(host, []).append(row_of[rank])
        picked = [(r, m) for m in members for r in by_host.get(m.host, [])]
    else:
        picked = [(row_of[m.rank], m) for m in members if m.rank in row_of]
    if not picked or cols < 1:
        return np.full((len(rows), max(cols, 0)), np.nan)
    sizes = np.fromiter((m.wall_times.size for _, m in picked), np.int64, len(picked))
    walls = np.concatenate([m.wall_times for _, m in picked])
    values = np.concatenate([m.values for _, m in picked])
    row = np.repeat(np.fromiter((r for r, _ in picked), np.int64, len(picked)), sizes)
    cell = np.searchsorted(edges, walls, side="right") - 1
    keep = (cell >= 0) & (cell < cols) & np.isfinite(values)
    key = row[keep] * cols + cell[keep]
    sums = np.bincount(key, weights=values[keep], minlength=len(rows) * cols)
    counts = np.bincount(key, minlength=len(rows) * cols)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan).reshape(len(rows), cols)


def system_heatmap(scope: str, name: str) -> Metric:
    """The heatmap of one system metric (``scope/name``) per rank of a role."""

    def build(source: JobData, run: str, role: str | None, now: float) -> HeatmapMatrix:
        grid = job_grid(source.read_job(run=run), now=now)
        role = _role(grid, role, run)
        members = source.read_system_metric(run=run, scope=scope, name=name)
        if not members:
            raise NotFound(f"run {run!r} records no system metric {scope}/{name} (see /api/job's system)")
        files = [grid.files[i][0] for i in grid.members(role)]
        rows = sorted({f.rank for f in files})
        hosts = {f.rank: f.host for f in files}
        of_role = [m for m in members if scope == "host" or m.role == role]
        matrix = system_matrix(rows, hosts, of_role, scope, grid.times)
        return HeatmapMatrix(role, rows, grid.times, matrix, overlays(grid, role, rows), members[0].unit)

    return build


#: The system metrics a heatmap can be drawn of (each when the job records it).
SYSTEM_HEATMAPS = (
    ("gpu", "utilization"),
    ("gpu", "memory_used"),
    ("process", "cpu_user"),
    ("process", "rss"),
    ("host", "cpu"),
    ("host", "memory_used"),
)

#: The metrics a heatmap is drawn of, by the name the route takes (``metric=``).
METRICS: dict[str, Metric] = {
    "steps_per_second": throughput_heatmap,
    **{f"{scope}/{name}": system_heatmap(scope, name) for scope, name in SYSTEM_HEATMAPS},
}
