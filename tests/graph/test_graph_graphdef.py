"""TensorBoard's graphs (a GraphDef in an event file) in the Graphs tab: the conversion to the
graph model, its edge cases, and the API over event files, the real TensorFlow logs' included.

GraphDefs are built with TensorBoard's own protos (``tensorboard.compat.proto``), so their
bytes are the ones its writers produce; torch's and tensorboardX's ``add_graph`` are tested
in ``tests/e2e/export/test_graphdef_torch.py``.
"""

from __future__ import annotations

import gc
import os
import time
from typing import Any

import numpy as np
import pytest
from kit.apps import build_app
from kit.foreign import write_tfevents
from kit.paths import DATA
from tensorboard.compat.proto import (
    attr_value_pb2,
    graph_pb2,
    meta_graph_pb2,
    tensor_pb2,
    tensor_shape_pb2,
    types_pb2,
)

from visualdl import LogReader
from visualdl._formats.tfevents.graphs import GraphRef
from visualdl.errors import GraphError
from visualdl.proto import tb
from visualdl.server._graph.graphdef import graphdef_model
from visualdl.server._graph.model import Graph


def _shape(*dims: int) -> tensor_shape_pb2.TensorShapeProto:
    return tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims])


def _node(g: graph_pb2.GraphDef, name: str, op: str, *inputs: str, t: int = 0, shapes=(), **attrs):
    node = g.node.add(name=name, op=op, input=list(inputs))
    if t:
        node.attr["T"].type = t
    if shapes:
        node.attr["_output_shapes"].list.shape.extend(_shape(*s) for s in shapes)
    for key, value in attrs.items():
        node.attr[key].CopyFrom(value)
    return node


def _model(g: graph_pb2.GraphDef) -> tuple[Graph, list[str]]:
    notes: list[str] = []
    model = graphdef_model(g.SerializeToString(), source="test graph", name="Default", warnings=notes)
    return Graph.build(model.graph), notes


def _by_name(graph: Graph) -> dict[str, int]:
    return {n["name"]: i for i, n in enumerate(graph.nodes)}


def _edges(graph: Graph) -> dict[tuple[str, str], dict]:
    view = graph.view(set(graph.groups))
    names = {item["id"]: item.get("name") or item["label"] for item in view["items"]}
    return {(names[e["source"]], names[e["target"]]): e for e in view["edges"]}


def _small_graph() -> graph_pb2.GraphDef:
    """x -> scope/split (2 outputs) -> scope/add(split:0, split:1) -> out, with a control input
    and a small and a large constant."""
    g = graph_pb2.GraphDef()
    g.versions.producer = 1205
    _node(
        g,
        "x",
        "Placeholder",
        dtype=attr_value_pb2.AttrValue(type=types_pb2.DT_FLOAT),
        shape=attr_value_pb2.AttrValue(shape=_shape(-1, 4)),
    )
    small = tensor_pb2.TensorProto(dtype=types_pb2.DT_INT32, tensor_shape=_shape(2), int_val=[1, 2])
    big = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_FLOAT, tensor_shape=_shape(64, 64), tensor_content=np.ones((64, 64), "<f4").tobytes()
    )
    _node(g, "scope/axis", "Const", dtype=attr_value_pb2.AttrValue(type=types_pb2.DT_INT32),
          value=attr_value_pb2.AttrValue(tensor=small))  # fmt: skip
    _node(g, "scope/w", "Const", dtype=attr_value_pb2.AttrValue(type=types_pb2.DT_FLOAT),
          value=attr_value_pb2.AttrValue(tensor=big))  # fmt: skip
    _node(g, "scope/split", "Split", "scope/axis", "x", t=types_pb2.DT_FLOAT, shapes=[(-1, 2), (-1, 2)],
          num_split=attr_value_pb2.AttrValue(i=2))  # fmt: skip
    g.node[-1].device = "/job:localhost/replica:0/task:0/device:CPU:0"
    _node(g, "scope/init", "NoOp", "^scope/split")
    _node(g, "scope/add", "AddV2", "scope/split:0", "scope/split:1", "^scope/init", "^x", t=types_pb2.DT_FLOAT,
          shapes=[(-1, 2)])  # fmt: skip
    _node(g, "out", "MatMul", "scope/add", "scope/w", t=types_pb2.DT_FLOAT, shapes=[(-1, 64)],
          transpose_a=attr_value_pb2.AttrValue(b=False),
          list_types=attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(type=[1, 9])))  # fmt: skip
    return g


