"""TensorBoard event files: their records turned into the events of our own kinds. Pure.

An event file (``*tfevents*`` in its basename, written by TensorFlow, tensorboardX or
``torch.utils.tensorboard``) has the framing of our own files (:mod:`visualdl._formats.framing`),
and every payload is one serialized ``Event`` (``proto/tensorboard_event.proto``). A
:class:`EventDecoder` follows one file and turns its events into what the reader
stores for our records: scalar points into a :class:`~visualdl._kinds.table.ScalarBlock`,
images, histograms, text, audio, PR curves, hparams and scalar layouts into the
kinds' events. Values of other plugins are counted per tag
(:attr:`EventDecoder.other`), never shown, so that nothing vanishes without a trace.

How a value is read:

* ``simple_value``: a scalar point (the float64 of the float32 written, exactly).
* ``tensor`` with plugin ``scalars`` (TF2 ``tf.summary.scalar``, torch's
  ``new_style``): a tensor of one element of a float or integer dtype.
* ``image`` (legacy ``Summary.Image``): an image whose PNG bytes stay in the file.
* ``tensor`` with plugin ``images``: a string tensor ``[width, height, png, ...]``;
  each PNG is an image (several at one step are told apart as ``tag/1``, ``tag/2``...).
* ``histo`` (``HistogramProto``): bucket ``i`` counts the values in
  ``(bucket_limit[i-1], bucket_limit[i]]``; TensorFlow's first bucket is open to -inf
  and its last limit is often DBL_MAX, so the outer edges are clamped to ``min`` and
  ``max`` of the values.
* ``tensor`` with plugin ``histograms``: a ``[k, 3]`` tensor of (left, right, count).
* ``tensor`` with plugin ``text``: a string tensor of any rank, its elements joined
  by newlines.
* ``audio`` (legacy ``Summary.Audio``, what tensorboardX and torch write): a clip whose
  WAV bytes stay in the file, as an image's PNG.
* ``tensor`` with plugin ``pr_curves``: a ``[6, n]`` float tensor, rows TP, FP, TN, FN,
  precision and recall; threshold ``i`` of ``n`` is ``i / (n - 1)``, as the writers bin.
* values of plugin ``hparams`` (no value, or a tensor; the data is the metadata's
  ``HParamsPluginData``): the experiment names the metrics (their scalar tags), the
  session start info holds the values (a number is a float, TensorBoard keeps no
  integers; strings and bools as they are); the session start, merged with the
  file's latest experiment, is one hyperparameters event of the run.
* ``tensor`` with plugin ``custom_scalars``: the ``Layout`` in its one string (or in
  the metadata content when there is none), a scalar layout of the run.
* ``session_log`` ``START`` at step ``s`` (a restarted TensorFlow session, the
  ``purge_step`` of tensorboardX and torch): an item of kind :data:`SESSION_START`
  with ``(wall time, s)``; :func:`purge` moves the run's points written before it
  with a step ``>= s`` apart, as TensorBoard drops them.

Only the first value of a tag in a file usually carries the metadata naming its
plugin; the decoder remembers it for the tag's later values.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np
from google.protobuf.message import DecodeError

from visualdl._formats.format import SESSION_START
from visualdl._formats.framebatch import Batch
from visualdl._formats.framing import HEADER_SIZE
from visualdl._formats.points import Points
from visualdl._formats.tfevents import scalars as tfscalars
from visualdl._kinds.table import (
    HPARAMS_TAG,
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
    png_shape,
)
from visualdl.errors import LogFormatError
from visualdl.proto import pb, tb

__all__ = [
    "FILE_MARKER",
    "NOT_READ",
    "READERS",
    "SESSION_START",
    "BlobRef",
    "EventDecoder",
    "header_for",
    "is_tfevents_file",
    "parse_event",
    "Value",
]

#: TensorBoard's event files contain this in their basename.
FILE_MARKER = "tfevents"

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
#: Elements of a tensor decoded at most (a histogram of 2^20 buckets is far beyond any writer's).
_MAX_ELEMENTS = 1 << 22
_NAME = re.compile(r"tfevents\.(\d+(?:\.\d+)?)\.(.*?)(?:\.(\d+)\.(\d+))?(?:\.[^.]*)?$")


def is_tfevents_file(basename: str) -> bool:
    return FILE_MARKER in basename and not basename.startswith(".")


def parse_event(payload: bytes) -> tb.Event:
    """The Event in ``payload``; :class:`LogFormatError` when it is not one."""
    try:
        return tb.Event.FromString(payload)
    except DecodeError as e:
        raise LogFormatError(f"undecodable event payload ({e})") from e


def header_for(path: str, first: tb.Event) -> pb.Header:
    """What is known of the writer of the event file at ``path``, as our header says it:
    its start time is the wall time of its first event; host and pid come from the name
    (``events.out.tfevents.<time>.<host>[.<pid>.<uid>]``) when it has them."""
    host, pid = "", -1
    match = _NAME.search(path.rsplit("/", 1)[-1])
    if match:
        host = match.group(2)
        pid = int(match.group(3)) if match.group(3) else -1
    return pb.Header(
        host=host,
        pid=pid,
        start_time=first.wall_time,
        sdk_version=first.file_version,
        rank=-1,
        world_size=-1,
        local_rank=-1,
        attempt=-1,
    )


@dataclass(frozen=True, slots=True)
class BlobRef(RecordRef):
    """Where an image's PNG bytes (or a clip's WAV) lie in an event file: the record, the
    index of the ``Summary.Value``, and of the PNG among the tensor's strings (-1: a legacy
    ``Image`` or ``Audio``)."""

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


def _count(x: float) -> int:
    """A count written as a double; 0 when it is not a count at all (NaN, negative, huge)."""
    return round(x) if 0 <= x < 2.0**63 else 0


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
    total = _count(float(h.num)) if h.num else _count(float(counts.sum()))
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
    total = float(counts.sum())
    centers = (left + right) / 2
    mean_sum = float((centers * counts).sum())
    squares = float((centers * centers * counts).sum())
    return HistogramEvent(
        step, wall, edges, counts, float(left[0]), float(right[-1]), mean_sum, squares, _count(total), 0, 0, 0
    )


class EventDecoder:
    """Follows the events of one file: the plugin of each tag, and what is not shown.

    :meth:`decode` turns a list of ``(offset, Event)`` into ``(kind, tag, event)`` items
    as :meth:`visualdl._kinds.table.Kind.decode` gives them for our records, with all the
    scalar points of the list in one :class:`ScalarBlock` (tag after tag). The file's
    first event stands for the header our files start with (:attr:`header`,
    :func:`header_for`).
    """

    __slots__ = ("header", "plugins", "other", "problems", "hparams")
    #: None: a writer of this format never says it closed the file.
    footer: pb.Footer | None = None

    def __init__(self) -> None:
        #: What is known of the file's writer, once an event was read.
        self.header: pb.Header | None = None
        #: tag -> the plugin named by the first value of the tag that named one.
        self.plugins: dict[str, str] = {}
        #: tag -> (plugin, number of values) of the values not shown.
        self.other: dict[str, tuple[str, int]] = {}
        #: ``(offset, message)`` of the values that could not be read, since last taken.
        self.problems: list[tuple[int, str]] = []
        #: The latest hyperparameters and metrics read (None: no session start yet, no experiment).
        self.hparams: tuple[dict[str, int | float | str | bool] | None, tuple[str, ...] | None] = (None, None)

    def decode(self, path: str, items: list[tuple[int, bytes | tb.Event | Batch]]) -> list[tuple[str, str, object]]:
        """Items hold events, payloads, or batches of payloads (:class:`Batch`): those of
        the common shape (one ``simple_value``, no metadata) are read from their bytes
        directly (:mod:`visualdl._formats.tfevents.scalars`), the others parsed."""
        if self.header is None and items:
            first = items[0][1]
            if isinstance(first, Batch):
                first = first.payload(0)
            try:
                self.header = header_for(path, parse_event(first) if isinstance(first, bytes) else first)
            except LogFormatError:
                self.header = header_for(path, tb.Event())
        with np.errstate(all="ignore"):  # whatever the numbers written, no warnings
            return self._decode(path, items)

    def _decode(self, path: str, items: list[tuple[int, bytes | tb.Event | Batch]]) -> list[tuple[str, str, object]]:
        out: list[tuple[str, str, object]] = []
        points = Points()
        for offset, item in items:
            if not isinstance(item, Batch):
                self._one(path, offset, item, out, points)
                continue
            found = tfscalars.read(item.buf, item.starts, item.lengths)
            if 4 * int(found.common.sum()) < 3 * len(item):  # mostly other events: one by one is cheaper
                for i in range(len(item)):
                    frame = offset + int(item.starts[i]) - HEADER_SIZE - item.offset
                    self._one(path, frame, item.payload(i), out, points)
                continue
            ids = np.array([points.id(tag) for tag in found.tags], np.int64)[found.tag_ids]
            columns = (ids, found.steps, found.values, found.walls)
            others = np.flatnonzero(~found.common)
            # The points of the common payloads before each other payload, then that one: file order.
            cuts = np.searchsorted(np.flatnonzero(found.common), others).tolist()
            done = 0
            for cut, i in zip(cuts, others.tolist(), strict=True):
                if cut > done:
                    points.add_columns(*(c[done:cut] for c in columns))
                    done = cut
                frame = offset + int(item.starts[i]) - HEADER_SIZE - item.offset
                self._one(path, frame, item.payload(i), out, points)
            if done < len(ids):
                points.add_columns(*(c[done:] for c in columns))
        block = points.block()
        if block is not None:
            out.append(("scalars", "", block))
        return out

    def unshown(self) -> tuple[tuple[str, str, int], ...]:
        """``(tag, plugin, values)`` of what the file holds and is not shown."""
        return tuple((tag, plugin, count) for tag, (plugin, count) in sorted(self.other.items()))

    def _one(
        self, path: str, offset: int, item: bytes | tb.Event, out: list[tuple[str, str, object]], points: Points
    ) -> None:
        """The items of one event (its scalar points into ``points``)."""
        if isinstance(item, bytes):
            simple = simple_scalar(item)
            if simple is not None:
                points.add(simple[2], simple[1], simple[3], simple[0])
                return
            try:
                event = parse_event(item)
            except LogFormatError as e:
                self.problems.append((offset, e.message))
                return
        else:
            event = item
        what = event.WhichOneof("what")
        if what == "session_log" and event.session_log.status == tb.SessionLog.START:
            out.append((SESSION_START, "", (float(event.wall_time), int(event.step))))
        if what != "summary":
            return
        step, wall = int(event.step), float(event.wall_time)
        for index, value in enumerate(event.summary.value):
            tag = value.tag
            plugin = value.metadata.plugin_data.plugin_name
            if plugin:
                self.plugins.setdefault(tag, plugin)
            else:
                plugin = self.plugins.get(tag, "")
            which = value.WhichOneof("value") or ""
            entry = READERS.get((which, plugin)) or READERS.get((which, ""))
            if entry is None:
                name, count = self.other.get(tag, (plugin or which or "unknown", 0))
                self.other[tag] = (name, count + 1)
                continue
            kind, read = entry
            try:
                items = read(Value(path, offset, index, tag, step, wall, value))
            except LogFormatError as e:
                self.problems.append((offset, f"value {tag!r}: {e.message}"))
                continue
            if kind == "scalars":
                for _, name, number in items:
                    points.add(name, step, cast(float, number), wall)
            elif kind == "hparams":
                out.extend(self._hparams(items))
            else:
                out.extend(items)

    def _hparams(self, items: list[tuple[str, str, object]]) -> list[tuple[str, str, object]]:
        """The run's hyperparameters once a session start was read: its values, with the
        metrics of the file's latest experiment (before or after it)."""
        out: list[tuple[str, str, object]] = []
        for _, part, event in items:
            assert isinstance(event, HParamsEvent)
            values, metrics = self.hparams
            if part == _EXPERIMENT:
                metrics = event.metrics
            else:
                values = event.hparams
            self.hparams = (values, metrics)
            if values is not None:
                out.append(("hparams", HPARAMS_TAG, HParamsEvent(event.wall_time, values, metrics or ())))
        return out


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
    except ValueError as e:
        raise LogFormatError(f"image tensor with width {strings[0]!r} and height {strings[1]!r}") from e
    out: list[tuple[str, str, object]] = []
    for k, png in enumerate(strings[2:]):
        name = v.tag if len(strings) == 3 else f"{v.tag}/{k}"
        shape = png_shape(png)
        channels = 0 if shape is None else shape[2]
        ref = BlobRef(v.path, v.offset, v.index, 2 + k)
        out.append(("images", name, ImageEvent(v.step, v.wall, height, width, channels, ref)))
    return out


