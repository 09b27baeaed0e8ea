"""Process ends benchmark: what telling how 10,000 ranks ended costs.

1. ``end_timeline`` (``visualdl/_jobs/ends.py``, part of every ``/api/job``) over
   ``--ranks`` writers: one raised, one was killed, the others ended by SIGTERM within
   4 s; median of ``--repeats`` calls.
2. The reader's sidecar check after a poll (``visualdl/_index/sidecars.py``): ``--ranks``
   running writers' sidecars (their one line each) stat'ed, nothing read; then the same
   with one sidecar grown by a dump (one read). Median of ``--repeats`` checks.

Run::

    python benchmarks/bench_job_ends.py                 # 10,000 ranks
    python benchmarks/bench_job_ends.py --ranks 1000
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from visualdl._formats.fatal import preamble
from visualdl._index.index import WriterInfo
from visualdl._index.sidecars import Sidecars
from visualdl._jobs.ends import end_timeline
from visualdl._kinds.table import ProcessEnd
from visualdl._storage import LocalStore

T0 = 1_700_000_000.0


def _infos(ranks: int) -> list[WriterInfo]:
    out = []
    for rank in range(ranks):
        if rank == 3:
            end = ProcessEnd("exception", T0, "RuntimeError", "CUDA out of memory", "tb", step=1204)
        elif rank == 7:
            end = ProcessEnd("killed", T0 + 0.5, step=1190)
        else:
            end = ProcessEnd("signal", T0 + 4.0 * rank / ranks, signal="SIGTERM", step=1203)
        info = WriterInfo(
            path=f"/logs/job/vdl.{rank}.vdlog", writer_id=f"{rank:032x}", host="h", pid=rank, start_time=T0 - 600,
            sdk_version="x", display_name="", rank=rank, world_size=ranks, local_rank=rank % 8,
            role="trainer", job="j", attempt=0, launcher="", closed=False, ended=end,
        )  # fmt: skip
        out.append(info)
    return out


def _median_ms(fn: object, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=11)
    args = parser.parse_args()
    infos = _infos(args.ranks)
    ms = _median_ms(lambda: end_timeline(infos), args.repeats)
    print(f"end_timeline, {args.ranks:,} ranks: {ms:.1f} ms (median of {args.repeats})")
    with tempfile.TemporaryDirectory() as root:
        store = LocalStore(root)
        candidates = []
        for rank in range(args.ranks):
            log = os.path.join(root, f"vdl.{rank}.vdlog")
            with open(log + ".fatal", "wb") as f:
                f.write(preamble(f"{rank:032x}", rank))
            candidates.append((log, log + ".fatal", f"{rank:032x}", rank))
        sidecars = Sidecars(store)
        t = time.perf_counter()
        sidecars.check(candidates)
        first = (time.perf_counter() - t) * 1e3
        ms = _median_ms(lambda: sidecars.check(candidates), args.repeats)
        print(f"sidecar check, {args.ranks:,} running writers: first {first:.1f} ms, then {ms:.1f} ms (stats, no read)")
        with open(candidates[3][1], "ab") as f:
            f.write(b"Fatal Python error: Segmentation fault\n\nCurrent thread 0x1 (most recent call first):\n")
        t = time.perf_counter()
        sidecars.check(candidates)
        print(f"sidecar check with one dump: {(time.perf_counter() - t) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
