"""Structure without name scopes: real models nobody here wrote open as a dozen blocks.

The ONNX project's own models (shipped in the ``onnx`` wheel, ``backend/test/data/light``)
name their nodes without scopes; torch's dynamo exporter keeps module paths in metadata;
torch's legacy exporter can write modules as local functions. Each gives groups.
"""

from __future__ import annotations

import collections
import io
import os
import re
import warnings
from typing import Any

import onnx
import pytest
from kit.requirements import require_import

from visualdl.server._graph.blocks import inline_functions
from visualdl.server._graph.layout import layout
from visualdl.server._graph.model import Graph
from visualdl.server._views.graph import _size

LIGHT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")


def _model(name: str) -> onnx.ModelProto:
    return onnx.load(os.path.join(LIGHT, f"light_{name}.onnx"), load_external_data=False)


def _first_view(graph: Graph) -> tuple[list[dict], dict]:
    view = graph.view(set())
    items = view["items"]
    index = {item["id"]: i for i, item in enumerate(items)}
    placed = layout([_size(item) for item in items], [(index[e["source"]], index[e["target"]]) for e in view["edges"]])
    return items, placed


def _members(graph: Graph, path: str) -> list[int]:
    return [i for i, scope in enumerate(graph.scopes) if path in scope and i not in graph.hidden]


def test_resnet50_opens_as_its_16_bottlenecks_in_4_stages():
    graph = Graph.build(_model("resnet50").graph)
    assert graph.structure == "blocks"
    items, placed = _first_view(graph)
    # input, stem, per stage its first bottleneck and a run of the others, head, output
    assert len(items) == 12
    blocks = [path for path in graph.groups if re.fullmatch(r"(blocks \d+\u2013\d+/)?block \d+", path)]
    sums = [path for path in blocks if any(graph.nodes[i]["op_type"] == "Sum" for i in _members(graph, path))]
    assert len(sums) == 16  # one residual Sum (Caffe2's Add) in each bottleneck, each in a block of its own
    for path in sums:
        ops = collections.Counter(graph.nodes[i]["op_type"] for i in _members(graph, path))
        assert ops["Sum"] == 1 and ops["Conv"] in (3, 4) and ops["Relu"] == 3  # 4: a stage's first, projecting
    runs = [item["about"] for item in items if item["kind"] == "group" and item["label"].startswith("blocks ")]
    assert runs == [f"{n} blocks alike, 10 nodes each" for n in (2, 3, 5, 2)]  # ResNet-50's 3, 4, 6, 3
    assert max(collections.Counter(placed["y"]).values()) == 1  # a chain: one box per row
    assert placed["width"] < 1000


def test_densenet121_opens_as_its_four_dense_blocks():
    graph = Graph.build(_model("densenet121").graph)
    items, placed = _first_view(graph)
    runs = [item for item in items if item["kind"] == "group" and item["label"].startswith("blocks ")]
    assert [r["about"].split(" blocks alike")[0] for r in runs] == ["6", "12", "24", "16"]  # DenseNet-121's 58 layers
    assert len(items) <= 12
    assert placed["width"] < 1000


@pytest.mark.parametrize("name", ["inception_v1", "inception_v2", "shufflenet", "squeezenet"])
def test_real_models_without_scopes_open_as_a_dozen_items_or_fewer(name):
    graph = Graph.build(_model(name).graph)
    items, placed = _first_view(graph)
    assert graph.structure == "blocks" and len(items) <= 12, [i["label"] for i in items]
    # Every drawn node is in exactly one block or at the top; the groups hold them all.
    drawn = [i for i in range(len(graph.nodes)) if i not in graph.hidden]
    grouped = {i for i in drawn if graph.scopes[i]}
    assert len(grouped) >= 0.9 * len(drawn)
    assert placed["width"] < 1500