def test_graphdef_nodes_scopes_inputs_and_output_indices():
    graph, notes = _model(_small_graph())
    assert notes == []
    assert graph.inputs == ["x"] and graph.values.get("x") == {"dtype": "float", "shape": ["?", 4]}
    at = _by_name(graph)
    assert set(at) == {"scope/axis", "scope/w", "scope/split", "scope/init", "scope/add", "out"}
    assert graph.scopes[at["scope/add"]] == ("scope",) and "scope" in graph.groups
    edges = _edges(graph)
    # output 1 of split is its own value, typed by the second of its _output_shapes
    second = edges[("scope/split", "scope/add")]
    assert second["count"] == 2 and graph.values.get("scope/split:1") == {"dtype": "float", "shape": ["?", 2]}
    assert graph.nodes[at["scope/split"]]["outputs"] == ["scope/split", "scope/split:1", "^scope/split"]
    # a control input is an edge of its own value, ^name, without a type
    control = edges[("scope/init", "scope/add")]
    assert control["value"] == "^scope/init" and control["dtype"] == "" and control["shape"] is None
    assert edges[("scope/add", "out")]["shape"] == ["?", 2]
    # the constants are folded into their consumers, as an ONNX graph's initializers are listed
    assert at["scope/w"] in graph.hidden and at["scope/axis"] in graph.hidden


def test_graphdef_node_details_attributes_device_dtypes_and_tensors_summarised():
    graph, _ = _model(_small_graph())
    at = _by_name(graph)
    split = graph.node_detail(at["scope/split"])
    attrs = {a["name"]: a["value"] for a in split["attributes"]}
    assert attrs == {"device": "/job:localhost/replica:0/task:0/device:CPU:0", "T": "float32", "num_split": 2}
    assert [(o["name"], o["dtype"], o["shape"]) for o in split["outputs"]] == [
        ("scope/split", "float", ["?", 2]),
        ("scope/split:1", "float", ["?", 2]),
        ("^scope/split", "", None),  # its control output, to scope/init
    ]
    axis = next(f for f in split["folded"] if f["name"] == "scope/axis")
    value = {a["name"]: a["value"] for a in axis["attributes"]}["value"]
    assert value["dtype"] == "int32" and value["shape"] == [2] and value["values"] == [1, 2]
    out = graph.node_detail(at["out"])
    attrs = {a["name"]: a["value"] for a in out["attributes"]}
    assert attrs["transpose_a"] == "false" and attrs["list_types"] == ["float32", "int64"]
    assert "_output_shapes" not in attrs  # told as the outputs' shapes
    weight = {a["name"]: a["value"] for a in out["folded"][0]["attributes"]}["value"]
    assert weight == {"tensor": True, "name": "", "dtype": "float", "shape": [64, 64], "size": 4096}  # no values


def test_graphdef_input_naming_no_node_is_not_drawn_and_said():
    g = graph_pb2.GraphDef()
    _node(g, "a", "Const")
    _node(g, "b", "Relu", "a", "gone/x:0", "^gone/y")
    graph, notes = _model(g)
    assert len(notes) == 1 and "2 input(s) name nodes that are not in the graph" in notes[0]
    assert "'gone/x:0' (input of 'b')" in notes[0]
    detail = graph.node_detail(_by_name(graph)["b"])
    assert "gone/x:0" in detail["doc_string"] and "^gone/y" in detail["doc_string"]
    assert [v["name"] for v in detail["inputs"]] == ["a"]


