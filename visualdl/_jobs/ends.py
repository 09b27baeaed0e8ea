"""How a job's processes ended, as one timeline: who ended first, how, at what step and
time, and who followed, grouped. Pure.

From each log file's :attr:`~visualdl._index.writers.WriterInfo.ended` (see
:func:`visualdl._index.ends.infer_end`): the *first* end is the earliest end that is not a
clean close (the earliest close when all closed); the others are grouped by how they
ended (how, signal, exception type), each group with its count, its time span from the
first end, its steps and its first :data:`MEMBERS` members by time, so that 10,000 ranks
make a few groups, not 10,000 rows. E.g. ``trainer 3 raised `RuntimeError: CUDA out of
memory` at step 1,204`` then ``999 others ended by SIGTERM within 4 s``. Files still
running have no end and are counted apart.

A writer's state on the job page follows from its end (:func:`end_state`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from visualdl._index.writers import WriterInfo
from visualdl._kinds.table import ProcessEnd

__all__ = ["MEMBERS", "EndEntry", "EndGroup", "EndTimeline", "FirstEnd", "end_state", "end_timeline", "who"]

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


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def who(info: WriterInfo) -> str:
    """``trainer 3``; an unranked writer by its name or its file's."""
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


@dataclass(frozen=True, slots=True)
class EndEntry:
    """One ended file: whose, and when and at what step it ended (None: unknown)."""

    role: str
    rank: int
    attempt: int
    file: str
    wall_time: float | None
    step: int | None


def _entry(info: WriterInfo, end: ProcessEnd) -> EndEntry:
    return EndEntry(info.role, info.rank, info.attempt, os.path.basename(info.path), _finite(end.wall_time), end.step)


@dataclass(frozen=True, slots=True)
class FirstEnd:
    """The first end of the job: its file, the end itself, who (``trainer 3``) and the sentence."""

    entry: EndEntry
    end: ProcessEnd
    who: str
    text: str


@dataclass(frozen=True, slots=True)
class EndGroup:
    """The other ends of one kind (how, signal, exception type): their count, times (and
    seconds from the first end), steps, and the first :data:`MEMBERS` of them by time."""

    how: str
    signal: str
    exception_type: str
    phrase: str
    count: int
    first_time: float | None
    last_time: float | None
    from_seconds: float | None
    to_seconds: float | None
    min_step: int | None
    max_step: int | None
    members: tuple[EndEntry, ...]
    text: str

    @property
    def more(self) -> int:
        """Members counted, not listed."""
        return self.count - len(self.members)


@dataclass(frozen=True, slots=True)
class EndTimeline:
    """The ends of a job's files: how many ended, how many still run, the first end, the groups."""

    ended: int
    running: int
    first: FirstEnd | None
    groups: tuple[EndGroup, ...] = field(default=())


def _sort_time(end: ProcessEnd) -> float:
    return end.wall_time if math.isfinite(end.wall_time) else math.inf


@dataclass(slots=True)
class _Gathering:
    end: ProcessEnd
    count: int = 0
    first_time: float | None = None
    last_time: float | None = None
    min_step: int | None = None
    max_step: int | None = None
    members: list[EndEntry] = field(default_factory=list)

    def add(self, info: WriterInfo, end: ProcessEnd) -> None:
        self.count += 1
        if len(self.members) < MEMBERS:
            self.members.append(_entry(info, end))
        if math.isfinite(end.wall_time):
            self.first_time = end.wall_time if self.first_time is None else self.first_time
            self.last_time = end.wall_time
        if end.step is not None:
            self.min_step = end.step if self.min_step is None else min(self.min_step, end.step)
            self.max_step = end.step if self.max_step is None else max(self.max_step, end.step)

    def group(self, t0: float) -> EndGroup:
        lo = hi = None
        if self.first_time is not None and self.last_time is not None and math.isfinite(t0):
            lo, hi = self.first_time - t0, self.last_time - t0
        phrase = _what(self.end, message=False)
        e = self.end
        return EndGroup(
            e.how, e.signal, e.exception_type, phrase, self.count, self.first_time, self.last_time, lo, hi,
            self.min_step, self.max_step, tuple(self.members), _group_text(self.count, phrase, lo, hi),
        )  # fmt: skip


def end_timeline(infos: Sequence[WriterInfo]) -> EndTimeline:
    """The timeline of the ends of ``infos`` (one per log file; see the module docstring)."""
    ended = sorted(
        ((info, info.ended) for info in infos if info.ended is not None),
        key=lambda p: (_sort_time(p[1]), p[0].role, p[0].rank, p[0].attempt),
    )
    running = len(infos) - len(ended)
    if not ended:
        return EndTimeline(0, running, None)
    unclean = [p for p in ended if p[1].how != "closed"]
    first_info, first = (unclean or ended)[0]
    groups: dict[tuple[str, str, str], _Gathering] = {}
    for info, end in ended:
        if info is first_info:
            continue
        key = (end.how, end.signal, end.exception_type)
        if key not in groups:
            groups[key] = _Gathering(end)
        groups[key].add(info, end)
    t0 = first.wall_time
    return EndTimeline(
        len(ended),
        running,
        FirstEnd(_entry(first_info, first), first, who(first_info), _first_text(first_info, first)),
        tuple(g.group(t0) for g in groups.values()),
    )


def _first_text(info: WriterInfo, end: ProcessEnd) -> str:
    """``trainer 3 raised `RuntimeError: CUDA out of memory` at step 1,204`` (no time: each
    reader writes it in their own time zone)."""
    at = f" at step {end.step:,}" if end.step is not None else ""
    return f"{who(info)} {_what(end)}{at}"


def _group_text(n: int, phrase: str, lo: float | None, hi: float | None) -> str:
    """``999 others ended by SIGTERM within 4 s``."""
    text = f"{n:,} other{'s' if n != 1 else ''} {phrase}"
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