def test_a_small_model_still_opens_with_every_group_open():
    graph = Graph.build(_model("vgg19").graph)
    assert graph.default_expanded() == set(graph.groups)
    assert all(item["kind"] != "group" for item in graph.view(graph.default_expanded())["items"])


def _export(model: Any, example: tuple, **kwargs) -> onnx.ModelProto:
    """The torch model exported to ONNX (the test imported torch)."""
    import torch

    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model.eval(), example, out, **kwargs)  # type: ignore[arg-type]
    return onnx.load_from_string(out.getvalue())


@pytest.mark.e2e  # a torch model exported to ONNX by the dynamo exporter
def test_dynamo_export_is_grouped_by_torch_module_path_and_class():
    torch = require_import("torch", "pip install -e '.[e2e]'")
    encoder = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(32, 4, 64, batch_first=True), 4)
    model = _export(encoder, (torch.zeros(2, 5, 32),), dynamo=True)
    assert not any("/" in n.name for n in model.graph.node)  # no name scopes: node_linear_3 and so on
    graph = Graph.build(model.graph)
    assert graph.structure == "torch"
    items = graph.view(set())["items"]
    layers = [item for item in items if item["kind"] == "group"]
    assert [(g["label"], g["about"]) for g in layers] == [(f"layers.{k}", "TransformerEncoderLayer") for k in range(4)]
    inner = {path for path in graph.groups if path.startswith("layers.0/")}
    assert {"layers.0/self_attn", "layers.0/linear1", "layers.0/norm1"} <= inner
    assert graph.groups["layers.0/self_attn"]["about"] == "MultiheadAttention"


@pytest.mark.e2e  # a torch model exported to ONNX (torch: an e2e extra)
def test_local_functions_are_inlined_as_groups_under_their_calls():
    require_import("torch", "pip install -e '.[e2e]'")
    import torch

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(8, 8)
            self.act = torch.nn.LeakyReLU(0.25)

        def forward(self, x):
            return x + self.act(self.fc(x))

    net = torch.nn.Sequential(*[Block() for _ in range(3)], torch.nn.Linear(8, 2))
    model = _export(net, (torch.zeros(1, 8),), dynamo=False, export_modules_as_functions={Block})
    assert [n.op_type for n in model.graph.node] == ["Block", "Block", "Block", "Gemm"]
    assert inline_functions(model) == 3
    onnx.checker.check_model(model)  # still a valid model, every value produced once
    assert [n.op_type for n in model.graph.node] == ["Gemm", "LeakyRelu", "Add"] * 3 + ["Gemm"]
    leaky = next(n for n in model.graph.node if n.op_type == "LeakyRelu")
    assert [(a.name, round(a.f, 6), a.ref_attr_name) for a in leaky.attribute] == [("alpha", 0.25, "")]
    graph = Graph.build(model.graph)
    # nn.Sequential names its children 0, 1, 2: each call sits in one of them.
    calls = [item for item in graph.view({"0", "1", "2"})["items"] if item["kind"] == "group"]
    assert [(c["path"], c["label"], c["count"]) for c in calls] == [(f"{k}/Block", "Block", 3) for k in range(3)]
    inside = graph.view({"0", "0/Block"})["items"]
    ops = [i["op_type"] for i in inside if i["kind"] == "op" and i["group"] == "0/Block"]
    assert ops == ["Gemm", "LeakyRelu", "Add"]


def test_linear_layers_have_a_category_of_their_own():
    from onnx import TensorProto, helper

    value = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, None)  # noqa: E731
    ops = ("Gemm", "MatMul", "Conv")
    nodes = [helper.make_node(op, ["x", "w"], [f"y{i}"], name=f"n{i}") for i, op in enumerate(ops)]
    graph = helper.make_graph(nodes, "g", [value("x"), value("w")], [value(f"y{i}") for i in range(3)])
    assert [n["category"] for n in Graph.build(graph).nodes] == ["matmul", "matmul", "conv"]
