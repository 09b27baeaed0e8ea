"""``LogWriter.add_graph`` takes a PaddlePaddle ``Layer`` with an ``input_spec``, as VisualDL 2
does, exported to ONNX by ``paddle.onnx.export`` (paddle2onnx); the frameworks are imported
only when such a model is given."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import warnings
from typing import Any

import onnx
import pytest
from kit.paths import ROOT
from kit.requirements import require

from visualdl import LogReader, LogWriter


def _paddle() -> Any:
    """paddle, imported by the test that exports (seconds to import: not at collection)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # paddle warns at import when ccache is missing
            import paddle
        if importlib.util.find_spec("paddle2onnx") is None:  # paddle.onnx.export needs it
            raise ImportError("paddle2onnx")
    except ImportError:  # pragma: no cover - CI installs them
        require(False, "paddlepaddle and paddle2onnx", "pip install -e '.[e2e]'")
    return paddle


def _net(paddle: Any) -> Any:
    class MnistNet(paddle.nn.Layer):  # VisualDL 2's add_graph example, smaller
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = paddle.nn.Conv2D(in_channels=1, out_channels=4, kernel_size=5, stride=1, padding=2)
            self.pool = paddle.nn.MaxPool2D(kernel_size=2, stride=2)
            self.fc = paddle.nn.Linear(in_features=4 * 7 * 7, out_features=10)

        def forward(self, inputs):
            x = self.pool(paddle.nn.functional.relu(self.conv1(inputs)))
            return self.fc(paddle.reshape(x, [x.shape[0], -1]))

    return MnistNet()


def test_add_graph_exports_a_paddle_layer_with_its_input_spec(tmp_path):
    paddle = _paddle()
    with LogWriter(tmp_path / "run") as writer:
        writer.add_graph(
            model=_net(paddle), input_spec=[paddle.static.InputSpec([-1, 1, 14, 14], "float32")], verbose=False
        )
        writer.add_graph(_net(paddle), [paddle.randn([2, 1, 14, 14])], name="from_a_tensor")
    reader = LogReader(str(tmp_path))
    graphs = {g.name: g for g in reader.graphs("run")}
    assert set(graphs) == {"MnistNet", "from_a_tensor"}
    model = onnx.load_from_string(reader.read_blob(graphs["MnistNet"]))
    ops = [n.op_type for n in model.graph.node]
    assert [op for op in ops if op in ("Conv", "Relu", "MaxPool", "MatMul", "Gemm")][:3] == ["Conv", "Relu", "MaxPool"]
    shape = model.graph.input[0].type.tensor_type.shape
    assert [d.dim_value or d.dim_param or -1 for d in shape.dim][1:] == [1, 14, 14]


def test_add_graph_of_a_paddle_layer_says_what_is_missing(tmp_path):
    paddle = _paddle()
    with LogWriter(tmp_path / "run") as writer:
        with pytest.raises(ValueError, match="input_spec is needed to export a PaddlePaddle model"):
            writer.add_graph(_net(paddle))
        with pytest.raises(ValueError, match=r"could not export MnistNet to ONNX with paddle\.onnx\.export"):
            writer.add_graph(_net(paddle), [paddle.static.InputSpec([-1, 3], "float32")])  # not what forward takes
        writer.add_scalar("after", 1.0, 0)  # the writer goes on
    assert LogReader(str(tmp_path)).scalars("run", "after").values.tolist() == [1.0]


_WITHOUT = """
import sys
sys.modules["paddle"] = None  # importing it fails, as where it is not installed
sys.path.insert(0, {root!r})
from visualdl import LogWriter


class Layer:  # named and placed as paddle's, for the check that tells a model's framework
    pass


Layer.__module__ = "paddle.nn.layer.layers"


class Net(Layer):
    pass


with LogWriter({logdir!r}) as writer:
    try:
        writer.add_graph(Net(), [object()])
    except ImportError as e:
        print(e)
"""


def test_add_graph_without_paddle_names_the_packages_and_imports_no_framework(tmp_path):
    script = _WITHOUT.format(root=ROOT, logdir=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "needs paddlepaddle and paddle2onnx: pip install paddlepaddle paddle2onnx" in done.stdout
    probe = f"""
import sys
sys.path.insert(0, {ROOT!r})
from onnx import TensorProto, helper
from visualdl import LogWriter
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
model = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [x]))
with LogWriter({str(tmp_path / "onnx")!r}) as writer:
    writer.add_graph(model)
print(sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "paddle", "paddle2onnx")))
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "[]", (done.stdout, done.stderr)
