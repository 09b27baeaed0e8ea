"""Interop benchmark: our server on foreign logs, against TensorBoard's Rust data server, in one run.

The logdirs, all of one shape: 10 runs x 20 scalar tags x 20,000 steps (4,000,000
points), the same values in each (``bench_reader``'s curves):

* ``tfevents``: TensorBoard event files written by ``tensorboardX`` (``bench_reader``'s
  builder, one process per core; the cache ``bench_server`` uses for its peer);
* ``own``: our own format written by ``LogWriter`` (``bench_reader``'s builder, the
  logdir of ``bench_reader`` and ``bench_server``);
* ``vdl2``: VisualDL 2 logs (``vdlrecords.<seconds>.log``), written here with the
  wire-compatible schema ``visualdl.proto.vdl2`` the way VisualDL 2's ``LogWriter``
  frames them: an 8-byte little-endian length and a serialized ``Record`` of one value,
  a ``meta_data`` record first, timestamps in milliseconds. Only measured when the
  reader reads such logs (a ``LogReader`` on a tiny VDL2 logdir sees its run).

Each is built once and kept in ``--dir`` (reused while its manifest matches; without
``--dir`` a temporary directory, removed at the end).

Measured for each column, on its logdir, the OS page cache warm (every file read once
before), every server a fresh process, one untimed start, then the median of
``--repeats``:

1. cold start to every run's full chart, as ``bench_server`` measures it (its code):
   for us ``python -m visualdl --logdir DIR --port P``, from just before the process
   starts until ``/api/scalars`` of one tag across the 10 runs answers with every run's
   20,000 points; for TensorBoard ``tensorboard --load_fast=true`` (its Rust data
   server, ``tensorboard_data_server``), until its scalars route answers, one request
   per run, with the last step in every run. Each TensorBoard start is checked to have
   run the data server's binary as its child (else the run fails);
2. after that chart, the server still up: a chart of every tag (every run), then the
   peak RSS (``VmHWM``) of the server's process tree (for TensorBoard, its Python
   process plus the data server child), and that peak minus the RSS of the same
   server idle on an empty logdir, per point. TensorBoard keeps a 1,000-point
   reservoir per series and serves that; we keep and serve every point.

Printed: the table of every column; the ratios tfevents/own and tfevents/TensorBoard
with their targets (cold start below TensorBoard's and within 2x of our own format;
memory per point no worse than for our own files); the machine (cores, load) and the
versions of tensorboard, tensorboard-data-server and tensorboardX.

``--quick``: every column on 10 x 20 x 250 points, one repeat: a check that the
benchmark works (about 30 s on 2 cores), not figures to compare with the targets.

Run::

    python benchmarks/bench_interop.py --dir /tmp/bench-interop  # the first time ~8 min (building), then ~3
    python benchmarks/bench_interop.py --quick
    python benchmarks/bench_interop.py --dir /tmp/bench-interop --repeats 3
"""

from __future__ import annotations

import argparse
import functools
import http.client
import importlib.metadata
import json
import os
import shutil
import signal
import statistics
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlencode

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import bench_reader as br  # noqa: E402  (the logdir builders)
import bench_server as bs  # noqa: E402  (the servers and their cold start)

perf_counter = time.perf_counter

BIG = bs.BIG
QUICK = bs.QUICK_BIG
TARGETS = {"vs_tensorboard": 1.0, "vs_own": 2.0}
VDL2_T0_MS = 1_700_000_000_000
VDL2_PAST = "VisualDL 2's own server took 29 to 46 s on a 10 x 20 x 20,000 logdir"
COLUMNS = ("tfevents", "own", "vdl2", "tensorboard")
TITLES = {
    "tfevents": "us, tfevents",
    "own": "us, own format",
    "vdl2": "us, VisualDL 2",
    "tensorboard": "TensorBoard Rust",
}


# -- VisualDL 2 logs ----------------------------------------------------------------------


