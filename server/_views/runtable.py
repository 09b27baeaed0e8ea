"""The answer of ``/api/runs/table``: the runs as a table, filtered by a query, sorted by any
column, a page of it (:mod:`visualdl._index.runtable`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from visualdl._index.runquery import parse
from visualdl._index.runtable import RunsTable

__all__ = ["runs_table_answer"]


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
