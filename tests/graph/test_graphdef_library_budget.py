"""A GraphDef's function library that calls itself in layers: each function's body calls the
one below several times, so opening every call copies bodies exponentially (a 1.8 KB library
of 8 levels held 14.8 MB of protobuf and 750 MB of memory; 9 levels 2.9 GB, then a 500).
The nodes the conversion produces are counted as they are produced and bounded; what was not
opened is said in the answer's warnings. An ONNX model's local functions, inlined into the
graph, are bounded alike, the nodes of the subgraphs they hold counted."""

from __future__ import annotations

from kit.apps import build_app
from kit.foreign import write_tfevents
from onnx import AttributeProto, ModelProto
from tensorboard.compat.proto import function_pb2, graph_pb2, node_def_pb2, op_def_pb2, types_pb2

from visualdl.proto import tb
from visualdl.server._graph import graphdef
from visualdl.server._graph.graphdef import graphdef_model
from visualdl.server._graph.model import Graph


def layered(levels: int, fan: int) -> bytes:
    """x -> call of f{levels}; f{k} calls f{k-1} ``fan`` times; f0 calls nothing."""
    g = graph_pb2.GraphDef()
    g.node.add(name="x", op="Placeholder").attr["dtype"].type = types_pb2.DT_FLOAT
    g.node.add(name="call", op="PartitionedCall", input=["x"]).attr["f"].func.name = f"f{levels}"
    for k in range(levels + 1):
        nodes = []
        for j in range(fan):
            node = node_def_pb2.NodeDef(name=f"c{j}", op="PartitionedCall", input=["a"])
            if k:
                node.attr["f"].func.name = f"f{k - 1}"
            nodes.append(node)
        signature = op_def_pb2.OpDef(
            name=f"f{k}",
            input_arg=[op_def_pb2.OpDef.ArgDef(name="a", type=types_pb2.DT_FLOAT)],
            output_arg=[op_def_pb2.OpDef.ArgDef(name="b", type=types_pb2.DT_FLOAT)],
        )
        g.library.function.append(function_pb2.FunctionDef(signature=signature, node_def=nodes, ret={"b": "c0:o:0"}))
    return g.SerializeToString()


def nodes_held(model: ModelProto) -> int:
    """Every node of the model, those of the subgraphs its attributes hold included."""
    count, graphs = 0, [model.graph]
    while graphs:
        graph = graphs.pop()
        count += len(graph.node)
        for node in graph.node:
            for attribute in node.attribute:
                if attribute.type == AttributeProto.GRAPH:
                    graphs.append(attribute.g)
                elif attribute.type == AttributeProto.GRAPHS:
                    graphs.extend(attribute.graphs)
    return count


def test_a_library_calling_itself_in_layers_produces_nodes_up_to_the_budget(monkeypatch):
    """With a budget of 2,000 nodes: 4 calls per level over 7 levels would be 21,844 nodes opened."""
    monkeypatch.setattr(graphdef, "_MAX_PRODUCED", 2_000, raising=False)
    notes: list[str] = []
    model = graphdef_model(layered(7, 4), warnings=notes)
    assert nodes_held(model) <= 2_000 + 1  # and the graph's own call
    # The outer calls open, the inner ones name their function; the warnings say so.
    assert notes == [
        "functions called more than 4 deep are not opened, to keep the graph within 2,000 nodes: 4 call(s) (4 of 'f3')"
    ]
    (f,) = model.graph.node[0].attribute
    assert f.type == AttributeProto.GRAPH and f.g.name == "f7"
    inner = f.g.node[0].attribute[0].g.node[0].attribute[0].g.node[0].attribute[0].g.node[0].attribute[0]
    assert inner.type == AttributeProto.STRING and inner.s == b"f3"
    shown = Graph.build(model.graph).view(set())
    assert [item["op_type"] for item in shown["items"] if item["kind"] == "op"] == ["PartitionedCall"]


def test_a_function_called_once_gives_its_caller_the_body_itself(monkeypatch):
    """A body of 3,000 nodes called once opens within a budget of 4,000: converted, then given
    to its caller (not copied and counted twice)."""
    monkeypatch.setattr(graphdef, "_MAX_PRODUCED", 4_000, raising=False)
    g = graph_pb2.GraphDef()
    g.node.add(name="x", op="Placeholder")
    g.node.add(name="one", op="PartitionedCall", input=["x"]).attr["f"].func.name = "wide"
    nodes = [node_def_pb2.NodeDef(name=f"n{i}", op="Relu", input=["a"]) for i in range(3_000)]
    signature = op_def_pb2.OpDef(name="wide", input_arg=[op_def_pb2.OpDef.ArgDef(name="a", type=1)])
    g.library.function.append(function_pb2.FunctionDef(signature=signature, node_def=nodes))
    notes: list[str] = []
    model = graphdef_model(g.SerializeToString(), warnings=notes)
    assert notes == [] and nodes_held(model) == 3_001
    assert model.graph.node[0].attribute[0].g.name == "wide"


