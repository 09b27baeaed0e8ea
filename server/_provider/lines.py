"""Series to chart lines: one series downsampled, a job's role as its mean with bands. Pure.

What :meth:`~visualdl.server._provider.DataProvider.read_scalars` and the grouped charts
(:mod:`.groups`) hand over as :class:`~visualdl.server._data.Line` and
:class:`~visualdl.server._data.RoleLine`: the points kept are those that keep the spikes
(:mod:`visualdl._index.downsample`), and who holds each extreme is told by range of steps
(:func:`visualdl._index.outliers.extreme_runs`).
"""

from __future__ import annotations

from visualdl._index.aggregate import JobSeries
from visualdl._index.downsample import downsample, downsample_lines, select_range
from visualdl._index.outliers import extreme_runs
from visualdl._index.series import ScalarSeries
from visualdl.server._data import Line, RoleLine

__all__ = ["downsampled", "role_line"]


def downsampled(series: ScalarSeries, max_points: int, x_min: float | None, x_max: float | None) -> Line:
    """``series`` in the step range, at most ``max_points`` points."""
    start, stop = select_range(series.steps, x_min, x_max)
    steps = series.steps[start:stop]
    keep = downsample(steps, series.values[start:stop], max_points)
    return Line(steps[keep], series.values[start:stop][keep], series.wall_times[start:stop][keep], int(steps.size))


def role_line(
    role: str, ranks: list[int], job: JobSeries, max_points: int, x_min: float | None, x_max: float | None
) -> RoleLine:
    """One role's mean line, min/max band and quantiles; the points kept are those that keep the
    spikes of every one of these lines (:func:`downsample_lines`). Who holds each extreme and
    each quantile's edge is told by range of steps over the whole step range (:func:`extreme_runs`)."""
    start, stop = select_range(job.steps, x_min, x_max)
    steps = job.steps[start:stop]
    lines = [job.mean[start:stop], job.min[start:stop], job.max[start:stop], *job.quantiles[:, start:stop]]
    keep = downsample_lines(steps, lines, max_points) + start
    mean = Line(job.steps[keep], job.mean[keep], job.wall_times[keep], int(steps.size))
    return RoleLine(
        role,
        ranks,
        mean,
        job.min[keep],
        job.max[keep],
        job.min_rank[keep],
        job.max_rank[keep],
        job.count[keep],
        job.quantiles[:, keep],
        extreme_runs(steps, job.min_rank[start:stop]),
        extreme_runs(steps, job.max_rank[start:stop]),
        job.quantile_rank[:, keep],
        tuple(extreme_runs(steps, held) for held in job.quantile_rank[:, start:stop]),
        job.std[keep],
    )
