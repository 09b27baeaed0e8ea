"""Sweep benchmark: thousands of runs compared, on the server and beside TensorBoard.

The logdir: ``--runs`` (30,000) runs ``lr{lr}/seed{seed}`` of ``--groups`` (10) learning
rates, each with its hparams (lr, seed, opt) and ``--tags`` (4) scalar tags x ``--steps``
(200) steps; and the same values as TensorBoard event files (written record by record,
``bench_scale.write_tfevents``). Built once and kept in ``--dir``.

Measured in this process (the server's app, ``create_app``, after its first full poll):

1. the cold load (seconds: the first full poll, then the lists of runs and tags and the
   runs table, as the server's reload thread builds them after each poll, apart) and the
   process's RSS growth per point;
2. the runs table's first page (``/api/runs/table?limit=200``), the first request after load
   and again (medians of ``--repeats``); a page filtered by a query over an hparam and a
   metric's minimum, sorted by that minimum (first: every run's summary of the tag computed);
3. a grouped chart of every run (``/api/scalars?tag=T&group_by=lr``: ``--groups`` lines with
   bands), the first request of each tag and again (medians over the tags);
4. a chart of 500 runs selected by a query (``where=``), grouped automatically.

And as servers, each a fresh process (``--no-tensorboard``: ours only): from the process's
start until the run list holds every run and until a first chart is complete (ours: the
grouped chart of every run, every point of every run in it; TensorBoard
``--load_fast=true``: one tag of the last run, which is what its first chart draws), and
the peak RSS of the server's process tree.

Targets (issue 25): the runs table's first page <= 100 ms after load; a grouped chart of all
30,000 runs (10 groups) <= 200 ms on the server.

Run::

    python benchmarks/bench_sweeps.py --dir /tmp/vdl-sweeps      # 30,000 runs, kept
    python benchmarks/bench_sweeps.py --quick                    # 3,000 runs x 4 tags x 50 steps
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any
from urllib.parse import urlencode

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import bench_interop as bi  # noqa: E402  (process trees' RSS)
import bench_scale as bsc  # noqa: E402  (TensorBoard event files, written fast)
import bench_server as bs  # noqa: E402  (servers)

perf_counter = time.perf_counter
TAGS = ("train/loss", "eval/loss", "eval/acc", "lr")
T0 = 1_700_000_000.0


def _lrs(groups: int) -> list[float]:
    return [round(0.01 * (i + 1), 2) for i in range(groups)]


def _names(runs: int, groups: int) -> list[tuple[str, float, int]]:
    """(run name, lr, seed) of every run: ``runs // groups`` seeds per learning rate."""
    seeds = runs // groups
    return [(f"lr{lr}/seed{seed}", lr, seed) for lr in _lrs(groups) for seed in range(seeds)]


def _table(lr: float, seed: int, tags: int, steps: int) -> np.ndarray:
    """A run's values, steps x tags: decaying losses with the seed's noise."""
    rng = np.random.default_rng(seed * 1000 + int(lr * 100))
    step = np.arange(steps)[:, None]
    base = np.array([2.0, 2.5, 0.1, lr])[:tags]
    decay = 1.0 / (1.0 + lr * step)
    return base * decay + 0.01 * rng.standard_normal((steps, tags))


def _write(args: tuple[str, str, list[tuple[str, float, int]], int, int]) -> None:
    logdir, kind, runs, tags, steps = args
    names = list(TAGS[:tags])
    if kind == "tfevents":
        for name, lr, seed in runs:
            bsc.write_tfevents(
                os.path.join(logdir, name),
                f"events.out.tfevents.{int(T0)}.bench",
                names,
                _table(lr, seed, tags, steps),
                T0,
            )
        return
    from visualdl import LogWriter

    for name, lr, seed in runs:
        table = _table(lr, seed, tags, steps)
        with LogWriter(os.path.join(logdir, name), max_queue=1 << 20) as w:
            w.add_hparams({"lr": lr, "seed": seed, "opt": "adam" if seed % 2 else "sgd"}, names)
            for step, row in enumerate(table.tolist()):
                for tag, value in zip(names, row, strict=True):
                    w.add_scalar(tag, value, step, T0 + step * 0.1)


