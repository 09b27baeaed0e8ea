"""Scale benchmark: memory and speed on logdirs of 40M and 100M points, beside TensorBoard's Rust data server.

Two logdirs, each in our format (``LogWriter``) and as TensorBoard event files (written
here record by record, TFRecord-framed ``Event`` protos with CRC-32C, the values of ours):

* ``long``: 10 runs x 20 tags x 200,000 steps (40,000,000 points);
* ``many``: 10,000 runs x 10 tags x 1,000 steps (100,000,000 points).

Built once and kept in ``--dir`` (reused while their manifest matches). The page cache
is warmed before each server starts; every server is a fresh process. Measured, for
``visualdl --logdir`` and for ``tensorboard --load_fast=true`` (its Rust data server) in
the same run:

``long``: cold start to every run's full chart of one tag; a chart of every tag; a zoom
to a 1,000-step window of one run (ours: one request for the range, every step; theirs:
the points of its 1,000-point reservoir inside the window); the peak RSS of the server's
processes.

Each figure is the median of ``--repeats`` fresh servers (3) on ``long`` and of
``--many-repeats`` (1: TensorBoard takes a minute per start) on ``many``.

``many``: from the start until the run list holds every run, and until a chart of one
tag of the last run is complete; then the run list (ours ``/api/runs``, theirs
``/data/runs``) and our ``/api/tags`` warm (medians of 5); a chart of one tag over 50
runs (ours one request, theirs one per run), first and repeated; the peak RSS.

Targets (issue 16): ``long`` peak RSS <= 500 MB and full chart <= 3 s; ``many`` peak RSS
<= 1 GB, the run list at once, a chart of any tag <= 2 s after start, a 50-run chart <=
100 ms, ``/api/runs`` and ``/api/tags`` <= 50 ms.

Run::

    python benchmarks/bench_scale.py --dir /tmp/bench-scale   # building ~10 min the first time
    python benchmarks/bench_scale.py --quick                  # small logdirs: about 30 s
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import shutil
import signal
import statistics
import struct
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from typing import Any
from urllib.parse import urlencode

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import bench_interop as bi  # noqa: E402  (process trees' RSS)
import bench_reader as br  # noqa: E402  (shapes, values, the LogWriter builder)
import bench_server as bs  # noqa: E402  (servers, cold starts)

perf_counter = time.perf_counter
LONG = br.Shape(10, 20, 200_000)
MANY = br.Shape(10_000, 10, 1_000)
QUICK_LONG = br.Shape(4, 5, 20_000)
QUICK_MANY = br.Shape(300, 5, 100)
T0 = 1_700_000_000.0


# -- TensorBoard event files, written fast -------------------------------------------------------


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def write_tfevents(directory: str, name: str, tags: list[str], table: Any, t0: float = T0) -> None:
    """TensorBoard event file ``name`` in ``directory``: ``table`` (steps x tags) as one scalar
    summary per step and tag, wall times ``t0 + step * 0.1``, record by record as TensorFlow
    frames them (length, masked CRC-32C of it, the Event, masked CRC-32C of it)."""
    import google_crc32c

    def masked(data: bytes) -> bytes:
        crc = google_crc32c.value(data)
        return struct.pack("<I", (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF)

    def record(payload: bytes) -> bytes:
        head = struct.pack("<Q", len(payload))
        return head + masked(head) + payload + masked(payload)

    encoded = [t.encode() for t in tags]
    os.makedirs(directory, exist_ok=True)
    pack_d, pack_f = struct.Struct("<d").pack, struct.Struct("<f").pack
    with open(os.path.join(directory, name), "wb") as f:
        f.write(record(b"\x09" + pack_d(t0) + b"\x1a\x0dbrain.Event:2"))
        chunk = []
        for step, row in enumerate(table.tolist()):
            head = b"\x09" + pack_d(t0 + step * 0.1) + b"\x10" + _varint(step)
            for tag, value in zip(encoded, row, strict=True):
                inner = b"\x0a" + _varint(len(tag)) + tag + b"\x15" + pack_f(value)
                summary = b"\x0a" + _varint(len(inner)) + inner
                chunk.append(record(head + b"\x2a" + _varint(len(summary)) + summary))
            if len(chunk) > 50_000:
                f.write(b"".join(chunk))
                chunk.clear()
        f.write(b"".join(chunk))


def write_tfevents_run(logdir: str, shape: br.Shape, run: int) -> None:
    write_tfevents(
        os.path.join(logdir, f"run{run:02d}"),
        f"events.out.tfevents.{int(T0)}.bench.{run}",
        br.tag_names(shape.tags),
        _table(shape, run),
    )


def _write_runs(args: tuple[str, br.Shape, str, list[int]]) -> None:
    logdir, shape, kind, runs = args
    if kind == "tfevents":
        for run in runs:
            write_tfevents_run(logdir, shape, run)
        return
    from visualdl import LogWriter

    tags = br.tag_names(shape.tags)
    for run in runs:
        table = _table(shape, run)
        with LogWriter(os.path.join(logdir, f"run{run:02d}"), max_queue=1 << 20) as writer:
            add = writer.add_scalar
            for step, row in enumerate(table.tolist()):
                wall = T0 + step * 0.1
                for tag, value in zip(tags, row, strict=True):
                    add(tag, value, step, wall)


def _table(shape: br.Shape, run: int) -> Any:
    """Run ``run``'s values, steps x tags: ``bench_reader``'s for a few runs; seeded by the run
    for many (``bench_reader.run_table`` draws every earlier run's first: quadratic)."""
    if shape.runs <= 100:
        return br.run_table(shape, run)
    import numpy as np

    rng = np.random.default_rng(run)
    return np.stack([br.loss_curve(rng, shape.steps) for _ in range(shape.tags)], axis=1)


def build(logdir: str, shape: br.Shape, kind: str) -> float:
    started = perf_counter()
    workers = min(os.cpu_count() or 1, shape.runs)
    parts = [(logdir, shape, kind, list(range(w, shape.runs, workers))) for w in range(workers)]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        list(pool.map(_write_runs, parts))
    return perf_counter() - started


def ensure(root: str, shape: br.Shape, kind: str) -> tuple[str, float | None]:
    logdir = os.path.join(root, f"{kind}-{shape.name}")
    manifest = logdir + ".json"
    want = {"shape": asdict(shape), "kind": kind, "version": 2}
    if os.path.isfile(manifest) and os.path.isdir(logdir):
        with open(manifest) as f:
            if json.load(f) == want:
                return logdir, None
    shutil.rmtree(logdir, ignore_errors=True)
    seconds = build(logdir, shape, kind)
    with open(manifest, "w") as f:
        json.dump(want, f)
    return logdir, seconds


# -- measuring --------------------------------------------------------------------------------


def _conn(server: bs.Server) -> http.client.HTTPConnection:
    return http.client.HTTPConnection(bs.HOST, server.port, timeout=bs.REQUEST_TIMEOUT)


def _timed(conn: http.client.HTTPConnection, path: str) -> tuple[float, int, bytes]:
    t = perf_counter()
    status, body = bs.get(conn, path)
    return (perf_counter() - t) * 1e3, status, body


def _tb_path(run: str, tag: str) -> str:
    return f"/data/plugin/scalars/scalars?{urlencode({'run': run, 'tag': tag})}"


def long_ours(logdir: str, shape: br.Shape) -> dict[str, float]:
    def inspect(server: bs.Server) -> dict[str, float]:
        bs.serve_every_tag(server, shape)
        conn = _conn(server)
        lo = shape.steps // 2
        ms, _, body = _timed(conn, bs.scalars_path(br.tag_names(1)[0], ["run00"], 1000, x_min=lo, x_max=lo + 999))
        zoom = json.loads(body)["runs"][0]
        conn.close()
        return {"hwm_kb": bi.tree_kb(server, "VmHWM"), "zoom_ms": ms, "zoom_points": len(zoom["steps"])}

    return bs.cold_start(logdir, shape, inspect)


def long_tensorboard(logdir: str, shape: br.Shape) -> dict[str, float]:
    def inspect(server: bs.Server) -> dict[str, float]:
        conn = _conn(server)
        for run in bs.run_names(shape):
            for tag in br.tag_names(shape.tags):
                bs.get(conn, _tb_path(run, tag))
        lo = shape.steps // 2
        ms, _, body = _timed(conn, _tb_path("run00", br.tag_names(1)[0]))
        inside = [e for e in json.loads(body) if lo <= e[1] <= lo + 999]
        conn.close()
        return {"hwm_kb": bi.tree_kb(server, "VmHWM"), "zoom_ms": ms, "zoom_points": len(inside)}

    flags = ("--load_fast=true",)
    return bs.tensorboard_cold_start(logdir, br.Shape(shape.runs, 1, shape.steps), flags, inspect)


def many(logdir: str, shape: br.Shape, tensorboard: bool) -> dict[str, float]:
    """The run list, a chart after the start; warm lists; a 50-run chart; peak RSS."""
    runs = bs.run_names(shape)
    tag = br.tag_names(1)[0]
    if tensorboard:
        server = bs.tensorboard_server(logdir, ("--load_fast=true",))
        list_path = "/data/runs"
    else:
        server = bs.visualdl_server(logdir)
        list_path = "/api/runs"
    out: dict[str, float] = {}

    def listed(conn: http.client.HTTPConnection) -> bool:
        status, body = bs.get(conn, list_path)
        names = json.loads(body) if status == 200 else []
        names = [r["name"] for r in names["runs"]] if isinstance(names, dict) else names
        return len(names) == shape.runs

    def charted(conn: http.client.HTTPConnection) -> bool:
        path = _tb_path(runs[-1], tag) if tensorboard else bs.scalars_path(tag, runs[-1:])
        status, body = bs.get(conn, path)
        if status != 200:
            return False
        if tensorboard:
            return bool(json.loads(body)[-1][1] == shape.steps - 1)
        return bs.chart_complete(body, br.Shape(1, 1, shape.steps))

    with server:
        passed = bs.seconds_until(server, {"listed": listed, "charted": charted}, bs.START_TIMEOUT * 4)
        t0 = server.started
        out["run_list_after_start_s"] = passed["listed"]
        out["chart_after_start_s"] = passed["charted"]
        if not tensorboard:  # the warm figures once the first read of every run is done
            bs.wait_loaded(server, bs.START_TIMEOUT * 4).close()
            out["loaded_after_start_s"] = perf_counter() - t0
        conn = _conn(server)
        out["run_list_ms"] = statistics.median(_timed(conn, list_path)[0] for _ in range(5))
        if not tensorboard:
            out["tags_ms"] = statistics.median(_timed(conn, "/api/tags")[0] for _ in range(5))
            out["run_list_bytes"] = len(bs.get(conn, list_path)[1])
        fifty = runs[len(runs) // 2 : len(runs) // 2 + 50]

        def chart() -> float:
            if not tensorboard:
                return _timed(conn, bs.scalars_path(tag, fifty))[0]
            return sum(_timed(conn, _tb_path(run, tag))[0] for run in fifty)

        out["chart_50_first_ms"] = chart()
        out["chart_50_repeated_ms"] = statistics.median(chart() for _ in range(3))
        conn.close()
        out["hwm_kb"] = bi.tree_kb(server, "VmHWM")
    return out


def _median(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each figure's median over the cold starts (each a fresh server)."""
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=None, help="where the logdirs are built and kept (default: a temp dir)")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_LONG.name} and {QUICK_MANY.name}: about 30 s")
    parser.add_argument("--no-tensorboard", action="store_true", help="measure our server only")
    parser.add_argument("--only", choices=("long", "many"), default=None, help="one of the two logdirs")
    parser.add_argument("--repeats", type=int, default=None, help="cold starts on the long logdir (default 3, quick 1)")
    parser.add_argument("--many-repeats", type=int, default=1, help="cold starts on the many-run logdir (default 1)")
    args = parser.parse_args()
    long_shape, many_shape = (QUICK_LONG, QUICK_MANY) if args.quick else (LONG, MANY)
    args.repeats = args.repeats or (1 if args.quick else 3)
    have_tb = not args.no_tensorboard and bi.version("tensorboard-data-server") != "not installed"
    signal.signal(signal.SIGTERM, bi._interrupt)
    cores = len(os.sched_getaffinity(0))
    print(f"VisualDL scale benchmark; {cores} cores; tensorboard {bi.version('tensorboard')}, "
          f"data server {bi.version('tensorboard-data-server')}")  # fmt: skip
    root = args.dir or tempfile.mkdtemp(prefix="bench-scale-")
    figures: dict[str, Any] = {"long": {}, "many": {}}
    try:
        logdirs = {}
        chosen = [(n, s) for n, s in (("long", long_shape), ("many", many_shape)) if args.only in (None, n)]
        for name, shape in chosen:
            for kind in ("visualdl", "tfevents") if have_tb else ("visualdl",):
                path, seconds = ensure(root, shape, kind)
                size, files = br.dir_bytes(path)
                how = f"built in {seconds:.0f} s" if seconds is not None else "reused"
                print(f"{name} {kind}: {shape.points:,} points, {files:,} files, {size / 1e6:,.0f} MB, {how}")
                logdirs[(name, kind)] = path
        for kind in ("visualdl", "tfevents") if have_tb else ("visualdl",):
            if args.only == "many":
                continue
            path = logdirs[("long", kind)]
            br.warm_page_cache(path)
            measure = long_ours if kind == "visualdl" else long_tensorboard
            figures["long"]["ours" if kind == "visualdl" else "tensorboard"] = _median(
                [measure(path, long_shape) for _ in range(args.repeats)]
            )
        for kind in ("visualdl", "tfevents") if have_tb else ("visualdl",):
            if args.only == "long":
                continue
            path = logdirs[("many", kind)]
            br.warm_page_cache(path)
            figures["many"]["ours" if kind == "visualdl" else "tensorboard"] = _median(
                [many(path, many_shape, kind == "tfevents") for _ in range(args.many_repeats)]
            )
    finally:
        bs.stop_all()
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)

    def show(name: str, label: str, key: str, scale: float = 1.0, digits: int = 2) -> None:
        cells = []
        for who in ("ours", "tensorboard"):
            value = figures[name].get(who, {}).get(key)
            cells.append("-" if value is None else f"{value * scale:,.{digits}f}")
        print(f"{label:<58} {cells[0]:>14} {cells[1]:>14}")

    print(f"\n{'':<58} {'us':>14} {'TensorBoard':>14}")
    print(f"long: {long_shape.name} ({long_shape.points:,} points)")
    show("long", "  cold start to every run's full chart, s", "chart_s")
    show("long", "  peak RSS of the server's processes, MB", "hwm_kb", 1 / 1024, 0)
    show("long", "  zoom to a 1,000-step window, ms", "zoom_ms", 1, 1)
    show("long", "  points in that window", "zoom_points", 1, 0)
    print(f"many: {many_shape.name} ({many_shape.points:,} points)")
    show("many", "  run list complete after start, s", "run_list_after_start_s")
    show("many", "  chart of a tag of the last run after start, s", "chart_after_start_s")
    show("many", "  every run read after start, s", "loaded_after_start_s")
    show("many", "  run list, warm, ms (median)", "run_list_ms", 1, 1)
    show("many", "  /api/tags, warm, ms (median)", "tags_ms", 1, 1)
    show("many", "  chart of one tag over 50 runs, first, ms", "chart_50_first_ms", 1, 1)
    show("many", "  the same again, ms (median)", "chart_50_repeated_ms", 1, 1)
    show("many", "  peak RSS of the server's processes, MB", "hwm_kb", 1 / 1024, 0)
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
