"""System metrics: what is measured of the process, its host and its GPUs, and how a
writer's record of a sample is made from readings shared by all the writers of a process.

The process's one sampling thread (:mod:`~visualdl.sdk._sampler`) reads psutil once per
tick (a :class:`Reading`: the process's and, when a writer due then records them, the
host's counters and levels) and NVML once per GPU probe; each writer due at that tick
makes its own row from that reading and the one of its previous sample
(:meth:`Columns.row`), so rates and CPU percents are over the time since that writer's
previous sample, whoever else shares the reads.

What each writer records:

* ``process`` scope, every writer: ``cpu_user`` and ``cpu_system`` (percent of one core,
  from the deltas of the process's CPU times), ``rss`` (bytes), ``threads``;
* ``host`` scope, once per host: by the writer of local rank 0, or, where no local rank
  is known, by one writer of the process (the first to subscribe, then the next when it
  leaves): ``cpu`` (percent of all cores), ``memory_used``, ``memory_available``,
  ``memory_total`` (bytes), ``load_1m``, ``disk_read``, ``disk_write``, ``net_sent``,
  ``net_recv`` (bytes/s);
* ``gpu`` scope: the GPUs :mod:`~visualdl.sdk._gpumetrics` picks for the writer.

The columns are declared in a writer's first record, again when they change (the GPUs'
once NVML has started, the host's handed to another writer) and every
:data:`DECLARE_EVERY` records (for a reader that meets a fresh header of a recreated file).
A library that is missing (``psutil``, ``pynvml``), a machine without GPUs, a metric the
platform does not give, or NVML failing or not answering in time is said once: on the
``visualdl.writer`` logger (a warning for a missing psutil and for NVML's failures) and in
the ``skipped`` notes of the first record after it is known.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from visualdl._kinds.table import SystemMetric

__all__ = [
    "DECLARE_EVERY",
    "MIN_SECS",
    "PROCESS_COLUMNS",
    "STOP_SECS",
    "HostCounters",
    "Psutil",
    "Reading",
    "open_psutil",
    "warn_once",
]

log = logging.getLogger("visualdl.writer")

#: The shortest sampling period a writer accepts, in seconds.
MIN_SECS = 0.5
#: ``close()`` waits at most this long for a writer's last sample.
STOP_SECS = 2.0
#: The columns are declared again every this many records.
DECLARE_EVERY = 120
NAN = float("nan")
_WARNED: set[str] = set()
_warned_lock = threading.Lock()

PROCESS_COLUMNS: tuple[SystemMetric, ...] = (
    SystemMetric("cpu_user", "process", "percent"),
    SystemMetric("cpu_system", "process", "percent"),
    SystemMetric("rss", "process", "bytes"),
    SystemMetric("threads", "process", "count"),
)
_HOST_LEVELS: tuple[SystemMetric, ...] = (
    SystemMetric("cpu", "host", "percent"),
    SystemMetric("memory_used", "host", "bytes"),
    SystemMetric("memory_available", "host", "bytes"),
    SystemMetric("memory_total", "host", "bytes"),
    SystemMetric("load_1m", "host", "count"),
)
_DISK = tuple(SystemMetric(n, "host", "bytes/s") for n in ("disk_read", "disk_write"))
_NET = tuple(SystemMetric(n, "host", "bytes/s") for n in ("net_sent", "net_recv"))


@dataclass(frozen=True, slots=True)
class ProcessCounters:
    """The process at ``t`` (``time.monotonic()``): CPU seconds, RSS, threads."""

    t: float
    user: float
    system: float
    rss: float
    threads: float


@dataclass(frozen=True, slots=True)
class HostCounters:
    """The host at ``t``: CPU seconds in all and busy, disk and network byte counters
    (those it has), memory and load."""

    t: float
    cpu_total: float
    cpu_busy: float
    io: tuple[float, ...]  # disk read, write (if any), net sent, received (if any)
    levels: tuple[float, ...]  # memory used, available, total, load 1 min


@dataclass(frozen=True, slots=True)
class Reading:
    """One tick's reads, shared by the writers due then (None: not read, or it failed)."""

    wall: float
    process: ProcessCounters | None
    host: HostCounters | None


