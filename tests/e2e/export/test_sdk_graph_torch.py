"""``LogWriter.add_graph`` takes a torch model with an example input, exported to ONNX."""

from __future__ import annotations

import onnx
import pytest
from kit.requirements import require_import

from visualdl import LogReader, LogWriter

E2E = "pip install -e '.[e2e]'"


def _net():
    import torch  # each test requires it first

    class TinyNet(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3)
            self.fc = torch.nn.Linear(4 * 6 * 6, 2)

        def forward(self, x):
            return self.fc(torch.relu(self.conv(x)).flatten(1))

    return TinyNet().eval()


def test_add_graph_exports_a_torch_model(tmp_path):
    torch = require_import("torch", E2E)
    with LogWriter(tmp_path / "run") as w:
        w.add_graph(_net(), input_spec=torch.randn(1, 3, 8, 8))
        w.add_graph(_net(), input_spec=[torch.randn(2, 3, 8, 8)], name="batch2")
    reader = LogReader(str(tmp_path))
    graphs = {g.name: g for g in reader.graphs("run")}
    assert set(graphs) == {"TinyNet", "batch2"}
    model = onnx.load_from_string(reader.read_blob(graphs["TinyNet"]))
    assert [n.op_type for n in model.graph.node if n.op_type in ("Conv", "Relu", "Gemm")] == ["Conv", "Relu", "Gemm"]


def test_add_graph_of_a_torch_model_needs_an_example_input(tmp_path):
    torch = require_import("torch", E2E)
    with LogWriter(tmp_path / "run") as w:
        with pytest.raises(ValueError, match="input_spec is needed"):
            w.add_graph(_net())
        with pytest.raises(ValueError, match="could not export TinyNet"):
            w.add_graph(_net(), input_spec=torch.randn(1, 5))  # not what forward takes
        w.add_scalar("after", 1.0, 0)  # the writer goes on
    assert LogReader(str(tmp_path)).scalars("run", "after").values.tolist() == [1.0]
