"""System metrics, sampled on a thread of their own: the process's, its host's, its GPUs'.

A :class:`Sampler` (one per writer that has ``system_metrics`` on) wakes every
``system_metrics_secs`` on a daemon thread, never the training thread's, reads the
metrics and hands one record per sample to its writer's sink
(:meth:`~visualdl.sdk._sink.Sink.put_sample`, which never blocks and never takes the
errors that the training thread's next call reports).

What each writer records:

* ``process`` scope, every writer: ``cpu_user`` and ``cpu_system`` (percent of one core,
  from the deltas of the process's CPU times), ``rss`` (bytes), ``threads``;
* ``host`` scope, once per host: by the writer of local rank 0, or one whose local rank
  is unknown: ``cpu`` (percent of all cores), ``memory_used``, ``memory_available``,
  ``memory_total`` (bytes), ``load_1m``, ``disk_read``, ``disk_write``, ``net_sent``,
  ``net_recv`` (bytes/s);
* ``gpu`` scope: the GPUs :mod:`~visualdl.sdk._gpumetrics` picks for the process.

The columns are fixed when the sampler starts and declared in its first record (and
again every :data:`DECLARE_EVERY` records, for a reader that meets a fresh header of a
recreated file). Rates and CPU percents are over the time since the sample before (the
first sample's, since the sampler started). A library that is missing (``psutil``,
``pynvml``), a machine without GPUs or a metric the platform does not give is said once:
a warning on the ``visualdl.writer`` logger and the ``skipped`` notes of the first record.

The thread is a daemon: it never keeps the process alive. ``LogWriter.close()`` stops and
joins it (bounded by :data:`STOP_SECS`); at the interpreter's exit all samplers are
stopped before the sinks close; a forked child has no sampler (its thread stays in the
parent).
"""

from __future__ import annotations

import atexit
import importlib
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from visualdl._kinds.table import SystemMetric, encode_system_metrics
from visualdl.proto import pb
from visualdl.sdk._gpumetrics import GpuProbe, open_gpus
from visualdl.sdk._launcher import Placement

__all__ = ["DECLARE_EVERY", "MIN_SECS", "STOP_SECS", "Sampler", "records_host"]

log = logging.getLogger("visualdl.writer")

#: The shortest sampling period a writer accepts, in seconds.
MIN_SECS = 0.5
#: ``close()`` waits at most this long for the sampler's thread.
STOP_SECS = 2.0
#: The columns are declared again every this many records.
DECLARE_EVERY = 120
_NAN = float("nan")
_LIVE: weakref.WeakSet[Sampler] = weakref.WeakSet()
_WARNED: set[str] = set()
_warned_lock = threading.Lock()
_exit_hook: list[bool] = []  # registered with the first sampler, after the sinks' own hook


def records_host(placement: Placement) -> bool:
    """Whether a writer at ``placement`` records its host's metrics: local rank 0, or unknown."""
    return placement.local_rank <= 0


class _PsutilProbe:
    """The process's and (when ``host``) the host's metrics through psutil."""

    def __init__(self, psutil: Any, host: bool, skipped: list[str]) -> None:
        self._ps = psutil
        self._proc = psutil.Process()
        self._host = host
        self.columns = [
            SystemMetric("cpu_user", "process", "percent"),
            SystemMetric("cpu_system", "process", "percent"),
            SystemMetric("rss", "process", "bytes"),
            SystemMetric("threads", "process", "count"),
        ]
        self._disk = self._net = False
        if host:
            self.columns += [
                SystemMetric("cpu", "host", "percent"),
                SystemMetric("memory_used", "host", "bytes"),
                SystemMetric("memory_available", "host", "bytes"),
                SystemMetric("memory_total", "host", "bytes"),
                SystemMetric("load_1m", "host", "count"),
            ]
            self._disk = psutil.disk_io_counters() is not None
            if self._disk:
                self.columns += [SystemMetric(n, "host", "bytes/s") for n in ("disk_read", "disk_write")]
            else:
                skipped.append("psutil gives no disk I/O counters here: no disk_read/disk_write")
            self._net = psutil.net_io_counters() is not None
            if self._net:
                self.columns += [SystemMetric(n, "host", "bytes/s") for n in ("net_sent", "net_recv")]
            else:
                skipped.append("psutil gives no network counters here: no net_sent/net_recv")
        self._last = self._counters()

    def _counters(self) -> tuple[float, ...]:
        ps = self._ps
        t = self._proc.cpu_times()
        out = [time.monotonic(), t.user, t.system]
        if self._host:
            c = ps.cpu_times()
            # psutil's own sum: guest time is counted in user time already
            total = float(sum(c)) - getattr(c, "guest", 0.0) - getattr(c, "guest_nice", 0.0)
            out += [total, total - c.idle - getattr(c, "iowait", 0.0)]
            if self._disk:
                d = ps.disk_io_counters()
                out += [d.read_bytes, d.write_bytes] if d is not None else [_NAN, _NAN]
            if self._net:
                n = ps.net_io_counters()
                out += [n.bytes_sent, n.bytes_recv] if n is not None else [_NAN, _NAN]
        return tuple(float(x) for x in out)

    def read(self) -> list[float]:
        now = self._counters()
        last, self._last = self._last, now
        dt = max(now[0] - last[0], 1e-9)
        out = [100.0 * (now[1] - last[1]) / dt, 100.0 * (now[2] - last[2]) / dt]
        out += [float(self._proc.memory_info().rss), float(self._proc.num_threads())]
        if self._host:
            dtotal = now[3] - last[3]
            out.append(100.0 * (now[4] - last[4]) / dtotal if dtotal > 0 else _NAN)
            m = self._ps.virtual_memory()
            out += [float(m.used), float(m.available), float(m.total), float(self._ps.getloadavg()[0])]
            rates = [(b - a) / dt for a, b in zip(last[5:], now[5:], strict=True)]
            out += rates
        return out


