"""The values of TensorBoard's ``Summary``, each read into an event of our kinds. Pure.

:data:`READERS` says, per value field and plugin, which kind a ``Summary.Value`` gives
and how it is read (see :mod:`visualdl._formats.tfevents.decode` for the rules);
:data:`NOT_READ` says why the other kinds are never in an event file. The tensor
helpers here (elements, strings, histograms) are what those readers share.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from google.protobuf.message import DecodeError

from visualdl._kinds.table import (
    SCALAR_LAYOUT_TAG,
    AudioEvent,
    HistogramEvent,
    HParamsEvent,
    ImageEvent,
    LayoutCategory,
    LayoutChart,
    PrCurveEvent,
    RecordRef,
    ScalarLayoutEvent,
    TextEvent,
    check_finite,
    png_shape,
    sample_rate_of,
)
from visualdl._kinds.wav import wav_shape
from visualdl.errors import LogFormatError
from visualdl.proto import tb

__all__ = ["NOT_READ", "READERS", "BlobRef", "Value"]

_T = tb.DataType
#: dtype -> (numpy dtype of tensor_content, the *_val field holding the elements).
_NUMERIC: dict[int, tuple[str, str]] = {
    _T.DT_FLOAT: ("<f4", "float_val"),
    _T.DT_DOUBLE: ("<f8", "double_val"),
    _T.DT_HALF: ("<f2", "half_val"),
    _T.DT_INT8: ("i1", "int_val"),
    _T.DT_UINT8: ("u1", "int_val"),
    _T.DT_INT16: ("<i2", "int_val"),
    _T.DT_UINT16: ("<u2", "int_val"),
    _T.DT_INT32: ("<i4", "int_val"),
    _T.DT_UINT32: ("<u4", "uint32_val"),
    _T.DT_INT64: ("<i8", "int64_val"),
    _T.DT_UINT64: ("<u8", "uint64_val"),
    _T.DT_BOOL: ("?", "bool_val"),
}
#: The widest and tallest image there is (a PNG's limit).
_MAX_SIDE = (1 << 31) - 1
#: Elements of a tensor decoded at most (a histogram of 2^20 buckets is far beyond any writer's).
_MAX_ELEMENTS = 1 << 22


@dataclass(frozen=True, slots=True)
class BlobRef(RecordRef):
    """Where an image's PNG bytes (or a clip's WAV) lie in an event file: the record, the
    index of the ``Summary.Value``, and of the PNG (the WAV) among the tensor's strings
    (-1: a legacy ``Image`` or ``Audio``)."""

    value: int = 0
    element: int = -1


def _shape(tensor: tb.TensorProto) -> list[int]:
    return [int(d.size) for d in tensor.tensor_shape.dim]


def _elements(tensor: tb.TensorProto) -> np.ndarray:
    """The numeric elements of ``tensor``, flat; :class:`LogFormatError` when it holds none."""
    spec = _NUMERIC.get(tensor.dtype)
    if spec is None:
        raise LogFormatError(
            f"tensor of dtype {_T.Name(tensor.dtype) if tensor.dtype in _T.values() else tensor.dtype} is not numeric"
        )
    dtype, field = spec
    shape = _shape(tensor)
    n = math.prod(shape) if all(d >= 0 for d in shape) else -1
    if not 0 <= n <= _MAX_ELEMENTS:
        raise LogFormatError(f"tensor of shape {shape} cannot be read")
    if tensor.tensor_content:
        itemsize = np.dtype(dtype).itemsize
        if len(tensor.tensor_content) != n * itemsize:
            raise LogFormatError(f"tensor of shape {shape} with {len(tensor.tensor_content)} bytes of content")
        return np.frombuffer(tensor.tensor_content, dtype)
    vals = getattr(tensor, field)
    if field == "half_val":
        arr = np.array(vals, np.int32).astype(np.uint16).view(np.float16)
    else:
        arr = np.array(vals, dtype)
    if arr.size == n:
        return arr
    if 0 < arr.size < n:  # TensorFlow's rule: the last value repeats
        return np.concatenate([arr, np.full(n - arr.size, arr[-1], arr.dtype)])
    raise LogFormatError(f"tensor of shape {shape} with {arr.size} values")


def _strings(tensor: tb.TensorProto) -> list[bytes]:
    if tensor.dtype != _T.DT_STRING:
        raise LogFormatError("tensor is not a string tensor")
    return list(tensor.string_val)


def _count(x: float, what: str = "count") -> int:
    """A count written as a double; :class:`LogFormatError` when it is not one (NaN, negative,
    2^63 or more): the histogram is a problem, not a histogram of 0 values."""
    if not 0 <= x < 2.0**63:
        raise LogFormatError(f"histogram with a {what} of {x!r}, not a count from 0 to 2**63 - 1")
    return round(x)


def _histogram_from_proto(h: tb.HistogramProto, step: int, wall: float) -> HistogramEvent:
    limits = np.array(h.bucket_limit, np.float64)
    counts = np.array(h.bucket, np.float64)
    if limits.size != counts.size:
        raise LogFormatError(f"histogram with {limits.size} bucket limits for {counts.size} buckets")
    keep = counts != 0
    if not keep.any():
        return HistogramEvent(step, wall, np.empty(0), np.empty(0), 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0)
    # Bucket i is (limits[i-1], limits[i]]: the left edge of a bucket is the right edge of the one before.
    lefts = np.concatenate(([-np.inf], limits[:-1]))
    first, last = int(np.argmax(keep)), int(keep.size - 1 - np.argmax(keep[::-1]))
    edges = np.concatenate((lefts[first : last + 1], limits[last : last + 1]))
    counts = counts[first : last + 1]
    lo, hi = float(h.min), float(h.max)
    if np.isfinite(lo) and lo <= hi:
        edges[0] = max(edges[0], lo) if edges[1] >= lo else edges[0]
        edges[-1] = min(edges[-1], hi) if edges[-2] <= hi else edges[-1]
    edges[0] = edges[0] if np.isfinite(edges[0]) else edges[1]
    edges[-1] = edges[-1] if np.isfinite(edges[-1]) and edges[-1] < np.finfo(np.float64).max else edges[-2]
    check_finite(edges, counts)
    total = _count(float(h.num), "number of values") if h.num else _count(float(counts.sum()), "total count")
    return HistogramEvent(step, wall, edges, counts, lo, hi, float(h.sum), float(h.sum_squares), total, 0, 0, 0)


def _histogram_from_tensor(tensor: tb.TensorProto, step: int, wall: float) -> HistogramEvent:
    shape = _shape(tensor)
    data = _elements(tensor).astype(np.float64)
    if shape == [0] or data.size == 0:
        return HistogramEvent(step, wall, np.empty(0), np.empty(0), 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0)
    if len(shape) != 2 or shape[1] != 3:
        raise LogFormatError(f"histogram tensor of shape {shape}, not [k, 3]")
    rows = data.reshape(-1, 3)
    left, right, counts = rows[:, 0], rows[:, 1], rows[:, 2]
    edges = np.concatenate((left, right[-1:]))
    check_finite(edges, counts)
    total = float(counts.sum())
    centers = (left + right) / 2
    mean_sum = float((centers * counts).sum())
    squares = float((centers * centers * counts).sum())
    return HistogramEvent(
        step,
        wall,
        edges,
        counts,
        float(left[0]),
        float(right[-1]),
        mean_sum,
        squares,
        _count(total, "total count"),
        0,
        0,
        0,
    )


@dataclass(frozen=True, slots=True)
class Value:
    """One ``Summary.Value`` of an event, with where it is and its event's step and wall time."""

    path: str
    offset: int  # of the event's record
    index: int  # of the value in the event's summary
    tag: str
    step: int
    wall: float
    value: tb.Summary.Value


