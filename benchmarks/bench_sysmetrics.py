"""System-metrics benchmark: what sampling costs the training thread, what a sample costs the
sampler, and how fast the server answers a job's system bands over many ranks.

1. ``add_scalar`` on the training thread, in the same process, with system metrics off
   (``system_metrics=False``) and on (``system_metrics=True``, a sample every 0.5 s, ten
   times the default rate, so that samples fall inside the timed blocks): the median over
   ``--blocks`` blocks of 20,000 calls of the time per call, each block a writer of its own
   alternately off and on.
2. The sampler's own CPU time per sample (``time.thread_time`` of its thread around each
   tick: psutil's reads, the record's encoding), median over the writers of part 1.
   Then what sharing one sampling thread saves: the sampler's CPU per round of samples
   (every writer sampled once) with 1 and ``--writers`` (100) writers in the process,
   shared (this process's one thread, :mod:`visualdl.sdk._sampler`) and as before (a
   thread per writer, each reading psutil on its own, each writer without a local rank
   recording the host: one :class:`~visualdl.sdk._sampler.SamplerThread` per writer),
   in the same run, median of ``--rounds`` runs of about 3 s.
3. ``/api/job/system``'s work for one metric and for all of them, at 1,000 and 10,000 ranks
   x ``--metrics`` (40) metrics x ``--samples`` (500) samples each: the index's per-file
   stores (:class:`visualdl._index.system.SystemStore`, filled as the reader fills them)
   behind the two index calls the provider makes, then
   :func:`visualdl._jobs.system.read_system` (grid, bands over ranks) and the view's JSON
   (orjson). The samples are not written to 10,000 log files first: reading those is the
   reader's benchmark (bench_jobs.py); the values of the ranks are windows of one random
   table (so 10,000 ranks hold 40 MB of wall times, not 1.6 GB of values), each rank's wall
   times its own. Median of ``--repeats`` answers.

Run::

    python benchmarks/bench_sysmetrics.py            # about a minute
    python benchmarks/bench_sysmetrics.py --quick    # 1,000 ranks only, fewer blocks
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from types import SimpleNamespace
from typing import Any

import numpy as np
import orjson

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from visualdl import LogWriter
from visualdl._index.system import SystemStore, metric_catalog, metric_members
from visualdl._index.systembands import Member
from visualdl._jobs.system import read_system
from visualdl._kinds.table import SystemBatch, SystemMetric
from visualdl.sdk import _sampler as sampling
from visualdl.sdk._sysmetrics import STOP_SECS
from visualdl.server._views.system import system_answer

CALLS = 20_000


def _block(w: LogWriter, step0: int) -> float:
    add = w.add_scalar
    start = time.perf_counter()
    for i in range(CALLS):
        add("loss", 0.5, step0 + i)
    return (time.perf_counter() - start) / CALLS


def training_thread(blocks: int) -> None:
    off: list[float] = []
    on: list[float] = []
    per_sample: list[float] = []
    samples = 0
    with tempfile.TemporaryDirectory() as logdir:
        for b in range(2 * blocks):
            sampled = b % 2 == 1
            w = LogWriter(os.path.join(logdir, str(b)), system_metrics=sampled, system_metrics_secs=0.5)
            hub = sampling.process_sampler()
            cpu0, samples0 = (hub.cpu_seconds, hub.samples) if hub is not None else (0.0, 0)
            # blocks long enough for a sample or more: about 1 s of calls each
            step = 0
            spent = []
            until = time.monotonic() + 1.0
            while time.monotonic() < until:
                spent.append(_block(w, step))
                step += CALLS
            (on if sampled else off).extend(spent)
            w.close()  # its last sample
            if sampled and hub is not None and hub.samples > samples0:  # the writer was the only subscriber
                per_sample.append((hub.cpu_seconds - cpu0) / (hub.samples - samples0))
                samples += hub.samples - samples0
    print(f"add_scalar, system metrics off: median {statistics.median(off) * 1e6:.3f} us/call ({len(off)} blocks)")
    print(f"add_scalar, system metrics on (0.5 s): median {statistics.median(on) * 1e6:.3f} us/call ({len(on)} blocks)")
    print(f"sampler CPU per sample: median {statistics.median(per_sample) * 1e3:.3f} ms ({samples} samples)")


def _round_cpu(n: int, shared: bool, seconds: float) -> tuple[float, int, int]:
    """The sampling threads' CPU seconds per round of samples (each of ``n`` writers once),
    the threads that sampled and their ticks: ``n`` writers sampling every 0.5 s for
    ``seconds`` after their first sample, on one shared thread or on a thread each."""
    with tempfile.TemporaryDirectory() as logdir:
        writers = [LogWriter(logdir, system_metrics=False) for _ in range(n)]
        hubs = [sampling.SamplerThread() for _ in range(1 if shared else n)]
        subs = [
            hubs[i % len(hubs)].subscribe(w._sink.put_sample, secs=0.5, placement=w._placement, env=os.environ)
            for i, w in enumerate(writers)
        ]
        while min(s.samples for s in subs) < 1:  # past the first samples (their one-off costs)
            time.sleep(0.05)

        def totals() -> tuple[float, int, int]:
            return (sum(h.cpu_seconds for h in hubs), sum(h.samples for h in hubs), sum(h.ticks for h in hubs))

        start = totals()
        time.sleep(seconds)  # the threads sample meanwhile; nothing to wait on
        end = totals()
        for hub in hubs:
            hub.stop_all(STOP_SECS)
        for w in writers:
            w.close()
        cpu, taken, ticks = (b - a for a, b in zip(start, end, strict=True))
        return cpu * n / max(taken, 1), len(hubs), int(ticks)


def sharing(writers: int, rounds: int) -> None:
    for n in (1, writers):
        for shared in (False, True) if n > 1 else (True,):
            runs = [_round_cpu(n, shared, 3.0) for _ in range(rounds)]
            cpu = statistics.median(r[0] for r in runs)
            threads, ticks = runs[0][1], statistics.median(r[2] for r in runs)
            how = "one shared thread" if shared else "a thread per writer (as before)"
            print(
                f"sampler CPU per round, {n} writer{'s' * (n > 1)}, {how}: median {cpu * 1e3:.3f} ms "
                f"({cpu / n * 1e3:.3f} ms per writer's sample; {threads} thread{'s' * (threads > 1)}, "
                f"{ticks:.0f} ticks in 3 s)"
            )


class _Reader:
    """The two index calls the provider makes, over the index's own stores."""

    def __init__(self, files: dict[str, Any], stores: dict[str, SystemStore]) -> None:
        self.files, self.stores = files, stores

    def system_catalog(self, run: str) -> dict[tuple[str, str, str], int]:
        return metric_catalog(self.files, self.stores)

    def system_members(self, run: str, scope: str, name: str) -> list[Member]:
        return metric_members(self.files, self.stores, scope, name)


