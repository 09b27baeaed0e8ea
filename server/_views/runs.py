"""The answers of ``/api/runs`` and ``/api/kinds``: the runs with their writers, the tabs."""

from __future__ import annotations

from typing import Any, TypedDict

from visualdl._index.index import WriterInfo
from visualdl.server._data import Kind, Run

__all__ = ["KindsAnswer", "RunsAnswer", "kinds_answer", "runs_answer"]

_WRITER_FIELDS = ("host", "pid", "display_name", "rank", "world_size", "role", "job", "attempt", "closed", "format")


class RunsAnswer(TypedDict):
    runs: list[dict[str, Any]]


class KindJSON(TypedDict):
    name: str
    title: str
    record: bool
    tags: int
    runs: int


class KindsAnswer(TypedDict):
    kinds: list[KindJSON]


def writer_json(w: WriterInfo) -> dict[str, Any]:
    out = {name: getattr(w, name) for name in _WRITER_FIELDS}
    # What a foreign file holds that no view shows yet, so that nothing vanishes unsaid.
    out["unshown"] = [{"tag": tag, "kind": kind, "count": count} for tag, kind, count in w.unshown]
    return out


def run_json(run: Run) -> dict[str, Any]:
    return {
        "name": run.name,
        "files": len(run.writers),
        "closed": run.closed,
        "start_time": run.start_time,
        "writers": [writer_json(w) for w in run.writers],
    }


def runs_answer(runs: tuple[Run, ...]) -> RunsAnswer:
    return {"runs": [run_json(run) for run in runs]}


def kinds_answer(kinds: tuple[Kind, ...]) -> KindsAnswer:
    return {
        "kinds": [{"name": k.name, "title": k.title, "record": k.record, "tags": k.tags, "runs": k.runs} for k in kinds]
    }
