"""NVIDIA GPUs' metrics through NVML (``pynvml``, from the ``nvidia-ml-py`` package: the
``gpu`` extra), for the system-metrics sampler (:mod:`~visualdl.sdk._sysmetrics`).

Which GPUs a writer records: those visible to its process, that is the ones
``CUDA_VISIBLE_DEVICES`` lists (NVML indices, or UUIDs ``GPU-...``) or else all of the
host's; and when the writer knows its local rank and sees more than one GPU, only the GPU
at its local rank among them, as ``torchrun`` scripts pick theirs
(``torch.cuda.set_device(local_rank)``). So each GPU of a host is recorded once by the
rank that uses it, whether each rank sees one GPU or all of them. (Indices in
``CUDA_VISIBLE_DEVICES`` are taken as NVML's, which are CUDA's under
``CUDA_DEVICE_ORDER=PCI_BUS_ID``.)

Per GPU: utilisation (percent), memory used and total (bytes), power (W), temperature
(C), SM clock (MHz), the clock's throttle reasons (NVML's bitmask) and the volatile ECC
error counts, corrected and uncorrected. A metric NVML does not support on a GPU
(``NVML_ERROR_NOT_SUPPORTED``: power on some boards, ECC on consumer GPUs) is left out
and said; a call failing later reads NaN for that sample.

NVML never stops the training, nor the other metrics: every NVML call of a choice of GPUs
is made on a thread of its own (:class:`GpuSource`, thread :data:`NVML_THREAD_NAME`),
never on the writer's caller's thread, and the sampling thread waits for each at most
:data:`NVML_WAIT_SECS`. A slow initialisation gives the first samples without GPU columns
(they are declared when NVML has started); a read that does not answer in time reads NaN,
as do the reads after it until it answers; any error of NVML (whatever its type) is said
once, as a note of the writer's record and a warning.
"""

from __future__ import annotations

import importlib
import queue
import threading
from collections.abc import Callable, Mapping
from typing import Any

from visualdl._kinds.table import SystemMetric

__all__ = ["NVML_THREAD_NAME", "NVML_WAIT_SECS", "GpuProbe", "GpuSource", "open_gpus", "visible_indices"]

INSTALL_HINT = "pip install 'visualdl[gpu]' (nvidia-ml-py)"
#: Seconds the sampling thread waits for one NVML call: the GPUs' opening (once), or a read of them.
NVML_WAIT_SECS = 2.0
NVML_THREAD_NAME = "visualdl-nvml"


def _metrics(nvml: Any) -> list[tuple[str, str, Callable[[Any], float]]]:
    """``(name, unit, read(handle))`` of each GPU metric, in column order."""

    def throttle(h: Any) -> float:
        get = getattr(nvml, "nvmlDeviceGetCurrentClocksEventReasons", None)
        get = get or nvml.nvmlDeviceGetCurrentClocksThrottleReasons
        return float(get(h))

    def ecc(kind: int) -> Callable[[Any], float]:
        return lambda h: float(nvml.nvmlDeviceGetTotalEccErrors(h, kind, nvml.NVML_VOLATILE_ECC))

    return [
        ("utilization", "percent", lambda h: float(nvml.nvmlDeviceGetUtilizationRates(h).gpu)),
        ("memory_used", "bytes", lambda h: float(nvml.nvmlDeviceGetMemoryInfo(h).used)),
        ("memory_total", "bytes", lambda h: float(nvml.nvmlDeviceGetMemoryInfo(h).total)),
        ("power", "W", lambda h: nvml.nvmlDeviceGetPowerUsage(h) / 1000.0),
        ("temperature", "C", lambda h: float(nvml.nvmlDeviceGetTemperature(h, nvml.NVML_TEMPERATURE_GPU))),
        ("sm_clock", "MHz", lambda h: float(nvml.nvmlDeviceGetClockInfo(h, nvml.NVML_CLOCK_SM))),
        ("throttle_reasons", "bitmask", throttle),
        ("ecc_corrected", "count", ecc(nvml.NVML_MEMORY_ERROR_TYPE_CORRECTED)),
        ("ecc_uncorrected", "count", ecc(nvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED)),
    ]


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def visible_indices(env: Mapping[str, str], count: int, uuids: list[str], local_rank: int) -> list[int]:
    """The NVML indices of the GPUs this process records (see the module docstring)."""
    raw = env.get("CUDA_VISIBLE_DEVICES")
    if raw is None:
        visible = list(range(count))
    else:
        visible = []
        for item in (s.strip() for s in raw.split(",")):
            if item.isdigit():
                index = int(item)
                if index >= count:
                    break  # CUDA stops at the first invalid entry
                visible.append(index)
            elif item.startswith("GPU-"):
                match = [i for i, u in enumerate(uuids) if u.startswith(item)]
                if len(match) != 1:
                    break
                visible.append(match[0])
            else:
                break  # "", "-1", a MIG device: nothing further is visible to CUDA
    if local_rank >= 0 and len(visible) > 1:
        return [visible[local_rank]] if local_rank < len(visible) else []
    return visible


