"""Small ONNX models built here, node by node, for the graph tests and the browser's Graphs tab.

Shared by the graph, API and browser tests; each model is a shape a layout or a parser
must handle (name-scope groups, nested subgraphs, constants to fold, wide fans).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def conv_model(blocks: int = 2, width: int = 4) -> onnx.ModelProto:
    """x -> blocks of (conv, relu, a branch and a merge) under name scopes -> pooled -> output."""
    nodes, inits = [], []
    prev = "x"
    for b in range(blocks):
        scope = f"/layer{b}/block{b}"
        w = f"layer{b}.conv.weight"
        inits.append(numpy_helper.from_array(np.ones((width, width if b else 3, 3, 3), np.float32), w))
        nodes += [
            helper.make_node("Conv", [prev, w], [f"{scope}/conv_out"], name=f"{scope}/conv/Conv", pads=[1, 1, 1, 1]),
            helper.make_node("Relu", [f"{scope}/conv_out"], [f"{scope}/relu_out"], name=f"{scope}/relu/Relu"),
            helper.make_node("Sigmoid", [f"{scope}/relu_out"], [f"{scope}/gate"], name=f"{scope}/gate/Sigmoid"),
            helper.make_node(
                "Mul", [f"{scope}/relu_out", f"{scope}/gate"], [f"{scope}/out"], name=f"{scope}/merge/Mul"
            ),
        ]
        prev = f"{scope}/out"
    nodes.append(helper.make_node("GlobalAveragePool", [prev], ["y"], name="/head/pool/GlobalAveragePool"))
    graph = helper.make_graph(
        nodes,
        "convnet",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", width, 1, 1])],
        initializer=inits,
    )
    model = helper.make_model(graph, producer_name="tests", opset_imports=[helper.make_opsetid("", 17)])
    model.metadata_props.add(key="author_note", value="made in tests")
    onnx.checker.check_model(model)
    return model


def if_loop_model() -> onnx.ModelProto:
    then_g = helper.make_graph(
        [helper.make_node("Add", ["x", "x"], ["t"], name="then_add")],
        "then_branch",
        [],
        [helper.make_tensor_value_info("t", TensorProto.FLOAT, [2])],
    )
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["e"], name="else_neg")],
        "else_branch",
        [],
        [helper.make_tensor_value_info("e", TensorProto.FLOAT, [2])],
    )
    body = helper.make_graph(
        [
            helper.make_node("Add", ["acc_in", "x"], ["acc_out"], name="loop_add"),
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="loop_cond"),
        ],
        "loop_body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [2]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [2]),
        ],
    )
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["c"], name="positive"),
        helper.make_node("If", ["c"], ["branch"], name="choose", then_branch=then_g, else_branch=else_g),
        helper.make_node("Loop", ["trips", "", "branch"], ["looped"], name="repeat", body=body),
    ]
    graph = helper.make_graph(
        nodes,
        "control",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("looped", TensorProto.FLOAT, [2])],
        initializer=[
            numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
            numpy_helper.from_array(np.array(3, np.int64), "trips"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


def big_model(n_groups: int, per_group: int) -> onnx.ModelProto:
    nodes = []
    prev = "x"
    for g in range(n_groups):
        for k in range(per_group):
            out = f"v{g}_{k}"
            nodes.append(helper.make_node("Relu", [prev], [out], name=f"/stage{g // 10}/block{g}/op{k}/Relu"))
            prev = out
    graph = helper.make_graph(
        nodes,
        "big",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def comb_model(blocks: int) -> onnx.ModelProto:
    """A chain of Reshape -> Relu blocks, each Reshape's shape a Constant, or a Cast of a
    ConstantOfShape of a Constant: drawn as they are, 2 x ``blocks`` boxes on the first row."""
    nodes = []
    value = "x"
    for b in range(blocks):
        if b % 2:
            nodes.append(helper.make_node("Constant", [], [f"s{b}"], name=f"shape{b}",
                                          value=helper.make_tensor("v", TensorProto.INT64, [2], [1, 4])))  # fmt: skip
        else:
            nodes.append(helper.make_node("Constant", [], [f"d{b}"], name=f"dims{b}",
                                          value=helper.make_tensor("v", TensorProto.INT64, [1], [2])))  # fmt: skip
            nodes.append(helper.make_node("ConstantOfShape", [f"d{b}"], [f"z{b}"], name=f"fill{b}",
                                          value=helper.make_tensor("v", TensorProto.INT64, [1], [2])))  # fmt: skip
            nodes.append(helper.make_node("Cast", [f"z{b}"], [f"s{b}"], name=f"cast{b}", to=TensorProto.INT64))
        nodes.append(helper.make_node("Reshape", [value, f"s{b}"], [f"r{b}"], name=f"reshape{b}"))
        nodes.append(helper.make_node("Relu", [f"r{b}"], [f"y{b}"], name=f"relu{b}"))
        value = f"y{b}"
    graph = helper.make_graph(
        nodes,
        "comb",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info(value, TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph)


def branches_model(count: int, scoped: bool) -> onnx.ModelProto:
    """``count`` parallel branches (Relu then Neg) from one input into one Concat."""
    nodes = []
    for b in range(count):
        prefix = f"/branch{b}/" if scoped else f"b{b}_"
        nodes.append(helper.make_node("Relu", ["x"], [f"r{b}"], name=f"{prefix}Relu"))
        nodes.append(helper.make_node("Neg", [f"r{b}"], [f"n{b}"], name=f"{prefix}Neg"))
    nodes.append(helper.make_node("Concat", [f"n{b}" for b in range(count)], ["y"], name="concat", axis=0))
    graph = helper.make_graph(
        nodes,
        "fan",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [count])],
    )
    return helper.make_model(graph)
