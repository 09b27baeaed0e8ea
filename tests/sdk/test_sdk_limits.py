"""What is too big for one record is refused on the caller's thread; a big image does not stall scalars.

No test allocates what it refuses: the huge inputs are numpy broadcasts and sparse files
(nothing behind them until read), or the limits are lowered.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from visualdl import LogReader, LogWriter
from visualdl.sdk import _convert as convert


@pytest.fixture
def writer(logdir):
    w = LogWriter(logdir)
    yield w
    w.add_scalar("after", 1.0, 0)  # what was refused broke nothing
    w.close()
    reader = LogReader(logdir)
    assert reader.scalars(".", "after").values.tolist() == [1.0]
    assert reader.problems == []


def test_add_text_above_the_payload_limit_is_refused(writer, logdir, monkeypatch):
    monkeypatch.setattr(convert, "MAX_PAYLOAD_BYTES", 1000)
    writer.add_text("t", "x" * 1000, 0)
    with pytest.raises(ValueError, match=r"text_string is (at least )?1,001 bytes, above the limit of 1,000 bytes"):
        writer.add_text("t", "x" * 1001, 1)
    with pytest.raises(ValueError, match="text_string is 1,002 bytes"):  # 501 characters of 2 bytes each
        writer.add_text("t", "é" * 501, 2)
    writer.flush()
    assert [e.step for e in LogReader(logdir).texts(".", "t")] == [0]


def test_add_graph_above_the_payload_limit_is_refused_unread(writer, tmp_path):
    huge = np.broadcast_to(np.uint8(8), (3 << 30,))  # 3 GiB that nothing stores
    with pytest.raises(ValueError, match=r"model is 3,221,225,472 bytes, above the limit of 2,146,435,072"):
        writer.add_graph(huge.data)
    path = tmp_path / "huge.onnx"
    with open(path, "wb") as f:
        f.truncate(3 << 30)  # sparse: no disk used, and never read
    with pytest.raises(ValueError, match=r"model is 3,221,225,472 bytes, above the limit"):
        writer.add_graph(str(path))

    class HugeModel:  # an onnx.ModelProto whose serialization would pass the limit
        graph = SimpleNamespace(name="huge")

        def ByteSize(self) -> int:
            return 3 << 30

        def SerializeToString(self) -> bytes:
            raise AssertionError("serialized a model above the limit")

    with pytest.raises(ValueError, match="save it with external data"):
        writer.add_graph(HugeModel())


def test_add_image_above_the_pixel_limit_is_refused_uncopied(writer):
    huge = np.broadcast_to(np.zeros((1, 1, 3), np.uint8), (20000, 20000, 3))  # 1.2 GB that nothing stores
    with pytest.raises(ValueError, match=r"img has 400,000,000 pixels \(20000x20000\), above the limit of 67,108,864"):
        writer.add_image("img", huge, 0)
    with pytest.raises(ValueError, match="above the limit"):
        writer.add_image("img", np.broadcast_to(np.zeros((1, 1), np.float32), (3, 20000, 20000)), 0, dataformats="CHW")


def test_pixel_limit_is_exact_for_arrays_and_pil_images(writer, monkeypatch):
    from PIL import Image

    monkeypatch.setattr(convert, "MAX_IMAGE_PIXELS", 100)
    writer.add_image("img", np.zeros((10, 10), np.uint8), 0, dataformats="HW")
    writer.add_image("img", Image.new("RGB", (10, 10)), 1)
    with pytest.raises(ValueError, match=r"img has 110 pixels \(11x10\), above the limit of 100"):
        writer.add_image("img", np.zeros((11, 10), np.uint8), 2, dataformats="HW")
    with pytest.raises(ValueError, match=r"img has 110 pixels \(10x11\)"):
        writer.add_image("img", Image.new("RGBA", (11, 10)), 3)


def test_largest_allowed_image_fits_one_record():
    # PNG at its worst stores the pixels uncompressed: one filter byte a row, a few bytes
    # per 64 KiB deflate block and IDAT chunk. 1% covers that many times over.
    assert convert.MAX_IMAGE_PIXELS * 4 * 1.01 < convert.MAX_PAYLOAD_BYTES


def test_scalars_do_not_wait_for_a_big_image_being_encoded(logdir, monkeypatch):
    started, release = threading.Event(), threading.Event()
    encode_png = convert.encode_png

    def slow_encode_png(image: Any) -> bytes:  # a huge image taking long to compress
        started.set()
        release.wait(60)
        return encode_png(image)

    monkeypatch.setattr(convert, "encode_png", slow_encode_png)
    w = LogWriter(logdir, max_pending_bytes=10_000)

    def log_scalars() -> None:
        for step in range(200):  # 4,800 bytes: within the bound
            w.add_scalar("loss", float(step), step)

    logger = threading.Thread(target=log_scalars)
    try:
        w.add_image("big", np.zeros((100, 100, 3), np.uint8), 0)  # 30,000 bytes: above the bound, let in alone
        assert started.wait(60)
        blocked = w.stats()["blocked_seconds"]
        logger.start()
        logger.join(10)
        assert not logger.is_alive(), "add_scalar waited for the image's encoding"
        assert w.stats()["blocked_seconds"] == blocked
    finally:
        release.set()
        if logger.ident is not None:
            logger.join()
        w.close()
    reader = LogReader(logdir)
    assert reader.scalars(".", "loss").steps.tolist() == list(range(200))
    assert [e.step for e in reader.images(".", "big")] == [0]