class Psutil:
    """psutil for one process: its reads (:meth:`process`, :meth:`host`) and the host
    columns this platform gives (:attr:`host_columns`, and :attr:`host_skipped`)."""

    def __init__(self, psutil: Any) -> None:
        self._ps = psutil
        self._proc = psutil.Process()
        self._disk = psutil.disk_io_counters() is not None
        self._net = psutil.net_io_counters() is not None
        self.host_columns = _HOST_LEVELS + (_DISK if self._disk else ()) + (_NET if self._net else ())
        self.host_skipped: tuple[str, ...] = tuple(
            note
            for ok, note in (
                (self._disk, "psutil gives no disk I/O counters here: no disk_read/disk_write"),
                (self._net, "psutil gives no network counters here: no net_sent/net_recv"),
            )
            if not ok
        )

    def process(self) -> ProcessCounters:
        with self._proc.oneshot():
            t = self._proc.cpu_times()
            rss = self._proc.memory_info().rss
            threads = self._proc.num_threads()
        return ProcessCounters(time.monotonic(), float(t.user), float(t.system), float(rss), float(threads))

    def host(self) -> HostCounters:
        ps = self._ps
        now = time.monotonic()
        c = ps.cpu_times()
        # psutil's own sum: guest time is counted in user time already
        total = float(sum(c)) - getattr(c, "guest", 0.0) - getattr(c, "guest_nice", 0.0)
        busy = total - c.idle - getattr(c, "iowait", 0.0)
        io: list[float] = []
        if self._disk:
            d = ps.disk_io_counters()
            io += [float(d.read_bytes), float(d.write_bytes)] if d is not None else [NAN, NAN]
        if self._net:
            n = ps.net_io_counters()
            io += [float(n.bytes_sent), float(n.bytes_recv)] if n is not None else [NAN, NAN]
        m = ps.virtual_memory()
        levels = (float(m.used), float(m.available), float(m.total), float(ps.getloadavg()[0]))
        return HostCounters(now, total, busy, tuple(io), levels)


def open_psutil(skipped: list[str]) -> Psutil | None:
    """psutil for this process, or None (said in ``skipped``)."""
    try:
        psutil = importlib.import_module("psutil")
    except ImportError:
        skipped.append("psutil is not installed: no process or host metrics (pip install psutil)")
        return None
    return Psutil(psutil)


def process_row(last: ProcessCounters | None, now: ProcessCounters | None) -> list[float]:
    """The process's columns over ``last`` to ``now`` (NaN where either is missing)."""
    if now is None:
        return [NAN] * len(PROCESS_COLUMNS)
    if last is None:
        return [NAN, NAN, now.rss, now.threads]
    dt = max(now.t - last.t, 1e-9)
    return [100.0 * (now.user - last.user) / dt, 100.0 * (now.system - last.system) / dt, now.rss, now.threads]


def host_row(last: HostCounters | None, now: HostCounters | None, width: int) -> list[float]:
    """The host's ``width`` columns over ``last`` to ``now`` (NaN where either is missing)."""
    if now is None:
        return [NAN] * width
    if last is None:
        return [NAN, *now.levels] + [NAN] * len(now.io)
    dtotal = now.cpu_total - last.cpu_total
    # busy = total - idle - iowait, each a sum of floats: an idle host's difference can come
    # out a few 1e-9 below 0 (or a busy one's above 100), which is rounding, not a reading.
    cpu = min(max(100.0 * (now.cpu_busy - last.cpu_busy) / dtotal, 0.0), 100.0) if dtotal > 0 else NAN
    dt = max(now.t - last.t, 1e-9)
    return [cpu, *now.levels] + [(b - a) / dt for a, b in zip(last.io, now.io, strict=True)]


def warn_once(message: str, level: int = logging.WARNING) -> None:
    """Log ``message`` on the ``visualdl.writer`` logger, once per process."""
    with _warned_lock:
        if message in _WARNED:
            return
        _WARNED.add(message)
    log.log(level, "%s", message)


def _after_fork_in_child() -> None:
    global _warned_lock
    _warned_lock = threading.Lock()  # the parent's sampling thread may have held it


os.register_at_fork(after_in_child=_after_fork_in_child)
