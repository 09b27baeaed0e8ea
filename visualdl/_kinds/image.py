"""The images kind: one PNG per record, its shape stored beside it so that images are
listed without reading their bytes (a ``blob`` kind: the reader reads the PNG when asked)."""

from __future__ import annotations

from dataclasses import dataclass

from visualdl._kinds.kind import Kind, RecordRef
from visualdl.proto import pb

__all__ = ["KIND", "ImageEvent", "encode_image"]


@dataclass(frozen=True, slots=True)
class ImageEvent:
    step: int
    wall_time: float
    height: int
    width: int
    channels: int
    ref: RecordRef


def encode_image(tag: str, step: int, wall_time: float, png: bytes, shape: tuple[int, int, int]) -> pb.Record:
    height, width, channels = shape
    image = pb.Image(tag=tag, step=step, wall_time=wall_time, height=height, width=width, channels=channels, png=png)
    return pb.Record(image=image)


def _decode_image(msg: pb.Image, path: str, offset: int) -> list[tuple[str, ImageEvent]]:
    ref = RecordRef(path, offset)
    return [(msg.tag, ImageEvent(msg.step, msg.wall_time, msg.height, msg.width, msg.channels, ref))]


KIND = Kind(
    "images",
    "image",
    _decode_image,
    event=ImageEvent,
    encode=encode_image,
    storage="blob",
    title="Images",
    blob_field="png",
    media_type="image/png",
)
