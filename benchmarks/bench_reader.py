"""Reader benchmark: how fast ``LogReader`` loads a large logdir, what it keeps in memory, what polling costs.

The logdir: 10 runs x 20 scalar tags x 20,000 steps (4,000,000 points), written with
``LogWriter`` (default settings, one writer per run, default walltimes), each tag a
noisy decaying loss curve of random floats. It is built once and kept in ``--dir``
(reused while its manifest matches; without ``--dir`` a temporary directory, removed
at the end).

Measured:

* cold read, in a fresh subprocess each time (nothing cached by the Python process;
  the OS page cache is warm: the files are read once before the timed runs), median
  of several: ``LogReader(logdir)`` plus ``scalars(run, tag)`` of every series;
* memory of that read: the subprocess's peak RSS (``ru_maxrss``) minus its RSS after
  importing numpy and ``visualdl._logreader``, divided by the points; also what it keeps
  (RSS at the end minus the same baseline);
* ``poll()`` on a copy of the logdir, when nothing changed, and when one run got 1,000
  new points from a live writer (20 tags x 50 steps, flushed); also that poll plus
  re-reading the 20 series of the changed run.

When both ``tensorboard`` and ``tensorboardX`` are importable, a smaller logdir written
with ``tensorboardX`` is read with TensorBoard's ``EventAccumulator`` for comparison
(per million points), and so is the same logdir with ``LogReader`` (which reads
TensorBoard's event files too: the cost of the foreign format); otherwise peers are
skipped. Nothing is installed.

Run::

    python benchmarks/bench_reader.py                 # about 1 minute on 2 cores, the first time
    python benchmarks/bench_reader.py --dir /tmp/vdl  # keep the logdir for the next runs
    python benchmarks/bench_reader.py --quick         # 10 x 20 x 2,000 points
    python benchmarks/bench_reader.py --flush-every 100   # many small records, like a slow training loop
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

perf_counter = time.perf_counter

TARGETS = {"cold_read_s": 1.0, "bytes_per_point": 40.0}
NEW_POINTS_STEPS = 50  # x 20 tags = 1,000 new points


@dataclass(frozen=True)
class Shape:
    runs: int
    tags: int
    steps: int

    @property
    def points(self) -> int:
        return self.runs * self.tags * self.steps

    @property
    def name(self) -> str:
        return f"{self.runs}x{self.tags}x{self.steps}"


# -- helpers --------------------------------------------------------------------------


def loss_curve(rng: np.random.Generator, n: int) -> np.ndarray:
    """A noisy decaying training loss: random, positive, not compressible to nothing."""
    steps = np.arange(n, dtype=np.float64)
    start = rng.uniform(1.5, 4.0)
    floor = rng.uniform(0.01, 0.2)
    decay = rng.uniform(0.1, 0.4) * max(n, 1)
    return (start * np.exp(-steps / decay) + floor) * np.exp(0.1 * rng.standard_normal(n))


def tag_names(n: int) -> list[str]:
    groups = ("train", "eval", "lr", "grad")
    return [f"{groups[i % len(groups)]}/metric_{i:02d}" for i in range(n)]


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


def dir_bytes(path: str) -> tuple[int, int]:
    total = files = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            total += os.path.getsize(os.path.join(dirpath, name))
            files += 1
    return total, files


def warm_page_cache(path: str) -> None:
    for dirpath, _, names in os.walk(path):
        for name in names:
            with open(os.path.join(dirpath, name), "rb") as f:
                while f.read(16 << 20):
                    pass


def run_child(args: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, os.path.abspath(__file__), *args]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- building the logdir --------------------------------------------------------------


def build(logdir: str, shape: Shape, flush_every: int = 0) -> float:
    """Write ``shape`` into ``logdir`` with LogWriter; returns the seconds it took.

    ``flush_every``: also ``flush()`` every this many steps, as a slow training loop's
    writer does once per ``flush_secs``: many small records instead of a few large ones.
    """
    from visualdl import LogWriter

    tags = tag_names(shape.tags)
    rng = np.random.default_rng(2024)
    started = perf_counter()
    for r in range(shape.runs):
        table = np.stack([loss_curve(rng, shape.steps) for _ in tags], axis=1)
        with LogWriter(os.path.join(logdir, f"run{r:02d}")) as writer:
            add_scalar = writer.add_scalar
            for lo in range(0, shape.steps, 1000):
                for step, row in enumerate(table[lo : lo + 1000].tolist(), lo):
                    for tag, value in zip(tags, row, strict=True):
                        add_scalar(tag, value, step)
                    if flush_every and step % flush_every == flush_every - 1:
                        writer.flush()
    return perf_counter() - started


def ensure_logdir(
    root: str,
    shape: Shape,
    prefix: str,
    writer: str,
    flush_every: int = 0,
    builder: Callable[[str, Shape], float] | None = None,
) -> tuple[str, float | None]:
    """The cached logdir of ``shape`` under ``root``; built when missing. Build seconds, or None if reused.

    ``writer`` names the writer in the manifest; ``builder(logdir, shape)``, when given,
    builds the logdir (otherwise LogWriter, or tensorboardX in a child process).
    """
    flushes = f"-flush{flush_every}" if flush_every else ""
    logdir = os.path.join(root, f"{prefix}-{shape.name}{flushes}")
    manifest = logdir + ".json"
    want = {"shape": asdict(shape), "writer": writer, "flush_every": flush_every, "version": 1}
    if os.path.isdir(logdir) and os.path.isfile(manifest):
        with open(manifest) as f:
            if json.load(f) == want:
                return logdir, None
    shutil.rmtree(logdir, ignore_errors=True)
    os.makedirs(root, exist_ok=True)
    if builder is not None:
        seconds = builder(logdir, shape)
    elif writer == "visualdl":
        seconds = build(logdir, shape, flush_every)
    else:
        seconds = run_child(["--_build-peer", logdir, "--shape", shape.name])["seconds"]
    with open(manifest, "w") as f:
        json.dump(want, f)
    return logdir, seconds


def run_table(shape: Shape, run: int) -> np.ndarray:
    """Run ``run``'s values, steps x tags: the table ``build`` writes for that run."""
    rng = np.random.default_rng(2024)
    for _ in range(run * shape.tags):  # the curves of the runs before: drawn, not kept
        loss_curve(rng, shape.steps)
    return np.stack([loss_curve(rng, shape.steps) for _ in range(shape.tags)], axis=1)


