"""Answers of the hyperparameter and custom scalar layout routes.

Hyperparameters: every run with an hparams record, its values as written (numbers stay
numbers, booleans booleans), and for every metric any run names (a scalar tag) the run's
last value with its step, and the lowest and highest over the tag's points; a metric a
run never logged is null for it. NaN and infinities are data: a last value that is one is
null with ``last_nonfinite`` saying which; min and max are over the finite values.

Custom scalar layouts (tensorboardX's ``add_custom_scalars``): the layouts of all runs
merged as TensorBoard merges them (categories by title, charts by title within them, the
first of a title kept), each multiline chart with the scalar tags its regular expressions
find (searched, as ``re.search``) among the runs' tags. The expressions are matched by RE2
(:mod:`visualdl.server._patterns`), in time linear in the tag: one that backtracks for hours
in Python's ``re`` costs nothing here. One that does not compile in RE2's syntax (which has
no backreferences or lookaround) is named on its chart, never an error of the request.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from visualdl._kinds.table import HParamsEvent, ScalarLayoutEvent
from visualdl.errors import CannotShow, NotFound
from visualdl.server._patterns import compile_pattern
from visualdl.server._provider import DataProvider

__all__ = ["hparams", "scalar_layout"]


def _kind_of(values: list[Any]) -> str:
    if all(isinstance(v, bool) for v in values):
        return "boolean"
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return "number"
    return "string"


def _metric(provider: DataProvider, run: str, tag: str) -> dict[str, Any] | None:
    reader, local = provider.resolve(run)
    try:
        series = reader.scalars(local, tag)
    except NotFound:
        return None
    if not len(series):
        return None
    values = np.asarray(series.values, np.float64)
    last = float(values[-1])
    finite = values[np.isfinite(values)]
    return {
        "last": last if math.isfinite(last) else None,
        "last_nonfinite": None
        if math.isfinite(last)
        else ("nan" if math.isnan(last) else ("inf" if last > 0 else "-inf")),
        "step": int(series.steps[-1]),
        "min": float(finite.min()) if finite.size else None,
        "max": float(finite.max()) if finite.size else None,
        "points": int(values.size),
    }


def hparams(provider: DataProvider, *, runs: list[str] | None) -> dict[str, Any]:
    names = runs or sorted(provider.run_names())
    found: list[tuple[str, HParamsEvent]] = []
    for run in names:
        reader, local = provider.resolve(run)
        event = reader.hparams(local)
        if event is not None:
            found.append((run, event))
    values: dict[str, list[Any]] = {}
    metrics: list[str] = []
    for _, event in found:
        for name, value in event.hparams.items():
            values.setdefault(name, []).append(value)
        for tag in event.metrics:
            if tag not in metrics:
                metrics.append(tag)
    columns = []
    for name, seen in values.items():
        kind = _kind_of(seen)
        column: dict[str, Any] = {"name": name, "type": kind}
        if kind != "number":
            column["values"] = sorted({str(v) if kind == "string" else v for v in seen}, key=str)
        columns.append(column)
    return {
        "hparams": columns,
        "metrics": metrics,
        "runs": [
            {
                "run": run,
                "wall_time": event.wall_time,
                "hparams": event.hparams,
                "metrics": {tag: _metric(provider, run, tag) for tag in metrics},
            }
            for run, event in found
        ],
    }


def scalar_layout(provider: DataProvider) -> dict[str, Any]:
    tags: set[str] = set(provider.list_tags().get("scalars", {}))
    ordered = sorted(tags)
    categories: dict[str, dict[str, Any]] = {}
    for run in sorted(provider.run_names()):
        reader, local = provider.resolve(run)
        event: ScalarLayoutEvent | None = reader.scalar_layout(local)
        if event is None:
            continue
        for category in event.categories:
            into = categories.setdefault(
                category.title, {"title": category.title, "closed": category.closed, "charts": {}}
            )
            for chart in category.charts:
                if chart.title in into["charts"]:
                    continue
                entry: dict[str, Any] = {
                    "title": chart.title,
                    "multiline": list(chart.multiline),
                    "margin": [list(m) for m in chart.margin],
                    "tags": [],
                    "errors": [],
                }
                drawn: dict[str, None] = {}  # the tags in order, each once
                for pattern in chart.multiline:
                    try:
                        compiled = compile_pattern(pattern)
                    except CannotShow as e:
                        entry["errors"].append(str(e))
                        continue
                    drawn.update((t, None) for t in ordered if compiled.search(t))
                for triple in chart.margin:
                    drawn.update((t, None) for t in triple if t in tags)
                entry["tags"] = list(drawn)
                into["charts"][chart.title] = entry
    return {"categories": [{**c, "charts": list(c["charts"].values())} for c in categories.values()]}
