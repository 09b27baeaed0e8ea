"""Aggregate benchmark: one tag over many ranks (mean, min/max, extreme ranks, quantiles).

Times :func:`visualdl._index.aggregate.aggregate` on ``--ranks`` (10,000) series of
``--steps`` (500) points, median of ``--repeats`` runs, for both paths: every rank at the
same steps (the chunked matrix) and ranks at steps that differ (one sort of all points);
and the peak of the memory it allocates (tracemalloc) beside the ranks x steps matrix.

Then, on the same ranks:

* ``job_chart``: the job chart's line of one role as ``/api/scalars`` answers it after the
  aggregation: the points kept (every line's spikes, mean, min, max and quantiles, at
  ``max_points=1000``), the extreme-rank ranges (:func:`~visualdl._index.outliers.extreme_runs`)
  and the JSON of that role, with the ranges it holds; and the whole of it with the aggregation;
* ``heatmap``: the rank x time throughput heatmap (``/api/job/heatmap``) of ``--ranks`` files
  whose progress traces have ``steps / 10`` entries (a flush every 10 steps): the time grid,
  the matrix, the overlays and the answer (quantised bytes, base64), with its JSON's size.

Run::

    python benchmarks/bench_aggregate.py
    python benchmarks/bench_aggregate.py --ranks 2000 --steps 2000
    python benchmarks/bench_aggregate.py --quick   # 1,000 ranks
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from visualdl._index.aggregate import aggregate
from visualdl._index.index import WriterInfo
from visualdl._index.series import ScalarSeries
from visualdl._jobs.heatmap import HeatmapMatrix, job_grid, overlays, throughput_matrix
from visualdl.server._http.jsonio import _dumps
from visualdl.server._provider import role_line
from visualdl.server._views.heatmap import heatmap_answer
from visualdl.server._views.scalars import _role


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


def _median_of(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return round(statistics.median(times), 4)


def _chart(series: list[ScalarSeries], repeats: int) -> dict[str, float]:
    ranks = list(range(len(series)))
    job = aggregate(series, ranks)

    def line(max_points: int, of: Any = None) -> bytes:
        return _dumps(_role(role_line("trainer", ranks, of or job, max_points, None, None)))

    return {
        "role_line_median_s": _median_of(lambda: line(1000), repeats),
        "role_line_100_points_median_s": _median_of(lambda: line(100), repeats),
        "with_aggregate_median_s": _median_of(lambda: line(1000, aggregate(series, ranks)), repeats),
        "json_kib": round(len(line(1000)) / 1024, 1),
    }


def _info(rank: int) -> WriterInfo:
    return WriterInfo(
        f"/logs/{rank}", "w", "host", rank, 0.0, "x", "", rank, 0, rank, "trainer", "job", 0, "", True, None
    )


def _heatmap(ranks: int, steps: int, repeats: int) -> dict[str, float]:
    rng = np.random.default_rng(1)
    progress = []
    entries = max(2, steps // 10)
    for rank in range(ranks):
        speed = 2.0 if rank % 97 else 1.4
        at = np.arange(1, entries + 1) * 10
        walls = at / speed + rng.uniform(0, 0.05, entries)
        info = _info(rank)
        progress.append((info, walls, at.astype(np.int64), steps, 0))
    now = 10.0 * entries

    def answer() -> bytes:
        grid = job_grid(progress, now=now)
        members = grid.members("trainer")
        rows, matrix = throughput_matrix(grid.files, members, grid.times)
        heat = HeatmapMatrix("trainer", rows, grid.times, matrix, overlays(grid, "trainer", rows), "steps/s")
        return _dumps(heatmap_answer("job", "steps_per_second", heat))

    body = answer()
    return {"answer_median_s": _median_of(answer, repeats), "json_kib": round(len(body) / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="1,000 ranks, 3 repeats")
    args = parser.parse_args()
    if args.quick:
        args.ranks, args.repeats = 1000, 3
    matrix = args.ranks * args.steps * 8 / 2**20
    result = {"ranks": args.ranks, "steps": args.steps, "matrix_mib": round(matrix, 1)}
    for name, ragged in (("equal_steps", False), ("ragged_steps", True)):
        result[name] = _measure(_series(args.ranks, args.steps, ragged), args.repeats)
    result["job_chart"] = _chart(_series(args.ranks, args.steps, False), args.repeats)
    result["heatmap"] = _heatmap(args.ranks, args.steps, args.repeats)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