def test_graphdef_while_loop_and_cycles_are_drawn_without_the_edges_that_close_them():
    g = graph_pb2.GraphDef()
    _node(g, "loop/Enter", "Const")
    _node(g, "loop/Merge", "Merge", "loop/Enter", "loop/NextIteration")
    _node(g, "loop/body", "Relu", "loop/Merge")
    _node(g, "loop/NextIteration", "NextIteration", "loop/body")
    _node(g, "p", "Relu", "q")  # a cycle of two, with no loop ops
    _node(g, "q", "Relu", "p", "loop/body")
    graph, notes = _model(g)
    assert len(notes) == 1 and notes[0].startswith("2 edge(s) close loops")
    at = _by_name(graph)
    merge = graph.node_detail(at["loop/Merge"])
    assert "loop/NextIteration" in merge["doc_string"] and [v["name"] for v in merge["inputs"]] == ["loop/Enter"]
    cut = [graph.node_detail(at[name])["doc_string"] for name in ("p", "q")]
    assert sum("closing a loop" in text for text in cut) == 1
    assert len(_edges(graph)) == 5  # Enter->Merge->body->NextIteration, body->q, and one of p/q


def test_graphdef_bad_bytes_and_empty_graphs_are_graph_errors():
    with pytest.raises(GraphError, match="empty"):
        graphdef_model(b"", source="run / Default")
    with pytest.raises(GraphError, match="not a TensorFlow GraphDef: the protobuf cannot be decoded"):
        graphdef_model(b"\xff\xff\xff\xff\x0f garbage", source="run / Default")
    with pytest.raises(GraphError, match="without nodes"):
        graphdef_model(graph_pb2.GraphDef(versions={"producer": 3}).SerializeToString(), source="run / Default")
    with pytest.raises(GraphError, match="not a TensorFlow GraphDef"):
        graphdef_model(_small_graph().SerializeToString()[:-7], source="run / Default")  # truncated


def _big_graphdef(n: int) -> graph_pb2.GraphDef:
    """A chain of n nodes in 3-level scopes: Const -> MatMul -> Relu, a control input each."""
    g = graph_pb2.GraphDef()
    _node(g, "x", "Placeholder", dtype=attr_value_pb2.AttrValue(type=types_pb2.DT_FLOAT))
    weight = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_FLOAT, tensor_shape=_shape(32, 32), tensor_content=bytes(32 * 32 * 4)
    )
    prev, i = "x", 0
    while len(g.node) < n:
        scope = f"stage{i // 1000}/block{i // 10 % 100}"
        _node(g, f"{scope}/w{i}", "Const", value=attr_value_pb2.AttrValue(tensor=weight))
        _node(g, f"{scope}/matmul{i}", "MatMul", prev, f"{scope}/w{i}", t=types_pb2.DT_FLOAT, shapes=[(-1, 32)])
        _node(g, f"{scope}/relu{i}", "Relu", f"{scope}/matmul{i}", f"^{scope}/w{i}", t=types_pb2.DT_FLOAT)
        prev, i = f"{scope}/relu{i}", i + 1
    return g


def _convert_and_open(data: bytes) -> tuple[Graph, dict[str, Any], float]:
    """The GraphDef converted and its default (collapsed) view laid out; the CPU seconds of
    this thread that took (a loaded machine's other work is not counted)."""
    gc.collect()
    start = time.thread_time()
    graph = Graph.build(graphdef_model(data, warnings=[]).graph)
    view = graph.view(graph.default_expanded())
    return graph, view, time.thread_time() - start


def test_graphdef_converts_and_opens_collapsed_in_linear_time():
    """8 times the nodes cost about 8 times the CPU time, measured in this run (the best of 3
    each): 24 times is the bound, a quadratic step would cost 64 times. The seconds at 20,000
    nodes (about 1 s each on one core): ``benchmarks/bench_graphdef.py``."""
    small_data, large_data = (_big_graphdef(n).SerializeToString() for n in (500, 4_000))
    small = min(_convert_and_open(small_data)[2] for _ in range(3))
    runs = [_convert_and_open(large_data) for _ in range(3)]
    graph, view, _ = runs[0]
    large = min(seconds for _, _, seconds in runs)
    assert len(graph.nodes) == 3_999 and len(graph.hidden) == 1_333  # x is the graph's input
    assert len(view["items"]) == 3  # x and the 2 stages, collapsed
    assert large < 24 * small, (small, large)


