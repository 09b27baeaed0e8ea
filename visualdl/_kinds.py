"""The table of record kinds: the one place that knows each kind of data.

Each :class:`Kind` names a kind (``scalars``, ``images``, ``histograms``, ``text``,
``graphs``), the ``Record`` field that carries it, and how a record of it becomes a
reader-side event (:meth:`Kind.decode`). The ``encode_*`` functions build records
for the writer. Writer, reader and API dispatch through :data:`KINDS`.

Large payloads (PNG bytes, ONNX models) are not kept in events: an event carries a
:class:`RecordRef` (file and offset) and the reader reads the bytes when asked.

Adding a kind: its message and a field of ``Record``'s oneof in ``proto/visualdl.proto``;
here, its event class, its decoder, its ``encode_*`` and its :data:`KINDS` entry (the
reader then stores, lists and orders its events with no more code); in each foreign
format, an entry of :data:`visualdl._tfevents.READERS` and :data:`visualdl._vdl2.READERS`,
or of their ``NOT_READ`` saying why not (``tests/test_kinds_table.py`` fails until each
format says); then what only this kind has: its ``LogWriter.add_*`` method, its
provider call and route, and its view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Required, TypedDict

import numpy as np

from visualdl._columns import decode_column, encode_float_column, encode_int_column
from visualdl._logformat import MAX_POINTS_PER_RECORD
from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = [
    "KINDS",
    "KIND_BY_FIELD",
    "GraphEvent",
    "HistogramEvent",
    "ImageEvent",
    "Kind",
    "RecordRef",
    "ScalarBlock",
    "TextEvent",
    "encode_graph",
    "encode_histogram",
    "encode_image",
    "encode_scalars",
    "encode_text",
]

_F8 = np.dtype("<f8")


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: PNG colour type -> channels (a palette is RGB; its alpha, if any, is not counted).
_PNG_CHANNELS = {0: 1, 2: 3, 3: 3, 4: 2, 6: 4}


def png_shape(png: bytes) -> tuple[int, int, int] | None:
    """``(height, width, channels)`` from a PNG's IHDR chunk, without decoding pixels;
    None when ``png`` does not start like a PNG (JPEG, GIF, garbage)."""
    if len(png) < 26 or png[:8] != _PNG_SIGNATURE or png[12:16] != b"IHDR":
        return None
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    return height, width, _PNG_CHANNELS.get(png[25], 0)


@dataclass(frozen=True, slots=True)
class RecordRef:
    """Where a record sits: the file and the offset of its frame."""

    path: str
    offset: int


@dataclass(frozen=True, slots=True)
class ScalarBlock:
    """The points of one scalar record: ``counts[i]`` points of ``tags[i]``, tag after tag."""

    tags: list[str]
    counts: np.ndarray  # int64, one per tag
    steps: np.ndarray  # int64
    values: np.ndarray  # float64
    wall_times: np.ndarray  # float64


@dataclass(frozen=True, slots=True)
class ImageEvent:
    step: int
    wall_time: float
    height: int
    width: int
    channels: int
    ref: RecordRef


@dataclass(frozen=True, slots=True)
class HistogramEvent:
    """A histogram of the finite values; ``edges`` has one more element than ``counts``."""

    step: int
    wall_time: float
    edges: np.ndarray
    counts: np.ndarray
    min: float
    max: float
    sum: float
    sum_squares: float
    count: int
    nan_count: int
    pos_inf_count: int
    neg_inf_count: int

    @property
    def finite_range(self) -> tuple[float, float] | None:
        """``(min, max)`` of the finite values; None when there are none (NaN and
        infinities only), where the record stores no min and max and ``min`` and
        ``max`` read as 0.0."""
        return (self.min, self.max) if self.count else None


@dataclass(frozen=True, slots=True)
class TextEvent:
    step: int
    wall_time: float
    text: str


@dataclass(frozen=True, slots=True)
class GraphEvent:
    name: str
    wall_time: float
    format: str
    size: int
    ref: RecordRef


@dataclass(frozen=True, slots=True)
class Kind:
    name: str
    field: str
    #: (message, path, offset) -> [(tag, event), ...]; raises LogFormatError on inconsistent data.
    decode: Callable[[Any, str, int], list[tuple[str, Any]]]
    #: For kinds with large payloads: the message field holding them.
    blob_field: str = ""
    #: The events' attribute that orders them (a graph has no step: the newest is shown).
    order: str = "step"


def _decode_scalars(msg: pb.ScalarBatch, path: str, offset: int) -> list[tuple[str, ScalarBlock]]:
    """One block for all the record's tags (its tag is ""): the reader splits blocks per
    tag once per poll, not once per record."""
    if len(msg.counts) != len(msg.tags):
        raise LogFormatError(f"scalar batch with {len(msg.tags)} tags but {len(msg.counts)} counts")
    if len(msg.counts) > MAX_POINTS_PER_RECORD:
        raise LogFormatError(f"scalar batch of {len(msg.counts)} tags, above the limit of {MAX_POINTS_PER_RECORD}")
    tags = list(msg.tags)
    raw_counts = list(msg.counts)
    n = sum(raw_counts)  # Python ints: no wrap-around
    if n > MAX_POINTS_PER_RECORD:
        raise LogFormatError(
            f"scalar batch claims {n} points, above the limit of {MAX_POINTS_PER_RECORD} "
            "(writers split larger flushes into several records)"
        )
    # Values first: their bytes bound n before anything is allocated from it.
    values = decode_column(msg.values, n, np.dtype(np.float64), "values")
    walls = decode_column(msg.wall_times, n, np.dtype(np.float64), "wall_times")
    steps = decode_column(msg.steps, n, np.dtype(np.int64), "steps")
    return [("", ScalarBlock(tags, np.array(raw_counts, dtype=np.int64), steps, values, walls))]


def _decode_image(msg: pb.Image, path: str, offset: int) -> list[tuple[str, ImageEvent]]:
    ref = RecordRef(path, offset)
    return [(msg.tag, ImageEvent(msg.step, msg.wall_time, msg.height, msg.width, msg.channels, ref))]


def _decode_histogram(msg: pb.Histogram, path: str, offset: int) -> list[tuple[str, HistogramEvent]]:
    if len(msg.edges) % 8 or len(msg.counts) % 8:
        raise LogFormatError(f"histogram {msg.tag!r}: edges or counts not a whole number of float64")
    edges = np.frombuffer(msg.edges, _F8).astype(np.float64)
    counts = np.frombuffer(msg.counts, _F8).astype(np.float64)
    # No finite value at all: no buckets, only the non-finite counts.
    if edges.size != counts.size + 1 and not (edges.size == 0 and counts.size == 0):
        raise LogFormatError(f"histogram {msg.tag!r}: {edges.size} edges for {counts.size} counts")
    event = HistogramEvent(
        msg.step, msg.wall_time, edges, counts, msg.min, msg.max, msg.sum, msg.sum_squares,
        msg.count, msg.nan_count, msg.pos_inf_count, msg.neg_inf_count,
    )  # fmt: skip
    return [(msg.tag, event)]


def _decode_text(msg: pb.Text, path: str, offset: int) -> list[tuple[str, TextEvent]]:
    return [(msg.tag, TextEvent(msg.step, msg.wall_time, msg.text))]


def _decode_graph(msg: pb.Graph, path: str, offset: int) -> list[tuple[str, GraphEvent]]:
    ref = RecordRef(path, offset)
    return [(msg.name, GraphEvent(msg.name, msg.wall_time, msg.format, len(msg.data), ref))]


KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        Kind("scalars", "scalars", _decode_scalars),
        Kind("images", "image", _decode_image, blob_field="png"),
        Kind("histograms", "histogram", _decode_histogram),
        Kind("text", "text", _decode_text),
        Kind("graphs", "graph", _decode_graph, blob_field="data", order="wall_time"),
    )
}
KIND_BY_FIELD: dict[str, Kind] = {kind.field: kind for kind in KINDS.values()}


def encode_scalars(
    tags: list[str], counts: list[int], steps: np.ndarray, values: np.ndarray, wall_times: np.ndarray
) -> pb.Record:
    """A batch of several tags' points; the columns hold ``counts[0]`` points of ``tags[0]`` first, and so on."""
    batch = pb.ScalarBatch(
        tags=tags,
        counts=counts,
        steps=encode_int_column(steps),
        values=encode_float_column(values),
        wall_times=encode_float_column(wall_times),
    )
    return pb.Record(scalars=batch)


