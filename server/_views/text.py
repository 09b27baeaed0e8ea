"""The answer of ``/api/text``: the texts of one tag, by step."""

from __future__ import annotations

from typing import Any, TypedDict

from visualdl._kinds.table import TextEvent

__all__ = ["TextAnswer", "text_answer"]


class TextAnswer(TypedDict):
    run: str
    tag: str
    entries: list[dict[str, Any]]


def text_answer(run: str, tag: str, events: list[TextEvent]) -> TextAnswer:
    return {
        "run": run,
        "tag": tag,
        "entries": [{"step": e.step, "wall_time": e.wall_time, "text": e.text} for e in events],
    }
