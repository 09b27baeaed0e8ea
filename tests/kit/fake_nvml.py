"""A recorded fake of NVML as ``pynvml`` answers it, for two GPUs: put in ``sys.modules["pynvml"]``
(:func:`install`) so that the SDK's real call sites (``sdk/_gpumetrics.py``) run against it.

What it answers, values of the kind a host of two A100s gives, fixed here (the calls, their
arguments, units and errors are pynvml's, as nvidia-ml-py 13 defines them):

* GPU 0, ``NVIDIA A100-SXM4-80GB``, UUID ``GPU-5f1a...``: 87% busy, 61,203,283,968 of
  85,899,345,920 bytes used, 312.5 W, 64 C, SM at 1,410 MHz, throttled by its software
  power cap (``0x4``), no ECC error;
* GPU 1, ``NVIDIA A100-PCIE-40GB``: 35% busy, 20 GiB of 40 GiB used, 71 C, SM at 1,095 MHz,
  throttled by a hardware thermal slowdown (``0x40``), one volatile corrected ECC error and
  none uncorrected; its power reading is ``NVML_ERROR_NOT_SUPPORTED`` (as on boards without
  a power sensor).

Errors are pynvml's: :class:`NVMLError` whose ``__new__`` maps a code to its subclass
(``NVMLError(3)`` is an ``NVMLError_NotSupported``), raised where NVML raises them. Calls
before ``nvmlInit`` raise ``NVML_ERROR_UNINITIALIZED``. :data:`CALLS` counts the calls.
"""

from __future__ import annotations

import sys
import types
from collections import Counter
from typing import Any, ClassVar

NVML_SUCCESS = 0
NVML_ERROR_UNINITIALIZED = 1
NVML_ERROR_INVALID_ARGUMENT = 2
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_TEMPERATURE_GPU = 0
NVML_CLOCK_SM = 1
NVML_MEMORY_ERROR_TYPE_CORRECTED = 0
NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1
NVML_VOLATILE_ECC = 0
NVML_AGGREGATE_ECC = 1
nvmlClocksThrottleReasonSwPowerCap = 0x4
nvmlClocksThrottleReasonHwThermalSlowdown = 0x40

_STRINGS = {
    NVML_ERROR_UNINITIALIZED: "Uninitialized",
    NVML_ERROR_INVALID_ARGUMENT: "Invalid Argument",
    NVML_ERROR_NOT_SUPPORTED: "Not Supported",
    NVML_ERROR_LIBRARY_NOT_FOUND: "NVML Shared Library Not Found",
}


class NVMLError(Exception):
    value: int
    _valClassMapping: ClassVar[dict[int, type]] = {}

    def __new__(cls, value: int) -> Any:
        if cls is NVMLError:
            cls = NVMLError._valClassMapping.get(value, cls)
        obj = Exception.__new__(cls)
        obj.value = value
        return obj

    def __init__(self, value: int) -> None:  # pynvml keeps only the value
        pass

    def __str__(self) -> str:
        return _STRINGS.get(self.value, f"Unknown Error {self.value}")


class NVMLError_Uninitialized(NVMLError):
    pass


class NVMLError_InvalidArgument(NVMLError):
    pass


class NVMLError_NotSupported(NVMLError):
    pass


class NVMLError_LibraryNotFound(NVMLError):
    pass


NVMLError._valClassMapping = {
    NVML_ERROR_UNINITIALIZED: NVMLError_Uninitialized,
    NVML_ERROR_INVALID_ARGUMENT: NVMLError_InvalidArgument,
    NVML_ERROR_NOT_SUPPORTED: NVMLError_NotSupported,
    NVML_ERROR_LIBRARY_NOT_FOUND: NVMLError_LibraryNotFound,
}

GIB = 1 << 30
#: What each GPU answers; None: NVML_ERROR_NOT_SUPPORTED.
GPUS: list[dict[str, Any]] = [
    {
        "name": "NVIDIA A100-SXM4-80GB",
        "uuid": "GPU-5f1a0c3e-8d2b-4a7e-9c61-0b2d3e4f5a61",
        "utilization": 87,
        "memory_used": 61_203_283_968,
        "memory_total": 80 * GIB,
        "power_mw": 312_500,
        "temperature": 64,
        "sm_clock": 1410,
        "throttle": nvmlClocksThrottleReasonSwPowerCap,
        "ecc": (0, 0),
    },
    {
        "name": "NVIDIA A100-PCIE-40GB",
        "uuid": "GPU-9b3c7d21-1e4f-4c2a-8f90-7a6b5c4d3e22",
        "utilization": 35,
        "memory_used": 20 * GIB,
        "memory_total": 40 * GIB,
        "power_mw": None,
        "temperature": 71,
        "sm_clock": 1095,
        "throttle": nvmlClocksThrottleReasonHwThermalSlowdown,
        "ecc": (1, 0),
    },
]
CALLS: Counter[str] = Counter()
_state = {"init": 0}


