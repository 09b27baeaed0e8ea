"""The provider's charts: one scalar tag over many runs.

A chart is the series of each run having the tag (:meth:`ScalarReads.read_scalars`); a
known run without it is listed as missing.
"""

from __future__ import annotations

from visualdl.server._data import ScalarRuns
from visualdl.server._provider.runs import has_tag
from visualdl.server._provider.scalars import ScalarReads

__all__ = ["ChartReads"]


class ChartReads(ScalarReads):
    """Charts of one tag over runs."""

    def read_scalar_runs(
        self,
        *,
        runs: list[str],
        tag: str,
        max_points: int,
        x_min: float | None = None,
        x_max: float | None = None,
        ranks: str = "mean",
        rank: int | None = None,
        role: str | None = None,
        points: str = "kept",
    ) -> ScalarRuns:
        """:meth:`read_scalars` of each of ``runs``; a known run without ``tag`` is listed in
        ``missing`` (the chart shows the others), an unknown one is :class:`NotFound`."""
        series = []
        missing = []
        for run in runs:
            reader, local = self._resolve(run)
            if not has_tag(reader, local, "scalars", tag):
                missing.append(run)
                continue
            series.append(
                self.read_scalars(
                    run=run,
                    tag=tag,
                    max_points=max_points,
                    x_min=x_min,
                    x_max=x_max,
                    ranks=ranks,
                    rank=rank,
                    role=role,
                    points=points,
                )
            )
        return ScalarRuns(tag, max_points, tuple(series), tuple(missing))