def _scalar_simple(v: Value) -> list[tuple[str, str, object]]:
    return [("scalars", v.tag, float(v.value.simple_value))]


def _scalar_tensor(v: Value) -> list[tuple[str, str, object]]:
    arr = _elements(v.value.tensor)
    if arr.size != 1:
        raise LogFormatError(f"scalar tensor of shape {_shape(v.value.tensor)}")
    return [("scalars", v.tag, float(arr.astype(np.float64)[0]))]


def _image_legacy(v: Value) -> list[tuple[str, str, object]]:
    img = v.value.image
    ref = BlobRef(v.path, v.offset, v.index, -1)
    return [("images", v.tag, ImageEvent(v.step, v.wall, img.height, img.width, img.colorspace, ref))]


def _image_tensor(v: Value) -> list[tuple[str, str, object]]:
    strings = _strings(v.value.tensor)
    if len(strings) < 3:
        raise LogFormatError(f"image tensor of {len(strings)} strings, not [width, height, png, ...]")
    try:
        width, height = int(strings[0]), int(strings[1])
    except ValueError:
        width = height = -1
    if not (0 <= width <= _MAX_SIDE and 0 <= height <= _MAX_SIDE):
        width_text, height_text = strings[0][:40], strings[1][:40]
        raise LogFormatError(
            f"image tensor with width {width_text!r} and height {height_text!r}, not whole numbers from 0 to 2**31 - 1"
        )
    # A batch (max_outputs > 1, add_images) is one tag with several images at this step,
    # in the tensor's order, each pointing at its own PNG.
    out: list[tuple[str, str, object]] = []
    for k, png in enumerate(strings[2:]):
        shape = png_shape(png)
        channels = 0 if shape is None else shape[2]
        ref = BlobRef(v.path, v.offset, v.index, 2 + k)
        out.append(("images", v.tag, ImageEvent(v.step, v.wall, height, width, channels, ref)))
    return out


