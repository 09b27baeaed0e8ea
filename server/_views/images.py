"""The answer of ``/api/images``: the images of one tag, by step, without their bytes."""

from __future__ import annotations

from typing import TypedDict

from visualdl._kinds.table import ImageEvent

__all__ = ["ImagesAnswer", "images_answer"]


class ImagesAnswer(TypedDict):
    run: str
    tag: str
    steps: list[int]
    wall_times: list[float]
    widths: list[int]
    heights: list[int]


def images_answer(run: str, tag: str, events: list[ImageEvent]) -> ImagesAnswer:
    return {
        "run": run,
        "tag": tag,
        "steps": [e.step for e in events],
        "wall_times": [e.wall_time for e in events],
        "widths": [e.width for e in events],
        "heights": [e.height for e in events],
    }