def test_the_budget_is_counted_while_expanding_whatever_the_depth_chosen(monkeypatch):
    """One function of 1,500 nodes called three times: its body converted and the first caller's copy
    fit in 4,000 nodes, the other two calls would pass them and are cut, and said."""
    monkeypatch.setattr(graphdef, "_MAX_PRODUCED", 4_000, raising=False)
    g = graph_pb2.GraphDef()
    g.node.add(name="x", op="Placeholder")
    for name in ("one", "two", "three"):
        g.node.add(name=name, op="PartitionedCall", input=["x"]).attr["f"].func.name = "wide"
    nodes = [node_def_pb2.NodeDef(name=f"n{i}", op="Relu", input=["a"]) for i in range(1_500)]
    signature = op_def_pb2.OpDef(name="wide", input_arg=[op_def_pb2.OpDef.ArgDef(name="a", type=1)])
    g.library.function.append(function_pb2.FunctionDef(signature=signature, node_def=nodes))
    notes: list[str] = []
    model = graphdef_model(g.SerializeToString(), warnings=notes)
    assert nodes_held(model) <= 4_000 + 3
    assert notes == [
        "the library's function bodies opened in their callers reached 4,000 nodes: 2 call(s) are not opened and "
        "name their function instead (2 of 'wide')"
    ]
    one, two, three = model.graph.node
    assert one.attribute[0].type == AttributeProto.GRAPH and two.attribute[0].s == three.attribute[0].s == b"wide"


def test_the_issues_library_of_two_kilobytes_converts_in_bounded_nodes(tmp_path):
    """8 levels of 4 calls (1.8 KB): at most the budget's nodes, and the answer says what was cut."""
    data = layered(8, 4)
    assert len(data) < 2_000
    notes: list[str] = []
    model = graphdef_model(data, warnings=notes)
    assert nodes_held(model) <= graphdef._MAX_PRODUCED
    assert notes == [
        "functions called more than 8 deep are not opened, to keep the graph within 200,000 nodes: 4 call(s) "
        "(4 of 'f0')"
    ]
    write_tfevents(tmp_path / "run", [tb.Event(wall_time=1.0, graph_def=data)])
    body = build_app(tmp_path).test_client().get("/api/graph?run=run&name=Default").get_json()
    assert body["warnings"] == notes and body["graph"]["node_count"] == 1


def test_a_function_reaching_itself_through_another_is_said_and_not_opened_inside_itself():
    """f calls g, g calls f: f opens, g inside it, and the call of f inside g names f."""
    g = graph_pb2.GraphDef()
    g.node.add(name="x", op="Placeholder")
    g.node.add(name="call", op="PartitionedCall", input=["x"]).attr["f"].func.name = "f"
    for name, calls in (("f", "g"), ("g", "f")):
        node = node_def_pb2.NodeDef(name="inner", op="PartitionedCall", input=["a"])
        node.attr["f"].func.name = calls
        signature = op_def_pb2.OpDef(name=name, input_arg=[op_def_pb2.OpDef.ArgDef(name="a", type=1)])
        g.library.function.append(function_pb2.FunctionDef(signature=signature, node_def=[node]))
    notes: list[str] = []
    model = graphdef_model(g.SerializeToString(), warnings=notes)
    f = model.graph.node[0].attribute[0].g
    inner_g = next(node for node in f.node if node.name == "inner").attribute[0].g
    back = next(node for node in inner_g.node if node.name == "inner").attribute[0]
    assert back.type == AttributeProto.STRING and back.s == b"f"
    assert notes == [
        "1 function(s) of the graph's library reach themselves (directly or through others): 'f'; inside itself "
        "such a function is not opened, its call names it"
    ]


def test_an_onnx_local_function_holding_subgraphs_is_inlined_up_to_the_budget(tmp_path):
    """A local function of one If whose branches hold 500 nodes each, called 2,000 times (a 73 KB
    model): inlining every call made 2 million nodes (1.9 GB). The subgraphs' nodes count too."""
    import onnx
    from onnx import helper

    from visualdl.server._graph import blocks

    branch = helper.make_graph(
        [helper.make_node("Relu", ["a"], [f"r{i}"]) for i in range(500)],
        "branch",
        [],
        [helper.make_tensor_value_info("r499", 1, [1])],
    )
    if_node = helper.make_node("If", ["a"], ["y"], then_branch=branch, else_branch=branch)
    function = helper.make_function("local", "F", ["a"], ["y"], [if_node], [helper.make_opsetid("", 17)])
    calls = [helper.make_node("F", ["x"], [f"y{i}"], domain="local", name=f"c{i}") for i in range(2_000)]
    graph = helper.make_graph(calls, "g", [helper.make_tensor_value_info("x", 9, [1])], [])
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)]
    model = helper.make_model(graph, functions=[function], opset_imports=opsets)
    notes: list[str] = []
    inlined = blocks.inline_functions(model, notes)
    assert blocks._nodes_held(model.graph.node) <= blocks._MAX_INLINED_NODES
    assert inlined == (blocks._MAX_INLINED_NODES - 2_000) // 1_001
    assert notes == [
        f"{2_000 - inlined:,} call(s) of the model's local functions are not inlined (the graph would pass 200,000 "
        f"nodes, or the calls nest deeper than 8); they are drawn as calls: {2_000 - inlined:,} of 'F'"
    ]
    path = tmp_path / "calls.onnx"
    onnx.save(helper.make_model(graph, functions=[function], opset_imports=opsets), path)
    body = build_app(tmp_path, models=(str(path),)).test_client().get("/api/graph?model=0").get_json()
    assert notes[0] in body["warnings"]
