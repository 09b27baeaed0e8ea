"""Jobs tab benchmark: a job of thousands of ranks, from navigation to the Jobs tab drawn, in headless Chromium.

The server is the real one (``python -m visualdl --logdir DIR``, a subprocess), over a job
written by ``benchmarks/bench_jobs.py`` (one run, ``--ranks`` trainer processes, every
``--restart-every``-th one killed and restarted): ``--logdir`` names one already built
(its run ``job``), else one is built in a temp dir.

For each frontend measured, in a fresh browser context (cold cache) at 1440 x 900, median
of ``--repeats``, in two modes:

* **replayed**: the API's answers recorded from the server once, then given to the page at
  once by Playwright's request routing: the page's own cost (parsing, drawing);
* **live** (unless ``--no-live``): the server answers every request: what a user waits
  for, the server's cost included (the job page's answer at 10,000 ranks takes seconds).

and in each:

* the ms from the navigation's start to the Jobs tab drawn: every plot of the tab drawn
  by plotly.js (the system section's too, when the job has system metrics), the heatmap's
  canvas painted and the writers table's first row there;
* the ms at which ``/api/job``'s answer had arrived (``responseEnd``);
* the elements in the document and in the Jobs panel (its writers table alone too).

With ``--before REV``, the frontend of git revision REV (``frontend_static/`` of REV) is
measured too, in the same run, against the same server and answers: both frontends' files
are served to the page by the routing, so neither has a cache advantage. Target (issue
24): the Jobs tab drawn in <= 2 s at 10,000 ranks.

Run::

    python benchmarks/bench_jobs_ui.py --logdir /tmp/jb/jobs-10000x1x200r50 --before main
    python benchmarks/bench_jobs_ui.py --ranks 500 --repeats 1       # builds its own: about a minute
"""

from __future__ import annotations

import argparse
import mimetypes
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import bench_jobs as bj  # noqa: E402  (the job's builder)
import bench_server as bs  # noqa: E402  (its server subprocess and free port)
from bench_ui import CHROMIUM, CHROMIUM_ARGS, wait_loaded  # noqa: E402

# True once the Jobs tab is drawn: every plot outside a hidden section drawn by plotly, the
# heatmap painted, a row in the writers table. Works for any revision of the frontend.
DRAWN_JS = """() => {
    const panel = document.querySelector('#panel-jobs');
    const body = panel && panel.querySelector('.job-body');
    if (!body || panel.hidden || body.hidden) return false;
    const plots = [...panel.querySelectorAll('.plot')].filter((p) => !p.closest('[hidden]'));
    if (!plots.length || !plots.every((p) => p._fullLayout && p.querySelector('.main-svg'))) return false;
    const heat = panel.querySelector('.job-heatmap-canvas');
    if (heat && !heat.dataset.rows) return false;
    if (!document.querySelector('#job-writers tr')) return false;
    window.__jobsDrawnAt = performance.now();
    return true;
}"""
FIGURES_JS = """() => {
    const job = performance.getEntriesByType('resource').find((e) => /\\/api\\/job\\?/.test(e.name));
    return {
        drawn_ms: window.__jobsDrawnAt,
        api_ms: job ? job.responseEnd : null,
        document: document.getElementsByTagName('*').length,
        panel: document.querySelectorAll('#panel-jobs *').length,
        table: document.querySelectorAll('#job-writers *').length,
    };
}"""


