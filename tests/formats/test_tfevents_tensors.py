"""TF2-style tensor summaries (what ``tf.summary`` writes), built with TensorBoard's own
protos and framed by hand, read back through LogReader."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
from kit.requirements import require
from PIL import Image

from visualdl import LogReader
from visualdl._formats.framing import frame

try:
    from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
except ImportError:  # pragma: no cover - CI installs it
    event_pb2 = None

require(event_pb2 is not None, "tensorboard", "pip install -e '.[bench]'")


def _meta(plugin: str) -> summary_pb2.SummaryMetadata:
    return summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=plugin))


def _shape(*dims: int) -> tensor_shape_pb2.TensorShapeProto:
    return tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims])


def _event(step: int, tag: str, tensor: tensor_pb2.TensorProto, plugin: str | None) -> event_pb2.Event:
    value = summary_pb2.Summary.Value(tag=tag, tensor=tensor)
    if plugin:
        value.metadata.CopyFrom(_meta(plugin))
    return event_pb2.Event(wall_time=1_700_000_000.0 + step, step=step, summary=summary_pb2.Summary(value=[value]))


def _png(pixels: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


def _write(logdir: str, events: list[event_pb2.Event]) -> str:
    path = os.path.join(logdir, "events.out.tfevents.1700000000.host.42.7.v2")
    first = event_pb2.Event(wall_time=1_700_000_000.0, file_version="brain.Event:2")
    with open(path, "wb") as f:
        for event in [first, *events]:
            f.write(frame(event.SerializeToString()))
    return path


def test_tfevents_scalar_tensors_of_every_dtype(logdir):
    t = tensor_pb2.TensorProto
    dt = types_pb2
    events = [
        # Only the first value of a tag names its plugin.
        _event(0, "f32", t(dtype=dt.DT_FLOAT, tensor_content=np.float32(0.1).tobytes()), "scalars"),
        _event(1, "f32", t(dtype=dt.DT_FLOAT, float_val=[np.nan]), None),
        _event(2, "f32", t(dtype=dt.DT_FLOAT, tensor_shape=_shape(), float_val=[-np.inf]), None),
        _event(0, "f64", t(dtype=dt.DT_DOUBLE, double_val=[0.1]), "scalars"),
        _event(1, "f64", t(dtype=dt.DT_DOUBLE, tensor_content=np.float64(1e300).tobytes()), None),
        _event(0, "i32", t(dtype=dt.DT_INT32, int_val=[-7]), "scalars"),
        _event(0, "i64", t(dtype=dt.DT_INT64, int64_val=[2**53]), "scalars"),
        _event(0, "f16", t(dtype=dt.DT_HALF, half_val=[int(np.float16(1.5).view(np.uint16))]), "scalars"),
        _event(3, "tensor_without_plugin", t(dtype=dt.DT_FLOAT, float_val=[1.0]), None),
    ]
    path = _write(logdir, events)
    reader = LogReader(logdir)
    assert reader.scalars(".", "f32").values.tolist()[0] == float(np.float32(0.1))
    values = reader.scalars(".", "f32").values
    assert np.isnan(values[1]) and values[2] == -np.inf
    assert reader.scalars(".", "f64").values.tolist() == [0.1, 1e300]
    assert reader.scalars(".", "i32").values.tolist() == [-7.0]
    assert reader.scalars(".", "i64").values.tolist() == [float(2**53)]
    assert reader.scalars(".", "f16").values.tolist() == [1.5]
    (info,) = reader.writers(".")
    assert (info.host, info.pid, info.start_time, info.path) == ("host", 42, 1_700_000_000.0, path)
    assert info.unshown == (("tensor_without_plugin", "tensor", 1),)
    assert reader.problems == []


def test_tfevents_image_histogram_text_tensors(logdir):
    t = tensor_pb2.TensorProto
    dt = types_pb2
    red = np.zeros((2, 3, 3), np.uint8)
    red[..., 0] = 255
    gray = np.full((2, 3), 9, np.uint8)
    images = t(dtype=dt.DT_STRING, tensor_shape=_shape(4), string_val=[b"3", b"2", _png(red), _png(gray)])
    rows = np.array([[0.0, 1.0, 2.0], [1.0, 3.0, 5.0]])
    hist = t(dtype=dt.DT_DOUBLE, tensor_shape=_shape(2, 3), tensor_content=rows.tobytes())
    text = t(dtype=dt.DT_STRING, tensor_shape=_shape(2, 1), string_val=["ü".encode(), b"b"])
    _write(
        logdir, [_event(5, "img", images, "images"), _event(6, "h", hist, "histograms"), _event(7, "t", text, "text")]
    )
    reader = LogReader(logdir)
    assert reader.tags(".")["images"] == ["img"]  # a batch of two is one tag with two images at step 5
    first, second = reader.images(".", "img")
    assert (first.step, first.width, first.height, first.channels) == (5, 3, 2, 3)
    assert (second.step, second.channels) == (5, 1)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(reader.read_blob(first)))), red)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(reader.read_blob(second)))), gray)
    (h,) = reader.histograms(".", "h")
    assert h.edges.tolist() == [0.0, 1.0, 3.0] and h.counts.tolist() == [2.0, 5.0] and h.count == 7
    (entry,) = reader.texts(".", "t")
    assert entry.text == "|  |\n| --- |\n| ü |\n| b |"  # a [2, 1] tensor: a table of one column, as TensorBoard


def test_tfevents_histogram_proto_open_buckets(logdir):
    """TensorFlow's first bucket is open to -inf and its last limit is DBL_MAX: they are closed at min and max."""
    dbl_max = float(np.finfo(np.float64).max)
    proto = summary_pb2.HistogramProto(
        min=-2.5, max=9.0, num=6, sum=10.0, sum_squares=90.0,
        bucket_limit=[-10.0, -1.0, 0.0, 5.0, dbl_max], bucket=[0.0, 2.0, 0.0, 3.0, 1.0],
    )  # fmt: skip
    value = summary_pb2.Summary.Value(tag="w", histo=proto)
    _write(logdir, [event_pb2.Event(step=1, wall_time=2.0, summary=summary_pb2.Summary(value=[value]))])
    (h,) = LogReader(logdir).histograms(".", "w")
    assert h.edges.tolist() == [-2.5, -1.0, 0.0, 5.0, 9.0]
    assert h.counts.tolist() == [2.0, 0.0, 3.0, 1.0]
    assert (h.count, h.min, h.max, h.sum) == (6, -2.5, 9.0, 10.0)


@pytest.mark.parametrize(
    "tensor",
    [
        tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, tensor_shape=_shape(2), float_val=[1.0, 2.0]),
        tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, tensor_content=b"\x00\x00"),
        tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[b"x"]),
        tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, tensor_shape=_shape(2**40, 2**40), float_val=[1.0]),
    ],
)
def test_tfevents_unreadable_scalar_tensor_is_a_problem(logdir, tensor):
    _write(
        logdir,
        [
            _event(0, "bad", tensor, "scalars"),
            _event(1, "good", tensor_pb2.TensorProto(dtype=1, float_val=[2.0]), "scalars"),
        ],
    )
    reader = LogReader(logdir)
    assert reader.scalars(".", "good").values.tolist() == [2.0]
    (problem,) = reader.problems
    assert "'bad'" in problem.message
