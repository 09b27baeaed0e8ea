"""Projector files benchmark: the memory and time a ``LogReader`` takes to index TensorBoard's
projector files, against their size on disk, for the three shapes of file that cost the most.

1. ``blank labels``: a metadata file of 16 MiB of blank lines, beside a tensors file of two vectors;
2. ``zero tensors``: a tensors file of 128 MiB of ``0`` lines (64M vectors of one value);
3. ``repeated pair``: a config of 100 blocks, each naming the same 2.6 MB pair of tensors
   (10,000 x 24) and metadata files.

Each case is read in fresh subprocesses (``--case``): one times the reader and reports its
process's peak resident memory (``ru_maxrss``, the interpreter and imports included), one
measures the peak of what the read allocates (tracemalloc, which numpy's arrays report to).
The parent prints them with the bytes on disk and the ratio of the peak to them, the median
of ``--repeats`` runs.

Measured on 2 shared cores, medians of 3: the read's peak above the imports (resident memory;
tracemalloc's peak after agrees), its ratio to the files' bytes, and the seconds, before and
after the parsers read pieces of text into arrays, count labels before making them, and
read a file that many blocks name once:

=============  ==============================  ==============================
case           before                          after
=============  ==============================  ==============================
blank labels   2,040 MB (121x), 20.2 s         30 MB (2.0x), 1.6 s
zero tensors   3,838 MB (28.6x), 29.6 s        407 MB (3.0x), 12.6 s
repeated pair  256 MB (94x), 4.0 s             8 MB (2.9x), 0.13 s
=============  ==============================  ==============================

Run::

    python benchmarks/bench_projector_files.py            # about 30 s on 2 cores
    python benchmarks/bench_projector_files.py --quick    # an eighth of the sizes: a few seconds
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CASES = ("blank labels", "zero tensors", "repeated pair")


def _run_dir(logdir: str) -> str:
    """A run with an event file of one scalar (a run is a directory holding a log)."""
    from visualdl import LogWriter

    run = os.path.join(logdir, "run")
    with LogWriter(run) as writer:
        writer.add_scalar("loss", 1.0, 0)
    return run


def _config(run: str, blocks: list[str]) -> None:
    with open(os.path.join(run, "projector_config.pbtxt"), "w") as f:
        for block in blocks:
            f.write(f"embeddings {{\n{block}\n}}\n")


def build(case: str, logdir: str, scale: float) -> int:
    """The logdir of ``case``; the bytes of its projector files."""
    import numpy as np

    run = _run_dir(logdir)
    files: dict[str, bytes] = {}
    if case == "blank labels":
        files = {"t.tsv": b"1\t2\n3\t4\n", "m.tsv": b"\n" * int((16 << 20) * scale)}
        _config(run, ['tensor_name: "blank"\ntensor_path: "t.tsv"\nmetadata_path: "m.tsv"'])
    elif case == "zero tensors":
        files = {"t.tsv": b"0\n" * int((64 << 20) * scale)}
        _config(run, ['tensor_name: "zeros"\ntensor_path: "t.tsv"'])
    else:
        rows = int(10_000 * scale)
        m = np.random.default_rng(0).normal(size=(rows, 24)).astype(np.float32)
        files = {
            "t.tsv": "".join("\t".join(map(str, row)) + "\n" for row in m).encode(),  # float32's shortest text
            "m.tsv": "".join(f"word{i}\n" for i in range(rows)).encode(),
        }
        _config(run, [f'tensor_name: "same:{i:05d}"\ntensor_path: "t.tsv"\nmetadata_path: "m.tsv"' for i in range(100)])
    for name, data in files.items():
        with open(os.path.join(run, name), "wb") as f:
            f.write(data)
    return sum(len(d) for d in files.values()) + os.path.getsize(os.path.join(run, "projector_config.pbtxt"))


def measure(logdir: str, traced: bool) -> None:
    """In the subprocess: read ``logdir``; print the seconds, or (``traced``) the peak of the
    memory allocated meanwhile (tracemalloc, which numpy's arrays report to; it slows the read)."""
    import tracemalloc

    from visualdl import LogReader

    if traced:
        tracemalloc.start()
    start = time.perf_counter()
    reader = LogReader(logdir)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] if traced else 0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    entries = sum(len(reader.embeddings("run", tag)) for tag in reader.tags("run")["embeddings"])
    print(json.dumps({"peak_bytes": peak, "seconds": seconds, "max_rss": rss, "entries": entries}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="an eighth of the sizes")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=CASES, action="append", help="this case only (repeatable)")
    parser.add_argument("--case", help=argparse.SUPPRESS)  # in the subprocess: the logdir to read
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        measure(args.case, args.traced)
        return 0
    scale = 1 / 8 if args.quick else 1.0
    repeats = 1 if args.quick else args.repeats
    print(
        f"{'case':<16}{'on disk, MB':>13}{'peak, MB':>10}{'x size':>8}{'max RSS, MB':>13}{'seconds':>9}{'entries':>9}"
    )
    for case in args.only or CASES:
        logdir = tempfile.mkdtemp(prefix="bench-projector-")
        try:
            size = build(case, logdir, scale)
            runs = []
            for _ in range(repeats):
                for traced in ([], ["--traced"]):
                    out = subprocess.run(
                        [sys.executable, __file__, "--case", logdir, *traced],
                        capture_output=True,
                        text=True,
                        check=True,
                    ).stdout
                    runs.append(json.loads(out.strip().splitlines()[-1]))
        finally:
            shutil.rmtree(logdir, ignore_errors=True)
        peak = statistics.median(r["peak_bytes"] for r in runs[1::2])
        rss = statistics.median(r["max_rss"] for r in runs[::2])
        seconds = statistics.median(r["seconds"] for r in runs[::2])
        print(f"{case:<16}{size / 1e6:>13.1f}{peak / 1e6:>10.1f}{peak / size:>8.1f}{rss / 1e6:>13.1f}{seconds:>9.2f}"
              f"{runs[0]['entries']:>9}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