def frontend_of(revision: str, into: str) -> str:
    """``frontend_static/`` of the git ``revision``, extracted under ``into``."""
    archive = subprocess.run(
        ["git", "archive", revision, "frontend_static"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    return os.path.join(into, "frontend_static")


def serve_from(page, folder: str, answers: dict[str, tuple[int, str, bytes]] | None) -> None:
    """Answer the page's own files (``/`` and ``static/...``) from ``folder``, and with
    ``answers`` the API's requests recorded there; the rest goes to the server."""

    def handle(route) -> None:
        parts = urllib.parse.urlsplit(route.request.url)
        path = parts.path
        if answers is not None and f"{path}?{parts.query}" in answers:
            status, kind, body = answers[f"{path}?{parts.query}"]
            route.fulfill(status=status, body=body, headers={"content-type": kind, "cache-control": "no-store"})
            return
        name = "index.html" if path == "/" else path[len("/static/") :] if path.startswith("/static/") else None
        full = os.path.join(folder, name) if name else None
        if full is None or not os.path.isfile(full):
            route.continue_()
            return
        with open(full, "rb") as f:
            body = f.read()
        kind = mimetypes.guess_type(full)[0] or "application/octet-stream"
        route.fulfill(status=200, body=body, headers={"content-type": kind, "cache-control": "no-cache"})

    page.route("**/*", handle)


def measure(browser, url: str, folder: str, answers: dict | None, timeout_ms: float, record: bool = False) -> dict:
    """One cold load of the Jobs tab; ``record``: then wait for every request to be answered
    and keep the API's answers in ``answers``."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        serve_from(page, folder, answers)
        started: list[Any] = []
        done: list[Any] = []
        page.on("request", lambda request: started.append(request))  # (playwright cannot take a bound builtin)
        page.on("requestfinished", lambda request: done.append(request))
        page.on("requestfailed", lambda request: done.append(request))
        page.goto(url, wait_until="commit")
        page.wait_for_function(DRAWN_JS, polling="raf", timeout=timeout_ms)
        figures = page.evaluate(FIGURES_JS)
        if record and answers is not None:
            deadline = time.monotonic() + timeout_ms / 1e3
            while len(started) > len(done) and time.monotonic() < deadline:
                page.wait_for_timeout(100)
            for request in done:
                parts = urllib.parse.urlsplit(request.url)
                response = request.response()
                if parts.path.startswith("/api/") and response is not None:
                    answers[f"{parts.path}?{parts.query}"] = (
                        response.status, response.headers.get("content-type", ""), response.body()
                    )  # fmt: skip
        return {key: float(value) for key, value in figures.items() if value is not None}
    finally:
        context.close()


def api_job_ms(port: int, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/job?run=job", timeout=600) as r:
            r.read()
        times.append(time.perf_counter() - t)
    return 1e3 * statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logdir", default=None, help="a logdir built by bench_jobs.py (its run 'job')")
    parser.add_argument("--ranks", type=int, default=2000, help="the ranks of the job built without --logdir")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--restart-every", type=int, default=50)
    parser.add_argument("--before", default=None, help="a git revision whose frontend is measured too")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds for one page to draw")
    parser.add_argument("--no-live", action="store_true", help="only the replays of the server's answers")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    scratch = tempfile.mkdtemp(prefix="bench-jobs-ui-")
    try:
        logdir = args.logdir
        if logdir is None:
            logdir = os.path.join(scratch, "logs")
            print(f"building a job of {args.ranks} ranks x {args.steps} steps ...", flush=True)
            bj.build(os.path.join(logdir, "job"), args.ranks, 1, args.steps, args.restart_every)
        frontends = {}
        if args.before:
            frontends[f"before ({args.before})"] = frontend_of(args.before, tempfile.mkdtemp(dir=scratch))
        frontends["this checkout"] = os.path.join(ROOT, "frontend_static")
        # One poll, at the start: a job of thousands of files polled every 2 s keeps the server
        # busy on a small machine, and the files do not change.
        port = bs.free_port()
        cmd = [sys.executable, "-m", "visualdl", "--logdir", logdir, "--port", str(port), "--reload-interval", "86400"]
        server = bs.Server(cmd, port, "visualdl")
        server.start()
        try:
            wait_loaded(server.port, timeout=1800.0)
            api_ms = api_job_ms(server.port, 1)  # also warms the server up
            modes = ["replayed"] + ([] if args.no_live else ["live"])
            samples: dict[tuple[str, str], list[dict[str, float]]] = {(m, f): [] for m in modes for f in frontends}
            answers: dict[str, tuple[int, str, bytes]] = {}
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                url = f"http://127.0.0.1:{server.port}/#jobs"
                for folder in frontends.values():  # records the API's answers for the replays
                    measure(browser, url, folder, answers, 1e3 * args.timeout, record=True)
                for _ in range(args.repeats):  # interleaved: the machine's load falls on both alike
                    for mode, name in samples:
                        kept = answers if mode == "replayed" else None
                        sample = measure(browser, url, frontends[name], kept, 1e3 * args.timeout)
                        print(f"  {mode} {name}: drawn at {sample['drawn_ms']:.0f} ms", flush=True)
                        samples[(mode, name)].append(sample)
                browser.close()
        finally:
            server.stop()
    finally:
        bs.stop_all()
        shutil.rmtree(scratch, ignore_errors=True)
    files = len([n for n in os.listdir(os.path.join(logdir, "job")) if n.endswith(".vdlog")])
    print(f"Jobs tab of {files:,} log files ({logdir}), Chromium 1440x900, median of {args.repeats}:")
    print(f"/api/job alone (urllib, one request): {api_ms:.0f} ms")
    print("replayed: the API's answers recorded from the server once, then answered at once (the page's own cost);")
    print("live: the server answers each request (the server's cost included)")
    heads = ("drawn ms", 9), ("api done ms", 12), ("elements", 9), ("in panel", 9), ("in table", 9)
    print(f"{'mode':<9} {'frontend':<24} " + " ".join(f"{head:>{width}}" for head, width in heads))
    for (mode, name), runs in samples.items():
        med = {key: statistics.median(s[key] for s in runs) for key in runs[0]}
        print(f"{mode:<9} {name:<24} {med['drawn_ms']:>9.0f} {med.get('api_ms', float('nan')):>12.0f} "
              f"{med['document']:>9,.0f} {med['panel']:>9,.0f} {med['table']:>9,.0f}")  # fmt: skip
    print("target: the Jobs tab drawn <= 2000 ms at 10,000 ranks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