def _histogram_legacy(v: Value) -> list[tuple[str, str, object]]:
    return [("histograms", v.tag, _histogram_from_proto(v.value.histo, v.step, v.wall))]


def _histogram_tensor(v: Value) -> list[tuple[str, str, object]]:
    return [("histograms", v.tag, _histogram_from_tensor(v.value.tensor, v.step, v.wall))]


def _text_tensor(v: Value) -> list[tuple[str, str, object]]:
    texts = [s.decode("utf-8", "replace") for s in _strings(v.value.tensor)]
    return [("text", v.tag, TextEvent(v.step, v.wall, "\n".join(texts)))]


def _audio_legacy(v: Value) -> list[tuple[str, str, object]]:
    audio = v.value.audio
    rate = audio.sample_rate
    if not (rate > 0 and rate == int(rate)):
        raise LogFormatError(f"audio with a sample rate of {rate}")
    if audio.num_channels < 0 or audio.length_frames < 0:
        raise LogFormatError(f"audio of {audio.num_channels} channels and {audio.length_frames} frames")
    ref = BlobRef(v.path, v.offset, v.index, -1)
    size = len(audio.encoded_audio_string)
    return [("audio", v.tag, AudioEvent(v.step, v.wall, int(rate), audio.length_frames, audio.num_channels, size, ref))]


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
        metrics = tuple(m.name.tag for m in data.experiment.metric_infos)
        return [("hparams", _EXPERIMENT, HParamsEvent(v.wall, {}, metrics))]
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