def ensure(root: str, kind: str, runs: int, groups: int, tags: int, steps: int) -> tuple[str, float | None]:
    logdir = os.path.join(root, f"sweep-{kind}-{runs}x{tags}x{steps}g{groups}")
    manifest = logdir + ".json"
    want = {"runs": runs, "groups": groups, "tags": tags, "steps": steps, "kind": kind, "version": 1}
    if os.path.isfile(manifest) and os.path.isdir(logdir):
        with open(manifest) as f:
            if json.load(f) == want:
                return logdir, None
    shutil.rmtree(logdir, ignore_errors=True)
    started = perf_counter()
    every = _names(runs, groups)
    workers = max(1, min(os.cpu_count() or 1, 4))
    parts = [(logdir, kind, every[w::workers], tags, steps) for w in range(workers)]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        list(pool.map(_write, parts))
    with open(manifest, "w") as f:
        json.dump(want, f)
    return logdir, perf_counter() - started


def in_process(logdir: str, runs: int, groups: int, tags: int, steps: int, repeats: int) -> dict[str, Any]:
    from visualdl.server._settings import Settings
    from visualdl.server.app import create_app

    rss0 = bi.status_kb(os.getpid(), "VmRSS")
    app = create_app(Settings(logdirs=(("", logdir),), background=False))
    provider = app.extensions["visualdl.provider"]
    started = perf_counter()
    provider.poll()
    polled = perf_counter()
    provider.list_kinds()  # what the server's reload thread builds after each poll
    provider.runs_table()
    out: dict[str, Any] = {
        "cold_load_s": round(perf_counter() - started, 2),
        "lists_and_table_built_s": round(perf_counter() - polled, 2),
    }
    points = runs * tags * steps
    out["rss_bytes_per_point"] = round((bi.status_kb(os.getpid(), "VmRSS") - rss0) * 1024 / points, 1)
    client = app.test_client()

    def timed(path: str, query: dict[str, Any]) -> tuple[float, Any]:
        t = perf_counter()
        answer = client.get(path, query_string=query)
        ms = (perf_counter() - t) * 1e3
        if answer.status_code != 200:
            raise RuntimeError(f"{path} {query}: {answer.status_code} {answer.get_data()[:300]!r}")
        return ms, answer.get_json()

    ms, page = timed("/api/runs/table", {"limit": 200})
    assert page["total"] == runs, page["total"]
    out["table_first_page_first_ms"] = round(ms, 1)
    out["table_first_page_ms"] = round(
        statistics.median(timed("/api/runs/table", {"limit": 200})[0] for _ in range(repeats)), 1
    )
    lrs = _lrs(groups)
    query = {
        "where": f"lr <= {lrs[len(lrs) // 2]} and eval/loss.min < 1.0",
        "sort": "eval/loss.min",
        "metric": "eval/loss",
        "limit": 200,
    }
    ms, page = timed("/api/runs/table", query)
    out["table_query_sorted_first_ms"] = round(ms, 1)
    out["table_query_matched"] = page["matched"]
    out["table_query_sorted_ms"] = round(
        statistics.median(timed("/api/runs/table", query)[0] for _ in range(repeats)), 1
    )
    firsts, again = [], []
    for tag in TAGS[:tags]:
        ms, chart = timed("/api/scalars", {"tag": tag, "group_by": "lr"})
        assert len(chart["runs"]) == groups and sum(len(g["group"]["members"]) for g in chart["runs"]) == runs
        firsts.append(ms)
        again.append(
            statistics.median(timed("/api/scalars", {"tag": tag, "group_by": "lr"})[0] for _ in range(repeats))
        )
    out["grouped_chart_first_ms"] = round(statistics.median(firsts), 1)
    out["grouped_chart_cached_ms"] = round(statistics.median(again), 1)
    out["grouped_chart_bytes"] = len(json.dumps(chart))
    where = f"seed < {max(1, 500 // groups)}"
    ms, chart = timed("/api/scalars", {"tag": TAGS[0], "where": where, "group_by": ":auto"})
    out["where_500_auto_groups_ms"] = round(ms, 1)
    out["where_500_runs"] = sum(len(g["group"]["members"]) for g in chart["runs"])
    out["where_500_groups"] = len(chart["runs"])
    return out


