"""Sweep UI benchmark: thousands of runs in headless Chromium, the first grouped chart and the runs table's scroll.

The logdir is ``bench_sweeps.py``'s (built by its code, kept in ``--dir`` under the same
name): ``--runs`` (30,000) runs ``lr{lr}/seed{seed}`` of ``--groups`` (10) learning rates,
each with its hparams (lr, seed, opt) and ``--tags`` (4) scalar tags x ``--steps`` (200)
steps. The server is the real one (``python -m visualdl --logdir DIR --reload-interval 2``,
a subprocess), measured once it has loaded and the runs table lists every run.

In Debian's chromium (headless, through Playwright), at 1440 x 900, each measure in a fresh
browser context (an empty cache), ``--repeats`` times:

1. the Scalars tab: the ms from the navigation's start to the first grouped chart drawn at
   all (by its SVG preview or by plotly.js, as ``bench_ui.py`` counts it) and drawn by
   plotly.js (the page's marks ``visualdl:first-chart-preview`` and ``visualdl:first-chart``);
   when the charts' data was asked and when the first answer had arrived (resource timing),
   and when plotly.js had run (its script evaluated); medians.
   The first load after the server loaded is reported apart: it also waits for the server's
   first grouped charts, which later loads find in its cache;
2. the Runs tab: once it has settled (its first page drawn, and plotly.js run: the page runs
   it 1.5 s after its load on every tab, the longest task of its first seconds, reported
   apart), the table (``.runs-scroll``) is scrolled by the page itself, one step per
   animation frame: a fling (``--fling-rows`` rows a frame, from the top over
   ``--fling-distance`` rows) and a drag of the scrollbar (from the top to the bottom in
   ``--drag-frames`` frames), then until the rows in view are drawn. The frame times are the
   intervals between ``requestAnimationFrame`` callbacks, those of every repeat together:
   their median, p95 and max, the frames over 50 ms, the frames that showed rows still
   loading, and the long tasks (> 50 ms) a ``PerformanceObserver`` saw.

The page keeps refreshing as a user's does (its auto-refresh, every 2 s by default): what
it fetches then counts too. The load average is printed with the figures: the page's main
thread shares the machine's cores with the server and whatever else runs. ``--trace DIR``
records a Chromium trace (with its JavaScript sampling profile) of one more load of each
kind, writes them to DIR (for DevTools' Performance panel) and prints where the page's main
thread spent its time.

Targets (issue 25): in Chromium, the first grouped chart drawn <= 1.5 s after navigation;
scrolling the runs table keeps every frame under 50 ms.

Run::

    python benchmarks/bench_sweeps_ui.py --dir /tmp/vdl-sweeps                 # 30,000 runs, kept
    python benchmarks/bench_sweeps_ui.py --dir /tmp/vdl-sweeps --trace /tmp/t  # and where the time goes
    python benchmarks/bench_sweeps_ui.py --quick                               # 300 runs x 20 steps
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import bench_server as bs  # noqa: E402  (its server subprocess)
import bench_sweeps as bsw  # noqa: E402  (the sweep's logdir)
from bench_ui import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

VIEWPORT = {"width": 1440, "height": 900}
FIRST_CHART_MS = 1500.0
FRAME_MS = 50.0
TRACE_CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-v8.cpu_profiler",
    "blink.user_timing",
    "toplevel",
    "v8",
]

MARKED_JS = "() => performance.getEntriesByName('visualdl:first-chart').length > 0"
# After the first chart's mark: the marks, the API's resource timing, and whether a chart
# drawn is grouped (a band of its members' values drawn).
CHART_FIGURES_JS = """() => {
    const marks = Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]));
    const api = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/'));
    const scalars = api.filter((e) => e.name.includes('/api/scalars?'));
    const of = (path) => api.find((e) => new URL(e.name).pathname === path);
    const plots = [...document.querySelectorAll('#panel-scalars .js-plotly-plot')];
    return {
        drawn_ms: Math.min(marks['visualdl:first-chart'], marks['visualdl:first-chart-preview'] ?? Infinity),
        first_chart_ms: marks['visualdl:first-chart'],
        preview_ms: marks['visualdl:first-chart-preview'] ?? null,
        plotly_ran_ms: window.__plotlyRanAt ?? null,
        runs_answered_ms: of('/api/runs')?.responseEnd ?? null,
        tags_answered_ms: of('/api/tags')?.responseEnd ?? null,
        runs_list_bytes: of('/api/runs')?.decodedBodySize ?? null,
        tags_bytes: of('/api/tags')?.decodedBodySize ?? null,
        scalars_asked_ms: scalars.length ? Math.min(...scalars.map((e) => e.startTime)) : null,
        scalars_answered_ms: scalars.length ? Math.min(...scalars.map((e) => e.responseEnd)) : null,
        chart_bytes: scalars.length ? Math.max(...scalars.map((e) => e.decodedBodySize)) : null,
        grouped: plots.some((p) => (p.data ?? []).some((t) => String(t.meta?.kind ?? '').startsWith('band'))),
    };
}"""
# The Runs tab settled: its first page drawn, and plotly.js run (app.js runs it 1.5 s after
# the page's load on every tab: the longest task of a page's first seconds).
SETTLED_JS = """() => {
    const box = document.querySelector('#panel-runs .runs-scroll');
    window.__firstPageAt ??= box?.querySelector('tr[data-run]') ? performance.now() : undefined;
    return Boolean(window.__firstPageAt && window.Plotly && !box.querySelector('tr.runs-loading'));
}"""
# Before the page's own scripts: every long task of the page, kept (start, duration), and when
# plotly.js had run (its bundle sets window.Plotly as its script's evaluation ends).
INIT_JS = """window.__longTasks = [];
new PerformanceObserver((list) => list.getEntries().forEach((e) => window.__longTasks.push([e.startTime, e.duration])))
    .observe({ type: 'longtask' });