def in_parallel(write_run: Callable[[str, Shape, int], None], logdir: str, shape: Shape) -> float:
    """``write_run(logdir, shape, r)`` for every run, in one process per core; returns the seconds."""
    started = perf_counter()
    workers = max(1, min(os.cpu_count() or 1, shape.runs))
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        list(pool.map(write_run, *zip(*((logdir, shape, r) for r in range(shape.runs)), strict=True)))
    return perf_counter() - started


def write_peer_run(logdir: str, shape: Shape, run: int) -> None:
    from tensorboardX import SummaryWriter

    tags = tag_names(shape.tags)
    # Queued in memory and written by the writer's thread in large batches, not every 10 events.
    writer = SummaryWriter(os.path.join(logdir, f"run{run:02d}"), max_queue=100_000, flush_secs=3600)
    for step, row in enumerate(run_table(shape, run).tolist()):
        for tag, value in zip(tags, row, strict=True):
            writer.add_scalar(tag, value, step)
    writer.close()


def build_peer(logdir: str, shape: Shape) -> float:
    """Write ``shape`` into ``logdir`` with tensorboardX (the values of ``build``), runs in parallel."""
    return in_parallel(write_peer_run, logdir, shape)


# -- children: one cold read each -----------------------------------------------------


def cold_read_child(logdir: str) -> dict[str, Any]:
    import gc

    import visualdl._logreader
    from visualdl import LogReader

    assert LogReader is visualdl._logreader.LogReader
    gc.collect()
    base = rss_kb()
    t0 = perf_counter()
    reader = LogReader(logdir)
    t1 = perf_counter()
    points = series = 0
    for run in reader.runs():
        for tag in reader.tags(run)["scalars"]:
            s = reader.scalars(run, tag)
            points += len(s)
            series += 1
    t2 = perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kept = rss_kb()
    return {
        "load_s": t1 - t0,
        "query_s": t2 - t1,
        "total_s": t2 - t0,
        "points": points,
        "series": series,
        "problems": len(reader.problems),
        "peak_growth_kb": peak - base,
        "kept_kb": kept - base,
    }


def peer_read_child(logdir: str) -> dict[str, Any]:
    import gc

    from tensorboard.backend.event_processing import event_accumulator as ea

    gc.collect()
    base = rss_kb()
    t0 = perf_counter()
    points = series = 0
    for name in sorted(os.listdir(logdir)):
        acc = ea.EventAccumulator(os.path.join(logdir, name), size_guidance={ea.SCALARS: 0})
        acc.Reload()
        for tag in acc.Tags()["scalars"]:
            points += len(acc.Scalars(tag))
            series += 1
    t1 = perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"total_s": t1 - t0, "points": points, "series": series, "peak_growth_kb": peak - base}


