"""Why each straggler is slow: the system metric that sets it apart from its role. Pure.

For each straggler of the job overview (:mod:`.overview`: a place whose recent throughput is below
80% of its role's median), and each system metric the job records (:mod:`visualdl._index.system`),
over its role's *window* (the time when at least half of the role's places were alive, at
least two: the straggler is compared with the others at the same time, not with their
absence; the whole job when there is no such time):

* a writer's value is the mean of its samples in the window (a GPU's, for scope ``gpu``:
  the straggler's GPUs; a host's, for scope ``host``, the host the straggler ran on);
* the role's median is the median of those values over the role's writers (for ``host``:
  over the hosts the role ran on);
* the *deviation* is the difference from the median in robust units: divided by the
  larger of 1.4826 x the median absolute deviation and 10% of the median's magnitude (so a
  metric every writer holds at the same value, where any difference is "infinite" in MADs,
  still needs a 10% difference to count; and, for a percentage, 5 points), and a metric
  counts only when it differs from the median by 20% or more and by 2 such units or more.

The straggler's *causes* are its most deviating metric of its own (process or GPU) and its
host's most deviating metric, each when one deviates ("trainer 7: GPU utilisation 35% where
the median is 92%; its host's CPU 100% where the median is 40%"). A straggler with no metric
that deviates is said to be so ("nothing in its system metrics sets it apart").

The means are one vectorised pass per metric over every writer's samples (a ``bincount``
over the concatenated samples), so 10,000 writers cost a few numpy calls per metric.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from visualdl._index.systembands import Member
from visualdl._jobs.overview import JobOverview

__all__ = ["MIN_RELATIVE", "Cause", "Straggler", "StragglerReport", "explain", "job_stragglers", "role_windows"]

#: ``(scope, name, unit) -> every writer's series of that system metric``.
Metrics = Mapping[tuple[str, str, str], Sequence[Member]]

#: A metric counts when the straggler's value differs from the median by this much (relative)
#: and by this many robust units.
MIN_RELATIVE = 0.2
MIN_DEVIATION = 2.0
_MAD_SCALE = 1.4826
_FLOOR = 0.1  # of the median's magnitude: the smallest spread a deviation is measured in

_LABELS = {
    ("process", "cpu_user"): "process CPU (user)",
    ("process", "cpu_system"): "process CPU (system)",
    ("process", "rss"): "process memory (RSS)",
    ("process", "threads"): "process threads",
    ("host", "cpu"): "host's CPU",
    ("host", "memory_used"): "host's memory used",
    ("host", "memory_available"): "host's memory available",
    ("host", "load_1m"): "host's load",
    ("host", "disk_read"): "host's disk reads",
    ("host", "disk_write"): "host's disk writes",
    ("host", "net_sent"): "host's network sent",
    ("host", "net_recv"): "host's network received",
    ("gpu", "utilization"): "GPU utilisation",
    ("gpu", "memory_used"): "GPU memory used",
    ("gpu", "power"): "GPU power",
    ("gpu", "temperature"): "GPU temperature",
    ("gpu", "sm_clock"): "GPU SM clock",
}


@dataclass(frozen=True, slots=True)
class Cause:
    """One metric of a straggler against its role's median over the window."""

    scope: str
    name: str
    unit: str
    value: float
    median: float
    deviation: float  # in robust units (see the module docstring), signed

    @property
    def label(self) -> str:
        return _LABELS.get((self.scope, self.name), f"{self.scope} {self.name.replace('_', ' ')}")

    def text(self) -> str:
        return f"{self.label} {_fmt(self.value, self.unit)} where the median is {_fmt(self.median, self.unit)}"


def _fmt(x: float, unit: str) -> str:
    if not math.isfinite(x):
        return str(x)
    if unit == "percent":
        return f"{x:.0f}%"
    if unit in ("bytes", "bytes/s"):
        size = abs(x)
        for suffix, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
            if size >= scale:
                return f"{x / scale:.1f} {suffix}" + ("/s" if unit == "bytes/s" else "")
        return f"{x:.0f} B" + ("/s" if unit == "bytes/s" else "")
    text = f"{x:.3g}"
    return f"{text} {unit}" if unit and unit not in ("count", "bitmask") else text


def _finite_mean(values: list[float]) -> float:
    """The mean of the finite ``values`` (a place's writers: its GPUs, its attempts); NaN: none."""
    real = [v for v in values if math.isfinite(v)]
    return sum(real) / len(real) if real else math.nan


def _window_means(members: Sequence[Member], start: float, stop: float) -> np.ndarray:
    """Each member's mean value over its finite samples in [start, stop] (NaN: none)."""
    if not members:
        return np.empty(0)
    sizes = np.fromiter((m.wall_times.size for m in members), np.int64, len(members))
    walls = np.concatenate([m.wall_times for m in members]) if sizes.sum() else np.empty(0)
    values = np.concatenate([m.values for m in members]) if sizes.sum() else np.empty(0)
    owner = np.repeat(np.arange(len(members)), sizes)
    inside = (walls >= start) & (walls <= stop) & np.isfinite(values)
    sums = np.bincount(owner[inside], weights=values[inside], minlength=len(members))
    counts = np.bincount(owner[inside], minlength=len(members))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


#: The smallest spread of a metric in percent, in points: 1% against 2% of a CPU is noise.
_PERCENT_FLOOR = 5.0


def _spread(population: np.ndarray, unit: str = "") -> tuple[float, float] | None:
    """``(median, robust spread)`` of ``population``'s finite values (None: fewer than two)."""
    real = population[np.isfinite(population)]
    if real.size < 2:
        return None
    median = float(np.median(real))
    floor = _PERCENT_FLOOR if unit == "percent" else 1e-12
    return median, max(_MAD_SCALE * float(np.median(np.abs(real - median))), _FLOOR * abs(median), floor)


