"""Memory benchmark: the peak resident memory of single operations on large values.

Each measure runs in a fresh Python process (``python benchmarks/bench_memory.py --child
WHAT ...``) that builds its input, notes its resident memory (``VmRSS`` of
``/proc/self/status``), runs the operation, and reports its peak (``VmHWM``) above that
baseline; the median of ``--repeats`` processes is printed.

1. ``audio``: ``LogWriter.add_audio`` of N float64 samples (30,000,000; ``--quick``
   3,000,000) and ``close()``; the peak over the WAV's size (2 bytes a sample) and over
   the input's (8 bytes a sample);
2. ``blob``: indexing a TensorBoard event file holding one image of M MB (random bytes in
   the PNG's place; 64 MB, ``--quick`` 16) framed as TensorBoard writes it; the peak of
   ``LogReader.poll()`` and of the server's indexing (``DataProvider.poll()``) over the
   record's size, and that the image's bytes come back right;
3. ``chart``: the server's chart of one tag of P points (10,000,000; ``--quick`` 2,000,000;
   written as scalar records of 2^20 points by the kinds' record builder, as LogWriter
   writes them) at ``max_points=1000``: the peak of the first chart (RSS, and what
   ``tracemalloc`` saw allocated) and the resident memory kept after it, above the RSS
   after indexing, per point.

Run::

    python benchmarks/bench_memory.py             # every measure, 3 repeats
    python benchmarks/bench_memory.py --quick     # small sizes, 1 repeat: a check that it works
    python benchmarks/bench_memory.py --only audio --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
MB = 1 << 20


def _status(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def _reset_peak() -> None:
    """Start VmHWM again from the current RSS (Linux 4.0+: write 5 to clear_refs)."""
    with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
        f.write("5")


# -- the children: each prints one JSON line ---------------------------------------------------


def child_audio(samples: int, logdir: str) -> dict[str, Any]:
    import numpy as np

    from visualdl import LogWriter

    clip = np.sin(np.linspace(0.0, 1000.0, samples))
    writer = LogWriter(logdir)
    base = _status("VmRSS")
    _reset_peak()
    start = time.perf_counter()
    writer.add_audio("clip", clip, 0, sample_rate=16000)
    writer.close()
    seconds = time.perf_counter() - start
    peak = _status("VmHWM") - base
    return {"peak": peak, "wav": 2 * samples, "input": clip.nbytes, "seconds": seconds}


def _event_file(path: str, image_bytes: int) -> None:
    """A TensorBoard event file of a version event and one image event (its PNG random bytes)."""
    from visualdl._formats.framing import frame
    from visualdl.proto import tb

    png = b"\x89PNG\r\n\x1a\n" + os.urandom(image_bytes - 8)
    image = tb.Summary.Image(height=10, width=10, colorspace=3, encoded_image_string=png)
    event = tb.Event(wall_time=1.7e9, step=1, summary=tb.Summary(value=[tb.Summary.Value(tag="big", image=image)]))
    with open(path, "wb") as f:
        f.write(frame(tb.Event(wall_time=1.7e9, file_version="brain.Event:2").SerializeToString()))
        f.write(frame(event.SerializeToString()))


def child_blob(logdir: str, mode: str, image_bytes: int) -> dict[str, Any]:
    from visualdl import LogReader
    from visualdl.server._provider import DataProvider
    from visualdl.server._settings import Settings

    base = _status("VmRSS")
    _reset_peak()
    if mode == "reader":
        reader = LogReader(logdir)
        reader.poll()
        (event,) = reader.images(".", "big")
        peak = _status("VmHWM") - base
        with open(os.path.join(logdir, "sizes.json"), encoding="ascii") as f:
            expected = json.load(f)["head"]
        path, offset, length = reader._index.open_blob(event)
        with open(path, "rb") as f:
            f.seek(offset)
            ok = f.read(16).hex() == expected and length == image_bytes
    else:
        provider = DataProvider(Settings(logdirs=(("", logdir),), background=False))
        provider.poll()
        peak = _status("VmHWM") - base
        ok = True
    return {"peak": peak, "record": image_bytes, "ok": ok}


def _scalar_file(path: str, points: int) -> None:
    import numpy as np

    from visualdl._formats.framing import frame
    from visualdl._kinds.scalars import MAX_POINTS_PER_RECORD, encode_scalars

    with open(path, "wb") as f:
        for start in range(0, points, MAX_POINTS_PER_RECORD):
            n = min(MAX_POINTS_PER_RECORD, points - start)
            steps = np.arange(start, start + n, dtype=np.int64)
            values = np.sin(steps / 1000.0)
            walls = 1.7e9 + steps / 100.0
            f.write(frame(encode_scalars(["loss"], [n], steps, values, walls).SerializeToString()))


def child_chart(logdir: str, points: int) -> dict[str, Any]:
    from visualdl.server._provider import DataProvider
    from visualdl.server._settings import Settings

    provider = DataProvider(Settings(logdirs=(("", logdir),), background=False))
    provider.poll()
    base = _status("VmRSS")
    _reset_peak()
    tracemalloc.start()
    provider.read_scalars(run=".", tag="loss", max_points=1000)
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    peak = _status("VmHWM") - base
    kept = _status("VmRSS") - base
    return {"peak": peak, "kept": kept, "traced": traced, "points": points}


# -- the parent ------------------------------------------------------------------------------


def _run_child(*args: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--child", *args], check=True, capture_output=True, text=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _median(results: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in results)


def measure_audio(samples: int, repeats: int) -> None:
    results = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as logdir:
            results.append(_run_child("audio", str(samples), logdir))
    peak = _median(results, "peak")
    wav, given = results[0]["wav"], results[0]["input"]
    print(f"audio: add_audio of {samples:,} float64 samples: peak {peak / MB:,.0f} MB above the input "
          f"({peak / wav:.2f}x the WAV of {wav / MB:,.0f} MB, {peak / given:.2f}x the input), "
          f"{_median(results, 'seconds'):.2f} s")  # fmt: skip


def measure_blob(image_bytes: int, repeats: int) -> None:
    with tempfile.TemporaryDirectory() as logdir:
        _event_file(os.path.join(logdir, "events.out.tfevents.1.bench"), image_bytes)
        with open(os.path.join(logdir, "events.out.tfevents.1.bench"), "rb") as f:
            data = f.read()
        head = data[data.index(b"\x89PNG") :][:16].hex()
        del data
        with open(os.path.join(logdir, "sizes.json"), "w", encoding="ascii") as f:
            json.dump({"head": head}, f)
        for mode in ("reader", "server"):
            results = [_run_child("blob", logdir, mode, str(image_bytes)) for _ in range(repeats)]
            peak = _median(results, "peak")
            ok = all(r["ok"] for r in results)
            print(f"blob: {mode} indexing one image of {image_bytes / MB:,.0f} MB: peak {peak / MB:,.1f} MB "
                  f"({peak / image_bytes:.3f}x the record){'' if ok else '  WRONG BYTES'}")  # fmt: skip


def measure_chart(points: int, repeats: int) -> None:
    with tempfile.TemporaryDirectory() as logdir:
        _scalar_file(os.path.join(logdir, "bench.vdlog"), points)
        results = [_run_child("chart", logdir, str(points)) for _ in range(repeats)]
    peak, kept, traced = _median(results, "peak"), _median(results, "kept"), _median(results, "traced")
    print(f"chart: first chart of {points:,} points: peak RSS {peak / MB:,.0f} MB ({peak / points:.1f} bytes/point), "
          f"allocated at most {traced / MB:,.1f} MB (tracemalloc), "
          f"RSS kept {kept / MB:,.0f} MB ({kept / points:.1f} bytes/point)")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    parser.add_argument("--only", choices=["audio", "blob", "chart"], action="append")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        what, *rest = args.child
        if what == "audio":
            result = child_audio(int(rest[0]), rest[1])
        elif what == "blob":
            result = child_blob(rest[0], rest[1], int(rest[2]))
        else:
            result = child_chart(rest[0], int(rest[1]))
        print(json.dumps(result))
        return 0
    repeats = args.repeats or (1 if args.quick else 3)
    only = args.only or ["audio", "blob", "chart"]
    if "audio" in only:
        measure_audio(3_000_000 if args.quick else 30_000_000, repeats)
    if "blob" in only:
        measure_blob((16 if args.quick else 64) * MB, repeats)
    if "chart" in only:
        measure_chart(2_000_000 if args.quick else 10_000_000, repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
