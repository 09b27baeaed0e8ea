"""Projector benchmark: 100,000 x 256 float32 embeddings with a metadata column, from the
writer's call to the scatter drawn in the browser.

Measured, on a logdir written once with ``LogWriter.add_embeddings``:

1. the SDK: the ``add_embeddings`` call (the training thread's cost) and the time until
   the writer has written it (``flush``);
2. the server (``python -m visualdl --logdir DIR``, a subprocess): the first PCA projection
   request of a fresh server (reading the vectors from the log and projecting them) and the
   same request again (cached), and the answer's size; the neighbours of one point
   (100,000 x 256 distances in chunks);
3. in headless Chromium at 1440 x 900: from navigation to the Projector tab until the
   scatter holds every point (WebGL), median of ``--repeats`` fresh pages on one server.

Run::

    python benchmarks/bench_projector.py            # about 40 s on 2 cores
    python benchmarks/bench_projector.py --quick    # 10,000 x 64: a few seconds
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_server as bs  # noqa: E402  (its server subprocess and free port)
import bench_ui as bu  # noqa: E402  (waiting for a server to load; Chromium's launch flags)

DRAWN_JS = "() => document.querySelector('.projector-plot')?.dataset.points"


def write(logdir: str, rows: int, dim: int) -> dict[str, float]:
    from visualdl import LogWriter

    rng = np.random.default_rng(0)
    centres = rng.normal(size=(10, dim)).astype(np.float32) * 4
    labels = rng.integers(0, 10, rows)
    mat = centres[labels] + rng.normal(size=(rows, dim)).astype(np.float32)
    metadata = [f"class {c}" for c in labels.tolist()]
    with LogWriter(os.path.join(logdir, "emb")) as writer:
        start = time.perf_counter()
        writer.add_embeddings("features", mat=mat, metadata=metadata)
        call = time.perf_counter() - start
        writer.flush()
        written = time.perf_counter() - start
    return {"call_s": call, "written_s": written}


def request(port: int, path: str) -> tuple[float, bytes]:
    """Seconds until ``path`` is answered (asked again while a projection says "computing"), and the answer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    start = time.perf_counter()
    while True:
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        if response.status != 200 or b'"status":"computing"' not in body.replace(b" ", b""):
            break
        time.sleep(0.05)  # between polls of a projection computed in the background
    took = time.perf_counter() - start
    conn.close()
    if response.status != 200:
        raise RuntimeError(f"{path}: HTTP {response.status} {body[:200]!r}")
    return took, body


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 x 64, one repeat")
    parser.add_argument("--repeats", type=int, default=None, help="of each measure (default 3, quick 1)")
    args = parser.parse_args()
    rows, dim = (10_000, 64) if args.quick else (100_000, 256)
    repeats = args.repeats or (1 if args.quick else 3)
    from playwright.sync_api import sync_playwright

    folder = tempfile.mkdtemp(prefix="bench-projector-")
    figures: dict[str, float] = {"rows": rows, "dimension": dim}
    try:
        figures.update({f"sdk_{k}": v for k, v in write(folder, rows, dim).items()})
        path = "/api/projection?run=emb&tag=features&method=pca&dims=3"
        cold, warm = [], []
        size = 0
        for _ in range(repeats):
            server = bs.visualdl_server(folder)
            server.start()
            try:
                bu.wait_loaded(server.port)
                took, body = request(server.port, path)
                cold.append(took)
                size = len(body)
                assert json.loads(body)["points"] == rows
                warm.append(request(server.port, path)[0])
                near = request(server.port, "/api/neighbors?run=emb&tag=features&point=0&k=10")[0]
            finally:
                server.stop()
        figures.update(pca_cold_s=statistics.median(cold), pca_warm_s=statistics.median(warm), answer_mb=size / 1e6,
                       neighbours_s=near)  # fmt: skip
        server = bs.visualdl_server(folder)
        server.start()
        try:
            bu.wait_loaded(server.port)
            drawn = []
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=bu.CHROMIUM, args=bu.CHROMIUM_ARGS)
                for _ in range(repeats):
                    context = browser.new_context(viewport={"width": 1440, "height": 900})
                    page = context.new_page()
                    start = time.perf_counter()
                    page.goto(f"http://127.0.0.1:{server.port}/#embeddings")
                    page.wait_for_function(f"() => ({DRAWN_JS})() === '{rows}'", timeout=120_000)
                    drawn.append(time.perf_counter() - start)
                    context.close()
                browser.close()
            figures["browser_first_view_s"] = statistics.median(drawn)
        finally:
            server.stop()
    finally:
        bs.stop_all()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"projector, {rows:,} x {dim} float32 with one metadata column (median of {repeats}):")
    print(f"  add_embeddings call on the training thread, s     {figures['sdk_call_s']:.3f}")
    print(f"  until written (flush), s                          {figures['sdk_written_s']:.3f}")
    print(f"  PCA to 3-D, first request of a fresh server, s    {figures['pca_cold_s']:.3f}")
    print(f"  PCA again (cached), s                             {figures['pca_warm_s']:.3f}")
    print(f"  answer, MB                                        {figures['answer_mb']:.2f}")
    print(f"  10 nearest neighbours of a point, s               {figures['neighbours_s']:.3f}")
    print(f"  browser: navigation to every point drawn, s       {figures['browser_first_view_s']:.3f}")
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
