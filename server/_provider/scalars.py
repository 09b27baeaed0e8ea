"""The provider's scalar reads: one run's chart series of a tag (a job's per role, with its
bands), the points later writers replaced, and every point of a tag of one run or of many.

Downsampled series are cached by (run, tag, data version, range, budget, ranks, place).
"""

from __future__ import annotations

import numpy as np

from visualdl._index.downsample import PICKS_PER_BUCKET
from visualdl._index.index import Index
from visualdl._index.runtable import attempts_of
from visualdl._index.series import ScalarSeries
from visualdl.errors import NotFound
from visualdl.server._data import Line, RankLine, RunScalars, RunsPoints
from visualdl.server._provider.lines import downsampled, role_line
from visualdl.server._provider.runs import RunCatalog, has_tag

__all__ = ["PER_RANK_POINTS", "ScalarReads"]

#: Points of all per-rank lines of one chart together, at most (each rank gets a share).
PER_RANK_POINTS = 200_000


class ScalarReads(RunCatalog):
    """The scalar series of one run (see :meth:`read_scalars`)."""

    def read_scalars(
        self,
        *,
        run: str,
        tag: str,
        max_points: int,
        x_min: float | None = None,
        x_max: float | None = None,
        ranks: str = "mean",
        rank: int | None = None,
        role: str | None = None,
        points: str = "kept",
    ) -> RunScalars:
        """One run's series of ``tag`` in the step range, at most ``max_points`` points.

        For a job (a run with two or more ranked writers of ``tag``), ``job`` holds per
        role the mean over ranks with its min/max band, the rank at each extreme (per point,
        and by range of steps) and the quantiles over ranks (p5, p25, median, p75, p95), and
        ``line`` is the first role's mean (trainers first); with ``ranks="each"``,
        ``per_rank`` also holds every rank's own series. With ``rank`` (and ``role``; by
        default the first role having that rank, trainers first), only that rank's own
        series, as ``line`` and the one entry of ``per_rank``: no rank is aggregated.
        ``points="replaced"``: the points earlier writers logged at steps a later one logged
        again (all places of the run, by step), as ``line``, never aggregated.
        """
        reader, local = self._resolve(run)
        if not has_tag(reader, local, "scalars", tag):
            raise NotFound(f"run {run!r} has no scalar tag {tag!r}")
        version = reader.version(local, "scalars", tag)
        key = (run, tag, version, max_points, x_min, x_max, ranks, rank, role, points)
        hit = self._charts.get(key)
        if hit is not None:
            return hit
        if points == "replaced":
            replaced = reader.scalars(local, tag, replaced=True)
            result = RunScalars(run, len(replaced), downsampled(replaced, max_points, x_min, x_max))
            self._charts.put(key, result)
            return result
        total = reader.count(local, "scalars", tag)
        if rank is not None:
            result = _one_rank(reader, local, run, tag, rank, role, total, max_points, x_min, x_max)
            self._charts.put(key, result)
            return result
        streamed = reader.chart_scalars(local, tag, max_points=max_points, x_min=x_min, x_max=x_max)
        if streamed is not None:  # one long series: downsampled as it is read back
            kept, in_range = streamed
            result = RunScalars(run, total, Line(kept.steps, kept.values, kept.wall_times, in_range))
            self._charts.put(key, result)
            return result
        jobs = reader.job_scalars(local, tag)
        if sum(len(r) for r, _ in jobs.values()) < 2:
            result = RunScalars(run, total, downsampled(reader.scalars(local, tag), max_points, x_min, x_max))
        else:
            roles = sorted(jobs, key=lambda r: (r != "trainer", r))
            lines = tuple(role_line(role, *jobs[role], max_points, x_min, x_max) for role in roles)
            per_rank = None
            if ranks == "each":
                places = [(role, rank) for role in roles for rank in jobs[role][0]]
                budget = max(PICKS_PER_BUCKET * 5, min(max_points, PER_RANK_POINTS // len(places)))
                per_rank = tuple(
                    RankLine(
                        role, rank, downsampled(reader.scalars(local, tag, role=role, rank=rank), budget, x_min, x_max)
                    )
                    for role, rank in places
                )
            result = RunScalars(run, total, lines[0].mean, lines, per_rank)
        self._charts.put(key, result)
        return result

    def read_points(self, *, run: str, tag: str) -> ScalarSeries:
        """Every point of ``tag`` in ``run``, by step, as stored (all writers, restarts
        resolved; not downsampled); :class:`NotFound` for an unknown run or a tag it never had."""
        reader, local = self._resolve(run)
        return reader.scalars(local, tag)

    def read_runs_points(self, *, runs: list[str], tag: str) -> RunsPoints:
        """:meth:`read_points` of each of ``runs`` at once, one gather per logdir
        (:meth:`visualdl._index.index.Index.runs_points`); none is prioritized, an unknown run
        or one without ``tag`` has no points."""
        parts = []
        for reader, located in self._by_index(runs):
            points, lengths, which = reader.runs_points([local for _, local in located], tag)
            positions = np.fromiter((i for i, _ in located), np.int64, len(located))
            parts.append(RunsPoints(points, lengths, positions[which]))
        if len(parts) == 1:
            return parts[0]
        if not parts:
            nothing = np.empty(0, np.int64)
            return RunsPoints(ScalarSeries(np.empty(0, np.int64), np.empty(0), np.empty(0)), nothing, nothing.copy())
        steps, values, walls = (
            np.concatenate([getattr(p.points, f) for p in parts]) for f in ("steps", "values", "wall_times")
        )
        return RunsPoints(
            ScalarSeries(steps, values, walls),
            np.concatenate([p.lengths for p in parts]),
            np.concatenate([p.which for p in parts]),
        )

    def read_replaced(self, *, run: str) -> tuple[int, dict[str, int]]:
        """How many times ``run``'s busiest place was written, and per scalar tag with any, how
        many points of earlier writers later ones replaced (:meth:`read_scalars` with
        ``points="replaced"`` gives them)."""
        reader, local = self._resolve(run)
        counts = {}
        for tag in reader.tags(local).get("scalars", []):
            n = len(reader.scalars(local, tag, replaced=True))
            if n:
                counts[tag] = n
        return attempts_of(reader.writers(local)), counts


def _one_rank(
    reader: Index,
    local: str,
    run: str,
    tag: str,
    rank: int,
    role: str | None,
    total: int,
    max_points: int,
    x_min: float | None,
    x_max: float | None,
) -> RunScalars:
    """The series of one place of a job (``role`` None: the first role having ``rank``,
    trainers first), read from that place's streams alone."""
    roles = sorted({r for r, k in reader.streams(local, tag) if k == rank}, key=lambda r: (r != "trainer", r))
    if role is None and roles:
        role = roles[0]
    if role not in roles:
        have = ", ".join(repr(r) for r in roles) or "none"
        raise NotFound(
            f"run {run!r} has no writer of {tag!r} with role {role!r} and rank {rank}; roles with that rank: {have}"
        )
    line = downsampled(reader.scalars(local, tag, role=role, rank=rank), max_points, x_min, x_max)
    return RunScalars(run, total, line, (), (RankLine(role, rank, line),))
