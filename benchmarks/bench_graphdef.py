"""GraphDef benchmark: TensorBoard's graph of 20,000 nodes converted and opened collapsed.

The graph: a chain of ``--nodes`` nodes in 3-level name scopes
(``stage3/block17/matmul3170``), each block a Const (a 32 x 32 float weight) -> MatMul ->
Relu with a control input, built with TensorBoard's own protos (``tensorboard.compat.proto``,
the bytes its writers produce) as ``tests/graph/test_graph_graphdef.py`` builds it.

Measured, in this process, the median of ``--repeats`` (wall and CPU seconds):

1. the conversion to the graph model (``server/_graph/graphdef.py``: parse, scopes, shapes);
2. the graph built and its default view laid out (``server/_graph/model.py``): the stages,
   collapsed.

Target: each well under 10 s at 20,000 nodes (about 1 s on one core when measured: linear
work; a quadratic step takes minutes). The tests check the linearity as a ratio of two sizes
in one run; the seconds are this script's.

Run::

    python benchmarks/bench_graphdef.py            # 20,000 nodes, 5 repeats: about 10 s
    python benchmarks/bench_graphdef.py --quick    # 2,000 nodes, one repeat
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from tensorboard.compat.proto import attr_value_pb2, graph_pb2, tensor_pb2, tensor_shape_pb2, types_pb2

from visualdl.server._graph.graphdef import graphdef_model
from visualdl.server._graph.model import Graph


def _node(g: graph_pb2.GraphDef, name: str, op: str, *inputs: str, **attrs: attr_value_pb2.AttrValue) -> None:
    node = g.node.add(name=name, op=op, input=list(inputs))
    for key, value in attrs.items():
        node.attr[key].CopyFrom(value)


def chain(nodes: int) -> graph_pb2.GraphDef:
    """A chain of ``nodes`` nodes in 3-level scopes: Const -> MatMul -> Relu, a control input each."""
    g = graph_pb2.GraphDef()
    f32 = attr_value_pb2.AttrValue(type=types_pb2.DT_FLOAT)
    shape = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in (-1, 32)])
    shapes = attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(shape=[shape]))
    weight = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_FLOAT,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=32)] * 2),
        tensor_content=bytes(32 * 32 * 4),
    )
    _node(g, "x", "Placeholder", dtype=f32)
    prev, i = "x", 0
    while len(g.node) < nodes:
        scope = f"stage{i // 1000}/block{i // 10 % 100}"
        _node(g, f"{scope}/w{i}", "Const", value=attr_value_pb2.AttrValue(tensor=weight))
        _node(g, f"{scope}/matmul{i}", "MatMul", prev, f"{scope}/w{i}", T=f32, _output_shapes=shapes)
        _node(g, f"{scope}/relu{i}", "Relu", f"{scope}/matmul{i}", f"^{scope}/w{i}", T=f32)
        prev, i = f"{scope}/relu{i}", i + 1
    return g


def measure(data: bytes) -> dict[str, float]:
    """One conversion and one default view of the serialized GraphDef: wall and CPU seconds each."""
    wall, cpu = time.perf_counter(), time.process_time()
    model = graphdef_model(data, warnings=[])
    converted_wall, converted_cpu = time.perf_counter(), time.process_time()
    graph = Graph.build(model.graph)
    view = graph.view(graph.default_expanded())
    done_wall, done_cpu = time.perf_counter(), time.process_time()
    return {
        "convert_s": converted_wall - wall,
        "convert_cpu_s": converted_cpu - cpu,
        "open_collapsed_s": done_wall - converted_wall,
        "open_collapsed_cpu_s": done_cpu - converted_cpu,
        "graph_nodes": len(graph.nodes),
        "hidden": len(graph.hidden),
        "default_view_items": len(view["items"]),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=None, help="nodes of the GraphDef (default 20,000, quick 2,000)")
    parser.add_argument("--repeats", type=int, default=None, help="of each measure (default 5, quick 1)")
    parser.add_argument("--quick", action="store_true", help="2,000 nodes, one repeat; every figure still")
    args = parser.parse_args()
    nodes = args.nodes or (2_000 if args.quick else 20_000)
    repeats = args.repeats or (1 if args.quick else 5)
    data = chain(nodes).SerializeToString()
    runs = [measure(data) for _ in range(repeats)]
    figures = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    blocks = -(-(nodes - 1) // 3)  # Const -> MatMul -> Relu after x, the graph's input
    expected = {"graph_nodes": 3 * blocks, "hidden": blocks, "default_view_items": -(-blocks // 1000) + 1}
    got = {key: int(figures[key]) for key in expected}
    print(f"GraphDef: {nodes:,} nodes, {len(data) / 1e6:.1f} MB; median of {repeats}")
    print(f"convert: {figures['convert_s']:.3f} s ({figures['convert_cpu_s']:.3f} CPU s)  (target < 10 s)")
    print(
        f"open collapsed: {figures['open_collapsed_s']:.3f} s ({figures['open_collapsed_cpu_s']:.3f} CPU s), "
        f"{got['default_view_items']} items  (target < 10 s)"
    )
    print(f"graph: {got['graph_nodes']:,} nodes, {got['hidden']:,} hidden (the Consts, folded into the ops they feed)")
    if got != expected:
        print(f"the graph is not the chain's: {got}, expected {expected}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