(() => {
    let plotly;
    Object.defineProperty(window, 'Plotly', { configurable: true, get: () => plotly, set: (value) => {
        plotly = value;
        window.__plotlyRanAt ??= performance.now();
    } });
})();"""
LANDING_JS = """() => ({ first_page_ms: window.__firstPageAt, tasks: window.__longTasks.length,
                     longest_ms: Math.max(0, ...window.__longTasks.map(([, d]) => d)) })"""
# Scrolls the runs table from the top, one step a frame: `rows` rows a frame over `distance`
# rows, or (rows null) to the bottom in `frames` frames; then frames until no row in view is
# loading (10 s at most). The intervals between animation frames, and the long tasks seen.
SCROLL_JS = """async ({ rowPx, rows, distance, frames }) => {
    const box = document.querySelector('#panel-runs .runs-scroll');
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    const loading = () => box.querySelector('tr.runs-loading') !== null;
    box.scrollTop = 0;
    for (let i = 0; i < 600 && (loading() || i < 2); i++) await frame();
    const long = [];
    const observer = new PerformanceObserver((list) => list.getEntries().forEach((e) => long.push(e.duration)));
    observer.observe({ type: 'longtask' });
    performance.mark('bench:scroll-start');
    const span = box.scrollHeight - box.clientHeight;
    const end = rows === null ? span : Math.min(span, distance * rowPx);
    const step = rows === null ? end / frames : rows * rowPx;
    const intervals = [];
    let blank = 0;
    let last = await frame();
    for (let top = step; ; top += step) {
        box.scrollTop = Math.min(top, end);
        const now = await frame();
        intervals.push(now - last);
        last = now;
        if (loading()) blank += 1;
        if (top >= end) break;
    }
    const scrolled = intervals.length;
    const until = last + 10000;
    while (loading() && last < until) {
        const now = await frame();
        intervals.push(now - last);
        last = now;
    }
    await new Promise((resolve) => setTimeout(resolve, 0));  // the observer's last entries
    observer.disconnect();
    performance.mark('bench:scroll-end');
    return { intervals, scrolled, blank, long, top: box.scrollTop, loading: loading() };
}"""


def checkout() -> str:
    """The checkout's revision, and its code folders with changes not committed: what was measured."""
    try:
        git = ["git", "-C", os.path.dirname(HERE)]
        code = ["frontend_static", "server", "visualdl", "sdk"]
        head, status = (
            subprocess.run([*git, *cmd], capture_output=True, text=True, check=True)
            for cmd in (["rev-parse", "--short", "HEAD"], ["status", "--porcelain", "--", *code])
        )
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"
    changed = sorted({line[3:].split("/")[0] for line in status.stdout.splitlines()})
    return head.stdout.strip() + (f", changes not committed in {', '.join(changed)}" if changed else "")