def _histogram_legacy(v: Value) -> list[tuple[str, str, object]]:
    return [("histograms", v.tag, _histogram_from_proto(v.value.histo, v.step, v.wall))]


def _histogram_tensor(v: Value) -> list[tuple[str, str, object]]:
    return [("histograms", v.tag, _histogram_from_tensor(v.value.tensor, v.step, v.wall))]


def _text_tensor(v: Value) -> list[tuple[str, str, object]]:
    tensor = v.value.tensor
    texts = [s.decode("utf-8", "replace") for s in _strings(tensor)]
    shape = [d.size for d in tensor.tensor_shape.dim]
    if len(texts) <= 1 or len(shape) == 0 or math.prod(shape) != len(texts):
        return [("text", v.tag, TextEvent(v.step, v.wall, "\n".join(texts)))]
    columns = shape[-1] if len(shape) >= 2 else 1
    return [("text", v.tag, TextEvent(v.step, v.wall, markdown_table(texts, columns)))]


def markdown_table(cells: list[str], columns: int) -> str:
    """The strings of a text tensor of rank 1 or more as TensorBoard's text plugin shows
    them, a table (a column for rank 1, rows by the last dimension above), in Markdown
    with an empty header row (TensorBoard's has none). A cell's ``|`` is escaped and its
    line breaks become spaces, so each cell stays in its place; a tensor of rank 3 or
    more keeps every string, its leading dimensions as rows (TensorBoard shows a slice)."""
    escaped = [c.replace("|", "\\|").replace("\r\n", " ").replace("\n", " ") for c in cells]
    rows = ["| " + " | ".join(escaped[i : i + columns]) + " |" for i in range(0, len(escaped), columns)]
    return "\n".join(["|" + "  |" * columns, "|" + " --- |" * columns, *rows])


def _audio_legacy(v: Value) -> list[tuple[str, str, object]]:
    audio = v.value.audio
    rate = sample_rate_of(audio.sample_rate)
    if audio.num_channels < 0 or audio.length_frames < 0:
        raise LogFormatError(f"audio of {audio.num_channels} channels and {audio.length_frames} frames")
    ref = BlobRef(v.path, v.offset, v.index, -1)
    size = len(audio.encoded_audio_string)
    return [("audio", v.tag, AudioEvent(v.step, v.wall, rate, audio.length_frames, audio.num_channels, size, ref))]


def _audio_tensor(v: Value) -> list[tuple[str, str, object]]:
    """``tf.summary.audio``: a string tensor ``[k, 2]`` of ``(encoded clip, label)``, a clip
    each row; each is a clip of the tag at this step, in the tensor's order. As TensorBoard
    reads it, the clips are the first column of any shape ``[k, ...]`` (``[k]``: clips only);
    the label is the second of ``[k, 2]``. The record says no sample rate, channels or
    length: the WAV header does."""
    shape = _shape(v.value.tensor)
    strings = _strings(v.value.tensor)
    width = math.prod(shape[1:])
    if not shape or any(d < 0 for d in shape) or len(strings) != math.prod(shape) or (shape[0] and not width):
        raise LogFormatError(f"audio tensor of shape {shape} with {len(strings)} strings, not [clips, 2]")
    out: list[tuple[str, str, object]] = []
    for k in range(shape[0]):
        wav = strings[k * width]
        found = wav_shape(wav)
        if found is None:
            raise LogFormatError(f"audio clip {k} is not a WAV file (its first bytes are {wav[:12]!r})")
        label = strings[k * width + 1].decode("utf-8", "replace") if shape[1:] == [2] else ""
        ref = BlobRef(v.path, v.offset, v.index, k * width)
        event = AudioEvent(v.step, v.wall, found.sample_rate, found.frames, found.channels, len(wav), ref, label)
        out.append(("audio", v.tag, event))
    return out


def _pr_curve_tensor(v: Value) -> list[tuple[str, str, object]]:
    shape = _shape(v.value.tensor)
    if len(shape) != 2 or shape[0] != 6 or shape[1] < 1:
        raise LogFormatError(f"PR curve tensor of shape {shape}, not [6, thresholds]")
    data = _elements(v.value.tensor)
    if data.dtype.kind != "f":
        raise LogFormatError(f"PR curve tensor of dtype {data.dtype}, not a float")
    rows = data.astype(np.float64).reshape(6, shape[1])
    n = shape[1]
    thresholds = np.arange(n) / (n - 1) if n > 1 else np.zeros(1)
    return [("pr_curves", v.tag, PrCurveEvent(v.step, v.wall, thresholds, *(rows[i].copy() for i in range(6))))]


