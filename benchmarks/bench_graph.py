"""Graph benchmark: a generated 20,000-node ResNet-like ONNX model, on the server and in the browser.

The model: ``--stages`` stages of residual blocks under name scopes
(``/stage2/block17/conv2/Conv``), each block Conv -> BatchNormalization -> Relu -> Conv ->
BatchNormalization, plus the skip connection (Add) and a Relu: 7 nodes per block, with
real (small) initializers; ``--nodes`` (20,000) in all.

Measured:

1. on the server, in this process (``GraphService`` as the API uses it): parsing, shape
   inference, flattening and grouping, and the layout of the default (collapsed) view;
   then one group expanded (its blocks), and the whole graph expanded (every node laid
   out); the JSON size of each view;
2. in the browser (Debian's chromium, headless, through Playwright; skipped when either
   is missing): from navigation to the Graphs page of ``visualdl --model`` until the graph
   is drawn (the SVG holds its nodes), for the default view; median of ``--repeats``.

Targets (issue 4): conversion and layout <= 2 s on the server; first render <= 3 s.

Run::

    python benchmarks/bench_graph.py                # about 30 s on 2 cores
    python benchmarks/bench_graph.py --no-browser   # the server figures only
    python benchmarks/bench_graph.py --quick        # 2,000 nodes, one repeat: about 5 s
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def resnet_like(nodes: int, stages: int, channels: int = 8) -> onnx.ModelProto:
    per_block = 7
    blocks = max(1, (nodes - 2) // per_block)
    per_stage = -(-blocks // stages)
    graph_nodes, inits = [], []
    w = numpy_helper.from_array(np.zeros((channels, channels, 3, 3), np.float32), "shared.conv.weight")
    scale = numpy_helper.from_array(np.ones(channels, np.float32), "shared.bn.scale")
    bias = numpy_helper.from_array(np.zeros(channels, np.float32), "shared.bn.bias")
    inits += [w, scale, bias]
    graph_nodes.append(helper.make_node("Conv", ["x", w.name], ["stem"], name="/stem/conv/Conv", pads=[1, 1, 1, 1]))
    prev = "stem"
    for b in range(blocks):
        s = f"/stage{b // per_stage}/block{b}"
        bn = [scale.name, bias.name, bias.name, scale.name]
        graph_nodes += [
            helper.make_node("Conv", [prev, w.name], [f"{s}/c1"], name=f"{s}/conv1/Conv", pads=[1, 1, 1, 1]),
            helper.make_node("BatchNormalization", [f"{s}/c1", *bn], [f"{s}/b1"], name=f"{s}/bn1/BatchNormalization"),
            helper.make_node("Relu", [f"{s}/b1"], [f"{s}/r1"], name=f"{s}/relu1/Relu"),
            helper.make_node("Conv", [f"{s}/r1", w.name], [f"{s}/c2"], name=f"{s}/conv2/Conv", pads=[1, 1, 1, 1]),
            helper.make_node("BatchNormalization", [f"{s}/c2", *bn], [f"{s}/b2"], name=f"{s}/bn2/BatchNormalization"),
            helper.make_node("Add", [f"{s}/b2", prev], [f"{s}/sum"], name=f"{s}/add/Add"),
            helper.make_node("Relu", [f"{s}/sum"], [f"{s}/out"], name=f"{s}/relu2/Relu"),
        ]
        prev = f"{s}/out"
    graph_nodes.append(helper.make_node("GlobalAveragePool", [prev], ["y"], name="/head/pool/GlobalAveragePool"))
    graph = helper.make_graph(
        graph_nodes,
        "resnet_like",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, channels, 1, 1])],
        initializer=inits,
    )
    return helper.make_model(graph, producer_name="bench", opset_imports=[helper.make_opsetid("", 17)])


def server_figures(path: str) -> dict[str, float]:
    from visualdl.server._provider import DataProvider
    from visualdl.server._settings import Settings
    from visualdl.server._views.graph import GraphService

    service = GraphService(DataProvider(Settings(models=(path,), background=False)))
    t = time.perf_counter()
    view = service.view(model="0")
    first = time.perf_counter() - t
    nodes = view["graph"]["node_count"]
    collapsed_items = len(view["nodes"])
    size = len(json.dumps(view))
    group = next(n["path"] for n in view["nodes"] if n["kind"] == "group")
    t = time.perf_counter()
    opened = service.view(model="0", expand=[group])
    expand_one = time.perf_counter() - t
    t = time.perf_counter()
    everything = service.view(model="0", expand_all=True)
    expand_all = time.perf_counter() - t
    return {
        "nodes": nodes,
        "server_first_view_s": round(first, 3),
        "default_view_items": collapsed_items,
        "default_view_json_kb": round(size / 1024, 1),
        "expand_one_group_s": round(expand_one, 3),
        "expand_one_group_items": len(opened["nodes"]),
        "expand_all_s": round(expand_all, 3),
        "expand_all_items": len(everything["nodes"]),
        "expand_all_json_kb": round(len(json.dumps(everything)) / 1024, 1),
    }


CHROMIUM = "/usr/bin/chromium"


def browser_missing() -> str | None:
    """Why the browser figures cannot be measured here, or None."""
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (pip install playwright)"
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    return None


def browser_figures(path: str, repeats: int) -> dict[str, object]:
    from playwright.sync_api import sync_playwright

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "visualdl", "--model", path, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    times = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM,
                args=[
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--no-first-run",
                ],
            )
            for _ in range(repeats + 1):
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                deadline = time.monotonic() + 60
                while True:
                    try:
                        page.goto(f"http://127.0.0.1:{port}/api/health")
                        break
                    except Exception:  # noqa: BLE001 - not listening yet
                        assert time.monotonic() < deadline
                        time.sleep(0.1)
                t = time.perf_counter()
                page.goto(f"http://127.0.0.1:{port}/#graphs")
                page.wait_for_selector("#graph-svg g.node", timeout=60_000)
                times.append(time.perf_counter() - t)
                page.close()
            browser.close()
    finally:
        proc.terminate()
        proc.wait(15)
    return {"browser_first_render_s": round(statistics.median(times[1:]), 3), "runs": times}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=None, help="nodes of the model (default 20,000, quick 2,000)")
    parser.add_argument("--stages", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=None, help="of each measure (default 5, quick 1)")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a 2,000-node model, one repeat; every figure still")
    args = parser.parse_args()
    if args.nodes is None:
        args.nodes = 2_000 if args.quick else 20_000
    if args.repeats is None:
        args.repeats = 1 if args.quick else 5
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "resnet_like.onnx")
        onnx.save(resnet_like(args.nodes, args.stages), path)
        print(f"model: {len(onnx.load(path).graph.node):,} nodes, {os.path.getsize(path) / 1e6:.1f} MB")
        runs = [server_figures(path) for _ in range(args.repeats)]
        keys = runs[0].keys()
        figures: dict[str, object] = {k: statistics.median(r[k] for r in runs) for k in keys}
        missing = "--no-browser" if args.no_browser else browser_missing()
        if missing is None:
            figures.update(browser_figures(path, args.repeats))
        else:
            figures["browser"] = f"skipped: {missing}"
        print(json.dumps(figures, indent=1))
        print(
            f"server: first view {figures['server_first_view_s']} s (target <= 2 s); "
            f"browser first render {figures.get('browser_first_render_s', '-')} s (target <= 3 s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