def wait_listed(server: bs.Server, runs: int, timeout: float) -> float:
    """Seconds from the server's start until it has loaded and its runs table lists ``runs`` runs."""
    conn = bs.wait_loaded(server, timeout)
    try:
        deadline = time.perf_counter() + timeout
        while (total := bs.get_json(conn, "/api/runs/table?limit=1")["total"]) != runs:
            server.check_alive()
            if time.perf_counter() > deadline:
                raise TimeoutError(f"the runs table lists {total} runs after {timeout:.0f} s, not {runs}")
            time.sleep(0.1)
    finally:
        conn.close()
    return time.perf_counter() - server.started


@contextlib.contextmanager
def tracing(browser: Any, page: Any, path: str | None) -> Iterator[None]:
    """A Chromium trace of ``page`` while in the block, written to ``path`` (None: no trace)."""
    if path is None:
        yield
        return
    browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
    try:
        yield
    finally:
        trace = browser.stop_tracing()
        with open(path, "wb") as f:
            f.write(trace)


def first_chart(browser: Any, url: str, timeout_ms: float, trace: str | None = None) -> dict[str, Any]:
    """One cold load of the Scalars tab until its first chart is drawn; ``trace``: recorded there."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.add_init_script(INIT_JS)
        with tracing(browser, page, trace):
            page.goto(url + "#scalars", wait_until="commit")
            page.wait_for_function(MARKED_JS, polling="raf", timeout=timeout_ms)
            figures: dict[str, Any] = page.evaluate(CHART_FIGURES_JS)
        if not figures["grouped"]:
            raise RuntimeError(f"the first chart drawn at {url} is not grouped: no band drawn")
        return figures
    finally:
        context.close()


def scroll(browser: Any, url: str, mode: dict[str, Any], timeout_ms: float, trace: str | None = None) -> dict[str, Any]:
    """The Runs tab settled, then its table scrolled by ``SCROLL_JS`` with ``mode``; ``landing``:
    the first page's ms after navigation and the long tasks until the tab settled."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.add_init_script(INIT_JS)
        page.goto(url + "#runs", wait_until="commit")
        page.wait_for_function(SETTLED_JS, polling="raf", timeout=timeout_ms)
        landing = page.evaluate(LANDING_JS)
        with tracing(browser, page, trace):
            out: dict[str, Any] = page.evaluate(SCROLL_JS, {"rowPx": row_px(page), **mode})
        out["landing"] = landing
        return out
    finally:
        context.close()


def row_px(page: Any) -> float:
    """The height of one row of the runs table, as drawn."""
    return float(page.evaluate("() => document.querySelector('#panel-runs .runs-scroll tr[data-run]').offsetHeight"))


def frame_figures(samples: list[dict[str, Any]]) -> dict[str, float]:
    """The frames of every sample together: their median, p95 and max, those over 50 ms."""
    frames = sorted(f for s in samples for f in s["intervals"])
    long = [d for s in samples for d in s["long"]]
    return {
        "frames": len(frames),
        "median_ms": statistics.median(frames),
        "p95_ms": frames[min(len(frames) - 1, int(0.95 * len(frames)))],
        "max_ms": frames[-1],
        "over_50_ms": sum(f > FRAME_MS for f in frames),
        "loading_frames": sum(s["blank"] for s in samples),
        "long_tasks": len(long),
        "longest_task_ms": max(long, default=0.0),
    }


