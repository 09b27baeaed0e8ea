"""Nodes that only compute constants are folded into the nodes that take their values: a model
exported by torch lays out as the chain it is, not under a row of constants."""

from __future__ import annotations

import collections
import io
import warnings

import onnx
import pytest
from kit.onnx_models import branches_model, comb_model
from kit.requirements import require_import
from onnx import TensorProto, helper

from visualdl.server._graph.layout import layout
from visualdl.server._graph.model import Graph
from visualdl.server._views.graph import _size


def _widest_row(graph: Graph, expanded: set[str] | None = None) -> int:
    view = graph.view(set(graph.groups) if expanded is None else expanded)
    items = view["items"]
    index = {item["id"]: i for i, item in enumerate(items)}
    placed = layout([_size(item) for item in items], [(index[e["source"]], index[e["target"]]) for e in view["edges"]])
    return max(collections.Counter(placed["y"]).values())


def test_constants_are_folded_into_their_consumers():
    graph = Graph.build(comb_model(100).graph)
    view = graph.view(set(graph.groups))
    ops = collections.Counter(item.get("op_type") for item in view["items"] if item["kind"] == "op")
    assert ops == {"Reshape": 100, "Relu": 100}
    assert _widest_row(graph) == 1  # the chain it is
    reshapes = {item["name"]: item for item in view["items"] if item.get("op_type") == "Reshape"}
    assert reshapes["reshape1"]["folded"] == 1 and reshapes["reshape0"]["folded"] == 3
    index = int(reshapes["reshape0"]["id"][1:])
    detail = graph.node_detail(index)
    assert [f["op_type"] for f in detail["folded"]] == ["Constant", "ConstantOfShape", "Cast"]
    assert detail["folded"][0]["outputs"][0]["name"] == "d0"
    # Every edge joins drawn items.
    drawn = {item["id"] for item in view["items"]}
    assert all(e["source"] in drawn and e["target"] in drawn for e in view["edges"])


def test_search_finds_a_folded_node_in_its_consumer():
    graph = Graph.build(comb_model(4).graph)
    (hit,) = graph.search("fill0")
    assert hit["name"] == "fill0 (in reshape0)" and hit["op_type"] == "ConstantOfShape"
    assert graph.nodes[int(hit["id"][1:])]["name"] == "reshape0"


def test_a_constant_that_is_a_graph_output_or_reaches_nothing_stays_drawn():
    one = helper.make_tensor("v", TensorProto.FLOAT, [], [1])
    nodes = [
        helper.make_node("Constant", [], ["c"], name="out_const", value=one),
        helper.make_node("Constant", [], ["d"], name="dead", value=one),
        helper.make_node("Add", ["x", "c"], ["y"], name="add"),
    ]
    scalar = [helper.make_tensor_value_info(name, TensorProto.FLOAT, []) for name in ("x", "y", "c")]
    graph = helper.make_graph(nodes, "g", scalar[:1], scalar[1:])
    g = Graph.build(graph)
    names = {item.get("name") for item in g.view(set())["items"]}
    assert {"out_const", "dead", "add"} <= names
    assert not g.hidden


@pytest.mark.e2e  # a torch model exported to ONNX (torch: an e2e extra)
def test_torch_export_lays_out_as_a_chain():
    require_import("torch", "pip install -e '.[e2e]'")
    import torch

    class Block(torch.nn.Module):
        def __init__(self, c: int) -> None:
            super().__init__()
            self.c1 = torch.nn.Conv2d(c, c, 3, padding=1)
            self.b1 = torch.nn.BatchNorm2d(c)
            self.c2 = torch.nn.Conv2d(c, c, 3, padding=1)

        def forward(self, x):
            return torch.relu(x + self.c2(torch.relu(self.b1(self.c1(x)))))

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = torch.nn.Conv2d(3, 8, 3)
            self.blocks = torch.nn.Sequential(*[Block(8) for _ in range(6)])
            self.fc = torch.nn.Linear(8 * 6 * 6, 10)

        def forward(self, x):
            x = self.blocks(self.stem(x))
            return self.fc(x.reshape(x.shape[0], -1))

    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # Without constant folding the exporter leaves Constant and Unsqueeze nodes in.
        example = (torch.randn(1, 3, 8, 8),)
        torch.onnx.export(Net().eval(), example, out, dynamo=False, do_constant_folding=False)  # type: ignore[arg-type]
    model = onnx.load_from_string(out.getvalue())
    ops = collections.Counter(n.op_type for n in model.graph.node)
    assert ops["Constant"] >= 2
    graph = Graph.build(model.graph)
    drawn = collections.Counter(
        item.get("op_type") for item in graph.view(set(graph.groups))["items"] if item["kind"] == "op"
    )
    assert drawn["Constant"] == 0 and drawn["Conv"] == ops["Conv"] and drawn["Add"] == ops["Add"]
    assert _widest_row(graph) <= 3  # a residual chain: the main path, a skip, the shape branch


def test_siblings_alike_are_one_stack_until_opened():
    graph = Graph.build(branches_model(500, scoped=True).graph)
    view = graph.view(set())  # every branch a collapsed group of two nodes
    stacks = [item for item in view["items"] if item["kind"] == "stack"]
    assert len(stacks) == 1 and stacks[0]["count"] == 500 and "\u00d7500" in stacks[0]["label"]
    assert {item["kind"] for item in view["items"]} == {"input", "stack", "op", "output"}
    edges = {(e["source"], e["target"]): e["count"] for e in view["edges"]}
    assert edges[("in:x", stacks[0]["id"])] == 500 and edges[(stacks[0]["id"], "n1000")] == 500
    assert _widest_row(graph, set()) == 1
    opened = graph.view({stacks[0]["stack"]})
    assert sum(item["kind"] == "group" for item in opened["items"]) == 500
    assert stacks[0]["stack"] in opened["expanded"]


def test_few_siblings_or_different_ones_are_drawn_as_they_are():
    graph = Graph.build(branches_model(8, scoped=False).graph)
    assert not [item for item in graph.view(set())["items"] if item["kind"] == "stack"]
    # Unscoped branches are chains: each Relu feeds its own Neg, so no two Relus are alike.
    graph = Graph.build(branches_model(100, scoped=False).graph)
    assert not [item for item in graph.view(set())["items"] if item["kind"] == "stack"]
