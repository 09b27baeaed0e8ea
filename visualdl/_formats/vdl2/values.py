"""VisualDL 2's values, each read into an event of our kinds. Pure.

:data:`READERS` says, per ``one_value`` field, which kind a ``Record.Value`` gives and how
its event is made (see :mod:`visualdl._formats.vdl2.decode` for the rules); :data:`NOT_READ`
says why the other kinds are never in VisualDL 2's files. :func:`png_of` and
:func:`embedding_vectors` take a blob back out of a record's payload.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from google.protobuf.message import DecodeError

from visualdl._formats.vdlog.logformat import WALLTIME_MS_THRESHOLD
from visualdl._kinds.table import (
    KINDS,
    AudioEvent,
    EmbeddingsEvent,
    HistogramEvent,
    HParamsEvent,
    ImageEvent,
    PrCurveEvent,
    RecordRef,
    RocCurveEvent,
    TextEvent,
    png_shape,
    sample_rate_of,
)
from visualdl.errors import LogFormatError
from visualdl.proto import vdl2

__all__ = ["NOT_READ", "READERS", "ValueRef", "embedding_vectors", "parse_record", "png_of"]

_Value = vdl2.Record.Value


@dataclass(frozen=True, slots=True)
class ValueRef(RecordRef):
    """Where an image's PNG, a clip's WAV or an embedding's rows lie: the record
    (``offset`` of its length prefix) and the index of the ``Value`` in it (VisualDL 2
    writes one per record)."""

    value: int = 0


def parse_record(payload: bytes) -> vdl2.Record:
    """The Record in ``payload``; :class:`LogFormatError` when it is not one."""
    try:
        return vdl2.Record.FromString(payload)
    except DecodeError as e:
        raise LogFormatError(f"undecodable VisualDL 2 record ({e})") from e


def _seconds(timestamp: int) -> float:
    seconds = float(timestamp)
    return seconds / 1000.0 if seconds > WALLTIME_MS_THRESHOLD else seconds


def _png_shape(png: bytes) -> tuple[int, int, int]:
    """``(height, width, channels)`` from a PNG's IHDR chunk; :class:`LogFormatError` when it has none."""
    shape = png_shape(png)
    if shape is None:
        raise LogFormatError(f"image of {len(png)} bytes is not a PNG (it starts with {png[:16].hex()!r})")
    height, width, channels = shape
    if not (width and height and channels):
        raise LogFormatError(f"PNG of {width}x{height} pixels and colour type {png[25]}")
    return height, width, channels


def _image(value: _Value, step: int, wall: float, ref: ValueRef) -> ImageEvent:
    height, width, channels = _png_shape(value.image.encoded_image_string)
    return ImageEvent(step, wall, height, width, channels, ref)


def _histogram(value: _Value, step: int, wall: float, ref: ValueRef) -> HistogramEvent:
    with np.errstate(all="ignore"):  # edges near the float64 limits overflow to inf, refused below
        return _histogram_of(step, wall, value.histogram)


def _histogram_of(step: int, wall: float, histogram: vdl2.Record.Histogram) -> HistogramEvent:
    counts = np.array(histogram.hist, np.float64)
    edges = np.array(histogram.bin_edges, np.float64)
    if counts.size == 0 and edges.size == 0:
        return HistogramEvent(step, wall, edges, counts, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0)
    if edges.size != counts.size + 1:
        raise LogFormatError(f"histogram with {edges.size} bin edges for {counts.size} buckets")
    if not (np.isfinite(edges).all() and (np.diff(edges) >= 0).all()):
        raise LogFormatError(f"histogram with bin edges that are not finite and increasing: {edges[:8].tolist()!r}")
    total = float(counts.sum())
    if not (np.isfinite(total) and (counts >= 0).all()):
        raise LogFormatError(f"histogram with counts that are not finite and non-negative: {counts[:8].tolist()!r}")
    if total >= _MAX_COUNT:
        raise LogFormatError(f"histogram with counts summing to {total:g}, not below 2**63")
    centres = (edges[:-1] + edges[1:]) / 2
    weighted = centres * counts
    approx_sum, approx_squares = float(weighted.sum()), float((weighted * centres).sum())
    return HistogramEvent(
        step, wall, edges, counts, float(edges[0]), float(edges[-1]), approx_sum, approx_squares, round(total), 0, 0, 0
    )


#: A histogram counts fewer values than this (an int64 holds its count).
_MAX_COUNT = float(1 << 63)


def _text(value: _Value, step: int, wall: float, ref: ValueRef) -> TextEvent:
    return TextEvent(step, wall, value.text.encoded_text_string)


def _audio(value: _Value, step: int, wall: float, ref: ValueRef) -> AudioEvent:
    audio = value.audio
    rate = sample_rate_of(audio.sample_rate)
    if audio.num_channels < 0 or audio.length_frames < 0:
        raise LogFormatError(f"audio of {audio.num_channels} channels and {audio.length_frames} frames")
    size = len(audio.encoded_audio_string)
    return AudioEvent(step, wall, rate, audio.length_frames, audio.num_channels, size, ref)