def _first_chart_path(server: str, runs: list[tuple[str, float, int]], tag: str) -> str:
    if server == "tensorboard":
        return f"/data/plugin/scalars/scalars?{urlencode({'run': runs[-1][0], 'tag': tag})}"
    return f"/api/scalars?{urlencode({'tag': tag, 'group_by': 'lr'})}"


def as_server(logdir: str, kind: str, runs: int, groups: int, steps: int) -> dict[str, Any]:
    """Start until every run is listed and a first chart is complete; the peak RSS."""
    every = _names(runs, groups)
    tag = TAGS[0]
    server = (
        bs.tensorboard_server(logdir, ("--load_fast=true",)) if kind == "tensorboard" else bs.visualdl_server(logdir)
    )
    list_path = "/data/runs" if kind == "tensorboard" else "/api/runs/table?limit=1"

    def listed(conn: http.client.HTTPConnection) -> bool:
        status, body = bs.get(conn, list_path)
        if status != 200:
            return False
        data = json.loads(body)
        return (len(data) if kind == "tensorboard" else data["total"]) == runs

    def charted(conn: http.client.HTTPConnection) -> bool:
        status, body = bs.get(conn, _first_chart_path(kind, every, tag))
        if status != 200:
            return False
        data = json.loads(body)
        if kind == "tensorboard":
            return bool(data) and data[-1][1] == steps - 1
        # complete: every member of every group read to its last step (total_points counts them)
        return sum(g["total_points"] for g in data["runs"]) == runs * steps

    out: dict[str, Any] = {}
    with server:
        passed = bs.seconds_until(server, {"listed": listed, "charted": charted}, 3600.0)
        out["run_list_after_start_s"] = round(passed["listed"], 1)
        out["first_chart_after_start_s"] = round(passed["charted"], 1)
        out["peak_rss_mb"] = round(bi.tree_kb(server, "VmHWM") / 1024, 1)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", default=None, help="where the logdirs are built and kept")
    parser.add_argument("--runs", type=int, default=None, help="default 30,000, quick 3,000")
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--tags", type=int, default=4)
    parser.add_argument("--steps", type=int, default=None, help="default 200, quick 50")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-servers", action="store_true", help="in-process figures only")
    parser.add_argument("--no-tensorboard", action="store_true")
    args = parser.parse_args()
    runs = args.runs or (3000 if args.quick else 30_000)
    steps = args.steps or (50 if args.quick else 200)
    root = args.dir or tempfile.mkdtemp(prefix="vdl-sweeps-")
    try:
        ours, built = ensure(root, "visualdl", runs, args.groups, args.tags, steps)
        result: dict[str, Any] = {"runs": runs, "tags": args.tags, "steps": steps, "groups": args.groups}
        if built is not None:
            result["built_ours_s"] = round(built, 1)

        def part(name: str, figures: dict[str, Any]) -> None:  # each part as it is done: a long run loses none
            result[name] = figures
            print(json.dumps({name: figures}), file=sys.stderr, flush=True)

        part("in_process", in_process(ours, runs, args.groups, args.tags, steps, args.repeats))
        if not args.no_servers:
            part("visualdl_server", as_server(ours, "visualdl", runs, args.groups, steps))
            if not args.no_tensorboard:
                theirs, built = ensure(root, "tfevents", runs, args.groups, args.tags, steps)
                if built is not None:
                    result["built_tfevents_s"] = round(built, 1)
                part("tensorboard_server", as_server(theirs, "tensorboard", runs, args.groups, steps))
        print(json.dumps(result, indent=1))
        p = result["in_process"]
        print(
            f"runs table first page {p['table_first_page_first_ms']} ms after load, "
            f"{p['table_first_page_ms']} ms again "
            f"(target <= 100 ms); grouped chart of all {runs:,} runs {p['grouped_chart_first_ms']} ms first, "
            f"{p['grouped_chart_cached_ms']} ms again (target <= 200 ms)"
        )
    finally:
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)
        bs.stop_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