_F64 = struct.Struct("<d")
_F32 = struct.Struct("<f")
_SUMMARY_KEY, _VALUE_KEY, _TAG_KEY, _SIMPLE_KEY, _WALL_KEY, _STEP_KEY = 0x2A, 0x0A, 0x0A, 0x15, 0x09, 0x10


def simple_scalar(p: bytes) -> tuple[float, int, str, float] | None:
    """``(wall time, step, tag, value)`` of a serialized ``Event`` that holds exactly one
    ``simple_value`` and nothing else, in the canonical encoding every writer produces
    (``wall_time``, ``step`` if not 0, ``summary`` {``value`` {``tag``, ``simple_value``}},
    lengths below 128); None for anything else, which is then parsed in full. Reading the
    common shape from its bytes costs a fraction of a protobuf parse and its traversal."""
    n = len(p)
    if n < 16 or p[0] != _WALL_KEY:
        return None
    pos = 9
    step = 0
    if p[pos] == _STEP_KEY:
        pos += 1
        shift = 0
        while True:
            if pos >= n or shift > 63:
                return None
            byte = p[pos]
            pos += 1
            step |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
        step &= (1 << 64) - 1  # as protobuf reads a varint: its low 64 bits
        if step >= 1 << 63:
            step -= 1 << 64
    # Lengths of one byte only (below 0x80): a larger byte starts a varint of more.
    if pos + 6 > n or p[pos] != _SUMMARY_KEY or p[pos + 1] != n - pos - 2 or p[pos + 2] != _VALUE_KEY:
        return None
    if p[pos + 3] != n - pos - 4 or p[pos + 4] != _TAG_KEY or p[pos + 1] >= 0x80:
        return None
    tag_len = p[pos + 5]
    tag_end = pos + 6 + tag_len
    if tag_len >= 0x80 or tag_end + 5 != n or p[tag_end] != _SIMPLE_KEY:
        return None
    try:
        tag = p[pos + 6 : tag_end].decode("utf-8")
    except UnicodeDecodeError:
        return None  # protobuf's parse reports it
    return _F64.unpack_from(p, 1)[0], step, tag, _F32.unpack_from(p, tag_end + 1)[0]