def write_vdl2_run(logdir: str, shape: br.Shape, run: int) -> None:
    """One run as VisualDL 2's LogWriter writes it: a meta_data record, then one record per point."""
    from visualdl.proto import vdl2

    tags = br.tag_names(shape.tags)
    folder = os.path.join(logdir, f"run{run:02d}")
    os.makedirs(folder, exist_ok=True)
    t0 = VDL2_T0_MS + run * 1000
    pack = struct.Struct("<Q").pack
    Record, Value = vdl2.Record, vdl2.Record.Value

    def framed(value: Any) -> bytes:
        data = Record(values=[value]).SerializeToString()
        return pack(len(data)) + data

    with open(os.path.join(folder, f"vdlrecords.{t0 // 1000}.log"), "wb") as f:
        meta = Value(id=0, tag="meta_data_tag", timestamp=t0, meta_data=Record.MetaData(display_name=""))
        f.write(framed(meta))
        chunk: list[bytes] = []
        for step, row in enumerate(br.run_table(shape, run).tolist()):
            ms = t0 + step * 10  # one step every 10 ms
            for tag, value in zip(tags, row, strict=True):
                chunk.append(framed(Value(id=step, tag=tag, timestamp=ms, value=value)))
            if len(chunk) >= 20_000:
                f.write(b"".join(chunk))
                chunk.clear()
        f.write(b"".join(chunk))


def build_vdl2(logdir: str, shape: br.Shape) -> float:
    return br.in_parallel(write_vdl2_run, logdir, shape)


def reader_reads_vdl2() -> bool:
    """Whether LogReader sees the run and the points of a tiny VisualDL 2 logdir."""
    from visualdl import LogReader
    from visualdl.errors import LogFormatError

    shape = br.Shape(1, 1, 3)
    work = tempfile.mkdtemp(prefix="bench-interop-vdl2-")
    try:
        for run in range(shape.runs):
            write_vdl2_run(work, shape, run)
        reader = LogReader(work)
        tag = br.tag_names(1)[0]
        return reader.runs() == ["run00"] and len(reader.scalars("run00", tag)) == shape.steps
    except (LogFormatError, OSError, KeyError, ValueError):  # not (yet) read: an unknown run or tag
        return False
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- process trees ------------------------------------------------------------------------


def descendants(pid: int) -> list[int]:
    """The processes under ``pid`` (children, their children...), from /proc."""
    parents: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        parents.setdefault(ppid, []).append(int(name))
    out, todo = [], [pid]
    while todo:
        kids = parents.get(todo.pop(), [])
        out += kids
        todo += kids
    return out


def status_kb(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_kb(server: bs.Server, key: str) -> int:
    """``key`` (VmHWM, VmRSS) of /proc/<pid>/status summed over the server and its descendants."""
    return sum(status_kb(pid, key) for pid in [server.pid, *descendants(server.pid)])


def exe_of(pid: int) -> str:
    try:
        return os.path.realpath(f"/proc/{pid}/exe")
    except OSError:
        return ""


# -- what happens after the timed chart -----------------------------------------------------


def ours_after_chart(shape: br.Shape) -> Callable[[bs.Server], dict[str, float]]:
    def inspect(server: bs.Server) -> dict[str, float]:
        bs.serve_every_tag(server, shape)
        return {"hwm_kb": tree_kb(server, "VmHWM"), "processes": 1 + len(descendants(server.pid))}

    return inspect


def tensorboard_scalars_path(run: str, tag: str) -> str:
    return f"/data/plugin/scalars/scalars?{urlencode({'run': run, 'tag': tag})}"


def tensorboard_after_chart(shape: br.Shape, binary: str) -> Callable[[bs.Server], dict[str, float]]:
    def inspect(server: bs.Server) -> dict[str, float]:
        kids = descendants(server.pid)
        rust = [pid for pid in kids if exe_of(pid) == binary]
        if not rust:
            raise RuntimeError(f"tensorboard runs no {binary} (children: {[exe_of(p) for p in kids]})")

        def one_run(run: str) -> list[float]:  # every tag of one run, on a connection of its own
            conn = http.client.HTTPConnection(bs.HOST, server.port, timeout=bs.REQUEST_TIMEOUT)
            seconds = []
            for tag in br.tag_names(shape.tags):
                t = perf_counter()
                status, body = bs.get(conn, tensorboard_scalars_path(run, tag))
                seconds.append(perf_counter() - t)
                events = json.loads(body) if status == 200 else []
                if not events or events[-1][1] != shape.steps - 1:
                    raise RuntimeError(f"tensorboard's chart of {run} {tag}: {status} {body[:200]!r}")
            conn.close()
            return seconds

        runs = bs.run_names(shape)
        with ThreadPoolExecutor(len(runs)) as pool:  # the runs at once, as a browser asks for them
            seconds = [s for run in pool.map(one_run, runs) for s in run]
        return {
            "hwm_kb": tree_kb(server, "VmHWM"),
            "processes": 1 + len(kids),
            "rust_children": len(rust),
            "request_ms": statistics.median(seconds) * 1e3,
        }

    return inspect


def idle_kb(server: bs.Server, ready: str) -> int:
    """The RSS of the server's process tree once ``ready`` answers 200, on an empty logdir."""
    with server:
        server.start()
        end = perf_counter() + bs.START_TIMEOUT
        while True:
            server.check_alive()
            if perf_counter() > end:
                raise TimeoutError(f"{server.name} did not answer {ready}")
            try:
                conn = http.client.HTTPConnection(bs.HOST, server.port, timeout=bs.REQUEST_TIMEOUT)
                status, _ = bs.get(conn, ready)
                conn.close()
                if status == 200:
                    break
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.01)
        time.sleep(0.5)  # the TensorBoard data server's first (empty) load
        return tree_kb(server, "VmRSS")