class Sampler:
    """Samples every ``secs`` on its own daemon thread; ``put(record, nbytes)`` hands a
    record to the writer's sink and returns False once the sink takes no more (closed)."""

    def __init__(
        self,
        put: Callable[[pb.Record, int], bool],
        *,
        secs: float,
        placement: Placement,
        env: Mapping[str, str],
    ) -> None:
        self._put = put
        self._secs = secs
        self._stop = threading.Event()
        self.skipped: list[str] = []
        self._probes: list[Any] = []
        self._host = records_host(placement)
        try:
            psutil = importlib.import_module("psutil")
        except ImportError:
            self.skipped.append("psutil is not installed: no process or host metrics (pip install psutil)")
        else:
            self._probes.append(_PsutilProbe(psutil, self._host, self.skipped))
        self._gpu: GpuProbe | None = open_gpus(env, placement.local_rank, self.skipped)
        if self._gpu is not None:
            self._probes.append(self._gpu)
        self.columns: tuple[SystemMetric, ...] = tuple(c for p in self._probes for c in p.columns)
        #: Samples handed to the sink, and the CPU seconds the thread spent taking them.
        self.samples = 0
        self.cpu_seconds = 0.0
        self._pid = os.getpid()
        self._thread = threading.Thread(target=self._run, name="visualdl-system-metrics", daemon=True)
        _LIVE.add(self)
        with _warned_lock:
            if not _exit_hook:  # atexit runs hooks last-registered first: before the sinks close
                atexit.register(_stop_all)
                _exit_hook.append(True)
        self._thread.start()

    def _sample(self, first: bool) -> bool:
        row: list[float] = []
        for probe in self._probes:
            try:
                row += probe.read()
            except Exception as e:  # noqa: BLE001 - boundary: a platform call must not stop sampling
                row += [_NAN] * len(probe.columns)
                _warn_once(f"system metrics: a sample failed ({type(e).__name__}: {e})")
        declare = first or self.samples % DECLARE_EVERY == 0
        record = encode_system_metrics(
            np.array([time.time()]),
            np.array([row], np.float64).reshape(1, len(self.columns)),
            self.columns if declare else (),
            tuple(self.skipped) if first else (),
        )
        return self._put(record, record.ByteSize())

    def _run(self) -> None:
        first = True
        if self.skipped:
            # Recorded in the log as well (``skipped``). No psutil is a warning; a machine
            # without a GPU (or a metric its GPU lacks) is no news.
            level = logging.WARNING if any("psutil" in s for s in self.skipped) else logging.INFO
            _warn_once("system metrics: " + "; ".join(self.skipped), level)
        try:
            if not self.columns:  # nothing to measure: say so in the file, once
                record = encode_system_metrics(np.empty(0), np.empty((0, 0)), (), tuple(self.skipped))
                self._put(record, record.ByteSize())
                return
            # The first sample after MIN_SECS (rates need an interval), then one every
            # ``secs``, and a last one when the writer closes: a short process, or one
            # about to end, still leaves its state.
            wait = min(self._secs, MIN_SECS)
            last = time.monotonic()
            while True:
                stopped = self._stop.wait(wait)
                if stopped and self.samples and time.monotonic() - last < MIN_SECS:
                    return  # sampled a moment ago (a writer that lived less: one sample)
                start = time.thread_time()
                if not self._sample(first):
                    return  # the writer is closed
                last = time.monotonic()
                first = False
                self.samples += 1
                self.cpu_seconds += time.thread_time() - start
                if stopped:
                    return
                wait = self._secs
        except Exception:  # boundary: the sampler's end must not touch the training
            log.exception("the system-metrics sampler stopped")
        finally:
            if self._gpu is not None:
                self._gpu.close()

    def stop(self, timeout: float = STOP_SECS) -> None:
        """Stop the thread and wait for it, at most ``timeout`` seconds. Idempotent."""
        self._stop.set()
        _LIVE.discard(self)
        if os.getpid() == self._pid and self._thread is not threading.current_thread():
            self._thread.join(timeout)


def _warn_once(message: str, level: int = logging.WARNING) -> None:
    with _warned_lock:
        if message in _WARNED:
            return
        _WARNED.add(message)
    log.log(level, "%s", message)


def _stop_all() -> None:
    """At exit, before the sinks close (atexit runs this module's hook first)."""
    for sampler in list(_LIVE):
        sampler.stop(0.5)
