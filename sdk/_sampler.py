"""The process's one system-metrics sampling thread, shared by its writers.

Each writer that has ``system_metrics`` on :func:`subscribe`\\ s with its period
(``system_metrics_secs``) and its sink; one daemon thread per process (started with the
first subscriber, ended when the last leaves) wakes when a subscriber is due, reads psutil
and NVML once (:mod:`~visualdl.sdk._sysmetrics`) and hands each writer due then its own
record (:meth:`~visualdl.sdk._sink.Sink.put_sample`, which never blocks and never takes
the errors that the training thread's next call reports). The training thread never
samples.

When: a writer's first sample 0.5 s after it subscribes (on a 0.1 s grid, so that writers
opened together share that tick), then on the multiples of its period on the monotonic
clock (the second sample between half a period and one and a half after the first), so
that writers of the same period, or of periods that divide each other, share every tick;
and a last one when it leaves (``LogWriter.close()``, unless it sampled less than 0.5 s
before), which ``close()`` waits for at most :data:`~visualdl.sdk._sysmetrics.STOP_SECS`.

The host's metrics are recorded by writers of local rank 0 and, among the writers of
the process that know no local rank, by one: the first to subscribe, then (its columns
declared anew) the next when it leaves. GPUs are probed once per choice of GPUs (the
process's ``CUDA_VISIBLE_DEVICES`` and the writer's local rank) and read once per tick,
through NVML's own thread (:class:`~visualdl.sdk._gpumetrics.GpuSource`): neither the
writer's caller nor this thread ever waits on NVML longer than
:data:`~visualdl.sdk._gpumetrics.NVML_WAIT_SECS`, and the process's and host's metrics go
on whatever NVML does. A writer's columns are declared again when they change (the GPUs'
once NVML has started, the host's handed over), and what could not be measured is said
in the first record after it is known.

At the interpreter's exit every subscriber takes its last sample before the sinks close
(this module's ``atexit`` hook is registered after theirs, so runs first). A forked child
starts afresh: the writers it inherits do not sample in it, and a writer it opens starts
the child's own thread.
"""

from __future__ import annotations

import atexit
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import TypeVar

import numpy as np

from visualdl._kinds.table import SystemMetric, encode_system_metrics
from visualdl.proto import pb
from visualdl.sdk._gpumetrics import GpuSource
from visualdl.sdk._launcher import Placement
from visualdl.sdk._sysmetrics import (
    DECLARE_EVERY,
    MIN_SECS,
    NAN,
    PROCESS_COLUMNS,
    STOP_SECS,
    HostCounters,
    ProcessCounters,
    Psutil,
    Reading,
    host_row,
    open_psutil,
    process_row,
    warn_once,
)

__all__ = ["THREAD_NAME", "SamplerThread", "Subscription", "process_sampler", "subscribe"]

log = logging.getLogger("visualdl.writer")

THREAD_NAME = "visualdl-system-metrics"
#: First samples fall on this grid (seconds): writers opened together share their first tick.
FIRST_GRID = 0.1
#: A subscriber due this little after a tick is taken at that tick (timer slack).
_SLACK = 1e-3

Put = Callable[[pb.Record, int], bool]
T = TypeVar("T")


