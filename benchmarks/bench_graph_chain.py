"""Graph chain benchmark: chains of 20,000 nodes whose names carry no structure, opened as
``/api/graph`` opens them (``GraphService``: parse, shape inference, folding of constants,
the search for repeated blocks, grouping, layout of the first view).

The chains:

* ``ops``: an ONNX chain of ``--nodes`` unnamed ``Relu`` nodes (one op throughout: the
  repeated-block search sees one long run of one-node pieces);
* ``constants``: an ONNX chain of ``--nodes`` ``Identity`` nodes computing a constant from
  an initializer, written last to first, feeding one ``Relu`` (folding: every node a
  constant feeder, reached through all the others);
* ``graphdef``: a TensorBoard ``GraphDef`` of ``--nodes`` nodes without name scopes, a
  ``Const`` -> ``MatMul`` -> ``Relu`` chain (converted, then opened as the ONNX chains).

Measured, the median of ``--repeats`` (wall and CPU seconds of the first view, and the items
it draws). Both passes are linear in the nodes (a pass in topological order for folding, one
number per piece's ops for the block search): 20,000 nodes open in about a second, 2,000 in
about a tenth of that; before, both passes were quadratic (more than 150 s at 20,000).

Run::

    python benchmarks/bench_graph_chain.py            # 20,000 nodes, 3 repeats: about 30 s
    python benchmarks/bench_graph_chain.py --quick    # 2,000 nodes, one repeat
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def ops_chain(nodes: int) -> onnx.ModelProto:
    """``nodes`` unnamed Relu nodes, one after the other."""
    body = [helper.make_node("Relu", [f"v{i - 1}" if i else "x"], [f"v{i}"]) for i in range(nodes)]
    graph = helper.make_graph(
        body,
        "ops",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info(f"v{nodes - 1}", TensorProto.FLOAT, [1, 8])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def constants_chain(nodes: int) -> onnx.ModelProto:
    """``nodes`` Identity nodes computing a constant, written last to first, and the Relu it feeds."""
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


def graphdef_chain(nodes: int) -> bytes:
    """A GraphDef of ``nodes`` nodes without name scopes: Const -> MatMul -> Relu, repeated."""
    from tensorboard.compat.proto import graph_pb2

    g = graph_pb2.GraphDef()
    g.node.add(name="x", op="Placeholder").attr["dtype"].type = 1
    prev, i = "x", 0
    while len(g.node) < nodes:
        g.node.add(name=f"w{i}", op="Const").attr["dtype"].type = 1
        g.node.add(name=f"matmul{i}", op="MatMul", input=[prev, f"w{i}"]).attr["T"].type = 1
        g.node.add(name=f"relu{i}", op="Relu", input=[f"matmul{i}"]).attr["T"].type = 1
        prev, i = f"relu{i}", i + 1
    return g.SerializeToString()


def open_model(path: str) -> dict[str, float]:
    """The first view of the ONNX model at ``path``, as /api/graph makes it."""
    from visualdl.server._provider import DataProvider
    from visualdl.server._settings import Settings
    from visualdl.server._views.graph import GraphService

    service = GraphService(DataProvider(Settings(models=(path,), background=False)))
    wall, cpu = time.perf_counter(), time.process_time()
    view = service.view(model="0")
    return {
        "first_view_s": time.perf_counter() - wall,
        "first_view_cpu_s": time.process_time() - cpu,
        "items": len(view["nodes"]),
        "json_kb": len(json.dumps(view)) / 1024,
    }


def open_graphdef(data: bytes) -> dict[str, float]:
    """The first view of the GraphDef ``data``: converted, built, laid out as /api/graph does."""
    from visualdl.server._graph.graphdef import graphdef_model
    from visualdl.server._graph.model import Graph
    from visualdl.server._views.graph import GraphService

    wall, cpu = time.perf_counter(), time.process_time()
    graph = Graph.build(graphdef_model(data, warnings=[]).graph)
    view = GraphService._lay_out(None, graph, graph.default_expanded())  # type: ignore[arg-type]
    return {
        "first_view_s": time.perf_counter() - wall,
        "first_view_cpu_s": time.process_time() - cpu,
        "items": len(view["nodes"]),
        "json_kb": len(json.dumps(view)) / 1024,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=None, help="nodes of each chain (default 20,000, quick 2,000)")
    parser.add_argument("--repeats", type=int, default=None, help="of each measure (default 3, quick 1)")
    parser.add_argument("--quick", action="store_true", help="2,000 nodes, one repeat; every figure still")
    parser.add_argument("--only", choices=("ops", "constants", "graphdef"), action="append", help="these chains only")
    args = parser.parse_args()
    nodes = args.nodes or (2_000 if args.quick else 20_000)
    repeats = args.repeats or (1 if args.quick else 3)
    chosen = args.only or ["ops", "constants", "graphdef"]
    print(f"chains of {nodes:,} nodes, the first view's median of {repeats}")
    print(f"{'chain':<10} {'wall s':>8} {'CPU s':>8} {'items':>7} {'JSON KB':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in chosen:
            if name == "graphdef":
                data = graphdef_chain(nodes)
                runs = [open_graphdef(data) for _ in range(repeats)]
            else:
                path = os.path.join(tmp, f"{name}.onnx")
                onnx.save(ops_chain(nodes) if name == "ops" else constants_chain(nodes), path)
                runs = [open_model(path) for _ in range(repeats)]
            f = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
            print(
                f"{name:<10} {f['first_view_s']:>8.3f} {f['first_view_cpu_s']:>8.3f} "
                f"{int(f['items']):>7,} {f['json_kb']:>9.1f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
