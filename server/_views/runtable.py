"""The answers over the runs as a table: ``/api/runs/table``, and which runs a chart selected
by a query draws, one by one or in groups (:mod:`visualdl._index.runtable`,
:mod:`visualdl.server._provider.groups`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from visualdl._index.runquery import parse
from visualdl._index.runtable import RunsTable
from visualdl.errors import InvalidArgument
from visualdl.server._data import ScalarRuns
from visualdl.server._provider import DataProvider
from visualdl.server._provider.groups import auto_group, read_groups

__all__ = ["AUTO", "grouped_chart", "runs_table_answer", "selected_runs"]

#: ``group_by`` value asking the server to choose (:func:`visualdl.server._provider.groups.auto_group`).
AUTO = ":auto"


def selected_runs(provider: DataProvider, runs: list[str], where: str | None) -> list[str]:
    """``runs`` as given, those of them ``where`` selects, or (none given) every run it selects."""
    if where is None and runs:
        return runs
    selected = provider.runs_table().select(where)
    if not runs:
        return selected
    keep = set(selected)
    return [r for r in runs if r in keep]


def grouped_chart(
    provider: DataProvider,
    runs: list[str],
    *,
    tag: str,
    group_by: list[str],
    group_regex: str | None,
    max_points: int,
    x_min: float | None,
    x_max: float | None,
) -> ScalarRuns:
    table = provider.runs_table()
    by = [f for f in group_by if f != AUTO]
    regex = group_regex
    if AUTO in group_by:
        if by or regex is not None:
            raise InvalidArgument(f"group_by={AUTO} chooses the fields itself; give it alone")
        by, regex = auto_group(table, runs)
    return read_groups(
        provider, table, runs=runs, tag=tag, by=by, regex=regex, max_points=max_points, x_min=x_min, x_max=x_max
    )


def runs_table_answer(
    table: RunsTable,
    *,
    where: str | None,
    sort: str | None,
    descending: bool,
    tags: list[str],
    offset: int,
    limit: int,
) -> dict[str, Any]:
    rows = np.arange(len(table))
    if where is not None:
        rows = np.flatnonzero(parse(where).select(table.table))
    if sort is not None:
        rows = table.order(rows, sort, descending)
    elif descending:
        rows = rows[::-1]
    page = rows[offset : offset + limit].tolist()
    return {
        "total": len(table),
        "matched": int(rows.size),
        "offset": offset,
        "fields": [*table.meta, "name", *(f"hparams.{h}" for h in table.hparams)],
        "hparams": list(table.hparams),
        "rows": [table.row(i, tags) for i in page],
    }
