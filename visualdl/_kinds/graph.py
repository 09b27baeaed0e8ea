"""The graphs kind: a model's serialized bytes under its name, in its format (``onnx``; a
TensorBoard event file's graph is a ``graphdef``). A graph has no step: its events are
ordered by wall time and the newest is shown."""

from __future__ import annotations

from dataclasses import dataclass

from visualdl._kinds.kind import Kind, RecordRef
from visualdl.proto import pb

__all__ = ["KIND", "GraphEvent", "encode_graph"]


@dataclass(frozen=True, slots=True)
class GraphEvent:
    name: str
    wall_time: float
    format: str
    size: int
    ref: RecordRef


def encode_graph(name: str, wall_time: float, data: bytes, fmt: str = "onnx") -> pb.Record:
    return pb.Record(graph=pb.Graph(name=name, wall_time=wall_time, format=fmt, data=data))


def _decode_graph(msg: pb.Graph, path: str, offset: int) -> list[tuple[str, GraphEvent]]:
    ref = RecordRef(path, offset)
    return [(msg.name, GraphEvent(msg.name, msg.wall_time, msg.format, len(msg.data), ref))]


KIND = Kind(
    "graphs",
    "graph",
    _decode_graph,
    event=GraphEvent,
    encode=encode_graph,
    storage="blob",
    title="Graphs",
    blob_field="data",
    media_type="application/octet-stream",
    order="wall_time",
)
