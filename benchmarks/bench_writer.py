"""Writer benchmark: what ``LogWriter`` costs the training thread, and what it puts on disk.

Measured, each as the median of several repeats:

* per-call time on the caller's (training) thread of ``add_scalar`` (a float value, an
  int step, default walltime), ``add_image`` (a 64x64x3 uint8 array, HWC) and
  ``add_histogram`` (10,000 float32 values, 10 buckets); the timed loop is the plain
  ``for ...: writer.add_x(...)`` a training script runs, loop overhead included. Work the
  writer defers to its background thread is shown apart ("incl. drain": the loop plus
  the ``close()`` that waits for that work, divided by the calls);
* sustained scalar throughput: points per second from the first ``add_scalar`` until
  ``flush()`` returns, for several million points of a noisy decaying loss curve (random
  floats) across 10 tags, steps 0..N, default walltimes; measured in a fresh
  subprocess, which also gives the peak RSS growth of the run: the peak RSS (Linux
  VmHWM, reset just before the first call; elsewhere ``ru_maxrss``) minus the RSS then;
* bytes on disk per scalar point (file size / points) of that run;
* per-call time on the caller's thread, and incl. drain, of the calls VisualDL 2.5's
  writer has besides (ours only): ``add_audio`` (1 s of 16 kHz float32), ``add_pr_curve``
  and ``add_roc_curve`` (1,000 examples, 10 thresholds), ``add_hparams`` (10 values),
  ``add_embeddings`` (1,000 x 64 float32, one label per row), ``add_image_matrix`` (16
  images 32x32x3 uint8), ``add_figure`` (a 3x2-inch line plot at 100 dpi, drawn on the
  caller's thread; when matplotlib is importable), ``add_meta`` and ``add_onnx_graph``
  (a one-node model).

When ``tensorboardX`` is importable, ``tensorboardX.SummaryWriter`` is measured the same
way in the same run (``add_histogram`` with ``bins=10``, like ours) and the ratios
ours/theirs are printed. Its ``flush()`` does not wait for the events still queued for
its writer thread, so its throughput is timed until ``close()`` returns. It is much
slower per call, so it gets fewer calls and points (printed).

Everything is written into temporary directories, removed afterwards.

Run::

    python benchmarks/bench_writer.py           # about 1-2 minutes on 2 cores
    python benchmarks/bench_writer.py --quick   # a smaller run, about 20 seconds
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

perf_counter = time.perf_counter

TARGETS = {
    "add_scalar": 1.5,  # us per call
    "add_image": 50.0,  # us per call
    "add_histogram": 50.0,  # us per call
    "throughput": 1_000_000.0,  # points per second
    "bytes_per_point": 24.0,
}

IMAGE_SHAPE = (64, 64, 3)
HISTOGRAM_SIZE = 10_000
HISTOGRAM_BUCKETS = 10
THROUGHPUT_TAGS = 10


# -- data -----------------------------------------------------------------------------


def loss_curve(rng: np.random.Generator, n: int) -> np.ndarray:
    """A noisy decaying training loss: random, positive, not compressible to nothing."""
    steps = np.arange(n, dtype=np.float64)
    start = rng.uniform(1.5, 4.0)
    floor = rng.uniform(0.01, 0.2)
    decay = rng.uniform(0.1, 0.4) * max(n, 1)
    return (start * np.exp(-steps / decay) + floor) * np.exp(0.1 * rng.standard_normal(n))


def dir_bytes(path: str) -> int:
    total = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(dirpath, name))
    return total


def reset_peak_rss() -> bool:
    """Make the kernel's peak RSS (VmHWM) start again from the RSS now (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _status_kb(key: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def rss_kb() -> int:
    """The RSS now; the peak so far where /proc is missing."""
    now = _status_kb("VmRSS")
    return now if now is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def peak_rss_kb() -> int:
    """The peak RSS: since the last reset_peak_rss() where it worked, else ru_maxrss."""
    peak = _status_kb("VmHWM")
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# -- the writers under test -----------------------------------------------------------


