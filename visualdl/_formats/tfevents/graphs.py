"""Graphs in event files: an ``Event``'s ``graph_def`` (a serialized ``GraphDef``) or the
``graph_def`` of its ``meta_graph_def`` (a ``MetaGraphDef``, field 2), as graph events of
format :data:`GRAPHDEF`, their bytes left in the file. Pure.

TensorBoard shows one graph per run, "Default": the newest ``graph_def``, or a meta
graph's when the run has none (its ``EventAccumulator``: a meta graph never replaces a
graph read before it). So here: both are named :data:`DEFAULT`, the newest wins by wall
time as graphs do, and a file's meta graph after a ``graph_def`` of the same file is not
a graph event. The server turns the bytes into the graph it draws
(``visualdl.server._graph.graphdef``); nothing here parses a ``GraphDef``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from visualdl._formats.protowire import LEN, fields
from visualdl._kinds.graph import GraphEvent
from visualdl._kinds.kind import RecordRef
from visualdl.errors import LogFormatError
from visualdl.proto import tb

__all__ = ["DEFAULT", "GRAPHDEF", "GraphRef", "graph_event", "graph_span"]

#: The format of the graph events read here.
GRAPHDEF = "graphdef"
#: The name of a run's graph, as TensorBoard shows it.
DEFAULT = "Default"
#: Event.graph_def, Event.meta_graph_def, MetaGraphDef.graph_def.
_GRAPH_DEF, _META_GRAPH_DEF, _META_GRAPH = 4, 9, 2


@dataclass(frozen=True, slots=True)
class GraphRef(RecordRef):
    """Where a graph lies in an event file: the record, and the ``Event`` field holding it
    (4: ``graph_def``; 9: ``meta_graph_def``, whose field 2 is the ``GraphDef``)."""

    field: int = _GRAPH_DEF


def _meta_graph_span(data: bytes) -> tuple[int, int] | None:
    """``(start, end)`` of the ``GraphDef`` in a serialized ``MetaGraphDef``; None when it has none."""
    span = None
    for number, wire, begin, end in fields(lambda at, n: data[at : at + n], 0, len(data)):
        if number == _META_GRAPH and wire == LEN:
            span = (begin, end)  # the last one, as protobuf reads a repeated singular field
    return span


def graph_event(path: str, offset: int, event: tb.Event) -> GraphEvent | None:
    """The graph event of an ``Event`` whose ``what`` is ``graph_def`` or ``meta_graph_def``;
    None for a meta graph without a graph. :class:`LogFormatError` when the meta graph's
    bytes are no message."""
    wall = float(event.wall_time)
    if event.WhichOneof("what") == "graph_def":
        return GraphEvent(DEFAULT, wall, GRAPHDEF, len(event.graph_def), GraphRef(path, offset, _GRAPH_DEF))
    span = _meta_graph_span(event.meta_graph_def)
    if span is None:
        return None
    return GraphEvent(DEFAULT, wall, GRAPHDEF, span[1] - span[0], GraphRef(path, offset, _META_GRAPH_DEF))


def graph_span(read: Callable[[int, int], bytes], length: int, ref: GraphRef) -> tuple[int, int]:
    """Where the ``GraphDef`` bytes ``ref`` points at lie in the serialized ``Event`` of
    ``length`` bytes: ``(offset from the payload's start, size)``, from keys and lengths
    alone. :class:`LogFormatError` when the event holds no such graph."""
    span = None
    for number, wire, begin, end in fields(read, 0, length):
        if number == ref.field and wire == LEN:
            span = (begin, end)
    if span is not None and ref.field == _META_GRAPH_DEF:
        inner = None
        for number, wire, begin, end in fields(read, span[0], span[1]):
            if number == _META_GRAPH and wire == LEN:
                inner = (begin, end)
        span = inner
    if span is None:
        raise LogFormatError("the event holds no graph")
    return span[0], span[1] - span[0]