class _Handle:
    def __init__(self, index: int) -> None:
        self.index = index


class _Utilization:
    def __init__(self, gpu: int, memory: int) -> None:
        self.gpu = gpu
        self.memory = memory


class _Memory:
    def __init__(self, total: int, used: int) -> None:
        self.total = total
        self.used = used
        self.free = total - used


def _gpu(handle: Any, call: str) -> dict[str, Any]:
    CALLS[call] += 1
    if not _state["init"]:
        raise NVMLError(NVML_ERROR_UNINITIALIZED)
    if not isinstance(handle, _Handle):
        raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
    return GPUS[handle.index]


def nvmlInit() -> None:
    CALLS["nvmlInit"] += 1
    _state["init"] += 1


def nvmlShutdown() -> None:
    CALLS["nvmlShutdown"] += 1
    if not _state["init"]:
        raise NVMLError(NVML_ERROR_UNINITIALIZED)
    _state["init"] -= 1


def nvmlDeviceGetCount() -> int:
    CALLS["nvmlDeviceGetCount"] += 1
    if not _state["init"]:
        raise NVMLError(NVML_ERROR_UNINITIALIZED)
    return len(GPUS)


def nvmlDeviceGetHandleByIndex(index: int) -> _Handle:
    CALLS["nvmlDeviceGetHandleByIndex"] += 1
    if not _state["init"]:
        raise NVMLError(NVML_ERROR_UNINITIALIZED)
    if not 0 <= index < len(GPUS):
        raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
    return _Handle(index)


def nvmlDeviceGetName(handle: Any) -> str:
    return str(_gpu(handle, "nvmlDeviceGetName")["name"])


def nvmlDeviceGetUUID(handle: Any) -> str:
    return str(_gpu(handle, "nvmlDeviceGetUUID")["uuid"])


def nvmlDeviceGetUtilizationRates(handle: Any) -> _Utilization:
    g = _gpu(handle, "nvmlDeviceGetUtilizationRates")
    return _Utilization(g["utilization"], g["utilization"] // 2)


def nvmlDeviceGetMemoryInfo(handle: Any) -> _Memory:
    g = _gpu(handle, "nvmlDeviceGetMemoryInfo")
    return _Memory(g["memory_total"], g["memory_used"])


def nvmlDeviceGetPowerUsage(handle: Any) -> int:
    g = _gpu(handle, "nvmlDeviceGetPowerUsage")
    if g["power_mw"] is None:
        raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
    return int(g["power_mw"])


def nvmlDeviceGetTemperature(handle: Any, sensor: int) -> int:
    g = _gpu(handle, "nvmlDeviceGetTemperature")
    if sensor != NVML_TEMPERATURE_GPU:
        raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
    return int(g["temperature"])


def nvmlDeviceGetClockInfo(handle: Any, clock: int) -> int:
    g = _gpu(handle, "nvmlDeviceGetClockInfo")
    if clock != NVML_CLOCK_SM:
        raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
    return int(g["sm_clock"])


def nvmlDeviceGetCurrentClocksEventReasons(handle: Any) -> int:
    return int(_gpu(handle, "nvmlDeviceGetCurrentClocksEventReasons")["throttle"])


nvmlDeviceGetCurrentClocksThrottleReasons = nvmlDeviceGetCurrentClocksEventReasons


def nvmlDeviceGetTotalEccErrors(handle: Any, error_type: int, counter_type: int) -> int:
    g = _gpu(handle, "nvmlDeviceGetTotalEccErrors")
    if error_type not in (NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_MEMORY_ERROR_TYPE_UNCORRECTED):
        raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
    if counter_type not in (NVML_VOLATILE_ECC, NVML_AGGREGATE_ECC):
        raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
    return int(g["ecc"][error_type])


def install() -> types.ModuleType:
    """Answer ``import pynvml`` with this module (the SDK imports it when a sampler starts)."""
    module = sys.modules[__name__]
    sys.modules["pynvml"] = module
    return module
