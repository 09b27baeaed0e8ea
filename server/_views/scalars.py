"""The answer of ``/api/scalars``: the chart of one tag over runs, from :class:`ScalarRuns`
(:meth:`~visualdl.server._provider.DataProvider.read_chart`).

Arrays stay numpy arrays (the JSON encoder writes them natively); non-finite values are
written as null and listed in ``nonfinite`` as ``[index, "nan" | "inf" | "-inf"]``. A job's
entry holds the marks of where it first went wrong (``wrong``:
:func:`~visualdl.server._views.job_wrong.chart_marks`).
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np

from visualdl._index.outliers import RankRuns
from visualdl.server._data import Line, RankLine, RoleLine, RunScalars, ScalarRuns
from visualdl.server._views.job_wrong import chart_marks

__all__ = ["ScalarsAnswer", "scalars_answer"]


class ScalarsAnswer(TypedDict):
    tag: str
    max_points: int
    runs: list[dict[str, Any]]
    missing: list[str]


def nonfinite(values: np.ndarray) -> list[list[Any]]:
    """``[index, "nan" | "inf" | "-inf"]`` of each non-finite value (none: ``[]``)."""
    finite = np.isfinite(values)
    if finite.all():
        return []
    bad = np.flatnonzero(~finite)
    return [[int(i), "nan" if np.isnan(values[i]) else ("inf" if values[i] > 0 else "-inf")] for i in bad.tolist()]


def _points(steps: np.ndarray, values: np.ndarray, walls: np.ndarray) -> dict[str, Any]:
    return {"steps": steps, "values": values, "wall_times": walls, "nonfinite": nonfinite(values)}


def _line(line: Line) -> dict[str, Any]:
    out = _points(line.steps, line.values, line.wall_times)
    out["range_points"] = line.range_points
    return out


#: The answer's names of the rows of :attr:`RoleLine.quantiles`.
QUANTILE_FIELDS = ("p5", "p25", "median", "p75", "p95")


def _role(role: RoleLine) -> dict[str, Any]:
    mean = role.mean
    out = _points(mean.steps, mean.values, mean.wall_times)
    out.update(
        role=role.role,
        ranks=role.ranks,
        min=role.min,
        min_nonfinite=nonfinite(role.min),
        max=role.max,
        max_nonfinite=nonfinite(role.max),
        min_rank=role.min_rank.tolist(),
        max_rank=role.max_rank.tolist(),
        count=role.count.tolist(),
        range_points=mean.range_points,
    )
    for name, row in zip(QUANTILE_FIELDS, role.quantiles, strict=True):
        out[name] = row
        out[f"{name}_nonfinite"] = nonfinite(row)
    if role.std is not None:
        out["std"] = role.std
        out["std_nonfinite"] = nonfinite(role.std)
    if role.quantile_rank is not None:
        out.update({f"{q}_rank": row.tolist() for q, row in zip(QUANTILE_FIELDS, role.quantile_rank, strict=True)})
    if role.min_runs is not None and role.max_runs is not None:
        extremes = {"min": _extremes(role.min_runs), "max": _extremes(role.max_runs)}
        if role.quantile_runs is not None:  # who holds each quantile's edge, as each extreme
            extremes.update({q: _extremes(runs) for q, runs in zip(QUANTILE_FIELDS, role.quantile_runs, strict=True)})
        out["extremes"] = extremes
    return out


def _extremes(runs: RankRuns) -> dict[str, Any]:
    """Who holds an extreme: ``ranges`` as rows ``[first_step, last_step, rank, held, points]``
    and ``top`` as rows ``[rank, held]``, most first."""
    return {"ranges": runs.table(), "top": np.column_stack((runs.top_rank, runs.top_held)).reshape(-1, 2)}


def _rank(rank: RankLine) -> dict[str, Any]:
    return {"role": rank.role, "rank": rank.rank, **_line(rank.line)}


def run_scalars_json(series: RunScalars) -> dict[str, Any]:
    """One run's entry of the chart: its line (for a job: the first role's mean), then for a
    job each role's line and band (``job``) and each rank's line (``per_rank``) if asked."""
    out = _line(series.line)
    if series.job:
        out["job"] = [_role(role) for role in series.job]
    if series.per_rank is not None:
        out["per_rank"] = [_rank(rank) for rank in series.per_rank]
    if series.group is not None:
        out["group"] = {"key": dict(series.group.key), "members": list(series.group.members)}
    out.update(run=series.run, total_points=series.total_points)
    if series.wrong is not None:
        out["wrong"] = chart_marks(series.wrong)
    return out


def scalars_answer(chart: ScalarRuns) -> ScalarsAnswer:
    return {
        "tag": chart.tag,
        "max_points": chart.max_points,
        "runs": [run_scalars_json(series) for series in chart.runs],
        "missing": list(chart.missing),
    }