class GpuProbe:
    """The chosen GPUs' NVML handles and the metrics each supports: :attr:`columns` and
    :meth:`read`, one value per column. Call :meth:`close` when done."""

    def __init__(self, nvml: Any, gpus: list[tuple[int, Any, str, str]], skipped: list[str]) -> None:
        self._nvml = nvml
        self.columns: list[SystemMetric] = []
        self._reads: list[tuple[Callable[[Any], float], Any, str]] = []
        #: Unexpected errors of reads (not NVML's own), said once each by the sampler.
        self.errors: list[str] = []
        for index, handle, name, uuid in gpus:
            for metric, unit, read in _metrics(nvml):
                try:
                    read(handle)
                except Exception as e:  # noqa: BLE001 - boundary: NVML's bindings
                    if getattr(e, "value", None) == getattr(nvml, "NVML_ERROR_NOT_SUPPORTED", object()):
                        skipped.append(f"GPU {index} ({name}): {metric} is not supported by NVML")
                        continue
                    skipped.append(f"GPU {index} ({name}): {metric} cannot be read ({_describe(nvml, e)})")
                    continue
                self.columns.append(SystemMetric(metric, "gpu", unit, index, name, uuid))
                self._reads.append((read, handle, f"GPU {index} ({name}): {metric}"))

    def read(self) -> list[float]:
        """One value per column (NaN for a call that fails)."""
        out = []
        error = getattr(self._nvml, "NVMLError", ())
        for read, handle, what in self._reads:
            try:
                out.append(float(read(handle)))
            except error:
                out.append(float("nan"))
            except Exception as e:  # noqa: BLE001 - boundary: NVML's bindings
                note = f"{what} failed ({_describe(self._nvml, e)}): NaN where it fails"
                if note not in self.errors:
                    self.errors.append(note)
                out.append(float("nan"))
        return out

    def close(self) -> None:
        _shutdown(self._nvml)


def open_gpus(env: Mapping[str, str], local_rank: int, skipped: list[str]) -> GpuProbe | None:
    """The probe of this process's GPUs, or None (what was not possible appended to ``skipped``).
    Makes NVML calls, which may block: call it on :class:`GpuSource`'s thread."""
    try:
        nvml = importlib.import_module("pynvml")
    except ImportError:
        skipped.append(f"pynvml is not installed: no GPU metrics ({INSTALL_HINT})")
        return None
    try:
        nvml.nvmlInit()
    except nvml.NVMLError as e:  # another error is said by the caller (GpuSource's thread)
        skipped.append(f"NVML cannot start ({_text(e)}): no GPU metrics (no NVIDIA GPU or driver)")
        return None
    try:
        count = int(nvml.nvmlDeviceGetCount())
        handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        uuids = [_text(nvml.nvmlDeviceGetUUID(h)) for h in handles]
        chosen = visible_indices(env, count, uuids, local_rank)
        gpus = [(i, handles[i], _text(nvml.nvmlDeviceGetName(handles[i])), uuids[i]) for i in chosen]
    except nvml.NVMLError as e:
        skipped.append(f"NVML cannot list the GPUs ({_text(e)}): no GPU metrics")
        _shutdown(nvml)
        return None
    except Exception:
        _shutdown(nvml)
        raise
    if not gpus:
        skipped.append("no GPU is visible to this process" if count else "no GPU on this host")
        _shutdown(nvml)
        return None
    probe = GpuProbe(nvml, gpus, skipped)
    if not probe.columns:
        probe.close()
        return None
    return probe


def _shutdown(nvml: Any) -> None:
    try:
        nvml.nvmlShutdown()
    except Exception:  # noqa: BLE001 - boundary: NVML's bindings; nothing more to do with it
        pass


def _describe(nvml: Any, e: BaseException) -> str:
    """NVML's own error as NVML says it; any other with its type."""
    if isinstance(e, getattr(nvml, "NVMLError", ())):
        return _text(e)
    return f"{type(e).__name__}: {e}"


class _Call:
    """One NVML call handed to the thread of a :class:`GpuSource`; :attr:`done` once made."""

    __slots__ = ("fn", "done", "result", "error")

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        self.done = threading.Event()
        self.result: Any = None
        self.error: Exception | None = None

    def run(self) -> None:
        try:
            self.result = self.fn()
        except Exception as e:  # noqa: BLE001 - boundary: handed back to the sampling thread
            self.error = e
        finally:
            self.done.set()


