"""The answers over the runs as a table: ``/api/runs/table``, and which runs a chart selected
by a query draws, one by one or in groups (:mod:`visualdl.server._runtable`,
:mod:`visualdl.server._groups`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from visualdl._index.runquery import parse
from visualdl._index.runtable import RunsTable, build_table
from visualdl._index.series import ScalarSeries
from visualdl._index.writers import WriterInfo
from visualdl._kinds.table import HParamsEvent
from visualdl.errors import InvalidArgument, NotFound
from visualdl.server._data import ScalarRuns
from visualdl.server._groups import auto_group, read_groups
from visualdl.server._provider import DataProvider

__all__ = ["AUTO", "grouped_chart", "runs_table", "runs_table_answer", "selected_runs"]

#: ``group_by`` value asking the server to choose (:func:`visualdl.server._groups.auto_group`).
AUTO = ":auto"


class _ProviderRuns:
    """The provider's runs (every logdir's, by the names the API gives them) as a
    :class:`~visualdl._index.runtable.RunSource`."""

    def __init__(self, provider: DataProvider) -> None:
        self._provider = provider
        self._writers = {run.name: run.writers for run in provider.list_runs()}

    def writers_of(self, run: str) -> tuple[WriterInfo, ...]:
        return self._writers.get(run, ())

    def hparams_of(self, run: str) -> HParamsEvent | None:
        reader, local = self._provider.resolve(run)
        return reader.hparams(local)

    def scalars_of(self, run: str, tag: str) -> ScalarSeries | None:
        reader, local = self._provider.resolve(run)
        if tag not in reader.tags(local)["scalars"]:
            return None
        return reader.scalars(local, tag)

    def data_version(self) -> Any:
        return self._provider.data_version()


def runs_table(provider: DataProvider) -> RunsTable:
    """The provider's runs as a table, built once per change of its runs, files, writers or tags."""

    def build() -> RunsTable:
        source = _ProviderRuns(provider)
        return build_table(source, list(source._writers))

    table: RunsTable = provider.listed("runs_table", build)
    return table


def selected_runs(provider: DataProvider, runs: list[str], where: str | None) -> list[str]:
    """``runs`` as given, those of them ``where`` selects, or (none given) every run it selects."""
    if where is None and runs:
        return runs
    selected = runs_table(provider).select(where)
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
    table = runs_table(provider)
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
        if table.table.field(sort) is None:
            known = ", ".join(table.table.known_fields()[:12])
            raise NotFound(f"no field {sort!r} to sort by (fields: {known})")
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