# -- poll -----------------------------------------------------------------------------


def measure_poll(logdir: str, shape: Shape, repeats: int) -> dict[str, float]:
    """poll() costs on a copy of ``logdir``: nothing changed; one run got 1,000 new points."""
    from visualdl import LogReader, LogWriter

    work = tempfile.mkdtemp(prefix="bench-reader-poll-")
    try:
        copy = os.path.join(work, "logdir")
        shutil.copytree(logdir, copy)
        run = "run00"
        tags = tag_names(shape.tags)
        live = LogWriter(os.path.join(copy, run))  # a live writer of run00, known to the reader
        live.add_scalar(tags[0], 1.0, shape.steps)
        live.flush()
        reader = LogReader(copy)

        idle = []
        for _ in range(repeats * 4):
            t0 = perf_counter()
            result = reader.poll()
            idle.append(perf_counter() - t0)
            assert result.new_records == 0, result

        rng = np.random.default_rng(5)
        grown, grown_query = [], []
        step = shape.steps + 1
        for _ in range(repeats * 2):
            values = rng.random((NEW_POINTS_STEPS, len(tags))).tolist()
            for row in values:
                for tag, value in zip(tags, row, strict=True):
                    live.add_scalar(tag, value, step)
                step += 1
            live.flush()
            t0 = perf_counter()
            result = reader.poll()
            t1 = perf_counter()
            for tag in reader.tags(run)["scalars"]:
                reader.scalars(run, tag)
            t2 = perf_counter()
            assert result.new_records > 0, result
            grown.append(t1 - t0)
            grown_query.append(t2 - t0)
        total = reader.count(run, "scalars", tags[0])
        expected = shape.steps + 1 + repeats * 2 * NEW_POINTS_STEPS
        assert total == expected, (total, expected)
        live.close()
        return {
            "idle_ms": statistics.median(idle) * 1e3,
            "grown_ms": statistics.median(grown) * 1e3,
            "grown_query_ms": statistics.median(grown_query) * 1e3,
            "files": float(sum(len(reader.writers(r)) for r in reader.runs())),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- main -----------------------------------------------------------------------------


def parse_shape(text: str) -> Shape:
    runs, tags, steps = (int(x) for x in text.split("x"))
    return Shape(runs, tags, steps)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=None, help="where the logdir is built and kept (default: a temp dir)")
    parser.add_argument("--quick", action="store_true", help="10 runs x 20 tags x 2,000 steps, fewer repeats")
    parser.add_argument("--repeats", type=int, default=None, help="cold reads (default 5, quick 3)")
    parser.add_argument(
        "--flush-every",
        type=int,
        default=0,
        metavar="K",
        help="build with a flush() every K steps (small records, like a slow training loop); default: none",
    )
    parser.add_argument("--no-peer", action="store_true", help="skip tensorboard even when importable")
    parser.add_argument("--_cold-child", dest="cold_child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--_peer-child", dest="peer_child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--_build-peer", dest="build_peer", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--shape", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.cold_child:
        print(json.dumps(cold_read_child(args.cold_child)))
        return 0
    if args.peer_child:
        print(json.dumps(peer_read_child(args.peer_child)))
        return 0
    if args.build_peer:
        print(json.dumps({"seconds": build_peer(args.build_peer, parse_shape(args.shape))}))
        return 0

    quick = args.quick
    repeats = args.repeats or (3 if quick else 5)
    shape = Shape(10, 20, 2_000 if quick else 20_000)
    peer_shape = Shape(1, 20, 1_000 if quick else 5_000)

    have_tb = not args.no_peer and importlib.util.find_spec("tensorboard") is not None
    have_tbx = not args.no_peer and importlib.util.find_spec("tensorboardX") is not None

    print("VisualDL reader benchmark")
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} CPUs, repeats {repeats}")

    started = perf_counter()
    root = args.dir or tempfile.mkdtemp(prefix="bench-reader-")
    try:
        logdir, built = ensure_logdir(root, shape, "vdl", "visualdl", args.flush_every)
        size, files = dir_bytes(logdir)
        how = f"built in {built:.1f} s ({shape.points / built:,.0f} points/s)" if built else "reused from the cache"
        print(
            f"logdir {logdir}: {shape.runs} runs x {shape.tags} tags x {shape.steps:,} steps = {shape.points:,} points"
        )
        records = f", a flush() every {args.flush_every} steps" if args.flush_every else ""
        print(f"  {files} files, {size / 1e6:.1f} MB ({size / shape.points:.2f} bytes/point), {how}{records}")

        warm_page_cache(logdir)
        print("  OS page cache warmed (files read once); each cold read is a fresh Python process")
        run_child(["--_cold-child", logdir])  # untimed: .pyc files, page cache
        reads = []
        for _ in range(repeats):
            result = run_child(["--_cold-child", logdir])
            assert result["points"] == shape.points, result
            assert result["problems"] == 0, result
            reads.append(result)
        print("  cold read runs (s): " + ", ".join(f"{r['total_s']:.3f}" for r in reads))

        poll = measure_poll(logdir, shape, repeats)

        peer: dict[str, Any] | None = None
        ours_on_peer: list[dict[str, Any]] = []
        peer_note = ""
        if have_tb and have_tbx:
            peer_dir, _ = ensure_logdir(root, peer_shape, "tbx", "tensorboardX")
            warm_page_cache(peer_dir)
            cmd = [sys.executable, os.path.abspath(__file__), "--_peer-child", peer_dir]
            out = subprocess.run(cmd, check=False, capture_output=True, text=True)
            if out.returncode == 0:
                peer = json.loads(out.stdout.strip().splitlines()[-1])
                for _ in range(repeats):  # the same tfevents files, read by LogReader
                    result = run_child(["--_cold-child", peer_dir])
                    assert result["points"] == peer_shape.points and result["problems"] == 0, result
                    ours_on_peer.append(result)
            else:
                tail = out.stderr.strip().splitlines()
                peer_note = "tensorboard read failed: " + (tail[-1] if tail else f"exit status {out.returncode}")
        elif args.no_peer:
            peer_note = "peers skipped (--no-peer)"
        else:
            missing = [name for name, ok in (("tensorboard", have_tb), ("tensorboardX", have_tbx)) if not ok]
            peer_note = f"{' and '.join(missing)} not installed: peers skipped"
    finally:
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)

    def med(key: str) -> float:
        return statistics.median(r[key] for r in reads)

    total_s = med("total_s")
    peak_bpp = med("peak_growth_kb") * 1024 / shape.points
    kept_bpp = med("kept_kb") * 1024 / shape.points
    print()
    header = f"{'measure':<58} {'visualdl':>11} {'target':>9} {'':>4}"
    print(header)
    print("-" * len(header))

    def row(label: str, value: float, target: str = "", ok: str = "", digits: int = 3) -> None:
        print(f"{label:<58} {value:>11,.{digits}f} {target:>9} {ok:>4}")

    ok = "ok" if total_s <= TARGETS["cold_read_s"] else "MISS"
    row(f"cold read, s ({shape.points:,} points, median)", total_s, f"<= {TARGETS['cold_read_s']:g}", ok)
    row("  of which LogReader(logdir), s", med("load_s"))
    row(f"  of which scalars() of all {reads[0]['series']} series, s", med("query_s"))
    row("cold read, million points/s", shape.points / total_s / 1e6, digits=2)
    ok = "ok" if peak_bpp <= TARGETS["bytes_per_point"] else "MISS"
    row("peak RSS growth / points, bytes", peak_bpp, f"<= {TARGETS['bytes_per_point']:g}", ok, digits=1)
    row("RSS kept at the end / points, bytes", kept_bpp, digits=1)
    row(f"poll(), nothing changed, ms ({poll['files']:.0f} files)", poll["idle_ms"])
    row(f"poll(), one run got {NEW_POINTS_STEPS * shape.tags:,} new points, ms", poll["grown_ms"])
    row(f"  poll() + scalars() of that run's {shape.tags} series, ms", poll["grown_query_ms"])
    print()
    if peer is not None:
        ours_per_m = total_s / shape.points * 1e6
        theirs_per_m = peer["total_s"] / peer["points"] * 1e6
        print(f"peer: tensorboard EventAccumulator on {peer['points']:,} points written by tensorboardX")
        print(f"  seconds per million points: visualdl {ours_per_m:.3f}, tensorboard {theirs_per_m:.3f}")
        print(f"  ratio ours/theirs {ours_per_m / theirs_per_m:.3f} (below 1 is better)")
        print(f"  peak RSS growth / point: tensorboard {peer['peak_growth_kb'] * 1024 / peer['points']:.1f} bytes")
        on_peer = statistics.median(r["total_s"] for r in ours_on_peer) / peer["points"] * 1e6
        print(f"visualdl LogReader on those tfevents files, s per million points {on_peer:.3f}")
        print(f"  ratio tfevents via visualdl / tensorboard {on_peer / theirs_per_m:.3f} (below 1 is better)")
    else:
        print(peer_note)
    print(f"total time {perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
