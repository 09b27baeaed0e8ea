"""How a job's processes ended, as one timeline: who ended first, how, at what step and
time, and who followed, grouped. Pure.

From each log file's :attr:`~visualdl._index.index.WriterInfo.ended` (see
:func:`visualdl._index.ends.infer_end`): the *first* end is the earliest end that is not a
clean close (the earliest close when all closed); the others are grouped by how they
ended (how, signal, exception type), each group with its count, its time span from the
first end, its steps and its first :data:`MEMBERS` members by time, so that 10,000 ranks
make a few groups, not 10,000 rows. E.g. ``trainer 3 raised `RuntimeError: CUDA out of
memory` at step 1,204`` then ``999 others ended by SIGTERM within 4 s``. Files still
running have no end and are counted apart.

The job page's writers get a state from their end (:func:`end_state`), and the traceback
of one writer is answered alone (:func:`job_end_answer`), never in the job's answer.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from typing import Any

from visualdl._index.index import WriterInfo
from visualdl._kinds.table import ProcessEnd
from visualdl.errors import NotFound

__all__ = ["MEMBERS", "end_state", "end_timeline", "ended_json", "job_end_answer", "timeline_lines"]

#: Members listed per group (the rest are counted).
MEMBERS = 50
#: A message is cut to this many characters in a phrase.
_MESSAGE_CHARS = 160
_STATES = {"closed": "closed", "exception": "raised", "signal": "signalled", "fatal signal": "crashed"}


def end_state(end: ProcessEnd | None) -> str | None:
    """The job page's state of a writer that ended as ``end``: ``closed``, ``raised``,
    ``signalled`` or ``crashed``; None when its end is unknown or inferred as killed (the
    page tells ``running``, ``silent`` and ``killed`` apart by its own definitions)."""
    return None if end is None else _STATES.get(end.how)


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


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _who(info: WriterInfo) -> str:
    if info.rank >= 0:
        return f"{info.role or 'rank'} {info.rank}"
    return info.display_name or os.path.basename(info.path)


def _what(end: ProcessEnd, *, message: bool = True) -> str:
    """How ``end`` ended, as a verb phrase: ``raised `RuntimeError: ...```, ``ended by SIGTERM``."""
    if end.how == "exception":
        text = end.exception_type
        if message and end.message:
            cut = end.message.splitlines()[0][:_MESSAGE_CHARS] if end.message.strip() else ""
            text += f": {cut}" if cut else ""
        what = f"raised `{text}`"
        if end.thread and end.thread != "MainThread":
            what += f" in thread {end.thread!r}"
        return what
    if end.how == "signal":
        return f"ended by {end.signal}"
    if end.how == "fatal signal":
        return f"crashed with {end.signal}"
    if end.how == "killed":
        return "was killed without a trace" + (f" ({end.cause})" if end.cause else "")
    return "closed"


def _entry(info: WriterInfo, end: ProcessEnd) -> dict[str, Any]:
    return {
        "role": info.role,
        "rank": info.rank,
        "attempt": info.attempt,
        "file": os.path.basename(info.path),
        "wall_time": _finite(end.wall_time),
        "step": end.step,
    }


def _sort_time(end: ProcessEnd) -> float:
    return end.wall_time if math.isfinite(end.wall_time) else math.inf


def end_timeline(infos: Sequence[WriterInfo]) -> dict[str, Any]:
    """The timeline of the ends of ``infos`` (one per log file; see the module docstring)."""
    ended = sorted(
        ((info, info.ended) for info in infos if info.ended is not None),
        key=lambda p: (_sort_time(p[1]), p[0].role, p[0].rank, p[0].attempt),
    )
    running = len(infos) - len(ended)
    if not ended:
        return {"ended": 0, "running": running, "first": None, "groups": []}
    unclean = [p for p in ended if p[1].how != "closed"]
    first_info, first = (unclean or ended)[0]
    t0 = first.wall_time
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for info, end in ended:
        if info is first_info:
            continue
        key = (end.how, end.signal, end.exception_type)
        group = groups.get(key)
        if group is None:
            group = groups[key] = {
                "how": end.how,
                "signal": end.signal,
                "exception_type": end.exception_type,
                "phrase": _what(end, message=False),
                "count": 0,
                "first_time": None,
                "last_time": None,
                "from_seconds": None,
                "to_seconds": None,
                "min_step": None,
                "max_step": None,
                "members": [],
            }
        group["count"] += 1
        if len(group["members"]) < MEMBERS:
            group["members"].append(_entry(info, end))
        if math.isfinite(end.wall_time):
            group["first_time"] = end.wall_time if group["first_time"] is None else group["first_time"]
            group["last_time"] = end.wall_time
        if end.step is not None:
            group["min_step"] = end.step if group["min_step"] is None else min(group["min_step"], end.step)
            group["max_step"] = end.step if group["max_step"] is None else max(group["max_step"], end.step)
    out_groups = list(groups.values())
    for group in out_groups:
        if group["first_time"] is not None and math.isfinite(t0):
            group["from_seconds"] = group["first_time"] - t0
            group["to_seconds"] = group["last_time"] - t0
        group["more"] = group["count"] - len(group["members"])
        group["text"] = _group_text(group)
    return {
        "ended": len(ended),
        "running": running,
        "first": {
            **_entry(first_info, first),
            **(ended_json(first) or {}),
            "who": _who(first_info),
            "text": _first_text(first_info, first),
        },
        "groups": out_groups,
    }


def _first_text(info: WriterInfo, end: ProcessEnd) -> str:
    """``trainer 3 raised `RuntimeError: CUDA out of memory` at step 1,204`` (no time: each
    reader of the answer writes it in its own time zone)."""
    at = f" at step {end.step:,}" if end.step is not None else ""
    return f"{_who(info)} {_what(end)}{at}"


def _group_text(group: dict[str, Any]) -> str:
    """``999 others ended by SIGTERM within 4 s``."""
    n = group["count"]
    text = f"{n:,} other{'s' if n != 1 else ''} {group['phrase']}"
    lo, hi = group["from_seconds"], group["to_seconds"]
    if lo is None or hi is None:
        return text
    if lo >= 0:
        return f"{text} within {_seconds(hi)}"
    if hi <= 0:
        span = _seconds(-lo) if _seconds(-lo) == _seconds(-hi) else f"{_seconds(-hi)} to {_seconds(-lo)}"
        return f"{text} {span} before"
    return f"{text} from {_seconds(-lo)} before to {_seconds(hi)} after"


def _seconds(s: float) -> str:
    if s < 10:
        return f"{math.ceil(s * 10) / 10:g} s"
    if s < 600:
        return f"{math.ceil(s)} s"
    return f"{s / 60:.0f} min"


def timeline_lines(timeline: dict[str, Any], clock: Any = time.localtime) -> list[str]:
    """The timeline as lines of text (``visualdl --inspect``): the first end with its time
    (``clock``: seconds to a ``struct_time``), then one line per group; nothing when every
    process closed cleanly or none ended."""
    first = timeline["first"]
    if first is None or first["how"] == "closed":
        return []
    when = f", {time.strftime('%H:%M:%S', clock(first['wall_time']))}" if first["wall_time"] is not None else ""
    lines = [f"{first['text']}{when}"]
    for group in timeline["groups"]:
        lines.append(f"  {group['text']}")
    return lines


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
