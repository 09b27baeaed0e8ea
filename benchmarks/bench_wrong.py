"""The first rank to go wrong: what finding it costs the writer and the reader.

Measured, each the median of several repeats, in one process:

* ``add_scalar`` on the training thread, three ways in the same run, interleaved: the call
  as it was before ``replicated`` existed (its body copied here), the call today without
  ``replicated``, and with ``replicated=True`` (declared once, then passed at every call);
* what the index does per stored block (:func:`visualdl._index.wrong.note_points`: the
  first non-finite point of each file's tag, and the ranks' step-by-step comparison),
  for a job of RANKS ranks x TAGS tags x STEPS steps, one block per rank and tag (a cold
  read): seconds in all, microseconds per block, and the bytes the comparisons hold;
* the queries :func:`~visualdl._index.wrong.first_nonfinite` and
  :func:`~visualdl._index.wrong.divergence` over that job (what ``/api/job/wrong`` asks).

Run::

    python benchmarks/bench_wrong.py           # 10,000 ranks x 20 tags x 500 steps, ~1 minute
    python benchmarks/bench_wrong.py --quick   # 1,000 ranks, a few seconds
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import types
from typing import Any

import numpy as np

from visualdl import LogWriter
from visualdl._index.runs import Run
from visualdl._index.wrong import divergence, first_nonfinite, note_points
from visualdl.sdk import _writer

perf_counter = time.perf_counter


def add_scalar_before(self: Any, tag: str, value: Any, step: int, walltime: float | None = None) -> None:
    """``LogWriter.add_scalar`` as it was before ``replicated`` (copied from sdk/_writer.py)."""
    if tag not in self._known_tags:
        self._tag(tag)
    if type(value) is not float:
        try:
            value = float(value) if type(value) is int else _writer._to_float(value)
        except OverflowError:
            value = _writer._to_float(value)
    if type(step) is not int or not 0 <= step <= _writer._INT64_MAX:
        step = _writer.convert.check_step(step)
    self._sink.put_scalar(
        tag, step, value, _writer._now() if walltime is None else _writer.convert.check_walltime(walltime)
    )


def time_calls(call: Any, n: int) -> float:
    """Microseconds per call of ``call(i)`` over ``n`` calls (loop included)."""
    t0 = perf_counter()
    for i in range(n):
        call(i)
    return (perf_counter() - t0) / n * 1e6


def bench_writer(calls: int, repeats: int) -> dict[str, float]:
    out: dict[str, list[float]] = {"before": [], "now": [], "now_replicated": []}
    with tempfile.TemporaryDirectory() as logdir:
        w = LogWriter(logdir, max_queue=10 * calls * repeats, flush_secs=3600, max_pending_bytes=1 << 30)
        before = types.MethodType(add_scalar_before, w)
        w.add_scalar("loss", 0.5, 0, replicated=True)
        ways = {
            "before": lambda i: before("loss", 0.5, i),
            "now": lambda i: w.add_scalar("loss", 0.5, i),
            "now_replicated": lambda i: w.add_scalar("loss", 0.5, i, replicated=True),
        }
        for _ in range(repeats):
            for name, call in ways.items():  # interleaved: the same state of the machine for all three
                w.flush()
                out[name].append(time_calls(call, calls))
        w.close()
    return {name: statistics.median(values) for name, values in out.items()}


def bench_index(ranks: int, tags: int, steps: int) -> dict[str, float]:
    rng = np.random.default_rng(0)
    state = Run()
    header = types.SimpleNamespace(role="trainer", rank=0, attempt=-1, start_time=0.0)
    step_col = np.arange(steps, dtype=np.int64)
    walls = 1.7e9 + step_col.astype(np.float64)
    loss = 1.0 / (1.0 + step_col)
    noise = rng.random((tags, steps))
    blocks = 0
    spent = 0.0
    for rank in range(ranks):
        path = f"r{rank}.vdlog"
        state.files[path] = types.SimpleNamespace(  # type: ignore[assignment]  # what the index reads of a log file
            header=types.SimpleNamespace(**{**vars(header), "rank": rank}), writer=types.SimpleNamespace(tag_info={})
        )
        parts = []
        for t in range(tags):
            if t % 2 == 0:  # replicated tags: equal on every rank, rank 7 parts at step 3/4 of the way
                values = loss * (1 + t) + (0.5 if rank == 7 and t == 0 else 0.0) * (step_col >= 3 * steps // 4)
            else:  # per-rank tags (throughput): differ by design
                values = noise[t] + rank
            if rank == 3 and t == 2:  # a NaN for 3 steps on another tag: a first non-finite, no divergence
                values = values.copy()
                values[steps // 2 : steps // 2 + 3] = np.nan
            parts.append((f"tag{t}", step_col, values, walls))
        t0 = perf_counter()
        note_points(state, path, parts)
        spent += perf_counter() - t0
        blocks += tags
    held = sum(c.nbytes for c in state.consensus.values())
    q0 = perf_counter()
    found = first_nonfinite(state)
    q1 = perf_counter()
    parted = divergence(state, replicated=None, minority=lambda *a: [])
    q2 = perf_counter()
    assert found and found[0].rank == 3 and found[0].step == steps // 2, found
    first = {d.tag: d for d in parted}
    assert first["tag0"].ranks == (7,) and first["tag0"].step == 3 * steps // 4, parted
    return {
        "ingest_seconds": spent,
        "ingest_us_per_block": spent / blocks * 1e6,
        "ingest_ns_per_point": spent / (blocks * steps) * 1e9,
        "consensus_bytes": float(held),
        "first_nonfinite_ms": (q1 - q0) * 1e3,
        "divergence_ms": (q2 - q1) * 1e3,
        "tags_divergent": float(len(parted)),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smaller run")
    args = parser.parse_args(argv)
    ranks, tags, steps = (1000, 20, 500) if args.quick else (10_000, 20, 500)
    calls, repeats = (20_000, 5) if args.quick else (200_000, 9)
    w = bench_writer(calls, repeats)
    print(f"add_scalar, training thread, median of {repeats} x {calls:,} calls (us per call):")
    print(f"  before replicated existed  {w['before']:.3f}")
    print(f"  now, replicated not given  {w['now']:.3f}  ({(w['now'] / w['before'] - 1) * 100:+.1f}%)")
    print(f"  now, replicated=True       {w['now_replicated']:.3f}")
    ix = bench_index(ranks, tags, steps)
    print(f"index at ingest, {ranks:,} ranks x {tags} tags x {steps} steps (half the tags replicated):")
    print(f"  note_points total          {ix['ingest_seconds']:.2f} s")
    per_point = f"{ix['ingest_ns_per_point']:.1f} ns per point"
    print(f"  per block (rank x tag)     {ix['ingest_us_per_block']:.1f} us  ({per_point})")
    print(f"  comparisons held           {ix['consensus_bytes'] / 1e6:.2f} MB")
    print(f"  first_nonfinite query      {ix['first_nonfinite_ms']:.1f} ms")
    print(f"  divergence query           {ix['divergence_ms']:.1f} ms ({ix['tags_divergent']:.0f} tags parted)")


if __name__ == "__main__":
    main()
