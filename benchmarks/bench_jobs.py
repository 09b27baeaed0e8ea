"""Job benchmark: one run of many ranks, the job chart and the job page, as the server answers them.

The logdir: ``--ranks`` (1,000) trainer processes' files in one run, each with ``--tags``
(100) scalar tags x ``--steps`` (1,000) steps, written with ``LogWriter(rank=..,
world_size=.., role="trainer")`` by two worker processes, flushed every 10 steps (so
every file has a progress trace), wall times spaced as a job of 2 steps/s with a few
slow ranks; a few ranks were killed and restarted from a checkpoint 50 steps back.
Built once and kept in ``--dir`` (default: a temp dir removed at the end).

Measured in this process, the server's app (``create_app``) with Flask's test client,
after the data provider's first full poll:

1. the cold load: seconds of the first poll, and the process's RSS growth per point;
2. a job chart request, ``/api/scalars?tag=T&run=job&max_points=1000`` (mean, min/max
   band, extreme ranks over all ranks): the first request of each tag (nothing cached:
   restarts resolved and ranks aggregated for that tag) and the same request again
   (cached); medians over ``--repeats`` tags;
3. the per-rank lines of one tag (``ranks=each``), first request;
4. the job page, ``/api/job?run=job``: the first request (laid out) and the median of
   ``--repeats`` more (cached until the run changes: ``server/_views/jobpages.py``); its
   goodput alone (``visualdl/_jobs/goodput.py`` measured, ``server/_views/goodput.py``
   answered); the stragglers' causes (``/api/job/stragglers``), first and cached;
5. the job page's two halves on the same files' progress: the analysis
   (``visualdl._jobs.overview.job_overview``, ``job_overview_ms``) and its JSON
   (``server/_views/jobs.py``'s ``job_json``, ``job_json_ms``). To compare two revisions,
   run this benchmark in a checkout of each, alternately, on the same ``--dir``.

Targets (issue 24): job chart and job page <= 200 ms at 10,000 ranks.

Run::

    python benchmarks/bench_jobs.py --dir /tmp/vdl-jobs   # keep the 100,000,000-point logdir
    python benchmarks/bench_jobs.py --quick               # 100 ranks x 20 tags: about 5 s
    python benchmarks/bench_jobs.py --ranks 10000 --tags 1 --steps 200 --restart-every 50
                                                          # the job page of 10,000 ranks, 200 restarted
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

RESTARTED = (7, 333, 777)


def _write_rank(args: tuple[str, int, int, int, int, float, int]) -> None:
    logdir, rank, world, tags, steps, t0, every = args
    from visualdl import LogWriter

    rng = np.random.default_rng(rank)
    names = [f"group{t // 10}/metric{t % 10}" for t in range(tags)]
    speed = 2.0 if rank % 97 else 1.4  # steps per second; every 97th rank is a straggler
    restarted = rank % every == 7 if every else rank in RESTARTED
    cut = steps // 2 if restarted else steps

    def attempt(first: int, last: int, number: int) -> None:
        w = LogWriter(logdir, rank=rank, world_size=world, role="trainer", job="bench", attempt=number)
        base = rng.normal(size=tags)
        for step in range(first, last):
            wall = t0 + step / speed + (5.0 if number else 0.0)
            decay = 1.0 / (1.0 + step / 100.0)
            for t, name in enumerate(names):
                w.add_scalar(name, base[t] * decay + 0.01 * rank, step, walltime=wall)
            if step % 10 == 9:
                w.flush()
        if number == 0 and last < steps:
            w.flush()
            os._exit(0)  # killed: no footer
        w.close()

    if cut < steps:
        pid = os.fork()  # the first attempt in a process of its own, which dies without closing
        if pid == 0:
            attempt(0, cut, 0)
        os.waitpid(pid, 0)
        attempt(cut - 50, steps, 1)
    else:
        attempt(0, steps, 0)


def build(logdir: str, ranks: int, tags: int, steps: int, every: int = 0) -> float:
    start = time.perf_counter()
    t0 = time.time() - steps
    jobs = [(logdir, r, ranks, tags, steps, t0, every) for r in range(ranks)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        for _ in pool.imap_unordered(_write_rank, jobs, chunksize=4):
            pass
    return time.perf_counter() - start


def _median_ms(call: object, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        call()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return round(1e3 * statistics.median(times), 1)


def _rss_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=None, help="where the logdir is built and kept")
    parser.add_argument("--ranks", type=int, default=None, help="default 1,000, quick 100")
    parser.add_argument("--tags", type=int, default=None, help="default 100, quick 20")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="100 ranks x 20 tags x 1,000 steps")
    parser.add_argument(
        "--restart-every",
        type=int,
        default=0,
        help="restart every Nth rank (rank %% N == 7); default ranks 7, 333, 777",
    )
    args = parser.parse_args()
    if args.ranks is None:
        args.ranks = 100 if args.quick else 1000
    if args.tags is None:
        args.tags = 20 if args.quick else 100
    root = args.dir or tempfile.mkdtemp(prefix="vdl-bench-jobs-")
    shape = f"{args.ranks}x{args.tags}x{args.steps}" + (f"r{args.restart_every}" if args.restart_every else "")
    logdir = os.path.join(root, f"jobs-{shape}")
    run_dir = os.path.join(logdir, "job")
    points = args.ranks * args.tags * args.steps
    try:
        if not os.path.isdir(run_dir):
            print(f"building {args.ranks} ranks x {args.tags} tags x {args.steps} steps ({points:,} points) ...",
                  flush=True)  # fmt: skip
            seconds = build(run_dir + ".tmp", args.ranks, args.tags, args.steps, args.restart_every)
            os.rename(run_dir + ".tmp", run_dir)
            print(f"built in {seconds:.1f} s", flush=True)
        from visualdl.server._settings import Settings
        from visualdl.server.app import create_app

        rss0 = _rss_kb()
        app = create_app(Settings(logdirs=(("", logdir),), background=False))
        provider = app.extensions["visualdl.provider"]
        t = time.perf_counter()
        provider.poll()
        load = time.perf_counter() - t
        rss = (_rss_kb() - rss0) * 1024 / points
        client = app.test_client()
        tags = sorted(client.get("/api/tags").get_json()["scalars"])
        rng = np.random.default_rng(0)
        picked = [tags[i] for i in rng.choice(len(tags), size=min(args.repeats, len(tags)), replace=False)]
        cold, warm, sizes = [], [], []
        for tag in picked:
            url = f"/api/scalars?tag={tag}&run=job&max_points=1000"
            t = time.perf_counter()
            response = client.get(url)
            cold.append(time.perf_counter() - t)
            assert response.status_code == 200, response.get_data(as_text=True)[:200]
            body = response.get_json()["runs"][0]
            assert body["job"][0]["ranks"] == list(range(args.ranks)), "every rank in the band"
            sizes.append(len(response.get_data()))
            t = time.perf_counter()
            client.get(url)
            warm.append(time.perf_counter() - t)
        t = time.perf_counter()
        each = client.get(f"/api/scalars?tag={picked[0]}&run=job&max_points=1000&ranks=each")
        per_rank = time.perf_counter() - t
        assert each.status_code == 200
        t = time.perf_counter()
        response = client.get("/api/job?run=job")
        page_first = time.perf_counter() - t
        page = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            response = client.get("/api/job?run=job")
            page.append(time.perf_counter() - t)
        t = time.perf_counter()
        causes = client.get("/api/job/stragglers?run=job")
        stragglers_first = time.perf_counter() - t
        assert causes.status_code == 200
        t = time.perf_counter()
        client.get("/api/job/stragglers?run=job")
        stragglers_cached = time.perf_counter() - t
        job = response.get_json()
        killed = sum(w["state"] == "killed" for w in job["writers"])
        from visualdl._jobs.goodput import measure_goodput
        from visualdl._jobs.overview import job_overview
        from visualdl.server._views.goodput import goodput_answer
        from visualdl.server._views.jobs import job_json

        progress = provider.read_job(run="job")
        now = time.time()
        overview = job_overview(progress, now=now)
        views = {
            "job_overview_ms": _median_ms(lambda: job_overview(progress, now=now), args.repeats),
            "job_json_ms": _median_ms(lambda: job_json(overview), args.repeats),
        }
        goodput_ms = _median_ms(lambda: goodput_answer(measure_goodput(progress)), args.repeats)
        ms = lambda xs: 1e3 * statistics.median(xs)  # noqa: E731
        rows = {
            "points": points,
            "cold_load_s": round(load, 2),
            "rss_bytes_per_point": round(rss, 1),
            "job_chart_first_ms": round(ms(cold), 1),
            "job_chart_cached_ms": round(ms(warm), 2),
            "job_chart_bytes": int(statistics.median(sizes)),
            "per_rank_lines_first_ms": round(1e3 * per_rank, 1),
            "per_rank_bytes": len(each.get_data()),
            "job_page_first_ms": round(1e3 * page_first, 1),
            "job_page_cached_ms": round(ms(page), 1),
            "stragglers_first_ms": round(1e3 * stragglers_first, 1),
            "stragglers_cached_ms": round(1e3 * stragglers_cached, 2),
            "job_page_bytes": len(response.get_data()),
            "goodput_ms": goodput_ms,
            **views,
            "trace_entries": int(sum(p[1].size for p in progress)),
            "killed_files_found": killed,
            "restarts_measured": job["goodput"]["restarts"],
            "stragglers_found": len(job["stragglers"].get("trainer", [])),
        }
        print(json.dumps(rows, indent=1))
        print(
            f"job chart {rows['job_chart_first_ms']} ms first / {rows['job_chart_cached_ms']} ms cached "
            f"(target <= 200 ms); job page {rows['job_page_first_ms']} ms first / {rows['job_page_cached_ms']} ms "
            "cached (target <= 200 ms)"
        )
    finally:
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