@dataclass
class Library:
    """How to drive one writer library: constructor and the calls, with our argument names."""

    name: str
    make: Callable[[str], Any]
    scalar: Callable[[Any], Callable[[str, float, int], None]]
    image: Callable[[Any], Callable[[str, np.ndarray, int], None]]
    histogram: Callable[[Any], Callable[[str, np.ndarray, int], None]]
    # Returns once everything added so far is in the OS.
    drain: Callable[[Any], None]
    drain_name: str
    close: Callable[[Any], None] = field(default=lambda w: w.close())


def visualdl_library() -> Library:
    from visualdl import LogWriter

    return Library(
        name="visualdl",
        make=LogWriter,
        scalar=lambda w: w.add_scalar,
        image=lambda w: lambda tag, img, step: w.add_image(tag, img, step, dataformats="HWC"),
        histogram=lambda w: lambda tag, values, step: w.add_histogram(tag, values, step, buckets=HISTOGRAM_BUCKETS),
        drain=lambda w: w.flush(),
        drain_name="flush()",
    )


def tensorboardx_library() -> Library | None:
    try:
        from tensorboardX import SummaryWriter
    except ImportError:
        return None
    return Library(
        name="tensorboardX",
        make=SummaryWriter,
        scalar=lambda w: w.add_scalar,
        image=lambda w: lambda tag, img, step: w.add_image(tag, img, step, dataformats="HWC"),
        histogram=lambda w: lambda tag, values, step: w.add_histogram(tag, values, step, bins=HISTOGRAM_BUCKETS),
        drain=lambda w: w.close(),  # its flush() does not wait for queued events
        drain_name="close()",
    )


def library(name: str) -> Library:
    lib = visualdl_library() if name == "visualdl" else tensorboardx_library()
    if lib is None:
        raise SystemExit(f"{name} is not importable")
    return lib


# -- per-call timing ------------------------------------------------------------------


@dataclass
class CallResult:
    calls: int
    caller_us: float  # median us per call on the caller's thread
    drained_us: float  # median us per call until close() returned
    caller_runs: list[float]


