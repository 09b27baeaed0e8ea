"""Aggregate benchmark: one tag over many ranks (mean, min/max, extreme ranks, quantiles).

Times :func:`visualdl._index.aggregate.aggregate` on ``--ranks`` (10,000) series of
``--steps`` (500) points, median of ``--repeats`` runs, for both paths: every rank at the
same steps (the chunked matrix) and ranks at steps that differ (one sort of all points);
and the peak of the memory it allocates (tracemalloc) beside the ranks x steps matrix.

Run::

    python benchmarks/bench_aggregate.py
    python benchmarks/bench_aggregate.py --ranks 2000 --steps 2000
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import tracemalloc

import numpy as np

from visualdl._index.aggregate import aggregate
from visualdl._index.series import ScalarSeries


def _series(ranks: int, steps: int, ragged: bool) -> list[ScalarSeries]:
    rng = np.random.default_rng(0)
    out = []
    for rank in range(ranks):
        start = rank % 2 if ragged else 0
        at = np.arange(start, start + steps, dtype=np.int64)
        out.append(ScalarSeries(at, rng.normal(size=steps), at.astype(np.float64)))
    return out


def _measure(series: list[ScalarSeries], repeats: int) -> dict[str, float]:
    ranks = list(range(len(series)))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        aggregate(series, ranks)
        times.append(time.perf_counter() - t0)
    tracemalloc.start()
    try:
        aggregate(series, ranks)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return {"median_s": round(statistics.median(times), 4), "peak_mib": round(peak / 2**20, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    matrix = args.ranks * args.steps * 8 / 2**20
    result = {"ranks": args.ranks, "steps": args.steps, "matrix_mib": round(matrix, 1)}
    for name, ragged in (("equal_steps", False), ("ragged_steps", True)):
        result[name] = _measure(_series(args.ranks, args.steps, ragged), args.repeats)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