def medians(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """The median of each figure over the samples (a figure missing in one is left out)."""
    keys = [k for k, v in samples[0].items() if isinstance(v, int | float) and not isinstance(v, bool)]
    return {k: statistics.median(s[k] for s in samples) for k in keys if all(s.get(k) is not None for s in samples)}


# -- where the main thread's time goes, from a trace ------------------------------------


def main_thread_profile(path: str, start: str, end: str) -> list[str]:
    """Lines saying where the page's main thread spent its time between the user-timing
    events ``start`` (a mark, or ``navigationStart`` of the page's URL) and ``end``: the
    JavaScript sampling profile by script (each sample to plotly.js, the garbage collector,
    Chromium's own work, or the innermost function of the page's own modules), Chromium's
    layout, style and paint, and the tasks over 50 ms."""
    with open(path, "rb") as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    marks = [e for e in events if e.get("cat") == "blink.user_timing" and e.get("ph") in ("I", "R", "n")]
    ends = [e for e in marks if e["name"] == end]
    pid, tid = (ends[0]["pid"], ends[0]["tid"]) if ends else (None, None)
    starts = [
        e
        for e in marks
        if e["name"] == start
        and (e["pid"], e["tid"]) == (pid, tid)
        and e["ts"] <= ends[0]["ts"]
        and (start != "navigationStart" or e["args"].get("data", {}).get("documentLoaderURL"))
    ]
    if not starts or not ends:
        return [f"  (no {start} or {end} in the trace)"]
    t0, t1 = starts[-1]["ts"], ends[0]["ts"]
    on_main = [e for e in events if e.get("pid") == pid and e.get("tid") == tid]

    nodes: dict[Any, dict[str, Any]] = {}
    parents: dict[Any, Any] = {}
    times: dict[Any, float] = {}
    samples: list[tuple[float, Any, float]] = []  # (ts, node, ms)
    for e in events:  # the main thread's profile (its chunks come from the profiler's thread)
        if e.get("pid") != pid:
            continue
        if e.get("name") == "Profile" and e.get("tid") == tid:
            times[e["id"]] = e["args"]["data"]["startTime"]
        elif e.get("name") == "ProfileChunk" and e.get("id") in times:
            chunk = e["args"]["data"]
            profile = chunk.get("cpuProfile", {})
            for node in profile.get("nodes", []):
                nodes[(e["id"], node["id"])] = node["callFrame"]
                if "parent" in node:
                    parents[(e["id"], node["id"])] = (e["id"], node["parent"])
            for node_id, delta in zip(profile.get("samples", []), chunk.get("timeDeltas", []), strict=False):
                times[e["id"]] = times.get(e["id"], 0.0) + delta
                samples.append((times[e["id"]], (e["id"], node_id), delta / 1e3))

    def where(node: Any) -> str:
        frame = nodes.get(node, {})
        name, script = frame.get("functionName", ""), frame.get("url", "").rsplit("/", 1)[-1].split("?")[0]
        if name in ("(idle)", "(program)", "(root)", "(garbage collector)"):
            return "idle" if name == "(idle)" else "GC" if name == "(garbage collector)" else "Chromium (not JS)"
        plotly = "plotly" in script
        while node in nodes:  # the innermost frame of the page's own modules
            frame = nodes[node]
            script = frame.get("url", "").rsplit("/", 1)[-1].split("?")[0]
            if script.endswith(".js") and "plotly" not in script:
                own = f"{script} {frame.get('functionName') or '(anonymous)'}"
                return f"plotly.js in {own}" if plotly else own
            node = parents.get(node)
        return "plotly.js loading" if plotly else name or "(native)"

    tasks = [
        (e["ts"], e["ts"] + e["dur"])
        for e in on_main
        if e.get("ph") == "X" and e.get("name") == "RunTask" and t0 <= e["ts"] <= t1 and e.get("dur", 0) > 50e3
    ]
    spent: defaultdict[str, float] = defaultdict(float)
    in_long: defaultdict[str, float] = defaultdict(float)
    for ts, node, ms in samples:
        if t0 <= ts <= t1:
            spent[where(node)] += ms
            if any(a <= ts <= b for a, b in tasks):
                in_long[where(node)] += ms
    chromium: defaultdict[str, float] = defaultdict(float)
    names = {"Layout": "layout", "UpdateLayoutTree": "style", "Paint": "paint", "ParseHTML": "HTML parsing",
             "EvaluateScript": "scripts evaluated", "v8.compile": "scripts compiled"}  # fmt: skip
    for e in on_main:
        if e.get("ph") == "X" and e.get("name") in names and t0 <= e["ts"] <= t1:
            chromium[names[e["name"]]] += e.get("dur", 0) / 1e3

    def top(counts: dict[str, float], n: int) -> str:
        return ", ".join(f"{name} {ms:,.0f}" for name, ms in sorted(counts.items(), key=lambda kv: -kv[1])[:n])

    busy = sum(ms for name, ms in spent.items() if name != "idle")
    lines = [f"  {(t1 - t0) / 1e3:,.0f} ms from {start} to {end}; main thread busy {busy:,.0f} ms, by the profile:"]
    lines.append(f"    {top(spent, 12)}")
    lines.append(f"  Chromium's own (ms): {top(chromium, 6) or '-'}")
    long_ms = sum((b - a) / 1e3 for a, b in tasks)
    lines.append(f"  tasks over 50 ms: {len(tasks)}, {long_ms:,.0f} ms in all; in them: {top(in_long, 8) or '-'}")
    return lines


# -- the run ------------------------------------------------------------------------------


def row(label: str, value: float | None, target: str = "", ok: bool | None = None, digits: int = 1) -> None:
    shown = "-" if value is None else f"{value:,.{digits}f}"
    verdict = "" if ok is None else "ok" if ok else "MISS"
    print(f"{label:<72} {shown:>10} {target:>8} {verdict:>4}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", default=None, help="where the logdir is built and kept (bench_sweeps.py's --dir)")
    parser.add_argument("--runs", type=int, default=None, help="default 30,000, quick 300")
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--tags", type=int, default=4)
    parser.add_argument("--steps", type=int, default=None, help="default 200, quick 20")
    parser.add_argument("--repeats", type=int, default=None, help="fresh browser contexts (default 5, quick 2)")
    parser.add_argument("--fling-rows", type=int, default=10, help="rows scrolled a frame in the fling")
    parser.add_argument("--fling-distance", type=int, default=6000, help="rows the fling scrolls over")
    parser.add_argument("--drag-frames", type=int, default=120, help="frames of the drag from top to bottom")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds for the server to load")
    parser.add_argument("--page-timeout", type=float, default=120.0, help="seconds for a page to draw")
    parser.add_argument("--trace", default=None, help="a folder: one more load of each kind traced there")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    runs = args.runs or (300 if args.quick else 30_000)
    steps = args.steps or (20 if args.quick else 200)
    repeats = args.repeats or (2 if args.quick else 5)
    timeout_ms = 1e3 * args.page_timeout
    from playwright.sync_api import sync_playwright

    root = args.dir or tempfile.mkdtemp(prefix="vdl-sweeps-ui-")
    result: dict[str, Any] = {"runs": runs, "tags": args.tags, "steps": steps, "groups": args.groups}
    result["repeats"] = repeats
    result["checkout"] = checkout()

    def part(name: str, figures: Any) -> None:  # each part as it is done: a long run loses none
        result[name] = figures
        print(json.dumps({name: figures}), file=sys.stderr, flush=True)

    drag = {"rows": None, "distance": None, "frames": args.drag_frames}
    fling = {"rows": args.fling_rows, "distance": args.fling_distance, "frames": None}
    try:
        logdir, built = bsw.ensure(root, "visualdl", runs, args.groups, args.tags, steps)
        if built is not None:
            result["built_s"] = round(built, 1)
        result["load_average_before"] = [round(x, 2) for x in os.getloadavg()]
        server = bs.visualdl_server(logdir)
        server.start()
        try:
            part("server_listed_s", round(wait_listed(server, runs, args.timeout), 1))
            url = f"http://127.0.0.1:{server.port}/"
            cpu0, wall0 = server.cpu_seconds(), time.perf_counter()
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                part("chart_server_cold", first_chart(browser, url, timeout_ms))
                charts = [first_chart(browser, url, timeout_ms) for _ in range(repeats)]
                part("chart", medians(charts))
                result["chart_drawn_ms_each"] = [round(c["drawn_ms"]) for c in charts]
                landings = []
                for name, mode in (("fling", fling), ("drag", drag)):
                    samples = [scroll(browser, url, mode, timeout_ms) for _ in range(repeats)]
                    landings += [s["landing"] for s in samples]
                    figures = frame_figures(samples)
                    figures["rows_per_frame"] = mode["rows"] or round(runs / samples[0]["scrolled"], 1)
                    figures["scrolled_frames"] = samples[0]["scrolled"]
                    figures["still_loading_at_end"] = sum(bool(s["loading"]) for s in samples)
                    part(name, figures)
                part("runs_tab", medians(landings))
                if args.trace:
                    os.makedirs(args.trace, exist_ok=True)
                    first_chart(browser, url, timeout_ms, os.path.join(args.trace, "scalars-trace.json"))
                    for name, mode in (("fling", fling), ("drag", drag)):
                        scroll(browser, url, mode, timeout_ms, os.path.join(args.trace, f"runs-{name}-trace.json"))
                browser.close()
            result["server_cpu_per_wall_s"] = round((server.cpu_seconds() - cpu0) / (time.perf_counter() - wall0), 2)
        finally:
            server.stop()
        result["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)
        bs.stop_all()

    print(json.dumps(result, indent=1))
    print()
    print(f"{runs:,} runs x {args.tags} tags x {steps} steps ({logdir}); Chromium {VIEWPORT['width']}x"
          f"{VIEWPORT['height']}, {repeats} fresh contexts each; {os.cpu_count()} CPUs, load average "
          f"(1, 5, 15 min) {result['load_average_before']} before, {result['load_average_after']} after; "
          f"checkout {result['checkout']}")  # fmt: skip
    header = f"{'measure (medians)':<72} {'value':>10} {'target':>8} {'':>4}"
    print(header)
    print("-" * len(header))
    row("server loaded, every run listed, s after its start (--reload-interval 2)", result["server_listed_s"])
    c, cold = result["chart"], result["chart_server_cold"]
    target = f"<= {FIRST_CHART_MS:.0f}"
    label, first = "first grouped chart drawn (SVG preview or plotly), ms after navigation", c["drawn_ms"]
    row(label, first, target, first <= FIRST_CHART_MS)
    first = c["first_chart_ms"]
    row("  drawn by plotly.js, ms", first, target, first <= FIRST_CHART_MS)
    row("  /api/runs and /api/tags answered, ms", max(c["runs_answered_ms"], c["tags_answered_ms"]))
    row("  charts' data asked (/api/scalars sent), ms", c["scalars_asked_ms"])
    row("  first chart's data arrived, ms", c["scalars_answered_ms"])
    row("  plotly.js run (its script evaluated), ms", c.get("plotly_ran_ms"))
    row("  from the data's arrival to the chart drawn, ms", first - c["scalars_answered_ms"])
    for label, key in (("/api/runs", "runs_list_bytes"), ("/api/tags", "tags_bytes"), ("one chart's", "chart_bytes")):
        row(f"  {label} answer, MB (uncompressed)", c[key] / 1e6, digits=2)
    first = cold["drawn_ms"]
    row("first load after the server loaded (its first grouped charts), ms", first, target, first <= FIRST_CHART_MS)
    row("  drawn by plotly.js, ms", cold["first_chart_ms"])
    row("  first chart's data arrived, ms", cold["scalars_answered_ms"])
    t = result["runs_tab"]
    row("Runs tab: first page of the table drawn, ms after navigation", t["first_page_ms"])
    row("  longest task before it settled (plotly.js run 1.5 s after load), ms", t["longest_ms"], digits=0)
    under = f"< {FRAME_MS:.0f}"
    for name in ("fling", "drag"):
        f = result[name]
        label = f"runs table, {name} ({f['rows_per_frame']:g} rows a frame, {f['scrolled_frames']} frames) x {repeats}"
        row(f"{label}: median frame, ms", f["median_ms"], under, f["median_ms"] < FRAME_MS)
        row("  p95 frame, ms", f["p95_ms"], under, f["p95_ms"] < FRAME_MS)
        row("  max frame, ms", f["max_ms"], under, f["max_ms"] < FRAME_MS)
        row(f"  frames over 50 ms (of {f['frames']:.0f})", f["over_50_ms"], "0", f["over_50_ms"] == 0, 0)
        row("  frames showing rows still loading", f["loading_frames"], digits=0)
        row("  long tasks (> 50 ms)", f["long_tasks"], digits=0)
        row("  longest task, ms", f["longest_task_ms"], digits=0)
    row("server CPU while the browser ran, s per wall s", result["server_cpu_per_wall_s"], digits=2)
    print(f"targets: first grouped chart <= {FIRST_CHART_MS:.0f} ms after navigation; "
          f"every frame of the runs table's scroll < {FRAME_MS:.0f} ms")  # fmt: skip
    if args.trace:
        print(f"traces in {args.trace} (open them in DevTools' Performance panel):")
        print("Scalars tab, one more cold load (scalars-trace.json):")
        trace = os.path.join(args.trace, "scalars-trace.json")
        print("\n".join(main_thread_profile(trace, "navigationStart", "visualdl:first-chart")))
        for name in ("fling", "drag"):
            print(f"runs table, one more {name} (runs-{name}-trace.json):")
            trace = os.path.join(args.trace, f"runs-{name}-trace.json")
            print("\n".join(main_thread_profile(trace, "bench:scroll-start", "bench:scroll-end")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