class Subscription:
    """A writer's subscription: its schedule, columns, last counters and sink. Its
    :attr:`samples` counts the records handed to the sink; :meth:`stop` leaves."""

    def __init__(self, hub: SamplerThread, put: Put, secs: float, local_rank: int, gpus: GpuSource) -> None:
        self._hub = hub
        self._put = put
        self.secs = secs
        self.local_rank = local_rank
        self.gpus = gpus
        self.host = local_rank == 0
        self.samples = 0
        self.due = 0.0
        self.last_sample = -math.inf
        self.last_process: ProcessCounters | None = None
        self.last_host: HostCounters | None = None
        self.leaving = False
        self.done = threading.Event()
        self._declare = True
        self._declared: tuple[SystemMetric, ...] = ()
        self._said = False
        self._skipped: list[str] = []  # the notes said in a record so far
        self._pid = os.getpid()

    @property
    def columns(self) -> tuple[SystemMetric, ...]:
        """The columns of this writer's records now."""
        ps = self._hub.psutil
        out: tuple[SystemMetric, ...] = ()
        if ps is not None:
            out = PROCESS_COLUMNS + (ps.host_columns if self.host else ())
        return out + tuple(self.gpus.columns)

    @property
    def skipped(self) -> list[str]:
        """What this writer's sampler could not measure."""
        ps = self._hub.psutil
        notes = list(self._hub.psutil_skipped)
        if ps is not None and self.host:
            notes += ps.host_skipped
        return notes + list(self.gpus.skipped)

    def stop(self, timeout: float = STOP_SECS) -> None:
        """Leave, after a last sample: wait for it (and for the thread, when it was the
        last subscriber) at most ``timeout`` seconds. Idempotent; a no-op in a forked child."""
        if os.getpid() != self._pid:
            return
        self._hub.leave([self], timeout)

    def take_host(self) -> None:
        """Record the host's metrics from now on (handed over by a writer that left)."""
        self.host = True
        self._declare = True

    def sample(self, reading: Reading, gpu_values: list[float] | None) -> bool:
        """Hand this writer's record of ``reading`` to its sink; False once it takes no more."""
        columns = self.columns
        if not columns and self.gpus.opening:
            return True  # nothing but the GPUs to measure, and NVML has not started yet
        first = not self._said
        self._said = True
        notes = tuple(s for s in self.skipped if s not in self._skipped)
        if notes:
            # Recorded in the log as well (``skipped``). No psutil, or NVML failing, is a
            # warning; a machine without a GPU (or a metric its GPU lacks) is no news.
            self._skipped += notes
            bad = any("psutil" in s or s in self.gpus.failures for s in notes)
            warn_once("system metrics: " + "; ".join(notes), logging.WARNING if bad else logging.INFO)
        if not columns:  # nothing to measure: say so in the file, once
            if first:
                record = encode_system_metrics(np.empty(0), np.empty((0, 0)), (), notes)
                self._put(record, record.ByteSize())
            return False
        row: list[float] = []
        if self._hub.psutil is not None:
            row += process_row(self.last_process, reading.process)
            if reading.process is not None:
                self.last_process = reading.process
            if self.host:
                width = len(self._hub.psutil.host_columns)
                row += host_row(self.last_host, reading.host, width)
                if reading.host is not None:
                    self.last_host = reading.host
        gpus = len(self.gpus.columns)
        if gpus:
            row += gpu_values if gpu_values is not None and len(gpu_values) == gpus else [NAN] * gpus
        declare = self._declare or columns != self._declared or self.samples % DECLARE_EVERY == 0
        record = encode_system_metrics(
            np.array([reading.wall]),
            np.array([row], np.float64).reshape(1, len(columns)),
            columns if declare else (),
            notes,
        )
        if not self._put(record, record.ByteSize()):
            return False
        self._declare = False
        self._declared = columns
        self.samples += 1
        return True


