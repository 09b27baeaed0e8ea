"""Object storage benchmark: what live writers and a polling reader cost in S3 requests.

An S3 API server on loopback (moto's, through s3fs; every request it answers is counted
by kind from its access log), ``--writers`` processes each logging ``--tags`` scalars
at ``--rate`` steps/s for ``--seconds`` into one job prefix (``upload_secs=--upload``),
and a :class:`~visualdl.LogReader` on the bucket polled every ``--reload`` seconds, as
the server does. Printed:

1. PUTs per writer-hour (one per upload, plus the bucket's own), and ``add_scalar``'s cost
   on the training thread, to a bucket and to a local disk in the same run (it never
   waits on the network);
2. per reload of the live job (from the first reload that sees it): LIST, GET and HEAD
   requests (medians), the objects in the bucket at the end, and the full listings (one
   LIST per 1,000 objects);
3. the delay from ``add_scalar`` to the point being read by the reader (median, max),
   bounded by the upload interval plus the reload interval;
4. on paper, at S3 Standard's list prices (PUT and LIST $0.005 per 1,000, GET $0.0004
   per 1,000): the cost per day of 1,000 writers at this upload interval, at the default
   (60 s) and at 300 s, and of one server reloading every 2 s.

Run::

    python benchmarks/bench_s3.py               # 8 writers x 60 s, uploads every 5 s
    python benchmarks/bench_s3.py --quick       # 3 writers x 4 s: a few seconds
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import os
import re
import statistics
import sys
import tempfile
import threading
import time

PUT_PRICE = 0.005 / 1000  # S3 Standard, per request (us-east-1 list prices)
LIST_PRICE = 0.005 / 1000
GET_PRICE = 0.0004 / 1000
_REQUEST = re.compile(r'"(?P<method>[A-Z]+) (?P<path>\S+) HTTP')


class Counter(logging.Handler):
    """Counts the requests the S3 server answers, by kind, from its access log."""

    def __init__(self) -> None:
        super().__init__()
        self.counts = {"PUT": 0, "GET": 0, "LIST": 0, "HEAD": 0, "OTHER": 0}
        self._counting = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        m = _REQUEST.search(record.getMessage())
        if m is None:
            return
        method, path = m["method"], m["path"]
        kind = "OTHER"
        if method == "GET":
            kind = "LIST" if "list-type=" in path else "GET"
        elif method in ("PUT", "HEAD"):
            kind = method
        with self._counting:
            self.counts[kind] += 1

    def snapshot(self) -> dict[str, int]:
        with self._counting:
            return dict(self.counts)


def _ready(barrier: threading.Barrier) -> None:
    """A writer process's start: import what it needs, then wait for the others and the reader.

    The clock of the run starts once every writer is up, so that however slowly the machine
    spawns them, each writes for ``--seconds`` and the reader's reloads see a live job.
    """
    import visualdl  # noqa: F401 - the import is the slow part of a spawned process's start

    barrier.wait(timeout=300)


def _writer(args: tuple[str, str, int, int, float, float, float, float]) -> list[float]:
    endpoint, url, rank, tags, rate, seconds, upload, t0 = args
    os.environ["AWS_ENDPOINT_URL"] = endpoint
    from visualdl import LogWriter

    w = LogWriter(url, upload_secs=upload, rank=rank, world_size=1000, role="trainer")
    names = [f"metric{t}" for t in range(tags)]
    costs = []
    step = 0
    while time.time() < t0 + seconds:
        start = time.perf_counter()
        for name in names:
            w.add_scalar(name, step * 0.001 + rank, step)
        costs.append((time.perf_counter() - start) / tags * 1e6)
        step += 1
        time.sleep(max(0.0, t0 + step / rate - time.time()))
    w.close()
    return costs


def _call_cost(logdir: str, calls: int) -> float:
    """add_scalar, us/call on the caller's thread: the median of 5 batches."""
    from visualdl import LogWriter

    w = LogWriter(logdir, upload_secs=1.0)
    batches = []
    for b in range(5):
        start = time.perf_counter()
        for step in range(b * calls, (b + 1) * calls):
            w.add_scalar("loss", 0.5, step)
        batches.append((time.perf_counter() - start) / calls * 1e6)
    w.close()
    return statistics.median(batches)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--tags", type=int, default=10)
    parser.add_argument("--rate", type=float, default=20.0, help="steps per second per writer")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--upload", type=float, default=5.0, help="the writers' upload_secs")
    parser.add_argument("--reload", type=float, default=2.0, help="seconds between two polls of the reader")
    parser.add_argument("--quick", action="store_true", help="3 writers x 4 s, uploads every 1 s, reload 0.5 s")
    args = parser.parse_args()
    if args.quick:
        args.writers, args.seconds, args.upload, args.reload = 3, 4.0, 1.0, 0.5

    from moto.server import ThreadedMotoServer

    counter = Counter()
    access = logging.getLogger("werkzeug")
    access.setLevel(logging.INFO)
    access.propagate = False
    access.addHandler(counter)
    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1")
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    os.environ["AWS_ENDPOINT_URL"] = endpoint
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from visualdl import LogReader
    from visualdl._storage import lister as _lister
    from visualdl._storage.objects import filesystem

    fs, _ = filesystem("s3://bench")
    fs.mkdir("bench")
    calls = 20_000 if args.quick else 200_000
    with tempfile.TemporaryDirectory() as tmp:
        local_us = _call_cost(tmp + "/local", calls)
    remote_us = _call_cost("s3://bench/callcost", calls)
    fs.rm("bench/callcost", recursive=True)
    url = "s3://bench/job/run"
    ctx = multiprocessing.get_context("spawn")
    started = ctx.Barrier(args.writers + 1)
    with ctx.Pool(args.writers, initializer=_ready, initargs=(started,)) as pool:
        started.wait(timeout=300)
        t0 = time.time() + 0.5
        jobs = [(endpoint, url, rank, args.tags, args.rate, args.seconds, args.upload, t0)
                for rank in range(args.writers)]  # fmt: skip
        pending = pool.map_async(_writer, jobs, chunksize=1)
        reader = LogReader("s3://bench", load=False)
        seen: dict[tuple[str, int], int] = {}  # (role, rank) -> steps seen of metric0
        delays: list[float] = []
        per_reload: list[dict[str, int]] = []
        end = t0 + args.seconds + args.upload + 2 * args.reload
        while time.time() < end or not pending.ready():
            before = counter.snapshot()
            reader.poll()
            now = time.time()
            after = counter.snapshot()
            job_live = "job/run" in reader.runs()
            per_reload.append({k: after[k] - before[k] for k in ("LIST", "GET", "HEAD")} | {"live": job_live})
            if job_live and "metric0" in reader.tags("job/run")["scalars"]:
                for role, rank in reader.streams("job/run", "metric0"):
                    s = reader.scalars("job/run", "metric0", role=role, rank=rank)
                    old = seen.get((role, rank), 0)
                    delays.extend((now - s.wall_times[old:]).tolist())
                    seen[(role, rank)] = len(s)
            time.sleep(max(0.0, args.reload - (time.time() - now)))
        costs = [c for per in pending.get() for c in per]
    totals = counter.snapshot()
    objects = len(fs.find("bench"))
    points = sum(seen.values())
    assert points, f"the reader saw no point: runs {reader.runs()}, problems {reader.problems}, {objects} objects"
    server.stop()
    writer_hours = args.writers * args.seconds / 3600
    puts_per_writer_hour = totals["PUT"] / writer_hours
    # Reloads before the first upload list an empty prefix only at a full listing: not the cost asked for.
    measured = [r for r in per_reload if r["live"]] or per_reload
    live = [r for r in per_reload if r["LIST"]]
    list_per_reload = statistics.median(r["LIST"] for r in measured)
    get_per_reload = statistics.median(r["GET"] for r in measured)
    head_per_reload = statistics.median(r["HEAD"] for r in measured)
    reloads_per_day = 86400 / 2.0

    def writers_day(upload_secs: float) -> float:
        return 1000 * 86400 / upload_secs * PUT_PRICE

    # A server's reload of a job of 1,000 writers in one run: one LIST page per 1,000 keys
    # of the re-listed window (the newest segment minus the clock-skew allowance), each new
    # segment read by one GET, and the full listings.
    window_keys = 1000 * (_lister.CLOCK_SKEW_SECS + 2.0) / 60.0
    reader_day = reloads_per_day * (max(1, -(-window_keys // 1000)) * LIST_PRICE) + 1000 * 86400 / 60.0 * GET_PRICE
    reader_day += 86400 / _lister.FULL_LIST_SECS_PER_PAGE * LIST_PRICE  # full listings: one page per 3 s at most
    figures = {
        "writers": args.writers,
        "seconds": args.seconds,
        "upload_secs": args.upload,
        "reload_secs": args.reload,
        "points_read": points,
        "add_scalar_us_median": statistics.median(costs),
        "add_scalar_us_s3_writer": remote_us,
        "add_scalar_us_local_writer": local_us,
        "puts": totals["PUT"],
        "puts_per_writer_hour": puts_per_writer_hour,
        "reloads": len(per_reload),
        "list_per_reload_median": list_per_reload,
        "get_per_reload_median": get_per_reload,
        "head_per_reload_median": head_per_reload,
        "list_per_reload_max": max(r["LIST"] for r in live) if live else 0,
        "objects_at_end": objects,
        "delay_s_median": statistics.median(delays),
        "delay_s_max": max(delays),
        "paper_1000_writers_usd_per_day_at_this_upload": writers_day(args.upload),
        "paper_1000_writers_usd_per_day_at_60s": writers_day(60.0),
        "paper_1000_writers_usd_per_day_at_300s": writers_day(300.0),
        "paper_server_usd_per_day_1000_writers_60s": reader_day,
    }
    print(f"{args.writers} writers x {args.seconds:.0f} s, {args.tags} tags at {args.rate:.0f} steps/s, "
          f"upload every {args.upload:g} s; a reader polling every {args.reload:g} s")  # fmt: skip
    print(f"add_scalar, us/call, one process (median of 5), s3 / local: {remote_us:.2f} / {local_us:.2f}")
    print(f"add_scalar, us/call in the busy writer processes:     {figures['add_scalar_us_median']:.2f}")
    print(f"PUT requests per writer-hour:                         {puts_per_writer_hour:.0f}")
    print(f"per reload, LIST / GET / HEAD (median):               {list_per_reload:g} / {get_per_reload:g} / "
          f"{head_per_reload:g}")  # fmt: skip
    print(f"add_scalar to read, s (median / max):                 {figures['delay_s_median']:.2f} / "
          f"{figures['delay_s_max']:.2f}")  # fmt: skip
    print(f"objects in the bucket at the end:                     {objects}")
    print(f"on paper, 1,000 writers, USD/day at {args.upload:g} s / 60 s / 300 s: "
          f"{writers_day(args.upload):.2f} / {writers_day(60):.2f} / {writers_day(300):.2f}")  # fmt: skip
    print(f"on paper, one server reloading every 2 s, USD/day:    {reader_day:.2f}")
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
