"""Answers of the hyperparameter and custom scalar layout routes.

Hyperparameters: every trial run (a run with an hparams record of values), its values as
written (numbers stay numbers, booleans booleans), and for every metric of any trial the
run's last value with its step, and the lowest and highest over the tag's points; a metric a
run never logged is null for it. NaN and infinities are data: a last value that is one is
null with ``last_nonfinite`` saying which; min and max are over the finite values.
Which metrics a trial has, declared by an experiment above it or found among the scalars
of its runs, and the run each is read from: :mod:`visualdl._index.experiments`.

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
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from visualdl._index.experiments import Metric, trial_metrics
from visualdl._kinds.table import HPARAMS_TAG, HParamsEvent, ScalarLayoutEvent
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
    try:
        series = provider.read_points(run=run, tag=tag)  # a declared group may never have been written
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
    tags = provider.list_tags()
    with_hparams = tags.get("hparams", {}).get(HPARAMS_TAG, [])
    events: dict[str, HParamsEvent] = {}
    for run in with_hparams:
        event = provider.read_hparams(run=run)
        if event is not None:
            events[run] = event
    wanted = set(runs) if runs else None
    found = sorted((run, e) for run, e in events.items() if e.trial and (wanted is None or run in wanted))
    if runs:
        for run in runs:
            provider.read_hparams(run=run)  # an unknown name is NotFound (a known one is read first)
    metrics_of = trial_metrics(events, _LazyScalarTags(tags.get("scalars", {})))
    values: dict[str, list[Any]] = {}
    metrics: dict[str, Metric] = {}
    for run, event in found:
        for name, value in event.hparams.items():
            values.setdefault(name, []).append(value)
        for metric in metrics_of.get(run, ()):
            metrics.setdefault(metric.name, metric)
    columns = []
    for name, seen in values.items():
        kind = _kind_of(seen)
        column: dict[str, Any] = {"name": name, "type": kind}
        if kind != "number":
            column["values"] = sorted({str(v) if kind == "string" else v for v in seen}, key=str)
        columns.append(column)
    out_runs = []
    for run, event in found:
        own = {m.name: m for m in metrics_of.get(run, ())}
        out_runs.append(
            {
                "run": run,
                "wall_time": event.wall_time,
                "hparams": event.hparams,
                "metrics": {
                    name: (_metric(provider, own[name].run, own[name].tag) if name in own else None) for name in metrics
                },
            }
        )
    return {
        "hparams": columns,
        "metrics": list(metrics),
        "metric_sources": [{"name": m.name, "tag": m.tag, "group": m.group} for m in metrics.values()],
        "runs": out_runs,
    }


class _LazyScalarTags(Mapping[str, list[str]]):
    """``{run: its scalar tags}`` from the provider's ``{tag: [runs]}``, transposed only if
    read (runs whose metrics are declared never need it)."""

    def __init__(self, by_tag: dict[str, list[str]]) -> None:
        self._by_tag = by_tag
        self._by_run: dict[str, list[str]] | None = None

    def _runs(self) -> dict[str, list[str]]:
        if self._by_run is None:
            self._by_run = {}
            for tag, names in self._by_tag.items():
                for run in names:
                    self._by_run.setdefault(run, []).append(tag)
        return self._by_run

    def __getitem__(self, run: str) -> list[str]:
        return self._runs()[run]

    def __iter__(self) -> Iterator[str]:
        return iter(self._runs())

    def __len__(self) -> int:
        return len(self._runs())


def scalar_layout(provider: DataProvider) -> dict[str, Any]:
    tags: set[str] = set(provider.list_tags().get("scalars", {}))
    ordered = sorted(tags)
    categories: dict[str, dict[str, Any]] = {}
    for run in sorted(provider.run_names()):
        event: ScalarLayoutEvent | None = provider.read_scalar_layout(run=run)
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
