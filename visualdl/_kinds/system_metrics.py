"""The system-metrics record: samples of a process's, its host's and its GPUs' metrics.

Not a kind of :data:`visualdl._kinds.table.KINDS`: its series are kept apart from the
user's tags (no tag list, no scalars tab), per writer file, by the format's decoder (its
entry of :data:`visualdl._formats.vdlog.writerrecords.WRITER_RECORDS`). A
record is a table, samples x metrics of float64; its columns (:class:`SystemMetric`:
name, scope, unit, GPU) are declared in a writer's first record and again only when they
change, so a decoder follows them from one record to the next (:func:`decode_system_metrics`
takes the columns declared before). The SDK's sampler writes them (``sdk/_sysmetrics.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = [
    "MAX_SYSTEM_CELLS",
    "SCOPES",
    "SystemBatch",
    "SystemMetric",
    "decode_system_metrics",
    "encode_system_metrics",
]

SCOPES: tuple[str, ...] = ("process", "host", "gpu")
#: Values a record may hold (samples x metrics); a reader refuses more.
MAX_SYSTEM_CELLS = 1 << 20
_F8 = np.dtype("<f8")


@dataclass(frozen=True, slots=True)
class SystemMetric:
    """One column: ``name`` in ``scope`` ("process", "host", "gpu"), its ``unit``; for a
    GPU its NVML index (-1 for other scopes), name and UUID."""

    name: str
    scope: str
    unit: str
    gpu: int = -1
    gpu_name: str = ""
    gpu_uuid: str = ""


@dataclass(frozen=True, slots=True)
class SystemBatch:
    """Samples of a writer: ``values[i, j]`` is metric ``metrics[j]`` at ``wall_times[i]``;
    ``skipped`` says what its sampler could not measure (in the first record only)."""

    metrics: tuple[SystemMetric, ...]
    wall_times: np.ndarray  # float64 (samples,)
    values: np.ndarray  # float64 (samples, metrics)
    skipped: tuple[str, ...] = ()


def encode_system_metrics(
    wall_times: np.ndarray,
    values: np.ndarray,
    metrics: tuple[SystemMetric, ...] = (),
    skipped: tuple[str, ...] = (),
) -> pb.Record:
    """The record of ``values`` (samples x columns) taken at ``wall_times``; ``metrics``
    declares the columns (empty: the writer's previous declaration holds)."""
    values = np.asarray(values, _F8)
    wall_times = np.asarray(wall_times, _F8)
    if values.ndim != 2 or values.shape[0] != wall_times.size:
        raise ValueError(f"system metrics: values of shape {values.shape} for {wall_times.size} wall times")
    if metrics and len(metrics) != values.shape[1]:
        raise ValueError(f"system metrics: {len(metrics)} metrics declared for {values.shape[1]} columns")
    declared = []
    for m in metrics:
        if m.scope not in SCOPES:
            raise ValueError(f"system metric {m.name!r}: scope {m.scope!r} is none of {SCOPES}")
        column = pb.SystemMetric(name=m.name, scope=m.scope, unit=m.unit, gpu_name=m.gpu_name, gpu_uuid=m.gpu_uuid)
        if m.gpu >= 0:
            column.gpu_index = m.gpu
        declared.append(column)
    message = pb.SystemMetrics(
        metrics=declared,
        wall_times=wall_times.tobytes(),
        values=np.ascontiguousarray(values).tobytes(),
        skipped=list(skipped),
    )
    return pb.Record(system_metrics=message)


def _metric(m: pb.SystemMetric) -> SystemMetric:
    return SystemMetric(m.name, m.scope, m.unit, m.gpu_index if m.HasField("gpu_index") else -1, m.gpu_name, m.gpu_uuid)


def decode_system_metrics(
    msg: pb.SystemMetrics, declared: tuple[SystemMetric, ...], path: str, offset: int
) -> SystemBatch:
    """The samples of a record, whose columns are its own declaration or else ``declared``
    (the writer's last one). Raises :class:`LogFormatError` on sizes that do not match."""
    metrics = tuple(_metric(m) for m in msg.metrics) if msg.metrics else declared
    if len(msg.wall_times) % 8:
        raise LogFormatError(f"system metrics: wall_times of {len(msg.wall_times)} bytes", path, offset)
    samples = len(msg.wall_times) // 8
    if samples and not metrics:
        raise LogFormatError("system metrics: values before any metric is declared", path, offset)
    if len(msg.values) != 8 * samples * len(metrics):
        raise LogFormatError(
            f"system metrics: {len(msg.values)} bytes of values for {samples} samples of {len(metrics)} metrics",
            path,
            offset,
        )
    if samples * len(metrics) > MAX_SYSTEM_CELLS:
        message = f"system metrics: {samples} x {len(metrics)} values, over {MAX_SYSTEM_CELLS}"
        raise LogFormatError(message, path, offset)
    walls = np.frombuffer(msg.wall_times, _F8).astype(np.float64)
    values = np.frombuffer(msg.values, _F8).astype(np.float64).reshape(samples, len(metrics))
    return SystemBatch(metrics, walls, values, tuple(msg.skipped))