def time_calls(lib: Library, kind: str, calls: int, repeats: int, root: str) -> CallResult:
    """Median per-call cost of ``kind`` (scalar, image, histogram), a fresh writer per repeat."""
    rng = np.random.default_rng(1)
    values = loss_curve(rng, calls).tolist()
    img = rng.integers(0, 256, IMAGE_SHAPE, dtype=np.uint8)
    hist = rng.standard_normal(HISTOGRAM_SIZE).astype(np.float32)

    def run(logdir: str, n: int) -> tuple[float, float]:
        writer = lib.make(logdir)
        try:
            if kind == "scalar":
                add_scalar = lib.scalar(writer)
                gc.collect()
                t0 = perf_counter()
                for step, value in zip(range(n), values, strict=False):
                    add_scalar("train/loss", value, step)
            elif kind == "image":
                add_image = lib.image(writer)
                gc.collect()
                t0 = perf_counter()
                for step in range(n):
                    add_image("train/input", img, step)
            else:
                add_histogram = lib.histogram(writer)
                gc.collect()
                t0 = perf_counter()
                for step in range(n):
                    add_histogram("train/weights", hist, step)
            t1 = perf_counter()
        finally:
            writer.close()
        t2 = perf_counter()
        return (t1 - t0) / n * 1e6, (t2 - t0) / n * 1e6

    run(os.path.join(root, f"{lib.name}-{kind}-warmup"), max(10, calls // 50))
    caller, drained = [], []
    for r in range(repeats):
        logdir = os.path.join(root, f"{lib.name}-{kind}-{r}")
        c, d = run(logdir, calls)
        shutil.rmtree(logdir, ignore_errors=True)
        caller.append(c)
        drained.append(d)
    return CallResult(calls, statistics.median(caller), statistics.median(drained), caller)


def vdl25_calls(rng: np.random.Generator) -> dict[str, Callable[[Any, int], None]]:
    """The calls of VisualDL 2.5's writer that ours has besides scalars, images and
    histograms, each as ``call(writer, step)`` on fixed inputs."""
    clip = (np.sin(np.arange(16_000) / 7.0) * 0.5).astype(np.float32)
    labels = rng.integers(0, 2, 1_000)
    predictions = rng.random(1_000)
    hparams = {f"h{i}": (0.1 * i if i % 3 == 0 else i if i % 3 == 1 else f"v{i}") for i in range(10)}
    mat = rng.standard_normal((1_000, 64)).astype(np.float32)
    names = [f"row{i}" for i in range(1_000)]
    tiles = rng.integers(0, 256, (16, 32, 32, 3), dtype=np.uint8)
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    model = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu", [x], [y]))
    calls: dict[str, Callable[[Any, int], None]] = {
        "add_audio": lambda w, step: w.add_audio("audio", clip, step, sample_rate=16_000),
        "add_pr_curve": lambda w, step: w.add_pr_curve("pr", labels, predictions, step),
        "add_roc_curve": lambda w, step: w.add_roc_curve("roc", labels, predictions, step),
        "add_hparams": lambda w, step: w.add_hparams(hparams, ["loss", "acc"]),
        "add_embeddings": lambda w, step: w.add_embeddings("emb", mat, names),
        "add_image_matrix": lambda w, step: w.add_image_matrix("grid", tiles, step),
        "add_meta": lambda w, step: w.add_meta(display_name=f"run {step}"),
        "add_onnx_graph": lambda w, step: w.add_onnx_graph(model),
    }
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.figure import Figure
    except ImportError:
        return calls

    def figure(w: Any, step: int) -> None:
        fig = Figure(figsize=(3, 2), dpi=100)
        fig.add_subplot().plot(predictions[:100])
        w.add_figure("figure", fig, step)

    calls["add_figure"] = figure
    return calls


def time_vdl25_call(name: str, call: Callable[[Any, int], None], calls: int, repeats: int, root: str) -> CallResult:
    """Median per-call cost of one of :func:`vdl25_calls`, a fresh writer per repeat."""
    from visualdl import LogWriter

    def run(logdir: str, n: int) -> tuple[float, float]:
        writer = LogWriter(logdir)
        try:
            gc.collect()
            t0 = perf_counter()
            for step in range(n):
                call(writer, step)
            t1 = perf_counter()
        finally:
            writer.close()
        t2 = perf_counter()
        return (t1 - t0) / n * 1e6, (t2 - t0) / n * 1e6

    run(os.path.join(root, f"{name}-warmup"), max(2, calls // 10))
    caller, drained = [], []
    for r in range(repeats):
        logdir = os.path.join(root, f"{name}-{r}")
        c, d = run(logdir, calls)
        shutil.rmtree(logdir, ignore_errors=True)
        caller.append(c)
        drained.append(d)
    return CallResult(calls, statistics.median(caller), statistics.median(drained), caller)


def loop_overhead_us(calls: int, repeats: int) -> float:
    """The same scalar loop calling a function that does nothing: the floor of any writer."""

    def noop(tag: str, value: float, step: int) -> None:
        pass

    values = [0.5] * calls
    runs = []
    for _ in range(repeats):
        t0 = perf_counter()
        for step, value in zip(range(calls), values, strict=True):
            noop("train/loss", value, step)
        runs.append((perf_counter() - t0) / calls * 1e6)
    return statistics.median(runs)


# -- throughput (in a subprocess) -----------------------------------------------------


def throughput_child(name: str, points: int) -> dict[str, Any]:
    """One sustained scalar run in this (fresh) process; the result as a dict."""
    lib = library(name)
    tags = [f"train/metric_{i:02d}" for i in range(THROUGHPUT_TAGS)]
    steps = max(1, points // len(tags))
    rng = np.random.default_rng(7)
    table = np.stack([loss_curve(rng, steps) for _ in tags], axis=1)  # (steps, tags)
    block = 1000  # rows turned into Python floats at a time, inside the timed loop
    root = tempfile.mkdtemp(prefix=f"bench-writer-{name}-")
    try:
        writer = lib.make(root)
        add_scalar = lib.scalar(writer)
        gc.collect()
        rss_before = rss_kb()
        reset_peak_rss()
        t0 = perf_counter()
        for lo in range(0, steps, block):
            for step, row in enumerate(table[lo : lo + block].tolist(), lo):
                for tag, value in zip(tags, row, strict=True):
                    add_scalar(tag, value, step)
        lib.drain(writer)
        seconds = perf_counter() - t0
        peak = peak_rss_kb()
        blocked = writer.stats()["blocked_seconds"] if name == "visualdl" else 0.0
        writer.close()
        written = steps * len(tags)
        return {
            "points": written,
            "seconds": seconds,
            "points_per_s": written / seconds,
            "bytes": dir_bytes(root),
            "bytes_per_point": dir_bytes(root) / written,
            "rss_growth_kb": max(0, peak - rss_before),
            "blocked_s": blocked,
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class ThroughputResult:
    points: int
    points_per_s: float
    bytes_per_point: float
    rss_growth_mb: float
    runs: list[float]
    blocked_s: float


def time_throughput(name: str, points: int, repeats: int) -> ThroughputResult:
    results = []
    for _ in range(repeats):
        cmd = [sys.executable, os.path.abspath(__file__), "--_throughput-child", name, "--points", str(points)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True)
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    rates = [r["points_per_s"] for r in results]
    return ThroughputResult(
        points=results[0]["points"],
        points_per_s=statistics.median(rates),
        bytes_per_point=statistics.median(r["bytes_per_point"] for r in results),
        rss_growth_mb=statistics.median(r["rss_growth_kb"] for r in results) / 1024,
        runs=rates,
        blocked_s=max(r["blocked_s"] for r in results),
    )


# -- report ---------------------------------------------------------------------------


def fmt(x: float | None, digits: int = 2) -> str:
    if x is None:
        return "-"
    if abs(x) >= 1e5:
        return f"{x:,.0f}"
    return f"{x:,.{digits}f}"


def verdict(value: float, target: float, higher_is_better: bool) -> str:
    ok = value >= target if higher_is_better else value <= target
    return "ok" if ok else "MISS"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls, points and repeats")
    parser.add_argument("--repeats", type=int, default=None, help="repeats of each per-call measure (default 5)")
    parser.add_argument("--no-peer", action="store_true", help="skip tensorboardX even when importable")
    parser.add_argument("--_throughput-child", dest="child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--points", type=int, default=None, help="points of the throughput run")
    args = parser.parse_args()

    if args.child:
        print(json.dumps(throughput_child(args.child, args.points)))
        return 0

    quick = args.quick
    repeats = args.repeats or (3 if quick else 5)
    sizes = {
        "visualdl": {
            "scalar": 200_000 if quick else 1_000_000,
            "image": 500 if quick else 2_000,
            # 1,000 x 40 KB stays within the writer's default 64 MiB memory bound; a longer
            # burst measures the background binning rate instead (backpressure).
            "histogram": 500 if quick else 1_000,
            "points": args.points or (1_000_000 if quick else 5_000_000),
            "throughput_repeats": 1 if quick else 3,
        },
        "tensorboardX": {
            "scalar": 5_000 if quick else 20_000,
            "image": 50 if quick else 200,
            "histogram": 100 if quick else 300,
            "points": 20_000 if quick else 100_000,
            "throughput_repeats": 1 if quick else 3,
        },
    }

    libs = [visualdl_library()]
    peer = None if args.no_peer else tensorboardx_library()
    if peer is not None:
        libs.append(peer)

    import numpy
    import PIL

    print("VisualDL writer benchmark")
    print(
        f"python {sys.version.split()[0]}, numpy {numpy.__version__}, pillow {PIL.__version__}, "
        f"{os.cpu_count()} CPUs, repeats {repeats}{', quick' if quick else ''}"
    )
    if peer is None:
        print("tensorboardX: not importable or --no-peer; peers skipped")
    else:
        import tensorboardX

        print(f"tensorboardX {tensorboardX.__version__}: measured in the same run")
    print()

    started = perf_counter()
    calls: dict[tuple[str, str], CallResult] = {}
    throughput: dict[str, ThroughputResult] = {}
    root = tempfile.mkdtemp(prefix="bench-writer-")
    try:
        overhead = loop_overhead_us(sizes["visualdl"]["scalar"], repeats)
        for lib in libs:
            for kind in ("scalar", "image", "histogram"):
                n = sizes[lib.name][kind]
                print(f"  {lib.name}: add_{kind} x {n:,} x {repeats} ...", flush=True)
                calls[(lib.name, kind)] = time_calls(lib, kind, n, repeats, root)
        vdl25_n = 20 if quick else 100
        vdl25: dict[str, CallResult] = {}
        for name, call in vdl25_calls(np.random.default_rng(2)).items():
            print(f"  visualdl: {name} x {vdl25_n} x {repeats} ...", flush=True)
            vdl25[name] = time_vdl25_call(name, call, vdl25_n, repeats, root)
        for lib in libs:
            n, r = sizes[lib.name]["points"], sizes[lib.name]["throughput_repeats"]
            print(f"  {lib.name}: sustained throughput, {n:,} points over {THROUGHPUT_TAGS} tags x {r} ...", flush=True)
            throughput[lib.name] = time_throughput(lib.name, n, r)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print()

    ours = "visualdl"
    theirs = peer.name if peer is not None else None
    header = f"{'measure':<44} {'visualdl':>12} {'target':>11} {'':>4}"
    if theirs:
        header += f" {theirs:>13} {'ours/theirs':>11}"
    print(header)
    print("-" * len(header))

    def row(label: str, mine: float, target: str, ok: str, other: float | None) -> None:
        line = f"{label:<44} {fmt(mine):>12} {target:>11} {ok:>4}"
        if theirs:
            ratio = mine / other if other else None
            line += f" {fmt(other):>13} {fmt(ratio, 3):>11}"
        print(line)

    for kind in ("scalar", "image", "histogram"):
        name = f"add_{kind}"
        mine = calls[(ours, kind)]
        other = calls.get((theirs, kind)) if theirs else None
        target = TARGETS[name]
        row(
            f"{name}, caller us/call (median)",
            mine.caller_us,
            f"<= {target:g}",
            verdict(mine.caller_us, target, False),
            other.caller_us if other else None,
        )
        row(f"{name}, us/call incl. drain (close)", mine.drained_us, "", "", other.drained_us if other else None)
    mine_t = throughput[ours]
    other_t = throughput.get(theirs) if theirs else None
    target = TARGETS["throughput"]
    row(
        "sustained scalars, points/s (to drain)",
        mine_t.points_per_s,
        f">= {target:,.0f}",
        verdict(mine_t.points_per_s, target, True),
        other_t.points_per_s if other_t else None,
    )
    target = TARGETS["bytes_per_point"]
    row(
        "bytes on disk per scalar point",
        mine_t.bytes_per_point,
        f"<= {target:g}",
        verdict(mine_t.bytes_per_point, target, False),
        other_t.bytes_per_point if other_t else None,
    )
    row("peak RSS growth of the run, MB", mine_t.rss_growth_mb, "", "", other_t.rss_growth_mb if other_t else None)
    print()
    print(f"VisualDL 2.5's other calls (ours only; {vdl25_n} calls x {repeats} repeats; inputs in the docstring)")
    print(f"{'call':<44} {'caller us/call':>14} {'incl. drain':>12}")
    for name, result in vdl25.items():
        print(f"{name + ', us/call (median)':<44} {fmt(result.caller_us):>14} {fmt(result.drained_us):>12}")
    if "add_figure" not in vdl25:
        print("add_figure: matplotlib not importable; skipped")
    print()
    print("details:")
    print(f"  loop overhead alone (same loop, a no-op function): {overhead:.3f} us/call, included above")
    for lib in libs:
        s = sizes[lib.name]
        t = throughput[lib.name]
        print(
            f"  {lib.name}: calls per repeat: scalar {s['scalar']:,}, image {s['image']:,}, "
            f"histogram {s['histogram']:,}; add_scalar runs (us): "
            + ", ".join(f"{x:.3f}" for x in calls[(lib.name, "scalar")].caller_runs)
        )
        print(
            f"  {lib.name}: throughput {t.points:,} points, drained by {lib.drain_name}; runs (points/s): "
            + ", ".join(f"{x:,.0f}" for x in t.runs)
            + (f"; seconds callers blocked on backpressure: {t.blocked_s:.3f}" if lib.name == ours else "")
        )
    print("  ours/theirs: below 1 is better for times and bytes, above 1 is better for points/s")
    print(f"total time {perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