def encode_image(tag: str, step: int, wall_time: float, png: bytes, shape: tuple[int, int, int]) -> pb.Record:
    height, width, channels = shape
    image = pb.Image(tag=tag, step=step, wall_time=wall_time, height=height, width=width, channels=channels, png=png)
    return pb.Record(image=image)


class HistogramStats(TypedDict, total=False):
    """The statistics of a histogram's values, as its record stores them (min to
    sum_squares only when there are finite values)."""

    count: Required[int]
    nan_count: Required[int]
    pos_inf_count: Required[int]
    neg_inf_count: Required[int]
    min: float
    max: float
    sum: float
    sum_squares: float


def encode_histogram(
    tag: str, step: int, wall_time: float, edges: np.ndarray, counts: np.ndarray, stats: HistogramStats
) -> pb.Record:
    hist = pb.Histogram(
        tag=tag,
        step=step,
        wall_time=wall_time,
        edges=np.ascontiguousarray(edges, _F8).tobytes(),
        counts=np.ascontiguousarray(counts, _F8).tobytes(),
        **stats,
    )
    return pb.Record(histogram=hist)


def encode_text(tag: str, step: int, wall_time: float, text: str) -> pb.Record:
    return pb.Record(text=pb.Text(tag=tag, step=step, wall_time=wall_time, text=text))


def encode_graph(name: str, wall_time: float, data: bytes, fmt: str = "onnx") -> pb.Record:
    return pb.Record(graph=pb.Graph(name=name, wall_time=wall_time, format=fmt, data=data))
