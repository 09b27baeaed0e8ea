"""Graphs of real models: the ONNX project's own (shipped in the ``onnx`` wheel) and torch
exports of architectures written here, with both of torch's exporters.

For each model, through the server's ``GraphService`` as ``/api/graph`` uses it: nodes, the
items of the first view and its layout (width x height in px, the widest row), its JSON
size, the first request (parse, shape inference, grouping, layout) and a warm one (median
of ``--repeats``). For DenseNet-121 and ResNet-50, headless Chromium's time from navigation
to the drawn first view (``bench_graph.browser_figures``). Targets (issue 15): first view
<= 0.5 s up to 2,000 nodes, warm <= 50 ms, DenseNet-121 drawn in the browser <= 1.5 s; a
layout a few boxes wide for chain-like models.

Run::

    python benchmarks/bench_graph_models.py            # about a minute on 2 cores
    python benchmarks/bench_graph_models.py --quick    # the ONNX models, no browser: seconds
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import os
import statistics
import sys
import tempfile
import time
import warnings

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_graph as bg  # noqa: E402  (its browser measure)

LIGHT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")
ONNX_MODELS = ("resnet50", "densenet121", "inception_v1", "inception_v2", "shufflenet", "squeezenet", "vgg19")


def torch_models(folder: str) -> dict[str, str]:
    """ResNet-18, a Transformer encoder and an LSTM written here, exported both ways."""
    import torch

    class Basic(torch.nn.Module):
        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.c1 = torch.nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.b1 = torch.nn.BatchNorm2d(cout)
            self.c2 = torch.nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.b2 = torch.nn.BatchNorm2d(cout)
            self.down = (
                None
                if stride == 1 and cin == cout
                else torch.nn.Sequential(torch.nn.Conv2d(cin, cout, 1, stride, bias=False), torch.nn.BatchNorm2d(cout))
            )

        def forward(self, x):
            skip = x if self.down is None else self.down(x)
            return torch.relu(skip + self.b2(self.c2(torch.relu(self.b1(self.c1(x))))))

    class ResNet18(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 7, 2, 3), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
                                            torch.nn.MaxPool2d(3, 2, 1))  # fmt: skip
            widths = [16, 32, 64, 128]
            layers, cin = [], 16
            for i, w in enumerate(widths):
                layers.append(torch.nn.Sequential(Basic(cin, w, 1 if i == 0 else 2), Basic(w, w, 1)))
                cin = w
            self.layers = torch.nn.Sequential(*layers)
            self.fc = torch.nn.Linear(128, 10)

        def forward(self, x):
            return self.fc(torch.flatten(torch.nn.functional.adaptive_avg_pool2d(self.layers(self.stem(x)), 1), 1))

    class Recurrent(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm = torch.nn.LSTM(16, 32, num_layers=2, batch_first=True)
            self.head = torch.nn.Linear(32, 4)

        def forward(self, x):
            return self.head(self.lstm(x)[0][:, -1])

    encoder = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True), 4)
    cases = {
        "resnet18": (ResNet18(), (torch.randn(1, 3, 64, 64),)),
        "transformer": (encoder, (torch.randn(2, 10, 64),)),
        "lstm": (Recurrent(), (torch.randn(2, 5, 16),)),
    }
    out = {}
    for name, (model, example) in cases.items():
        for dynamo in (False, True):
            path = os.path.join(folder, f"torch_{name}_{'dynamo' if dynamo else 'legacy'}.onnx")
            buffer = io.BytesIO()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    torch.onnx.export(model.eval(), example, buffer, dynamo=dynamo)  # type: ignore[arg-type]
            except Exception as e:  # noqa: BLE001 - an exporter's failure is reported, the rest measured
                print(f"{os.path.basename(path)}: not exported ({type(e).__name__}: {str(e)[:120]})")
                continue
            with open(path, "wb") as f:
                f.write(buffer.getvalue())
            out[os.path.basename(path)[:-5]] = path
    return out


def measure(path: str, repeats: int) -> dict[str, float]:
    from visualdl.server._provider import DataProvider
    from visualdl.server._settings import Settings
    from visualdl.server._views.graph import GraphService

    firsts, warms = [], []
    for _ in range(repeats):
        service = GraphService(DataProvider(Settings(models=(path,), background=False)))
        start = time.perf_counter()
        view = service.view(model="0")
        firsts.append(time.perf_counter() - start)
        start = time.perf_counter()
        service.view(model="0")
        warms.append(time.perf_counter() - start)
    rows = collections.Counter(round(n["y"]) for n in view["nodes"])
    return {
        "nodes": view["graph"]["node_count"],
        "items": len(view["nodes"]),
        "width": round(view["width"]),
        "height": round(view["height"]),
        "widest_row": max(rows.values()),
        "json_kb": round(len(json.dumps(view)) / 1024, 1),
        "first_ms": round(1000 * statistics.median(firsts), 1),
        "warm_ms": round(1000 * statistics.median(warms), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the ONNX models only, one repeat, no browser")
    parser.add_argument("--repeats", type=int, default=None, help="of each measure (default 3, quick 1)")
    args = parser.parse_args()
    repeats = args.repeats or (1 if args.quick else 3)
    models = {name: os.path.join(LIGHT, f"light_{name}.onnx") for name in ONNX_MODELS}
    with tempfile.TemporaryDirectory() as folder:
        if not args.quick:
            models.update(torch_models(folder))
        results = {name: measure(path, repeats) for name, path in models.items()}
        browser = {}
        if not args.quick and bg.browser_missing() is None:
            for name in ("densenet121", "resnet50"):
                browser[name] = bg.browser_figures(models[name], repeats)["browser_first_render_s"]
    print(f"graphs of real models, first view (median of {repeats}):")
    print(f"{'model':<26} {'nodes':>6} {'items':>6} {'width x height px':>18} {'widest':>7} {'JSON KB':>8} "
          f"{'first ms':>9} {'warm ms':>8}")  # fmt: skip
    for name, r in results.items():
        size = f"{r['width']:,} x {r['height']:,}"
        print(f"{name:<26} {r['nodes']:>6} {r['items']:>6} {size:>18} {r['widest_row']:>7} {r['json_kb']:>8} "
              f"{r['first_ms']:>9} {r['warm_ms']:>8}")  # fmt: skip
    for name, seconds in browser.items():
        print(f"browser: navigation to the drawn first view of {name}, s  {seconds:.3f}")
    print("targets: first <= 500 ms up to 2,000 nodes, warm <= 50 ms, DenseNet-121 in the browser <= 1.5 s")
    print(json.dumps({"models": results, "browser": browser}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
