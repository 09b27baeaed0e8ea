"""The answer of ``/api/images``: the images of one tag, by step, without their bytes.

A step may hold several images (a batch: ``tf.summary.image`` with ``max_outputs`` above 1):
they come one after another in the order written, and ``samples`` numbers each among its
step's (0, 1, ...), which is what ``/api/image?step=&sample=`` asks for."""

from __future__ import annotations

from typing import TypedDict

from visualdl._kinds.table import ImageEvent

__all__ = ["ImagesAnswer", "images_answer", "samples_of"]


class ImagesAnswer(TypedDict):
    run: str
    tag: str
    steps: list[int]
    wall_times: list[float]
    widths: list[int]
    heights: list[int]
    samples: list[int]


def images_answer(run: str, tag: str, events: list[ImageEvent]) -> ImagesAnswer:
    return {
        "run": run,
        "tag": tag,
        "steps": [e.step for e in events],
        "wall_times": [e.wall_time for e in events],
        "widths": [e.width for e in events],
        "heights": [e.height for e in events],
        "samples": samples_of([e.step for e in events]),
    }


def samples_of(steps: list[int]) -> list[int]:
    """Each image's position among the images of its step, for ``steps`` in order (ascending,
    a step's images together): ``[0, 0, 1, 2, 0]`` for ``[0, 1, 1, 1, 2]``."""
    out: list[int] = []
    for i, step in enumerate(steps):
        out.append(out[-1] + 1 if i and steps[i - 1] == step else 0)
    return out