def _graph_event(g: graph_pb2.GraphDef, wall: float = 2.0, meta: bool = False) -> tb.Event:
    if meta:
        meta_graph = meta_graph_pb2.MetaGraphDef(graph_def=g)
        return tb.Event(wall_time=wall, meta_graph_def=meta_graph.SerializeToString())
    return tb.Event(wall_time=wall, graph_def=g.SerializeToString())


def test_graphdef_in_an_event_file_through_the_api(tmp_path):
    older = graph_pb2.GraphDef()
    _node(older, "old", "Const")
    write_tfevents(
        tmp_path / "run",
        [tb.Event(wall_time=1.0, file_version="brain.Event:2"), _graph_event(older, 1.0), _graph_event(_small_graph())],
    )
    client = build_app(tmp_path).test_client()
    (listed,) = client.get("/api/graphs").get_json()["graphs"]
    assert (listed["run"], listed["name"], listed["source"]) == ("run", "Default", "log")
    body = client.get("/api/graph?run=run&name=Default").get_json()
    assert body["graph"]["node_count"] == 6 and body["warnings"] == []  # the newest graph
    assert body["model"]["producer_name"] == "GraphDef" and body["model"]["producer_version"] == "1205"
    ops = {n["name"]: n for n in body["nodes"] if n["kind"] == "op"}
    assert ops["scope/add"]["group"] == "scope" and ops["scope/add"]["op_type"] == "AddV2"
    assert any(n["kind"] == "input" and n["label"] == "x" for n in body["nodes"])
    detail = client.get(f"/api/graph/node?run=run&name=Default&node={ops['scope/split']['id']}").get_json()
    assert {a["name"] for a in detail["attributes"]} == {"device", "T", "num_split"}
    hits = client.get("/api/graph/search?run=run&name=Default&q=split").get_json()["hits"]
    assert [h["name"] for h in hits] == ["scope/split"]


def test_graphdef_of_a_meta_graph_and_garbage_through_the_api(tmp_path):
    write_tfevents(tmp_path / "meta", [_graph_event(_small_graph(), meta=True)])
    write_tfevents(tmp_path / "bad", [tb.Event(wall_time=1.0, graph_def=b"\xff\xff\xff\xff\x0f garbage")])
    client = build_app(tmp_path).test_client()
    assert {g["run"] for g in client.get("/api/graphs").get_json()["graphs"]} == {"meta", "bad"}
    assert client.get("/api/graph?run=meta&name=Default").get_json()["graph"]["node_count"] == 6
    bad = client.get("/api/graph?run=bad&name=Default")
    assert bad.status_code == 422
    assert "bad / Default is not a TensorFlow GraphDef" in bad.get_json()["error"]


def test_graphdef_meta_graph_after_a_graph_def_is_not_the_runs_graph(tmp_path):
    """TensorBoard's rule: a meta graph never replaces a graph_def read before it."""
    other = graph_pb2.GraphDef()
    _node(other, "from_meta", "Const")
    write_tfevents(tmp_path / "run", [_graph_event(_small_graph(), 1.0), _graph_event(other, 2.0, meta=True)])
    reader = LogReader(str(tmp_path))
    (graph,) = reader.graphs("run")
    assert isinstance(graph.ref, GraphRef) and graph.ref.field == 4 and graph.format == "graphdef"
    assert reader.read_blob(graph) == _small_graph().SerializeToString()