def _job(ranks: int, metrics: int, samples: int) -> _Reader:
    rng = np.random.default_rng(0)
    columns = tuple(
        SystemMetric(f"m{j:02d}", ("process", "host", "gpu")[j % 3], "percent", 0 if j % 3 == 2 else -1)
        for j in range(metrics)
    )
    table = rng.uniform(0, 100, (samples + 1000, metrics))
    t0 = 1.7e9
    files: dict[str, Any] = {}
    stores: dict[str, SystemStore] = {}
    for r in range(ranks):
        path = f"job/vdl.{r}.vdlog"
        header = SimpleNamespace(role="trainer", rank=r, host=f"h{r // 8}", local_rank=r % 8, attempt=0, pid=r)
        files[path] = SimpleNamespace(header=header)
        walls = t0 + rng.uniform(0, 5) + 5.0 * np.arange(samples)
        store = stores[path] = SystemStore()
        o = r % 1000
        store.add([SystemBatch(columns, walls, table[o : o + samples])])
    return _Reader(files, stores)


def api(ranks: int, metrics: int, samples: int, repeats: int) -> None:
    start = time.perf_counter()
    reader = _job(ranks, metrics, samples)
    built = time.perf_counter() - start

    def answer(which: tuple[str, ...]) -> float:
        t = time.perf_counter()
        bands = read_system(reader, "job", metrics=which, points=200)  # type: ignore[arg-type]
        orjson.dumps(system_answer("job", bands, 200), option=orjson.OPT_SERIALIZE_NUMPY)
        return time.perf_counter() - t

    one = statistics.median(answer(("host/m01",)) for _ in range(repeats))
    every = statistics.median(answer(()) for _ in range(max(1, repeats // 3)))
    print(
        f"/api/job/system at {ranks:,} ranks x {metrics} metrics x {samples} samples "
        f"(stores built in {built:.1f} s): one metric {one * 1e3:.0f} ms, all {metrics} metrics {every * 1e3:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--metrics", type=int, default=40)
    parser.add_argument("--samples", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--writers", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    training_thread(2 if args.quick else args.blocks)
    sharing(args.writers, 1 if args.quick else args.rounds)
    for ranks in (1_000,) if args.quick else (1_000, 10_000):
        api(ranks, args.metrics, args.samples, args.repeats)


if __name__ == "__main__":
    main()