class SamplerThread:
    """The sampling thread of a process and its subscribers (one per process:
    :func:`process_sampler`; a benchmark may run several). :attr:`ticks`,
    :attr:`samples` and :attr:`cpu_seconds` (the thread's CPU time while sampling)
    say what it did."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._subs: list[Subscription] = []
        self._gpus: dict[tuple[str | None, int], GpuSource] = {}
        self._thread: threading.Thread | None = None
        self._holder: Subscription | None = None  # of the host, among the writers without a local rank
        self.psutil_skipped: list[str] = []
        self.psutil: Psutil | None = open_psutil(self.psutil_skipped)
        self.ticks = 0
        self.samples = 0
        self.cpu_seconds = 0.0

    # -- the writers' side (their threads) ----------------------------------------

    def subscribe(self, put: Put, *, secs: float, placement: Placement, env: Mapping[str, str]) -> Subscription:
        """Sample every ``secs`` for a writer at ``placement``, into ``put``."""
        key = (env.get("CUDA_VISIBLE_DEVICES"), placement.local_rank)
        with self._lock:
            gpus = self._gpus.get(key)
            if gpus is None:  # NVML is opened on its own thread, never on the caller's
                gpus = self._gpus[key] = GpuSource(env, placement.local_rank)
            gpus.users += 1
            sub = Subscription(self, put, secs, placement.local_rank, gpus)
            if sub.local_rank < 0 and self._holder is None:
                sub.host = True  # the process's writer of the host, where no local rank is known
                self._holder = sub
            if self.psutil is not None:
                sub.last_process = _try(self.psutil.process)
                if sub.host:
                    sub.last_host = _try(self.psutil.host)
            now = time.monotonic()
            sub.due = math.ceil((now + MIN_SECS) / FIRST_GRID) * FIRST_GRID
            self._subs.append(sub)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)
                self._thread.start()
        self._wake.set()
        return sub

    def leave(self, subs: list[Subscription], timeout: float) -> None:
        """Have ``subs`` take their last sample and leave; wait at most ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._lock:
            for sub in subs:
                sub.leaving = True
            thread = self._thread
        self._wake.set()
        for sub in subs:
            if not sub.done.wait(max(0.0, deadline - time.monotonic())):
                return
        if thread is not None and thread is not threading.current_thread():
            with self._lock:
                ending = self._thread is not thread
            if ending:  # the last one left: the thread ends now
                thread.join(max(0.0, deadline - time.monotonic()))

    def stop_all(self, timeout: float) -> None:
        """Every subscriber takes its last sample and leaves (at exit)."""
        with self._lock:
            subs = list(self._subs)
        self.leave(subs, timeout)

    @property
    def alive(self) -> bool:
        with self._lock:
            return self._thread is not None

    # -- the thread ---------------------------------------------------------------

    def _run(self) -> None:
        try:
            while True:
                with self._lock:
                    if self._thread is not threading.current_thread():
                        return  # the last subscriber left (a new one starts a new thread)
                    if not self._subs:
                        self._thread = None
                        return
                    now = time.monotonic()
                    wait = min(0.0 if s.leaving else s.due - now for s in self._subs)
                if wait > _SLACK:
                    self._wake.wait(wait)
                    self._wake.clear()
                    continue
                start = time.thread_time()
                self._tick()
                self.cpu_seconds += time.thread_time() - start
        except Exception:  # boundary: the sampler's end must not touch the training
            log.exception("the system-metrics sampler stopped")
            with self._lock:
                gone, self._subs, self._thread, self._holder = self._subs, [], None, None
            self._drop(gone)

    def _tick(self) -> None:
        now = time.monotonic()
        with self._lock:
            due = [s for s in self._subs if s.leaving or s.due <= now + _SLACK]
        # a leaving writer that sampled a moment ago takes no other sample
        takers = [s for s in due if not (s.leaving and s.samples and now - s.last_sample < MIN_SECS)]
        reading, gpu_values = self._read(takers)
        gone = [s for s in due if s.leaving]
        for sub in takers:
            try:
                taken = sub.sample(reading, gpu_values.get(id(sub.gpus)))
            except Exception as e:  # noqa: BLE001 - boundary: one writer's record must not stop the others
                warn_once(f"system metrics: a sample failed ({type(e).__name__}: {e})")
                taken = True
            if not taken and not sub.leaving:
                gone.append(sub)  # the writer is closed (or has nothing to measure)
            sub.last_sample = now
            sub.due = (math.floor((now + sub.secs / 2) / sub.secs) + 1) * sub.secs
        self.ticks += bool(takers)
        self.samples += len(takers)
        if gone:
            left = {id(s) for s in gone}
            with self._lock:
                self._subs = [s for s in self._subs if id(s) not in left]
                if not self._subs:
                    self._thread = None  # this thread ends, before its last subscribers hear they left
                heir = None
                if self._holder is not None and id(self._holder) in left:
                    heir = self._holder = next((s for s in self._subs if s.local_rank < 0), None)
                    if heir is not None:
                        heir.take_host()
            if heir is not None and self.psutil is not None:  # the rates of its first host sample from now
                heir.last_host = reading.host if reading.host is not None else _try(self.psutil.host)
            self._drop(gone)

    def _read(self, takers: list[Subscription]) -> tuple[Reading, dict[int, list[float] | None]]:
        """psutil's reads once, the host's only when a taker records it; each probe's GPUs once."""
        ps = self.psutil
        process = host = None
        if ps is not None and takers:
            process = _try(ps.process)
            if any(s.host for s in takers):
                host = _try(ps.host)
        gpu_values: dict[int, list[float] | None] = {}
        for sub in takers:
            if id(sub.gpus) not in gpu_values:  # each choice of GPUs once, NVML's wait bounded
                sub.gpus.settle()
                gpu_values[id(sub.gpus)] = sub.gpus.read()
        return Reading(time.time(), process, host), gpu_values

    def _drop(self, gone: list[Subscription]) -> None:
        """``gone`` left: close the GPU sources no one uses any more, tell their waiters."""
        closing: list[GpuSource] = []
        with self._lock:
            for sub in gone:
                sub.gpus.users -= 1
                if sub.gpus.users == 0:
                    for key, gpus in list(self._gpus.items()):
                        if gpus is sub.gpus:
                            del self._gpus[key]
                            closing.append(gpus)
        for gpus in closing:
            gpus.close()
        for sub in gone:
            sub.done.set()


def _try(read: Callable[[], T]) -> T | None:
    """A platform read, or None when it fails (said once): it must not stop sampling."""
    try:
        return read()
    except Exception as e:  # noqa: BLE001 - boundary: a platform call
        warn_once(f"system metrics: a sample failed ({type(e).__name__}: {e})")
        return None


_process: SamplerThread | None = None
_process_lock = threading.Lock()
_exit_hook: list[bool] = []  # registered with the first subscriber, after the sinks' own hook


def process_sampler() -> SamplerThread | None:
    """This process's sampling thread and its subscribers, if a writer ever subscribed."""
    return _process


def subscribe(put: Put, *, secs: float, placement: Placement, env: Mapping[str, str]) -> Subscription:
    """Sample the system metrics every ``secs`` for a writer at ``placement`` into ``put``
    (the writer's ``Sink.put_sample``), on this process's one sampling thread."""
    global _process
    with _process_lock:
        if _process is None:
            _process = SamplerThread()
        if not _exit_hook:  # atexit runs hooks last-registered first: before the sinks close
            atexit.register(_stop_all)
            _exit_hook.append(True)
        hub = _process
    return hub.subscribe(put, secs=secs, placement=placement, env=env)


def _stop_all() -> None:
    """At exit, before the sinks close: every writer's last sample."""
    hub = _process
    if hub is not None:
        hub.stop_all(STOP_SECS)


def _after_fork_in_child() -> None:
    """A forked child has no sampling thread: forget the parent's (its subscribers, its
    locks, which the parent's thread may have held), start afresh with the next writer."""
    global _process, _process_lock
    _process = None
    _process_lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)
