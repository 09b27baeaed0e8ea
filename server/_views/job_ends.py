"""How a job's processes ended, as JSON: the ``ends`` field of ``/api/job`` (the timeline of
:mod:`visualdl._jobs.ends`) and ``/api/job/end``, one writer's end with its traceback, which
the job's answer never holds."""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence
from typing import Any

from visualdl._index.writers import WriterInfo
from visualdl._jobs.ends import EndGroup, EndTimeline
from visualdl._kinds.table import ProcessEnd
from visualdl.errors import NotFound

__all__ = ["end_timeline_json", "ended_json", "job_end_answer"]


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def ended_json(end: ProcessEnd | None) -> dict[str, Any] | None:
    """How a writer's process ended, without its traceback (up to 16 KiB a writer)."""
    if end is None:
        return None
    return {
        "how": end.how,
        "wall_time": _finite(end.wall_time),
        "step": end.step,
        "exception_type": end.exception_type,
        "message": end.message,
        "signal": end.signal,
        "thread": end.thread,
        "cause": end.cause,
        "has_traceback": bool(end.traceback),
    }


def _group(g: EndGroup) -> dict[str, Any]:
    return {
        "how": g.how,
        "signal": g.signal,
        "exception_type": g.exception_type,
        "phrase": g.phrase,
        "count": g.count,
        "first_time": g.first_time,
        "last_time": g.last_time,
        "from_seconds": g.from_seconds,
        "to_seconds": g.to_seconds,
        "min_step": g.min_step,
        "max_step": g.max_step,
        "members": [dataclasses.asdict(m) for m in g.members],
        "more": g.more,
        "text": g.text,
    }


def end_timeline_json(t: EndTimeline) -> dict[str, Any]:
    """The ``ends`` field of ``/api/job``."""
    first = t.first
    return {
        "ended": t.ended,
        "running": t.running,
        "first": None
        if first is None
        else {**dataclasses.asdict(first.entry), **(ended_json(first.end) or {}), "who": first.who, "text": first.text},
        "groups": [_group(g) for g in t.groups],
    }


def job_end_answer(run: str, infos: Sequence[WriterInfo], file: str) -> dict[str, Any]:
    """The answer of ``/api/job/end``: how the writer of ``file`` (a log file's name, as
    ``/api/job`` gives it) ended, with its traceback."""
    for info in infos:
        if os.path.basename(info.path) == file:
            end = info.ended
            return {
                "run": run,
                "file": file,
                "role": info.role,
                "rank": info.rank,
                "attempt": info.attempt,
                "ended": None if end is None else {**(ended_json(end) or {}), "traceback": end.traceback},
            }
    raise NotFound(f"run {run!r} has no log file {file!r}; /api/job lists its files")
