"""Several images at one step (``tf.summary.image`` with ``max_outputs`` above 1, Keras'
``write_images``, clu): one tag with a batch per step, through LogReader and the API.

The records are what ``tf.summary.image`` writes (a string tensor ``[width, height, png, ...]``
under the images plugin, its metadata from TensorBoard's own plugin), written by
tensorboardX's event file writer; TensorFlow itself is not needed for the bytes."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
from kit.apps import build_app
from kit.requirements import require
from kit.writers import import_torch, torch_writer
from PIL import Image

from visualdl import LogReader

try:
    from tensorboard.compat.proto import summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
    from tensorboard.plugins.image import metadata as image_metadata
    from tensorboardX import FileWriter
    from tensorboardX.proto.summary_pb2 import Summary as XSummary
except ImportError:  # pragma: no cover - CI installs them
    FileWriter = None

require(FileWriter is not None, "tensorboardX and tensorboard", "pip install -e '.[test,bench]'")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")

#: Images per step: a batch of 4 at steps 0 to 2, then batches of 2 and 3 (the count varies).
COUNTS = {0: 4, 1: 4, 2: 4, 3: 2, 4: 3}
H, W = 5, 7


def _pixels(step: int, k: int) -> np.ndarray:
    """A distinct image for each step and sample."""
    rng = np.random.default_rng(100 * step + k)
    return rng.integers(0, 256, (H, W, 3), dtype=np.uint8)


def _png(pixels: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG")
    return buf.getvalue()


def _batch_summary(tag: str, images: list[np.ndarray]) -> XSummary:
    """What ``tf.summary.image(tag, images, max_outputs=len(images))`` writes."""
    strings = [str(W).encode(), str(H).encode(), *(_png(img) for img in images)]
    shape = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=len(strings))])
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, tensor_shape=shape, string_val=strings)
    meta = image_metadata.create_summary_metadata(display_name=tag, description="")
    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=meta)])
    return XSummary.FromString(summary.SerializeToString())  # the same message, as tensorboardX's class


@pytest.fixture
def batch_logs(logdir):
    w = FileWriter(os.path.join(logdir, "train"))
    for step, n in COUNTS.items():
        w.add_summary(_batch_summary("inputs", [_pixels(step, k) for k in range(n)]), step)
    w.close()
    return logdir


def _decode(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def test_image_batches_read_as_one_tag_with_each_steps_images(batch_logs):
    reader = LogReader(batch_logs)
    assert reader.tags("train")["images"] == ["inputs"]
    events = reader.images("train", "inputs")
    assert [e.step for e in events] == [step for step, n in COUNTS.items() for _ in range(n)]
    assert {(e.width, e.height, e.channels) for e in events} == {(W, H, 3)}
    at = 0
    for step, n in COUNTS.items():
        for k in range(n):
            assert np.array_equal(_decode(reader.read_blob(events[at])), _pixels(step, k)), (step, k)
            at += 1


def test_image_batches_api_numbers_samples_and_serves_each(batch_logs):
    app = build_app(batch_logs, poll=False)
    app.extensions["visualdl.provider"].poll()
    client = app.test_client()
    assert client.get("/api/tags").get_json()["images"] == {"inputs": ["train"]}
    body = client.get("/api/images?run=train&tag=inputs").get_json()
    assert body["steps"] == [step for step, n in COUNTS.items() for _ in range(n)]
    assert body["samples"] == [k for n in COUNTS.values() for k in range(n)]
    assert set(body["widths"]) == {W} and set(body["heights"]) == {H}
    # By step and sample: each image of the batch, in the order written.
    for step, n in COUNTS.items():
        for k in range(n):
            answer = client.get(f"/api/image?run=train&tag=inputs&step={step}&sample={k}")
            assert answer.status_code == 200 and answer.mimetype == "image/png"
            assert np.array_equal(_decode(answer.data), _pixels(step, k)), (step, k)
    # By index in the list: the same images.
    index = body["steps"].index(3) + 1
    assert np.array_equal(_decode(client.get(f"/api/image?run=train&tag=inputs&index={index}").data), _pixels(3, 1))
    # A step without sample is its last image, as before; a sample past the batch is not found.
    assert np.array_equal(_decode(client.get("/api/image?run=train&tag=inputs&step=4").data), _pixels(4, 2))
    missing = client.get("/api/image?run=train&tag=inputs&step=3&sample=2")
    assert missing.status_code == 404 and "sample 2" in missing.get_json()["error"]


@pytest.mark.e2e  # torch's writer (torch: an e2e extra)
def test_image_batches_torch_add_images_stay_one_tiled_image_per_step(logdir):
    """torch's writer (as tensorboardX's) tiles a batch into one grid image before writing:
    one image per step whatever the batch's size, one tag."""
    torch = import_torch()
    w = torch_writer()(os.path.join(logdir, "torch"))
    w.add_images("grid", torch.rand(2, 3, H, W), 0)
    w.add_images("grid", torch.rand(3, 3, H, W), 1)
    w.close()
    reader = LogReader(logdir)
    assert reader.tags("torch")["images"] == ["grid"]
    events = reader.images("torch", "grid")
    assert [e.step for e in events] == [0, 1]
    # The tiles side by side in one image (up to 8 a row).
    assert [(e.width, e.height) for e in events] == [(2 * W, H), (3 * W, H)]
