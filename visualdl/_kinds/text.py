"""The text kind: a string per step."""

from __future__ import annotations

from dataclasses import dataclass

from visualdl._kinds.kind import Kind
from visualdl.proto import pb

__all__ = ["KIND", "TextEvent", "encode_text"]


@dataclass(frozen=True, slots=True)
class TextEvent:
    step: int
    wall_time: float
    text: str


def encode_text(tag: str, step: int, wall_time: float, text: str) -> pb.Record:
    return pb.Record(text=pb.Text(tag=tag, step=step, wall_time=wall_time, text=text))


def _decode_text(msg: pb.Text, path: str, offset: int) -> list[tuple[str, TextEvent]]:
    return [(msg.tag, TextEvent(msg.step, msg.wall_time, msg.text))]


KIND = Kind("text", "text", _decode_text, event=TextEvent, encode=encode_text, storage="events", title="Text")
