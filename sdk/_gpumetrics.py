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
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from visualdl._kinds.table import SystemMetric

__all__ = ["GpuProbe", "open_gpus", "visible_indices"]

INSTALL_HINT = "pip install 'visualdl[gpu]' (nvidia-ml-py)"


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
        self._reads: list[tuple[Callable[[Any], float], Any]] = []
        for index, handle, name, uuid in gpus:
            for metric, unit, read in _metrics(nvml):
                try:
                    read(handle)
                except nvml.NVMLError as e:
                    if getattr(e, "value", None) == nvml.NVML_ERROR_NOT_SUPPORTED:
                        skipped.append(f"GPU {index} ({name}): {metric} is not supported by NVML")
                        continue
                    skipped.append(f"GPU {index} ({name}): {metric} cannot be read ({_text(e)})")
                    continue
                self.columns.append(SystemMetric(metric, "gpu", unit, index, name, uuid))
                self._reads.append((read, handle))

    def read(self) -> list[float]:
        out = []
        error = self._nvml.NVMLError
        for read, handle in self._reads:
            try:
                out.append(read(handle))
            except error:
                out.append(float("nan"))
        return out

    def close(self) -> None:
        try:
            self._nvml.nvmlShutdown()
        except self._nvml.NVMLError:
            pass


def open_gpus(env: Mapping[str, str], local_rank: int, skipped: list[str]) -> GpuProbe | None:
    """The probe of this process's GPUs, or None (what was not possible appended to ``skipped``)."""
    try:
        nvml = importlib.import_module("pynvml")
    except ImportError:
        skipped.append(f"pynvml is not installed: no GPU metrics ({INSTALL_HINT})")
        return None
    try:
        nvml.nvmlInit()
    except nvml.NVMLError as e:
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
    except nvml.NVMLError:
        pass
