"""Runs grouped, each group drawn as one line with bands: a sweep of 3,000 runs as 10 lines.

A group is the runs that share the values of the fields grouped by (hparams, or the runs
table's columns: ``status``, ``host``, ...; a run without a field groups under "none"), or
the text a regular expression captures in their names (its groups joined by ``/``, the whole
match without groups; runs it does not match group under "no match"). Each group's line is
computed as a job's is over its ranks (:func:`visualdl._index.aggregate.aggregate_points`:
mean, min, max, p5/p25/median/p75/p95 per step, and who holds each extreme, here a member's
position in the group), from each member's points as one chart of it would show them.

:func:`auto_group` is what a chart of many runs groups by when the user chose nothing: the
hparams that split the runs into a few groups of several runs each (not a seed, which
gives every run its own), else the runs' parent folders (``lr0.1/seed3`` -> ``lr0.1``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

import numpy as np

from visualdl._index.aggregate import aggregate_points
from visualdl._index.runtable import RunsTable, natural_key
from visualdl.errors import CannotShow, InvalidArgument, NotFound
from visualdl.server._data import Group, RunScalars, ScalarRuns
from visualdl.server._patterns import compile_pattern
from visualdl.server._provider.lines import role_line

if TYPE_CHECKING:
    from visualdl.server._provider.runs import RunCatalog

__all__ = ["AUTO", "MAX_GROUPS", "auto_group", "group_runs", "read_groups"]

#: ``group_by`` value asking the server to choose (:func:`auto_group`).
AUTO = ":auto"

#: Groups a chart draws at most (more is an error that says so).
MAX_GROUPS = 200
#: Auto grouping: at most this many groups, each of at least two runs on average.
AUTO_MAX_GROUPS = 50
NONE = "none"
NO_MATCH = "no match"


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def group_runs(
    table: RunsTable, runs: list[str], by: list[str], regex: str | None
) -> dict[tuple[tuple[str, Any], ...], list[str]]:
    """``runs`` by their group's key (``((field, value), ...)``), groups in natural order of
    their labels, members in the order of ``runs``."""
    groups: dict[tuple[tuple[str, Any], ...], list[str]] = defaultdict(list)
    index = {name: i for i, name in enumerate(table.names)}
    columns = []
    for name in by:
        column = table.table.field(name)
        if column is None:
            raise NotFound(f"no field {name!r} to group by ({table.table.fields_hint()})")
        columns.append((name, column))
    pattern: Any = None
    if regex is not None:
        try:
            pattern = compile_pattern(regex)
        except CannotShow as e:
            raise InvalidArgument(f"group_regex is not a regular expression RE2 takes: {e}") from None
    for run in runs:
        i = index.get(run)
        if i is None:
            raise NotFound(f"unknown run {run!r}")
        key: list[tuple[str, Any]] = []
        for name, column in columns:  # a boolean is a text here ("true"), like the query's
            if column.is_text[i]:
                key.append((name, str(column.texts[i])))
            elif column.is_number[i]:
                key.append((name, float(column.numbers[i])))
            else:
                key.append((name, None))
        if pattern is not None:
            m = pattern.search(run)
            captured = None if m is None else ("/".join(g or "" for g in m.groups()) if m.groups() else m.group())
            key.append(("name", captured))
        groups[tuple(key)].append(run)
    return dict(sorted(groups.items(), key=lambda item: _order(item[0])))


def _order(key: tuple[tuple[str, Any], ...]) -> tuple[Any, ...]:
    """Groups by their values: numbers as numbers, texts naturally, none last."""
    return tuple((2,) if v is None else ((0, v) if isinstance(v, float) else (1, natural_key(v))) for _, v in key)


def label_of(key: tuple[tuple[str, Any], ...]) -> str:
    """``lr=0.1, opt=adam``; a regex capture alone: its text."""
    parts = []
    for name, value in key:
        if name == "name":
            parts.append(NO_MATCH if value is None else (value or '""'))
        else:
            parts.append(f"{name}={NONE if value is None else _text(value)}")
    return ", ".join(parts) or "all runs"


def auto_group(table: RunsTable, runs: list[str]) -> tuple[list[str], str | None]:
    """What to group ``runs`` by when nothing was chosen: ``(fields, regex)`` (see the module docstring)."""
    n = len(runs)
    at = _positions(table, runs)
    chosen: list[str] = []
    groups = 1
    for name in table.hparams:
        column = table.table.field(name)
        assert column is not None
        values = np.where(column.is_number[at], column.numbers[at].astype(str), column.texts[at].astype(str))
        distinct = len(set(values.tolist()))
        if 2 <= distinct <= max(2, n // 3) and groups * distinct <= AUTO_MAX_GROUPS:
            chosen.append(name)
            groups *= distinct
    if chosen:
        return chosen, None
    parents = {r.rpartition("/")[0] for r in runs}
    if 2 <= len(parents) <= min(AUTO_MAX_GROUPS, max(2, n // 2)):
        return [], r"^(.*)/[^/]*$"
    return [], None


def _positions(table: RunsTable, runs: list[str]) -> np.ndarray:
    """Each run's row; :class:`NotFound` for a run the table does not have, as a chart of it says."""
    index = {name: i for i, name in enumerate(table.names)}
    unknown = next((r for r in runs if r not in index), None)
    if unknown is not None:
        raise NotFound(f"unknown run {unknown!r}")
    return np.fromiter((index[r] for r in runs), np.int64, len(runs))


def read_groups(
    provider: RunCatalog,
    table: RunsTable,
    *,
    runs: list[str],
    tag: str,
    by: list[str],
    regex: str | None,
    max_points: int,
    x_min: float | None = None,
    x_max: float | None = None,
) -> ScalarRuns:
    """One line with bands per group of ``runs`` (those having ``tag``); ``missing``: the runs
    without it. Kept until any run's points change (:meth:`RunCatalog._remembered`)."""
    key = ("groups", tag, tuple(runs), tuple(by), regex, max_points, x_min, x_max)

    def build() -> ScalarRuns:
        groups = group_runs(table, runs, by, regex)
        if len(groups) > MAX_GROUPS:
            raise InvalidArgument(f"{len(groups)} groups; a chart draws at most {MAX_GROUPS}: group by fewer fields")
        out = []
        missing: list[str] = []
        for group_key, members in groups.items():
            points, lengths, which = table.source.points_of(members, tag)
            present = lengths > 0
            missing.extend(members[i] for i in sorted(set(range(len(members))) - set(which[present].tolist())))
            if not present.any():
                continue
            job = aggregate_points(points.steps, points.values, points.wall_times, lengths, which)
            ranks = sorted(which[present].tolist())
            line = role_line("", ranks, job, max_points, x_min, x_max)
            label = label_of(group_key)
            out.append(
                RunScalars(label, int(lengths.sum()), line.mean, (line,), None, Group(group_key, tuple(members)))
            )
        return ScalarRuns(tag, max_points, tuple(out), tuple(sorted(missing, key=natural_key)))

    chart: ScalarRuns = provider._remembered(key, build)
    return chart
