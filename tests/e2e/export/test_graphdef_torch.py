"""``add_graph`` of torch's and tensorboardX's ``SummaryWriter`` (a ``torch.jit`` trace written
as a GraphDef) read into the Graphs tab: the module scopes as groups, the shapes, the
parameters' reads folded into their ops, the step stats listed as unshown."""

from __future__ import annotations

import pytest
from kit.apps import build_app
from kit.requirements import require_import
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.compat.proto.graph_pb2 import GraphDef

from visualdl import LogReader

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # add_graph traces with torch.jit


def _net():
    import torch  # the test requires it first

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)
            self.act = torch.nn.ReLU()

        def forward(self, x):
            return self.act(self.fc(x)) + x

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = torch.nn.Sequential(Block(), Block())
            self.head = torch.nn.Linear(4, 2)

        def forward(self, x):
            return self.head(self.layers(x)).softmax(-1)

    return Net()


@pytest.mark.parametrize("writer", ["torch", "tensorboardX"])
def test_graphdef_of_add_graph_shows_module_groups(tmp_path, writer):
    install = "pip install -e '.[e2e,bench]'"
    torch = require_import("torch", install)
    writers = "torch.utils.tensorboard" if writer == "torch" else "tensorboardX"
    make = require_import(writers, install, "torch and tensorboardX").SummaryWriter
    w = make(str(tmp_path / "run"))
    w.add_graph(_net(), torch.zeros(3, 4))
    w.close()
    reader = LogReader(str(tmp_path))
    (info,) = reader.writers("run")
    assert info.unshown == ((("step1" if writer == "torch" else "profiler"), "run_metadata", 1),)
    accumulator = EventAccumulator(str(tmp_path / "run"))  # TensorBoard's reader takes the same graph
    accumulator.Reload()
    (graph,) = reader.graphs("run")
    assert GraphDef.FromString(reader.read_blob(graph)) == accumulator.Graph()
    client = build_app(tmp_path).test_client()
    body = client.get("/api/graph?run=run&name=Default").get_json()
    assert body["warnings"] == []  # prim::GetAttr's inputs, the modules, are no nodes: not a surprise
    assert "traced by torch.jit" in body["model"]["doc_string"]
    groups = {n["path"] for n in body["nodes"] if n["kind"] == "group"}
    ops = [n for n in body["nodes"] if n["kind"] == "op"]
    opened = set(body["expanded"])  # 18 nodes: every group open
    assert {
        "Net",
        "Net/Sequential[layers]",
        "Net/Sequential[layers]/Block[0]",
        "Net/Sequential[layers]/Block[1]/Linear[fc]",
        "Net/Linear[head]",
    } <= opened, opened
    assert not groups
    linears = [n for n in ops if n["op_type"] == "aten::linear"]
    assert [n["group"] for n in linears] == [
        "Net/Sequential[layers]/Block[0]/Linear[fc]",
        "Net/Sequential[layers]/Block[1]/Linear[fc]",
        "Net/Linear[head]",
    ]
    assert all(n["folded"] == 2 for n in linears)  # the weight's and the bias' prim::GetAttr
    assert {n["category"] for n in linears} == {"matmul"}  # coloured as ONNX's Gemm is
    (x,) = [n for n in body["nodes"] if n["kind"] == "input"]
    assert (x["label"], x["shape"]) == ("input/x", [3, 4])
    head = next(e for e in body["edges"] if e["target"] == linears[-1]["id"])
    assert head["shape"] == [3, 4]
    detail = client.get(f"/api/graph/node?run=run&name=Default&node={linears[0]['id']}").get_json()
    assert [o["shape"] for o in detail["outputs"]] == [[3, 4]]
    assert sorted(f["op_type"] for f in detail["folded"]) == ["prim::GetAttr", "prim::GetAttr"]
    assert {a["name"]: a["value"] for a in detail["folded"][0]["attributes"]}["attr"].startswith("{ name :")
    # Collapsed, a module is one box of its ops.
    closed = client.get("/api/graph?run=run&name=Default&expand=Net&expand=Net/Sequential[layers]").get_json()
    blocks = {n["path"]: n for n in closed["nodes"] if n["kind"] == "group"}
    assert set(blocks) == {"Net/Sequential[layers]/Block[0]", "Net/Sequential[layers]/Block[1]"}  # head: one op
    assert blocks["Net/Sequential[layers]/Block[0]"]["ops"] == {"aten::linear": 1, "aten::relu": 1, "aten::add": 1}
