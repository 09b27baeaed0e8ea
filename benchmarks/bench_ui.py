"""Web UI benchmark: from navigation to charts drawn, in headless Chromium, cold and warm.

Two logdirs, each served by ``python -m visualdl --logdir DIR`` (a subprocess, waitress):

* **demo**: what the README's main command writes (``demo/ps_train.py --elastic``: 4
  trainers and 2 parameter servers, 400 steps, a trainer killed and restarted);
* **wide**: 12 scalar tags x 50 runs x 1,000 steps (12 charts of 50 lines each).

For each, in a fresh browser context (an empty cache: the cold load) and then again in the
same context (the warm load, what a reload costs), at 1440 x 900: the time from navigation
to the first chart drawn (a chart card ready with its traces) and to every chart in the
first screen drawn; the bytes the page transferred (``transferSize`` of the navigation and
of every resource: compressed bytes on the wire, 0 for what came from the cache). Median
of ``--repeats`` fresh contexts. Targets (issue 17): first chart <= 1 s on the demo logdir,
<= 1.5 s for 12 charts x 50 runs, cold cache.

Run::

    python benchmarks/bench_ui.py            # about 40 s on 2 cores
    python benchmarks/bench_ui.py --quick    # smaller logdirs, one repeat: about 15 s
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import bench_server as bs  # noqa: E402  (its server subprocess and free port)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]  # fmt: skip

# In the page: every chart card in the first screen, and how many of them are drawn.
CHARTS_JS = """() => {
    const cards = [...document.querySelectorAll('#panel-scalars .chart-card')];
    const inView = cards.filter((c) => {
        const r = c.getBoundingClientRect();
        return r.top < innerHeight && r.bottom > 0;
    });
    const drawn = (c) => c.dataset.state === 'ready' && c.querySelector('.js-plotly-plot')?.data?.length > 0;
    const preview = (c) => drawn(c) || c.dataset.preview === 'drawn';
    return { cards: inView.length, drawn: inView.filter(drawn).length, previews: inView.filter(preview).length,
             now: performance.now() };
}"""
MARKS_JS = """() => Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]))"""
BYTES_JS = """() => performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
    .reduce((sum, e) => sum + (e.transferSize || 0), 0)"""


def write_demo(logdir: str, steps: int) -> None:
    cmd = [sys.executable, os.path.join(ROOT, "demo", "ps_train.py"), "--logdir", logdir, "--elastic",
           "--steps", str(steps)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, timeout=600)


def write_wide(logdir: str, runs: int, tags: int, steps: int) -> None:
    import numpy as np

    from visualdl import LogWriter

    rng = np.random.default_rng(0)
    x = np.arange(steps)
    for r in range(runs):
        with LogWriter(os.path.join(logdir, f"run{r:02d}")) as writer:
            curves = [np.exp(-x / (200 + 40 * t)) + 0.05 * rng.random(steps) + 0.01 * r for t in range(tags)]
            for step in range(steps):
                for t in range(tags):
                    writer.add_scalar(f"group{t % 3}/metric{t}", float(curves[t][step]), step)


def wait_loaded(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2) as r:
                if b'"loaded":true' in r.read().replace(b" ", b""):
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not load in time")
        time.sleep(0.05)


def measure(page, url: str, timeout: float = 60.0) -> dict[str, float]:
    """Navigate; the ms from the navigation's start to the first chart and to every chart in view drawn."""
    page.goto(url, wait_until="commit")
    first = every = quick = None
    deadline = time.monotonic() + timeout
    while every is None:
        state = page.evaluate(CHARTS_JS)
        if quick is None and state["previews"] > 0:
            quick = state["now"]
        if first is None and state["drawn"] > 0:
            first = state["now"]
        if state["cards"] > 0 and state["drawn"] == state["cards"]:
            every = state["now"]
        if time.monotonic() > deadline:
            raise RuntimeError(f"charts not drawn in {timeout} s: {state}")
        time.sleep(0.01)
    page.wait_for_load_state("load")
    # The page marks its first chart (scalarchart.js): exact, where polling from here can miss
    # a preview drawn just before plotly.js takes the page's thread for a second.
    marks = page.evaluate(MARKS_JS)
    first = marks.get("visualdl:first-chart", first)
    quick = min(marks.get("visualdl:first-chart-preview", first), first)
    return {"quick_ms": quick, "first_ms": first, "all_ms": every, "bytes": page.evaluate(BYTES_JS)}


def bench(name: str, logdir: str, repeats: int, browser) -> dict[str, dict[str, float]]:
    server = bs.visualdl_server(logdir)
    server.start()
    try:
        wait_loaded(server.port)
        url = f"http://127.0.0.1:{server.port}/#scalars"
        cold, warm = [], []
        for _ in range(repeats):
            context = browser.new_context(viewport={"width": 1440, "height": 900})
            page = context.new_page()
            cold.append(measure(page, url))
            page.goto("about:blank")  # then back, as a user comes back: the same context, its cache
            warm.append(measure(page, url))
            context.close()
    finally:
        server.stop()
    out = {}
    for label, samples in (("cold", cold), ("warm", warm)):
        out[label] = {key: statistics.median(s[key] for s in samples) for key in samples[0]}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller logdirs, one repeat")
    parser.add_argument("--repeats", type=int, default=None, help="fresh browser contexts (default 5, quick 1)")
    args = parser.parse_args()
    repeats = args.repeats or (1 if args.quick else 5)
    from playwright.sync_api import sync_playwright

    folder = tempfile.mkdtemp(prefix="bench-ui-")
    try:
        demo = os.path.join(folder, "demo")
        wide = os.path.join(folder, "wide")
        write_demo(demo, 100 if args.quick else 400)
        runs, steps = (10, 200) if args.quick else (50, 1000)
        write_wide(wide, runs, 12, steps)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            results = {
                "demo": bench("demo", demo, repeats, browser),
                f"12 charts x {runs} runs": bench("wide", wide, repeats, browser),
            }
            browser.close()
    finally:
        bs.stop_all()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"web UI, navigation to charts drawn (Chromium 1440x900, median of {repeats}):")
    print("(first chart: drawn at all, by the SVG preview or plotly; plotly: drawn by plotly.js)")
    print(f"{'logdir':<22} {'load':<5} {'first chart ms':>15} {'plotly ms':>10} {'all in view ms':>15} {'bytes':>12}")
    for name, by_load in results.items():
        for load, r in by_load.items():
            print(f"{name:<22} {load:<5} {r['quick_ms']:>15.0f} {r['first_ms']:>10.0f} {r['all_ms']:>15.0f} "
                  f"{r['bytes']:>12,.0f}")  # fmt: skip
    print("targets: first chart <= 1000 ms on the demo logdir, <= 1500 ms for 12 charts x 50 runs, cold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
