"""The table of record kinds: the one place that knows each kind of data.

Each :class:`Kind` names a kind (``scalars``, ``images``, ``histograms``, ``text``,
``graphs``, ``audio``, ``pr_curves``, ``roc_curves``, ``hparams``, ``embeddings``,
``scalar_layouts``), the ``Record`` field that carries it, and how a record of it becomes a
reader-side event (:meth:`Kind.decode`). The ``encode_*`` functions build records
for the writer. Writer, reader and API dispatch through :data:`KINDS`.

Large payloads (PNG bytes, ONNX models, WAV bytes, embedding vectors) are not kept in events: an event carries a
:class:`RecordRef` (file and offset) and the reader reads the bytes when asked.

Adding a kind: its message and a field of ``Record``'s oneof in ``proto/visualdl.proto``;
here, its event class, its decoder, its ``encode_*`` and its :data:`KINDS` entry (the
reader then stores, lists and orders its events with no more code); in each foreign
format, an entry of :data:`visualdl._formats.tfevents.decode.READERS` and :data:`visualdl._formats.vdl2.decode.READERS`,
or of their ``NOT_READ`` saying why not (``tests/test_kinds_table.py`` fails until each
format says); then what only this kind has: its ``LogWriter.add_*`` method, its
provider call and route, and its view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Required, TypedDict

import numpy as np

from visualdl._kinds.columns import decode_column, encode_float_column, encode_int_column
from visualdl._formats.vdlog.logformat import MAX_POINTS_PER_RECORD
from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = [
    "BLOB_KIND",
    "HPARAMS_TAG",
    "KINDS",
    "KIND_BY_FIELD",
    "PR_CURVE_COLUMNS",
    "ROC_CURVE_COLUMNS",
    "SCALAR_LAYOUT_TAG",
    "AudioEvent",
    "EmbeddingsEvent",
    "GraphEvent",
    "HParamsEvent",
    "HistogramEvent",
    "ImageEvent",
    "Kind",
    "LayoutCategory",
    "LayoutChart",
    "PrCurveEvent",
    "RecordRef",
    "RocCurveEvent",
    "ScalarBlock",
    "ScalarLayoutEvent",
    "TextEvent",
    "encode_audio",
    "encode_embeddings",
    "encode_graph",
    "encode_histogram",
    "encode_hparams",
    "encode_image",
    "encode_meta",
    "encode_pr_curve",
    "encode_roc_curve",
    "encode_scalar_layout",
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
class AudioEvent:
    """A clip; :meth:`LogReader.read_blob` gives its WAV bytes (``size`` of them)."""

    step: int
    wall_time: float
    sample_rate: int
    length_frames: int
    channels: int
    size: int
    ref: RecordRef


@dataclass(frozen=True, slots=True)
class PrCurveEvent:
    """A precision-recall curve: one element per threshold in every array (float64)."""

    step: int
    wall_time: float
    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    tn: np.ndarray
    fn: np.ndarray
    precision: np.ndarray
    recall: np.ndarray


@dataclass(frozen=True, slots=True)
class RocCurveEvent:
    """An ROC curve: one element per threshold in every array (float64)."""

    step: int
    wall_time: float
    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    tn: np.ndarray
    fn: np.ndarray
    tpr: np.ndarray
    fpr: np.ndarray


#: The one tag of a run's hyperparameters and of its scalar layout: a run has one of each
#: (the newest wins).
HPARAMS_TAG = "hparams"
SCALAR_LAYOUT_TAG = "layout"


@dataclass(frozen=True, slots=True)
class HParamsEvent:
    """A run's hyperparameters (each value of the type it was written with) and the
    scalar tags of its metrics."""

    wall_time: float
    hparams: dict[str, int | float | str | bool]
    metrics: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class EmbeddingsEvent:
    """``rows`` vectors of ``dimension`` float32 (:meth:`LogReader.read_blob` gives their
    little-endian bytes, row after row) and ``metadata[row]``: one label per column of
    ``metadata_header`` (empty when there is no metadata)."""

    step: int
    wall_time: float
    rows: int
    dimension: int
    metadata_header: tuple[str, ...]
    metadata: tuple[tuple[str, ...], ...]
    ref: RecordRef


@dataclass(frozen=True, slots=True)
class LayoutChart:
    """One chart: the lines of the tags matching ``multiline`` (regular expressions),
    or the bands of ``margin`` (value, lower, upper tags); one of the two is empty."""

    title: str
    multiline: tuple[str, ...] = ()
    margin: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class LayoutCategory:
    title: str
    charts: tuple[LayoutChart, ...]
    closed: bool = False


@dataclass(frozen=True, slots=True)
class ScalarLayoutEvent:
    wall_time: float
    categories: tuple[LayoutCategory, ...]


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


#: The columns of a PR curve record and of an ROC curve record, in their field order.
PR_CURVE_COLUMNS = ("thresholds", "tp", "fp", "tn", "fn", "precision", "recall")
ROC_CURVE_COLUMNS = ("thresholds", "tp", "fp", "tn", "fn", "tpr", "fpr")


def _f8_columns(msg: Any, names: tuple[str, ...], what: str) -> list[np.ndarray]:
    """float64 little-endian columns of ``msg``, all of one length."""
    columns = []
    for name in names:
        data = getattr(msg, name)
        if len(data) % 8:
            raise LogFormatError(f"{what}: {name} is not a whole number of float64")
        columns.append(np.frombuffer(data, _F8).astype(np.float64))
    if len({c.size for c in columns}) > 1:
        sizes = ", ".join(f"{n} {c.size}" for n, c in zip(names, columns, strict=True))
        raise LogFormatError(f"{what}: columns of different lengths ({sizes})")
    return columns


def _decode_audio(msg: pb.Audio, path: str, offset: int) -> list[tuple[str, AudioEvent]]:
    ref = RecordRef(path, offset)
    event = AudioEvent(msg.step, msg.wall_time, msg.sample_rate, msg.length_frames, msg.channels, len(msg.wav), ref)
    return [(msg.tag, event)]


def _decode_pr_curve(msg: pb.PrCurve, path: str, offset: int) -> list[tuple[str, PrCurveEvent]]:
    columns = _f8_columns(msg, PR_CURVE_COLUMNS, f"PR curve {msg.tag!r}")
    return [(msg.tag, PrCurveEvent(msg.step, msg.wall_time, *columns))]


def _decode_roc_curve(msg: pb.RocCurve, path: str, offset: int) -> list[tuple[str, RocCurveEvent]]:
    columns = _f8_columns(msg, ROC_CURVE_COLUMNS, f"ROC curve {msg.tag!r}")
    return [(msg.tag, RocCurveEvent(msg.step, msg.wall_time, *columns))]


def _decode_hparams(msg: pb.HParams, path: str, offset: int) -> list[tuple[str, HParamsEvent]]:
    hparams: dict[str, int | float | str | bool] = {}
    for value in msg.values:
        which = value.WhichOneof("value")
        if which is None:
            raise LogFormatError(f"hyperparameter {value.name!r} without a value")
        hparams[value.name] = getattr(value, which)
    return [(HPARAMS_TAG, HParamsEvent(msg.wall_time, hparams, tuple(msg.metrics)))]


def _decode_embeddings(msg: pb.Embeddings, path: str, offset: int) -> list[tuple[str, EmbeddingsEvent]]:
    rows, dim, columns = msg.rows, msg.dimension, len(msg.metadata_header)
    if len(msg.vectors) != rows * dim * 4:
        raise LogFormatError(
            f"embeddings {msg.tag!r}: {len(msg.vectors)} bytes of vectors for {rows} rows of {dim} float32"
        )
    labels = tuple(msg.metadata)
    if len(labels) != (rows * columns if labels else 0):
        raise LogFormatError(f"embeddings {msg.tag!r}: {len(labels)} labels for {rows} rows of {columns} columns")
    metadata = tuple(labels[i : i + columns] for i in range(0, len(labels), columns)) if columns else ()
    event = EmbeddingsEvent(
        msg.step, msg.wall_time, rows, dim, tuple(msg.metadata_header), metadata, RecordRef(path, offset)
    )
    return [(msg.tag, event)]


def _decode_scalar_layout(msg: pb.ScalarLayout, path: str, offset: int) -> list[tuple[str, ScalarLayoutEvent]]:
    categories = []
    for category in msg.categories:
        charts = []
        for chart in category.charts:
            margin = tuple((s.value, s.lower, s.upper) for s in chart.margin.series)
            charts.append(LayoutChart(chart.title, tuple(chart.multiline.tags), margin))
        categories.append(LayoutCategory(category.title, tuple(charts), category.closed))
    return [(SCALAR_LAYOUT_TAG, ScalarLayoutEvent(msg.wall_time, tuple(categories)))]


KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        Kind("scalars", "scalars", _decode_scalars),
        Kind("images", "image", _decode_image, blob_field="png"),
        Kind("histograms", "histogram", _decode_histogram),
        Kind("text", "text", _decode_text),
        Kind("graphs", "graph", _decode_graph, blob_field="data", order="wall_time"),
        Kind("audio", "audio", _decode_audio, blob_field="wav"),
        Kind("pr_curves", "pr_curve", _decode_pr_curve),
        Kind("roc_curves", "roc_curve", _decode_roc_curve),
        Kind("hparams", "hparams", _decode_hparams, order="wall_time"),
        Kind("embeddings", "embeddings", _decode_embeddings, blob_field="vectors"),
        Kind("scalar_layouts", "scalar_layout", _decode_scalar_layout, order="wall_time"),
    )
}
KIND_BY_FIELD: dict[str, Kind] = {kind.field: kind for kind in KINDS.values()}
#: The kind of an event whose payload is read apart (:meth:`LogReader.read_blob`).
BLOB_KIND: dict[type, Kind] = {
    ImageEvent: KINDS["images"],
    GraphEvent: KINDS["graphs"],
    AudioEvent: KINDS["audio"],
    EmbeddingsEvent: KINDS["embeddings"],
}


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


def encode_audio(
    tag: str, step: int, wall_time: float, wav: bytes, sample_rate: int, length_frames: int, channels: int
) -> pb.Record:
    audio = pb.Audio(
        tag=tag,
        step=step,
        wall_time=wall_time,
        sample_rate=sample_rate,
        length_frames=length_frames,
        channels=channels,
        wav=wav,
    )
    return pb.Record(audio=audio)


def _f8_bytes(columns: dict[str, np.ndarray], names: tuple[str, ...]) -> dict[str, bytes]:
    return {name: np.ascontiguousarray(columns[name], _F8).tobytes() for name in names}


def encode_pr_curve(tag: str, step: int, wall_time: float, columns: dict[str, np.ndarray]) -> pb.Record:
    """``columns``: the arrays of :data:`PR_CURVE_COLUMNS` by name, one element per threshold."""
    curve = pb.PrCurve(tag=tag, step=step, wall_time=wall_time, **_f8_bytes(columns, PR_CURVE_COLUMNS))
    return pb.Record(pr_curve=curve)


def encode_roc_curve(tag: str, step: int, wall_time: float, columns: dict[str, np.ndarray]) -> pb.Record:
    """``columns``: the arrays of :data:`ROC_CURVE_COLUMNS` by name, one element per threshold."""
    curve = pb.RocCurve(tag=tag, step=step, wall_time=wall_time, **_f8_bytes(columns, ROC_CURVE_COLUMNS))
    return pb.Record(roc_curve=curve)


def encode_hparams(wall_time: float, hparams: dict[str, int | float | str | bool], metrics: list[str]) -> pb.Record:
    """Each value is stored as its type: bool, int, float or str (checked by the writer)."""
    values = []
    for name, value in hparams.items():
        if isinstance(value, bool):
            values.append(pb.HParamValue(name=name, bool_value=value))
        elif isinstance(value, int):
            values.append(pb.HParamValue(name=name, int_value=value))
        elif isinstance(value, float):
            values.append(pb.HParamValue(name=name, float_value=value))
        else:
            values.append(pb.HParamValue(name=name, string_value=value))
    return pb.Record(hparams=pb.HParams(wall_time=wall_time, values=values, metrics=metrics))


def encode_embeddings(
    tag: str,
    step: int,
    wall_time: float,
    vectors: np.ndarray,
    metadata_header: list[str],
    metadata: list[str],
) -> pb.Record:
    """``vectors``: rows x dimension; ``metadata``: rows x len(metadata_header) labels, row after row."""
    rows, dimension = vectors.shape
    embeddings = pb.Embeddings(
        tag=tag,
        step=step,
        wall_time=wall_time,
        rows=rows,
        dimension=dimension,
        metadata_header=metadata_header,
        metadata=metadata,
        vectors=np.ascontiguousarray(vectors, "<f4").tobytes(),
    )
    return pb.Record(embeddings=embeddings)


def encode_scalar_layout(wall_time: float, categories: tuple[LayoutCategory, ...]) -> pb.Record:
    layout = pb.ScalarLayout(wall_time=wall_time)
    for category in categories:
        out = layout.categories.add(title=category.title, closed=category.closed)
        for chart in category.charts:
            if chart.margin:
                series = [pb.MarginSeries(value=v, lower=lo, upper=hi) for v, lo, hi in chart.margin]
                out.charts.add(title=chart.title, margin=pb.MarginChart(series=series))
            else:
                out.charts.add(title=chart.title, multiline=pb.MultilineChart(tags=chart.multiline))
    return pb.Record(scalar_layout=layout)


def encode_meta(wall_time: float, display_name: str) -> pb.Record:
    return pb.Record(meta=pb.Meta(wall_time=wall_time, display_name=display_name))