@pytest.mark.parametrize(
    ("run", "expected"), [("tf1graph", {"layer1/MatMul", "loss/Square"}), ("tf2", {"block/MatMul"})]
)
def test_graphdef_of_real_tensorflow_logs(run, expected):
    """TF1 graph mode (FileWriter with a graph, its MetaGraphDefs) and TF2's tf.summary.graph,
    written by TensorFlow 2.21 (tests/data/tflogs/README.md)."""
    logdir = os.path.join(DATA, "tflogs")
    client = build_app(logdir).test_client()
    body = client.get(f"/api/graph?run={run}&name=Default&expand_all=1").get_json()
    ops = {n["name"]: n for n in body["nodes"] if n["kind"] == "op"}
    assert expected <= set(ops), sorted(ops)
    matmul = next(n for name, n in ops.items() if name.endswith("MatMul"))
    assert matmul["group"] and matmul["op_type"] == "MatMul" and matmul["category"] == "matmul"
    assert any(n["kind"] == "input" and n["label"] == "x" for n in body["nodes"])
    shaped = [e for e in body["edges"] if e["shape"]]
    assert shaped and all(e["dtype"] == "float" for e in shaped if e["value"] == "x")
    assert body["warnings"] == []
    # The graph is the one TensorBoard's own reader takes for the run.
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(os.path.join(logdir, run))
    accumulator.Reload()
    (graph,) = LogReader(logdir).graphs(run)
    assert graph_pb2.GraphDef.FromString(LogReader(logdir).read_blob(graph)) == accumulator.Graph()


@pytest.mark.parametrize("meta", [False, True])
def test_graphdef_in_a_record_past_the_large_record_size_is_listed_and_served_whole(tmp_path, meta):
    """A record over tail.LARGE_RECORD_BYTES is indexed pruned of its blobs; a graph stays whole."""
    from visualdl._index.tail import LARGE_RECORD_BYTES

    g = _small_graph()
    content = bytes(LARGE_RECORD_BYTES + 1024)
    _node(g, "scope/huge", "Const", value=attr_value_pb2.AttrValue(tensor=tensor_pb2.TensorProto(
        dtype=types_pb2.DT_UINT8, tensor_shape=_shape(len(content)), tensor_content=content)))  # fmt: skip
    data = g.SerializeToString()
    write_tfevents(tmp_path / "run", [_graph_event(g, meta=meta)])
    reader = LogReader(str(tmp_path))
    (graph,) = reader.graphs("run")
    served = reader.read_blob(graph)  # a map's entries may serialize in another order inside a meta graph
    assert graph.size == len(data) == len(served) and graph_pb2.GraphDef.FromString(served) == g
    client = build_app(tmp_path).test_client()
    body = client.get("/api/graph?run=run&name=Default").get_json()
    assert body["graph"]["node_count"] == 7


def test_graphdef_mutants_draw_or_are_graph_errors():
    """Structure-aware mutants and flipped bytes: each converts and draws, or is a GraphError."""
    import random

    from kit.mutants import mutate
    from onnx import AttributeProto

    rng = random.Random(26)
    bases = [_small_graph(), _library_graph()]
    outcomes = {"drawn": 0, "error": 0}
    for _ in range(600):
        data = bytearray(mutate(rng, rng.choice(bases)).SerializeToString())
        if data and rng.random() < 0.3:
            for _ in range(3):
                data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            model = graphdef_model(bytes(data), warnings=[])
            graph = Graph.build(model.graph)
        except GraphError:
            outcomes["error"] += 1
            continue
        graph.view(set(graph.groups))
        for i in range(len(graph.nodes)):
            graph.node_detail(i)
        for node in model.graph.node:  # the functions' bodies open too
            for attribute in node.attribute:
                if attribute.type == AttributeProto.GRAPH:
                    Graph.build(attribute.g).view(set())
        outcomes["drawn"] += 1
    assert outcomes["drawn"] > 450 and outcomes["error"] > 10, outcomes


