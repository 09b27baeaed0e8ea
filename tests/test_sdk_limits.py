"""What is too big for one record is refused on the caller's thread.

No test allocates what it refuses: the huge inputs are numpy broadcasts and sparse files
(nothing behind them until read), or the limits are lowered.
"""

from __future__ import annotations

from types import SimpleNamespace

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