def _open(env: Mapping[str, str], local_rank: int) -> tuple[GpuProbe | None, list[str], list[str]]:
    """:func:`open_gpus`, an unexpected error of NVML's included: ``(probe, notes, failures)``."""
    skipped: list[str] = []
    try:
        return open_gpus(env, local_rank, skipped), skipped, []
    except Exception as e:  # noqa: BLE001 - boundary: NVML's bindings
        failure = f"NVML failed while opening the GPUs ({type(e).__name__}: {e}): no GPU metrics"
        return None, [*skipped, failure], [failure]


class GpuSource:
    """One choice of GPUs (the process's ``CUDA_VISIBLE_DEVICES`` and a writer's local rank)
    whose NVML calls are made on a thread of its own, started here and ended by
    :meth:`close` (or once there is nothing to read). The sampling thread takes the opening's
    outcome (:meth:`settle`) and reads (:meth:`read`), waiting for each call at most
    ``wait`` seconds (by default :data:`NVML_WAIT_SECS`); :attr:`skipped` grows with what could not be measured, and
    :attr:`failures` names those of its notes that are failures (said as warnings).
    :attr:`users` counts the writers sampling it (under the sampler's lock)."""

    def __init__(self, env: Mapping[str, str], local_rank: int, wait: float | None = None) -> None:
        visible = env.get("CUDA_VISIBLE_DEVICES")
        chosen: dict[str, str] = {} if visible is None else {"CUDA_VISIBLE_DEVICES": visible}
        self.probe: GpuProbe | None = None
        self.skipped: list[str] = []
        self.failures: set[str] = set()
        self.users = 0
        self._wait = NVML_WAIT_SECS if wait is None else wait
        self._calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._opening: _Call | None = self._submit(lambda: _open(chosen, local_rank))
        self._waited = False  # for the opening, once
        self._reading: _Call | None = None  # a read that did not answer in time
        self._thread = threading.Thread(target=self._serve, name=NVML_THREAD_NAME, daemon=True)
        self._thread.start()

    @property
    def opening(self) -> bool:
        """NVML has not started yet (no GPU columns until it has)."""
        return self._opening is not None

    @property
    def columns(self) -> list[SystemMetric]:
        return self.probe.columns if self.probe is not None else []

    def settle(self) -> None:
        """Take the opening's outcome once it is there: the GPUs' columns and notes (waiting
        for it at most ``wait`` seconds the first time, not at all after)."""
        call = self._opening
        if call is None:
            return
        if not call.done.is_set():
            if self._waited:
                return
            self._waited = True
            if not call.done.wait(self._wait):
                self._fail(f"NVML did not start within {self._wait:g} s: no GPU metrics until it does")
                return
        self._opening = None
        if call.error is not None:  # not from _open, which takes every error: said all the same
            self._fail(f"NVML failed while opening the GPUs ({type(call.error).__name__}: {call.error})")
        else:
            probe, notes, failures = call.result
            self.probe = probe
            self.skipped += [n for n in notes if n not in self.skipped]
            self.failures.update(failures)
        if self.probe is None:
            self._calls.put(None)  # nothing to read: the thread ends

    def read(self) -> list[float] | None:
        """One value per column, or None (NaN) when NVML did not answer within ``wait``
        seconds, or still has not answered an earlier read, or failed (said once)."""
        probe = self.probe
        if probe is None:
            return None
        if self._reading is not None:
            if not self._reading.done.is_set():
                return None  # NVML still hangs in an earlier read: no other is asked
            self._reading = None
        call = self._submit(probe.read)
        if not call.done.wait(self._wait):
            self._reading = call
            self._fail(f"NVML did not answer a read of the GPUs within {self._wait:g} s: NaN until it does")
            return None
        for note in probe.errors:
            self._fail(note)
        if call.error is not None:
            self._fail(f"NVML failed a read of the GPUs ({type(call.error).__name__}: {call.error}): NaN")
            return None
        values: list[float] = call.result
        return values

    def close(self) -> None:
        """Shut NVML down and end the thread, waiting at most ``wait`` seconds."""
        if not self._thread.is_alive():
            return
        opening, probe = self._opening, self.probe
        if probe is not None:
            self._submit(probe.close)
        elif opening is not None:  # what the opening opens, once it has
            self._submit(lambda: _close_opened(opening))
        self._calls.put(None)
        self._thread.join(self._wait)

    def _submit(self, fn: Callable[[], Any]) -> _Call:
        call = _Call(fn)
        self._calls.put(call)
        return call

    def _fail(self, note: str) -> None:
        if note not in self.skipped:
            self.skipped.append(note)
        self.failures.add(note)

    def _serve(self) -> None:
        while True:
            call = self._calls.get()
            if call is None:
                return
            call.run()


def _close_opened(opening: _Call) -> None:
    result = opening.result
    if result is not None and result[0] is not None:
        result[0].close()
