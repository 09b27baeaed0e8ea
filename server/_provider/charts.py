"""The provider's charts: one scalar tag over many runs, as ``/api/scalars`` and the notebook
draw it (:meth:`ChartReads.read_chart`).

The runs are those named, those a query over the runs table selects (``where``), or both;
then either each run is a line of its own (:meth:`ScalarReads.read_scalars`; a job's with its
bands, and the marks of the first rank to go wrong), at most :data:`MAX_CHART_RUNS` of them,
or the runs are grouped (:mod:`.groups`), each group one line with bands.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from visualdl.errors import InvalidArgument
from visualdl.server._data import RunScalars, ScalarRuns, WrongMarks
from visualdl.server._provider.groups import AUTO, auto_group, read_groups
from visualdl.server._provider.jobs import JobReads
from visualdl.server._provider.runs import has_tag
from visualdl.server._provider.runsource import RunsTableReads

__all__ = ["MAX_CHART_RUNS", "ChartReads"]

#: Runs a chart draws one by one, at most: more are grouped (``group_by``) or selected fewer.
MAX_CHART_RUNS = 1000


class ChartReads(RunsTableReads, JobReads):
    """Charts of one tag over runs."""

    def read_chart(
        self,
        *,
        tag: str,
        runs: Sequence[str] = (),
        where: str | None = None,
        group_by: Sequence[str] = (),
        group_regex: str | None = None,
        max_points: int,
        x_min: float | None = None,
        x_max: float | None = None,
        ranks: str = "mean",
        rank: int | None = None,
        role: str | None = None,
        points: str = "kept",
        max_runs: int | None = MAX_CHART_RUNS,
    ) -> ScalarRuns:
        """The chart of ``tag`` over ``runs`` (as given), those of them ``where`` selects, or
        (none given) every run it selects; neither: every run.

        Grouped (``group_by`` fields, :data:`~.groups.AUTO` for the server's choice, or
        ``group_regex``): one line with bands per group (:func:`~.groups.read_groups`).
        Otherwise each run having ``tag`` is a line of its own (:meth:`read_scalars`, with
        ``ranks``, ``rank``, ``role`` and ``points``), a job's marked where it first went wrong
        (:attr:`RunScalars.wrong`), at most ``max_runs`` of them (None: any number); a known
        run without ``tag`` is listed in ``missing``, an unknown one is :class:`NotFound`.
        """
        selected = self._selected(list(runs), where)
        if group_by or group_regex is not None:
            if points == "replaced":
                raise InvalidArgument("points=replaced draws each run's replaced points as they are: not with group_by")
            return self._grouped(selected, tag, list(group_by), group_regex, max_points, x_min, x_max)
        if max_runs is not None and len(selected) > max_runs:
            raise InvalidArgument(
                f"{len(selected)} runs selected; a chart draws at most {max_runs} runs one by one: "
                f"group them (group_by=FIELD, group_by={AUTO} or group_regex=...) or select fewer"
            )
        series = []
        missing = []
        for run in selected:
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
        marked = tuple(self._marked(line, tag) if line.job else line for line in series)
        return ScalarRuns(tag, max_points, marked, tuple(missing))

    def _selected(self, runs: list[str], where: str | None) -> list[str]:
        """``runs`` as given, those of them ``where`` selects, or (none given) every run it selects."""
        if where is None and runs:
            return runs
        selected = self.runs_table().select(where)
        if not runs:
            return selected
        keep = set(selected)
        return [r for r in runs if r in keep]

    def _marked(self, series: RunScalars, tag: str) -> RunScalars:
        """A job's series with the marks of its chart: where its tag first went wrong."""
        firsts, parted = self.read_job_wrong(run=series.run, tag=tag)
        return dataclasses.replace(series, wrong=WrongMarks(tuple(firsts), tuple(parted)))

    def _grouped(
        self,
        runs: list[str],
        tag: str,
        group_by: list[str],
        group_regex: str | None,
        max_points: int,
        x_min: float | None,
        x_max: float | None,
    ) -> ScalarRuns:
        table = self.runs_table()
        by = [f for f in group_by if f != AUTO]
        regex = group_regex
        if AUTO in group_by:
            if by or regex is not None:
                raise InvalidArgument(f"group_by={AUTO} chooses the fields itself; give it alone")
            by, regex = auto_group(table, runs)
        return read_groups(
            self, table, runs=runs, tag=tag, by=by, regex=regex, max_points=max_points, x_min=x_min, x_max=x_max
        )
