"""PCA of wide embeddings (fewer rows than dimensions) through a real server: time and memory.

Measured on a fresh ``python -m visualdl --logdir DIR`` server (a subprocess) each time,
with the logdir written once by ``LogWriter.add_embeddings``:

1. one request for the PCA to 3-D of a 500 x 10,000 entry, asked again while it says
   ``"computing"``, until it is done: the seconds, and the server's peak RSS (``VmHWM``)
   above its RSS before the request;
2. four concurrent requests for the PCA of one 200 x 4,000 entry, each until done: the
   seconds until the last is answered, and the same peak RSS.

Each figure is the median of ``--repeats`` fresh servers. Run::

    python benchmarks/bench_pca.py            # 500 x 10,000 and 4 x 200 x 4,000
    python benchmarks/bench_pca.py --quick    # 200 x 2,000 and 4 x 100 x 1,000: seconds

To measure another checkout's server (e.g. the code before a change), run this script from
that checkout's folder with it first on ``PYTHONPATH`` (``python -m visualdl`` imports from
the current folder first)::

    cd /path/to/checkout && PYTHONPATH=$PWD python /path/to/benchmarks/bench_pca.py
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.request

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_server as bs  # noqa: E402  (its server subprocess)
import bench_ui as bu  # noqa: E402  (waiting for a server to load)

TIMEOUT = 3600.0  # seconds a projection may take before the benchmark gives up


def write(logdir: str, entries: dict[str, tuple[int, int]]) -> None:
    from visualdl import LogWriter

    rng = np.random.default_rng(0)
    with LogWriter(os.path.join(logdir, "emb")) as writer:
        for tag, (rows, dim) in entries.items():
            writer.add_embeddings(tag, mat=rng.normal(size=(rows, dim)).astype(np.float32))


def project(port: int, tag: str) -> dict[str, object]:
    """The PCA answer of ``tag`` once done (asked again while computing)."""
    url = f"http://127.0.0.1:{port}/api/projection?run=emb&tag={tag}&method=pca&dims=3"
    deadline = time.monotonic() + TIMEOUT
    while True:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            answer: dict[str, object] = json.loads(response.read())
        if answer["status"] == "done":
            return answer
        if time.monotonic() > deadline:
            raise RuntimeError(f"the PCA of {tag} was not done after {TIMEOUT:.0f} s")
        time.sleep(0.1)  # between polls of a computation that runs in the background


def measure(logdir: str, tag: str, clients: int) -> tuple[float, float]:
    """Seconds until ``clients`` concurrent requests are all done, and peak RSS above the start, MB."""
    server = bs.visualdl_server(logdir)
    server.start()
    try:
        bu.wait_loaded(server.port)
        before = server.status_kb("VmRSS")
        answers: list[dict[str, object]] = []
        threads = [threading.Thread(target=lambda: answers.append(project(server.port, tag))) for _ in range(clients)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        took = time.perf_counter() - start
        if len(answers) != clients or len({str(a["coordinates"]) for a in answers}) != 1:
            raise RuntimeError(f"expected {clients} equal answers; got {len(answers)}")
        peak = server.status_kb("VmHWM")
        return took, (peak - before) / 1024
    finally:
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 x 2,000 and 4 x 100 x 1,000, one repeat")
    parser.add_argument("--repeats", type=int, default=None, help="fresh servers per figure (default 3, quick 1)")
    args = parser.parse_args()
    wide, concurrent = ((200, 2000), (100, 1000)) if args.quick else ((500, 10_000), (200, 4000))
    repeats = args.repeats or (1 if args.quick else 3)
    folder = tempfile.mkdtemp(prefix="bench-pca-")
    figures: dict[str, float] = {}
    try:
        write(folder, {"wide": wide, "shared": concurrent})
        one = [measure(folder, "wide", 1) for _ in range(repeats)]
        four = [measure(folder, "shared", 4) for _ in range(repeats)]
        figures = {
            "wide_s": statistics.median(t for t, _ in one),
            "wide_peak_mb": statistics.median(m for _, m in one),
            "concurrent_s": statistics.median(t for t, _ in four),
            "concurrent_peak_mb": statistics.median(m for _, m in four),
        }
    finally:
        bs.stop_all()
        shutil.rmtree(folder, ignore_errors=True)
    (r1, d1), (r4, d4) = wide, concurrent
    print(f"PCA to 3-D through a fresh server (median of {repeats}):")
    print(f"  {r1:,} x {d1:,}, one request until done, s           {figures['wide_s']:.3f}")
    print(f"  {r1:,} x {d1:,}, server's peak RSS above start, MB   {figures['wide_peak_mb']:.1f}")
    print(f"  4 x {r4:,} x {d4:,} concurrent, until all done, s    {figures['concurrent_s']:.3f}")
    print(f"  4 x {r4:,} x {d4:,}, server's peak RSS above start, MB {figures['concurrent_peak_mb']:.1f}")
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
