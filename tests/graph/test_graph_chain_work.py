"""A chain of 20,000 nodes whose names carry no structure opens with work linear in its nodes:
the search for repeated blocks (``server/_graph/blocks.py``) and the folding of constants
(``server/_graph/model.py``) are single passes, not a comparison of every piece or node with
the ones after it.

The work is counted, not timed: the lines the graph package runs (a line tracer on its files
alone), which a quadratic step multiplies by the nodes; past the bound the tracer stops the
build at once. The seconds are ``benchmarks/bench_graph_chain.py``'s.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from tensorboard.compat.proto import graph_pb2

import visualdl.server._graph.model as graph_model
from visualdl.server._graph.graphdef import graphdef_model
from visualdl.server._graph.model import Graph

NODES = 20_000
#: Lines of the graph package run per node, at most (about 100 to 250 are run; a pass
#: comparing each node with those after it runs thousands per node at this size).
LINES_PER_NODE = 400
_FOLDER = os.path.dirname(graph_model.__file__)


def ops_chain(nodes: int) -> onnx.ModelProto:
    """``nodes`` unnamed Relu nodes, one after the other (as ``benchmarks/bench_graph_chain.py``'s)."""
    body = [helper.make_node("Relu", [f"v{i - 1}" if i else "x"], [f"v{i}"]) for i in range(nodes)]
    graph = helper.make_graph(
        body,
        "ops",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info(f"v{nodes - 1}", TensorProto.FLOAT, [1, 8])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def constants_chain(nodes: int) -> onnx.ModelProto:
    """``nodes`` Identity nodes computing a constant, written last to first, and the Add it feeds."""
    weight = numpy_helper.from_array(np.zeros(8, np.float32), "w")
    feeders = [helper.make_node("Identity", [f"k{i - 1}" if i else "w"], [f"k{i}"]) for i in range(nodes)]
    body = [*feeders[::-1], helper.make_node("Add", ["x", f"k{nodes - 1}"], ["y"])]
    graph = helper.make_graph(
        body,
        "constants",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])],
        initializer=[weight],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def comb_of_constants(nodes: int) -> onnx.ModelProto:
    """A chain of ``nodes`` constant feeders, each also feeding an Add of its own on x: feeder k
    reaches the Adds k and after, so folding everything would make ``nodes ** 2 / 2`` pairs."""
    weight = numpy_helper.from_array(np.zeros(8, np.float32), "w")
    body = []
    for i in range(nodes):
        body.append(helper.make_node("Identity", [f"k{i - 1}" if i else "w"], [f"k{i}"]))
        body.append(helper.make_node("Add", ["x", f"k{i}"], [f"y{i}"]))
    graph = helper.make_graph(
        body,
        "comb",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, [1, 8]) for i in range(nodes)],
        initializer=[weight],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def graphdef_chain(nodes: int) -> bytes:
    """A GraphDef of about ``nodes`` nodes without name scopes: Const -> MatMul -> Relu, repeated."""
    g = graph_pb2.GraphDef()
    g.node.add(name="x", op="Placeholder").attr["dtype"].type = 1
    prev, i = "x", 0
    while len(g.node) < nodes:
        g.node.add(name=f"w{i}", op="Const").attr["dtype"].type = 1
        g.node.add(name=f"matmul{i}", op="MatMul", input=[prev, f"w{i}"]).attr["T"].type = 1
        g.node.add(name=f"relu{i}", op="Relu", input=[f"matmul{i}"]).attr["T"].type = 1
        prev, i = f"relu{i}", i + 1
    return g.SerializeToString()


class TooMuchWork(AssertionError):
    pass


def lines_run(build: Callable[[], Any], bound: int) -> tuple[Any, int]:
    """What ``build()`` returns and the lines of ``server/_graph`` it ran; :class:`TooMuchWork`
    as soon as they pass ``bound``."""
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
            if count > bound:
                raise TooMuchWork(f"the graph package ran more than {bound:,} lines ({bound // NODES} per node)")
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename.startswith(_FOLDER) else None

    before = sys.gettrace()
    sys.settrace(calls)
    try:
        result = build()
    finally:
        sys.settrace(before)
    return result, count


def test_a_chain_of_one_op_without_names_opens_in_linear_work():
    """20,000 unnamed Relu nodes: one run of one-node pieces, too small to be blocks; drawn as they are."""
    graph, lines = lines_run(lambda: Graph.build(ops_chain(NODES).graph), LINES_PER_NODE * NODES)
    assert len(graph.nodes) == NODES and not graph.hidden and not graph.groups and graph.structure == ""
    view = graph.view(graph.default_expanded())
    assert len(view["items"]) == NODES + 2 and len(view["edges"]) == NODES + 1  # and the input and output
    assert lines <= LINES_PER_NODE * NODES


def test_a_chain_of_constants_written_last_to_first_folds_in_linear_work():
    """20,000 Identity nodes of a constant, each the input of the one written before it, feeding
    one Add: all folded into it, in one pass however they are ordered in the file."""
    graph, lines = lines_run(lambda: Graph.build(constants_chain(NODES).graph), LINES_PER_NODE * NODES)
    assert len(graph.nodes) == NODES + 1 and graph.hidden == set(range(NODES))
    assert graph.folded[NODES] == list(range(NODES)) and not any(graph.folded[:NODES])
    view = graph.view(graph.default_expanded())
    (add,) = [item for item in view["items"] if item["kind"] == "op"]
    assert add["op_type"] == "Add" and add["folded"] == NODES
    assert lines <= LINES_PER_NODE * NODES


def test_a_comb_of_constants_folds_what_a_bound_allows_in_linear_work():
    """10,000 feeders in a chain, each feeding an Add of its own: the last ones (in the chain's
    order) are folded up to 500,000 pairs, the others drawn; the work stays linear."""
    nodes = NODES // 2
    graph, lines = lines_run(lambda: Graph.build(comb_of_constants(nodes).graph), LINES_PER_NODE * 2 * nodes)
    folded = sum(len(f) for f in graph.folded)
    assert 0 < folded <= graph_model._MAX_FOLDED and 0 < len(graph.hidden) < nodes
    # The feeders folded are the chain's last ones; the last Add holds them all, the first none.
    assert graph.folded[2 * nodes - 1] == sorted(graph.hidden) and 2 * nodes - 2 in graph.hidden
    assert graph.folded[1] == [] and 0 not in graph.hidden
    assert lines <= LINES_PER_NODE * 2 * nodes


@pytest.mark.parametrize("nodes", [NODES])
def test_a_graphdef_chain_without_scopes_converts_and_opens_in_linear_work(nodes):
    """A TensorBoard GraphDef of 20,000 nodes without name scopes (Const -> MatMul -> Relu):
    converted and built, the Consts folded; MatMul -> Relu pieces are too small to be blocks."""
    data = graphdef_chain(nodes)
    graph, lines = lines_run(lambda: Graph.build(graphdef_model(data, warnings=[]).graph), LINES_PER_NODE * nodes)
    blocks = -(-(nodes - 1) // 3)
    assert len(graph.nodes) == 3 * blocks and len(graph.hidden) == blocks  # x is the graph's input
    assert graph.structure == "" and not graph.groups
    view = graph.view(graph.default_expanded())
    assert len(view["items"]) == 2 * blocks + 1 and all(item["folded"] == 1 for item in view["items"][1::2])
    assert lines <= LINES_PER_NODE * nodes