def _library_graph() -> graph_pb2.GraphDef:
    """x -> call (StatefulPartitionedCall of "dense") -> out; "dense" calls "act" through a
    StatelessIf; "loop" calls itself; "unused" is called by nothing."""
    from tensorboard.compat.proto import function_pb2, node_def_pb2, op_def_pb2

    def function(name: str, inputs: list[str], outputs: dict[str, str], nodes: list[node_def_pb2.NodeDef]):
        return function_pb2.FunctionDef(
            signature=op_def_pb2.OpDef(
                name=name,
                input_arg=[op_def_pb2.OpDef.ArgDef(name=a, type=types_pb2.DT_FLOAT) for a in inputs],
                output_arg=[op_def_pb2.OpDef.ArgDef(name=a, type=types_pb2.DT_FLOAT) for a in outputs],
            ),
            node_def=nodes,
            ret=outputs,
        )

    def call(name: str, op: str, inputs: list[str], **funcs: str) -> node_def_pb2.NodeDef:
        node = node_def_pb2.NodeDef(name=name, op=op, input=inputs)
        for key, value in funcs.items():
            node.attr[key].func.name = value
        return node

    g = graph_pb2.GraphDef()
    _node(g, "x", "Placeholder", dtype=attr_value_pb2.AttrValue(type=types_pb2.DT_FLOAT))
    g.node.append(call("call", "StatefulPartitionedCall", ["x"], f="dense"))
    _node(g, "out", "Identity", "call")
    g.node.append(call("spin", "PartitionedCall", ["x"], f="loop"))
    dense = [
        node_def_pb2.NodeDef(name="w", op="Const"),
        node_def_pb2.NodeDef(name="matmul", op="MatMul", input=["x", "w:output:0"]),
        node_def_pb2.NodeDef(name="split", op="Split", input=["matmul:product:0"]),
        node_def_pb2.NodeDef(name="add", op="AddV2", input=["split:output:1", "split:output:0"]),
        call("if", "StatelessIf", ["add:z:0"], then_branch="act", else_branch="act"),
    ]
    g.library.function.extend(
        [
            function("dense", ["x"], {"y": "if:output:0"}, dense),
            function(
                "act", ["a"], {"b": "relu:activations:0"}, [node_def_pb2.NodeDef(name="relu", op="Relu", input=["a"])]
            ),
            function("loop", ["a"], {"b": "again:output:0"}, [call("again", "PartitionedCall", ["a"], f="loop")]),
            function("unused", ["a"], {}, []),
        ]
    )
    return g


def test_graphdef_library_functions_open_as_subgraphs_of_their_callers(tmp_path):
    write_tfevents(tmp_path / "run", [_graph_event(_library_graph())])
    client = build_app(tmp_path).test_client()
    body = client.get("/api/graph?run=run&name=Default").get_json()
    assert body["warnings"] == [
        "1 function(s) of the graph's library reach themselves (directly or through others): 'loop'; inside itself "
        "such a function is not opened, its call names it",
        "1 function(s) of the graph's library are called by no node and not shown: 'unused'",
    ]
    ops = {n["name"]: n for n in body["nodes"] if n["kind"] == "op"}
    assert ops["call"]["subgraphs"] == ["f"] and ops["spin"]["subgraphs"] == ["f"]
    index = ops["call"]["id"][1:]
    dense = client.get(f"/api/graph?run=run&name=Default&path={index}.f.0").get_json()
    assert dense["breadcrumb"] == ["Default", "call: f"]
    inner = {n["name"]: n for n in dense["nodes"] if n["kind"] == "op"}
    assert set(inner) == {"matmul", "split", "add", "if", "y"}  # w folded into matmul
    assert inner["y"]["op_type"] == "_Retval" and inner["if"]["subgraphs"] == ["else_branch", "then_branch"]
    assert [n["label"] for n in dense["nodes"] if n["kind"] == "input"] == ["x"]
    assert {e["value"] for e in dense["edges"]} >= {"x", "matmul", "add", "if"}
    path = f"path={index}.f.0"
    add = client.get(f"/api/graph/node?run=run&name=Default&{path}&node={inner['add']['id']}").get_json()
    assert [v["name"] for v in add["inputs"]] == ["split:1", "split"]  # node:output_arg:index renumbered
    if_index = inner["if"]["id"][1:]
    act = client.get(f"/api/graph?run=run&name=Default&path={index}.f.0|{if_index}.then_branch.0").get_json()
    assert [n["op_type"] for n in act["nodes"] if n["kind"] == "op"] == ["Relu", "_Retval"]
    # A function that calls itself opens once; inside, the call names it.
    loop = client.get(f"/api/graph?run=run&name=Default&path={ops['spin']['id'][1:]}.f.0").get_json()
    (again,) = [n for n in loop["nodes"] if n.get("name") == "again"]
    assert again["subgraphs"] == []