def _curve_columns(curve: vdl2.Record.PRCurve | vdl2.Record.ROC_Curve, rates: tuple[str, str]) -> list[np.ndarray]:
    """thresholds, TP, FP, TN, FN and the two rates, float64, one element per threshold:
    threshold ``i`` of ``n`` is ``i / (n - 1)`` (VisualDL 2 stores none)."""
    columns = [np.array(getattr(curve, name), np.float64) for name in ("TP", "FP", "TN", "FN", *rates)]
    n = columns[0].size
    if any(c.size != n for c in columns):
        sizes = ", ".join(str(c.size) for c in columns)
        raise LogFormatError(f"curve with columns of different lengths ({sizes})")
    thresholds = np.arange(n) / (n - 1) if n > 1 else np.zeros(n)
    return [thresholds, *columns]


def _pr_curve(value: _Value, step: int, wall: float, ref: ValueRef) -> PrCurveEvent:
    return PrCurveEvent(step, wall, *_curve_columns(value.pr_curve, ("precision", "recall")))


def _roc_curve(value: _Value, step: int, wall: float, ref: ValueRef) -> RocCurveEvent:
    return RocCurveEvent(step, wall, *_curve_columns(value.roc_curve, ("tpr", "fpr")))


def _hparams(value: _Value, step: int, wall: float, ref: ValueRef) -> HParamsEvent:
    hparams: dict[str, int | float | str | bool] = {}
    for info in value.hparam.hparamInfos:
        which = info.WhichOneof("type")
        if which is None:
            raise LogFormatError(f"hyperparameter {info.name!r} without a value")
        hparams[info.name] = getattr(info, which)
    return HParamsEvent(wall, hparams, tuple(info.name for info in value.hparam.metricInfos))


def _embeddings(value: _Value, step: int, wall: float, ref: ValueRef) -> EmbeddingsEvent:
    rows = value.embeddings.embeddings
    dimension = len(rows[0].vectors) if rows else 0
    if not dimension:  # VisualDL 2's writer takes neither: there is nothing to project
        raise LogFormatError(f"embeddings of {len(rows)} rows of {dimension} values, not at least one of one")
    width = len(rows[0].label)
    for i, row in enumerate(rows):
        if len(row.vectors) != dimension or len(row.label) != width:
            raise LogFormatError(
                f"embedding row {i} of {len(row.vectors)} values and {len(row.label)} labels, "
                f"row 0 of {dimension} and {width}"
            )
    header = tuple(value.embeddings.label_meta)
    if width and not header:  # one unnamed column, as VisualDL 2 writes a list of labels
        header = ("label",) if width == 1 else tuple(f"label {k}" for k in range(width))
    if len(header) != width:
        raise LogFormatError(f"embeddings with {len(header)} label names for {width} labels a row")
    metadata = tuple(tuple(row.label) for row in rows) if width else ()
    return EmbeddingsEvent(step, wall, len(rows), dimension, header, metadata, ref)


def embedding_vectors(payload: bytes, value: int = 0) -> bytes:
    """The vectors of the embeddings ``value`` of the record ``payload``, float32
    little-endian, row after row (what an :class:`EmbeddingsEvent`'s bytes are): VisualDL 2
    stores each row apart, so they are gathered, not read as one span of the file.
    :class:`LogFormatError` when that value is not embeddings."""
    values = parse_record(payload).values
    if not 0 <= value < len(values) or values[value].WhichOneof("one_value") != "embeddings":
        raise LogFormatError(f"value {value} of the record is not embeddings")
    rows = values[value].embeddings.embeddings
    return b"".join(np.array(row.vectors, "<f4").tobytes() for row in rows)


#: VisualDL 2's kind (the ``one_value`` field) -> (our kind, its event from a Value).
#: How each value field other than the scalars' (``value``, ``tag_value``) is read: the
#: kind (:data:`visualdl._kinds.table.KINDS`) it gives, and how its event is made. Fields of no
#: entry are counted per tag (:data:`COUNTED_KINDS` and any unknown).
READERS: dict[str, tuple[str, Callable[[_Value, int, float, ValueRef], object]]] = {
    "image": (KINDS["images"].name, _image),
    "histogram": (KINDS["histograms"].name, _histogram),
    "text": (KINDS["text"].name, _text),
    "audio": (KINDS["audio"].name, _audio),
    "pr_curve": (KINDS["pr_curves"].name, _pr_curve),
    "roc_curve": (KINDS["roc_curves"].name, _roc_curve),
    "hparam": (KINDS["hparams"].name, _hparams),
    "embeddings": (KINDS["embeddings"].name, _embeddings),
}
_SCALARS = KINDS["scalars"].name
_HPARAMS = KINDS["hparams"].name
#: Kinds that VisualDL 2's log records do not hold, and why.
NOT_READ = {
    "graphs": "VisualDL 2 keeps models in files of their own, not in its log records",
    "scalar_layouts": "VisualDL 2 has no custom scalar layouts",
}


def png_of(payload: bytes, value: int = 0) -> bytes:
    """The PNG bytes of the image ``value`` of the record ``payload`` (what an
    :class:`ImageEvent`'s :class:`ValueRef` points at); :class:`LogFormatError` when
    that value is not an image."""
    values = parse_record(payload).values
    if not 0 <= value < len(values) or values[value].WhichOneof("one_value") != "image":
        raise LogFormatError(f"value {value} of the record is not an image")
    return values[value].image.encoded_image_string