# -- main -----------------------------------------------------------------------------------


def version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=None, help="where the logdirs are built and kept (default: a temp dir)")
    parser.add_argument("--quick", action="store_true", help="10 x 20 x 250 points, one repeat; every column")
    parser.add_argument("--repeats", type=int, default=None, help="timed cold starts per column (default 5, quick 1)")
    args = parser.parse_args()

    quick = args.quick
    repeats = args.repeats or (1 if quick else 5)
    shape = QUICK if quick else BIG
    versions = {d: version(d) for d in ("tensorboard", "tensorboard-data-server", "tensorboardX")}
    have_tb = "not installed" not in (versions["tensorboard"], versions["tensorboard-data-server"])
    have_tbx = versions["tensorboardX"] != "not installed"
    if not have_tbx:  # the tfevents logdir cannot be written: nothing to compare
        print("tensorboardX not installed: no tfevents logdir, nothing to measure")
        return 1

    signal.signal(signal.SIGTERM, _interrupt)  # so that the servers are stopped on the way out
    print("VisualDL interop benchmark: foreign logs against TensorBoard's Rust data server")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs ({cores} usable), load average {load}")
    print(", ".join(f"{d} {v}" for d, v in versions.items()))
    if quick:
        print("quick: small logdirs, one repeat; the figures check the benchmark, not the targets")

    started = perf_counter()
    root = args.dir or tempfile.mkdtemp(prefix="bench-interop-")
    results: dict[str, dict[str, float]] = {}
    idles: dict[str, int] = {}
    sizes: dict[str, float] = {}
    notes: list[str] = []
    try:
        vdl2 = reader_reads_vdl2()
        logdirs = {
            "tfevents": br.ensure_logdir(root, shape, "tbx", "tensorboardX"),
            "own": br.ensure_logdir(root, shape, "vdl", "visualdl"),
        }
        if vdl2:
            logdirs["vdl2"] = br.ensure_logdir(root, shape, "vdl2", "vdl2-proto", builder=build_vdl2)
        else:
            notes.append("vdl2: this reader does not read VisualDL 2 logs (vdlrecords.*) yet: column skipped")
        for name, (path, secs) in logdirs.items():
            size, files = br.dir_bytes(path)
            sizes[name] = size
            how = f"built in {secs:.1f} s" if secs else "reused from the cache"
            print(f"logdir {name}: {path}: {shape.points:,} points, {files} files, {size / 1e6:.1f} MB, {how}")
            br.warm_page_cache(path)
        print("OS page cache warm (files read once); every server is a fresh process")
        empty = os.path.join(root, "empty-logdir")
        os.makedirs(empty, exist_ok=True)

        def measure(name: str, once: Callable[[], dict[str, float]]) -> None:
            once()  # untimed: .pyc files, page cache
            runs = [once() for _ in range(repeats)]
            results[name] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            print(f"{TITLES[name]}: cold start to full chart (s): " + ", ".join(f"{r['chart_s']:.3f}" for r in runs))

        for name in ("tfevents", "own", "vdl2"):
            if name in logdirs:
                path = logdirs[name][0]
                measure(name, functools.partial(bs.cold_start, path, shape, ours_after_chart(shape)))
        idles["ours"] = idle_kb(bs.visualdl_server(empty), "/api/health")

        if have_tb:
            from tensorboard_data_server import server_binary

            binary = os.path.realpath(server_binary())
            flags = ("--load_fast=true",)
            tb_dir = logdirs["tfevents"][0]
            inspect = tensorboard_after_chart(shape, binary)
            measure("tensorboard", functools.partial(bs.tensorboard_cold_start, tb_dir, shape, flags, inspect))
            idles["tensorboard"] = idle_kb(bs.tensorboard_server(empty, flags), "/data/runs")
            print(f"tensorboard --load_fast=true ran {binary} as its child in every start")
        else:
            notes.append("tensorboard or tensorboard-data-server not installed: the TensorBoard column is skipped")
    finally:
        bs.stop_all()
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)

    measured = [c for c in COLUMNS if c in results]
    width = 56

    def line(label: str, cells: list[str]) -> None:
        print(f"{label:<{width}}" + "".join(f" {c:>17}" for c in cells))

    def row(label: str, value: Callable[[str], float | None], digits: int = 3) -> None:
        cells = []
        for c in measured:
            v = value(c)
            cells.append("-" if v is None else f"{v:,.{digits}f}")
        line(label, cells)

    def idle_of(c: str) -> int:
        return idles["tensorboard" if c == "tensorboard" else "ours"]

    def per_point(c: str) -> float:
        return (results[c]["hwm_kb"] - idle_of(c)) * 1024 / shape.points

    print()
    line("measure", [TITLES[c] for c in measured])
    print("-" * (width + 18 * len(measured)))
    row(f"cold start to full chart, s ({shape.points:,} points, median)", lambda c: results[c]["chart_s"])
    row("  to the first HTTP answer, s", lambda c: results[c]["first_answer_s"])
    row("  to /api/health loaded, s", lambda c: results[c].get("loaded_s"))
    row("  its last request, the chart itself, ms", lambda c: results[c].get("chart_request_ms"), 1)
    row("  a series request, 10 runs at once (median), ms", lambda c: results[c].get("request_ms"), 1)
    row("peak RSS of the server's processes, MB", lambda c: results[c]["hwm_kb"] / 1024, 1)
    row("  idle on an empty logdir, MB", lambda c: idle_of(c) / 1024, 1)
    row("peak RSS - idle, bytes/point", per_point, 1)
    row("  server processes", lambda c: results[c]["processes"], 0)
    row("logdir on disk, bytes/point", lambda c: sizes["tfevents" if c == "tensorboard" else c] / shape.points, 1)
    print()

    def ratio(label: str, ours: float, theirs: float, target: float) -> None:
        r = ours / theirs if theirs > 0 else float("nan")
        print(f"{label:<{width + 8}} {r:>9.3f}  target <= {target:g}  {'ok' if r <= target else 'MISS'}")

    tf = results["tfevents"]
    ratio("ratio cold start tfevents / own format", tf["chart_s"], results["own"]["chart_s"], TARGETS["vs_own"])
    if "tensorboard" in results:
        ratio(
            "ratio cold start tfevents / TensorBoard Rust",
            tf["chart_s"],
            results["tensorboard"]["chart_s"],
            TARGETS["vs_tensorboard"],
        )
    ratio("ratio RSS per point tfevents / own format", per_point("tfevents"), per_point("own"), 1.0)
    if "tensorboard" in results:
        print(f"TensorBoard: one request per run ({shape.runs} one after the other in the timed chart), each")
        print("  answering a 1,000-point reservoir of the series; our chart is one request of every point")
    if "vdl2" in results:
        print(f"{VDL2_PAST}; ours: {results['vdl2']['chart_s']:.3f} s (cold start to full chart, vdl2 logdir)")
    for note in notes:
        print(note)
    print(f"total time {perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
