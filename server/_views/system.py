"""The system metrics of a job: ``/api/job/system`` and the list in ``/api/job``. Pure.

Per metric (``scope/name``, its unit) and per role, the bands over ranks on a time grid
(:mod:`visualdl._index.systembands`): the median, p5, p25, p75, p95, the minimum and
maximum with the rank (and GPU) at each, how many ranks had a value; null where none
had. A rank asked for gets its own line (``lines``, one per GPU for a GPU metric).
"""

from __future__ import annotations

from typing import Any

from visualdl._index.aggregate import QUANTILES
from visualdl._jobs.system import SystemBands, SystemMetricInfo

__all__ = ["QUANTILE_FIELDS", "system_answer", "system_list"]

#: The answer's field of each quantile of QUANTILES (0.05, 0.25, 0.5, 0.75, 0.95).
QUANTILE_FIELDS = ("p5", "p25", "median", "p75", "p95")
if len(QUANTILE_FIELDS) != len(QUANTILES):
    raise ImportError("QUANTILE_FIELDS must name each of QUANTILES")


def system_list(infos: tuple[SystemMetricInfo, ...]) -> list[dict[str, Any]]:
    """What ``/api/job`` says of the system metrics: each metric once."""
    return [{"metric": i.metric, "scope": i.scope, "name": i.name, "unit": i.unit, "writers": i.writers} for i in infos]


def _metric(b: SystemBands) -> dict[str, Any]:
    roles = []
    for r in b.roles:
        role: dict[str, Any] = {"role": r.role, "members": r.members, "count": r.count}
        role.update({field: r.quantiles[j] for j, field in enumerate(QUANTILE_FIELDS)})
        role.update(min=r.min, max=r.max, min_rank=r.min_rank, max_rank=r.max_rank)
        role.update(min_gpu=r.min_gpu, max_gpu=r.max_gpu)
        roles.append(role)
    lines = [
        {"role": x.role, "rank": x.rank, "gpu": x.gpu, "host": x.host, "wall_times": x.wall_times, "values": x.values}
        for x in b.lines
    ]
    return {
        "metric": b.metric,
        "scope": b.scope,
        "name": b.name,
        "unit": b.unit,
        "times": b.times,
        "roles": roles,
        "lines": lines,
    }


def system_answer(run: str, bands: tuple[SystemBands, ...], points: int) -> dict[str, Any]:
    """The answer of ``/api/job/system``."""
    return {"run": run, "points": points, "metrics": [_metric(b) for b in bands]}