def _deviation(value: float, stats: tuple[float, float] | None) -> tuple[float, float]:
    """``(median, signed deviation in robust units)`` of ``value`` against ``stats``."""
    if stats is None or not math.isfinite(value):
        return math.nan, 0.0
    median, spread = stats
    deviation = (value - median) / spread
    if abs(value - median) < MIN_RELATIVE * max(abs(median), 1e-12) or abs(deviation) < MIN_DEVIATION:
        return median, 0.0
    return median, deviation


def explain(
    stragglers: Mapping[str, Sequence[int]],
    hosts: Mapping[tuple[str, int], str],
    metrics: Metrics,
    windows: Mapping[str, tuple[float, float]],
) -> list[Straggler]:
    """Per straggler (``role -> ranks``, ``hosts[(role, rank)]`` its host, ``windows[role]``
    the wall times its role is compared over), its causes: its own most deviating metric
    and its host's, each when one deviates."""
    wanted = [(role, rank) for role, ranks in stragglers.items() for rank in ranks]
    if not wanted:
        return []
    found: dict[tuple[str, int], list[Cause]] = {place: [] for place in wanted}
    role_hosts = {role: {h for (r, _), h in hosts.items() if r == role} for role in {r for r, _ in wanted}}
    for (scope, name, unit), members in metrics.items():
        by_window = {w: _window_means(members, *w) for w in {windows[role] for role, _ in wanted}}
        roles = np.array([m.role for m in members], object)
        ranks = np.fromiter((m.rank for m in members), np.int64, len(members))
        host_of = [m.host for m in members]
        # Per role (and its window): the population's median and spread, and each place's own value.
        groups: dict[str, tuple[tuple[float, float] | None, dict[Any, float]]] = {}
        for role in role_hosts:
            means = by_window[windows[role]]
            if scope == "host":  # one value per host the role ran on (its sampler's; the last if several)
                by_host = {
                    h: v
                    for h, v in zip(host_of, means.tolist(), strict=True)
                    if h in role_hosts[role] and math.isfinite(v)
                }
                groups[role] = (_spread(np.fromiter(by_host.values(), float, len(by_host)), unit), by_host)
            else:
                of_role = roles == role
                population = means[of_role]
                wanted_ranks = {rank for r, rank in wanted if r == role}
                per_rank: dict[int, list[float]] = {}
                for r, v in zip(ranks[of_role].tolist(), population.tolist(), strict=True):
                    if r in wanted_ranks:
                        per_rank.setdefault(r, []).append(v)
                values: dict[Any, float] = {r: _finite_mean(v) for r, v in per_rank.items()}
                groups[role] = (_spread(population, unit), values)
        for role, rank in wanted:
            stats, values = groups[role]
            mine = values.get(hosts.get((role, rank), "")) if scope == "host" else values.get(rank)
            value = math.nan if mine is None else mine
            median, deviation = _deviation(value, stats)
            if deviation:
                found[(role, rank)].append(Cause(scope, name, unit, value, median, deviation))
    out = []
    for role, rank in wanted:
        causes = sorted(found[(role, rank)], key=lambda c: -abs(c.deviation))
        own = [c for c in causes if c.scope != "host"][:1]
        host = [c for c in causes if c.scope == "host"][:1]
        chosen = own + host
        parts = [c.text() for c in own] + [f"its {c.text()}" for c in host]
        text = f"{role} {rank}: " + ("; ".join(parts) if parts else "nothing in its system metrics sets it apart")
        out.append(Straggler(role, rank, text, tuple(chosen)))
    return out


@dataclass(frozen=True, slots=True)
class Straggler:
    """A straggler (its role and rank), why it is slow in words, and the causes named there:
    its own most deviating metric and its host's, each when one deviates."""

    role: str
    rank: int
    text: str
    causes: tuple[Cause, ...]


@dataclass(frozen=True, slots=True)
class StragglerReport:
    """The stragglers of a job with their causes, and per role the wall times compared over."""

    windows: dict[str, tuple[float, float]]
    stragglers: tuple[Straggler, ...]


def job_stragglers(job: JobOverview, metrics: Callable[[], Metrics]) -> StragglerReport:
    """Why each straggler of ``job`` is slow. ``metrics`` is called only when there are
    stragglers (it reads every system metric of the run)."""
    windows = role_windows(job.stragglers, job.alive, job.times.tolist())
    if not any(job.stragglers.values()):
        return StragglerReport(windows, ())
    return StragglerReport(windows, tuple(explain(job.stragglers, job.hosts(), metrics(), windows)))


def role_windows(
    stragglers: Mapping[str, Sequence[int]], alive: Mapping[str, Sequence[int]], times: Sequence[float]
) -> dict[str, tuple[float, float]]:
    """Per role with stragglers: the first to the last time of the grid at which at least
    half of its places (and two) were alive; the whole grid when never."""
    out = {}
    grid = np.asarray(times, float)
    for role, ranks in stragglers.items():
        if not ranks or not grid.size:
            continue
        counts = np.asarray(alive.get(role, []), float)
        places = int(counts.max()) if counts.size else 0
        busy = np.flatnonzero(counts >= max(2, math.ceil(places / 2))) if counts.size == grid.size else np.empty(0)
        first, last = (int(busy[0]), int(busy[-1])) if busy.size else (0, grid.size - 1)
        out[role] = (float(grid[first]), float(grid[last]))
    return out