#: The item tags of the two parts of a run's hyperparameters (:meth:`EventDecoder._hparams`).
_EXPERIMENT, _SESSION = "experiment", "session_start_info"


def _hparams_plugin(v: Value) -> list[tuple[str, str, object]]:
    try:
        data = tb.HParamsPluginData.FromString(v.value.metadata.plugin_data.content)
    except DecodeError as e:
        raise LogFormatError(f"undecodable hparams plugin data ({e})") from e
    which = data.WhichOneof("data")
    if which == "experiment":
        infos = data.experiment.metric_infos
        metrics = tuple(m.name.tag for m in infos)
        groups = tuple(m.name.group.strip("/") for m in infos)
        return [("hparams", _EXPERIMENT, HParamsEvent(v.wall, {}, metrics, groups, trial=False))]
    if which != "session_start_info":
        return []  # the session's end, or no data: nothing to show
    hparams: dict[str, int | float | str | bool] = {}
    for entry in data.session_start_info.hparams:
        kind = entry.value.WhichOneof("kind")
        if kind not in ("number_value", "string_value", "bool_value"):
            raise LogFormatError(f"hyperparameter {entry.key!r} of a {kind or 'missing'} value")
        hparams[entry.key] = getattr(entry.value, kind)
    return [("hparams", _SESSION, HParamsEvent(v.wall, hparams, ()))]


def _custom_scalars(v: Value) -> list[tuple[str, str, object]]:
    tensor = v.value.tensor
    if v.value.HasField("tensor"):
        strings = _strings(tensor)
        if len(strings) != 1:
            raise LogFormatError(f"custom scalars tensor of {len(strings)} strings, not 1")
        content = strings[0]
    else:
        content = v.value.metadata.plugin_data.content
    try:
        layout = tb.Layout.FromString(content)
    except DecodeError as e:
        raise LogFormatError(f"undecodable custom scalars layout ({e})") from e
    categories = []
    for category in layout.category:
        charts = []
        for chart in category.chart:
            margin = tuple((s.value, s.lower, s.upper) for s in chart.margin.series)
            charts.append(LayoutChart(chart.title, tuple(chart.multiline.tag), margin))
        categories.append(LayoutCategory(category.title, tuple(charts), category.closed))
    return [("scalar_layouts", SCALAR_LAYOUT_TAG, ScalarLayoutEvent(v.wall, tuple(categories)))]


#: How each ``Summary.Value`` is read, by ``(its value field, its tag's plugin)``; a plugin
#: of ``""`` matches any. Each entry names the kind (:data:`visualdl._kinds.table.KINDS`) it
#: gives, and its reader returns ``(kind, tag, event)`` items (for scalars, the value in
#: place of the event). Values of no entry are counted per tag (:attr:`EventDecoder.other`).
READERS: dict[tuple[str, str], tuple[str, Callable[[Value], list[tuple[str, str, object]]]]] = {
    ("simple_value", ""): ("scalars", _scalar_simple),
    ("tensor", "scalars"): ("scalars", _scalar_tensor),
    ("image", ""): ("images", _image_legacy),
    ("tensor", "images"): ("images", _image_tensor),
    ("histo", ""): ("histograms", _histogram_legacy),
    ("tensor", "histograms"): ("histograms", _histogram_tensor),
    ("tensor", "text"): ("text", _text_tensor),
    ("audio", ""): ("audio", _audio_legacy),
    ("tensor", "audio"): ("audio", _audio_tensor),
    ("tensor", "pr_curves"): ("pr_curves", _pr_curve_tensor),
    ("", "hparams"): ("hparams", _hparams_plugin),
    ("tensor", "hparams"): ("hparams", _hparams_plugin),
    ("tensor", "custom_scalars"): ("scalar_layouts", _custom_scalars),
    ("", "custom_scalars"): ("scalar_layouts", _custom_scalars),
}
#: Kinds that no event file holds in a form read here, and why.
NOT_READ = {
    "graphs": "TensorBoard's graphs are TensorFlow GraphDefs, not ONNX models: counted, not shown",
    "roc_curves": "TensorBoard has no ROC curves (no plugin writes them)",
    "embeddings": (
        "tensorboardX and torch write embeddings to projector files beside the event files "
        "(projector_config.pbtxt naming tensors.tsv and metadata.tsv), not into event records; "
        "the reader follows event files only"
    ),
}
