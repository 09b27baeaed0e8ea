"""Server benchmark: ``visualdl --logdir`` as a user starts it, measured over loopback HTTP.

The logdir is the one of ``bench_reader.py`` (built the same way, by its code, and
cached in ``--dir`` under the same name): 10 runs x 20 scalar tags x 20,000 steps
(4,000,000 points) written with ``LogWriter``; and a second one of 1 run x 1 tag x
1,000,000 steps. Built once; without ``--dir`` in a temporary directory removed at the end.

Measured, every server being ``python -m visualdl --logdir DIR --port P --reload-interval 2``
started as a subprocess (waitress, 8 threads) and stopped at the end (SIGTERM, then kill):

1. cold start: from just before the process is started until a chart of one tag across
   all 10 runs (``/api/scalars?tag=T&run=run00..run09&max_points=1000``) comes back 200
   with every run's full data (``total_points`` 20,000 each). The client polls
   ``/api/health`` every 2 ms until ``loaded``, then asks for the chart (retried until
   complete). Also the time to the first HTTP answer and to ``loaded``. Median of
   several fresh processes, after one untimed start; the OS page cache is warm (the
   files are read once before), the Python process is new each time;
2. warm requests on one series of 1,000,000 points at ``max_points=1000``, on one
   persistent connection: the full range with a different ``x_max`` beyond the last
   step each time (same points, but never answered by the server's result cache),
   random zoomed x ranges (also uncached), and the same request repeated (cached);
   median and p99;
3. the server's peak RSS (``VmHWM`` of ``/proc/<pid>/status``) after loading the 4M-point
   logdir and serving a chart of every tag, minus the RSS of an idle server on an empty
   logdir, per point; also what it keeps (``VmRSS``);
4. load: N concurrent clients (default 100) for ``--duration`` seconds (60; ``--quick``
   3) against the 4M-point server, one persistent HTTP/1.1 connection each, asyncio
   streams in one thread of this process (cheap: the body is read, not parsed), each
   looping over random chart requests (random tag, 1-10 random runs, a random
   ``max_points`` or a random x range); every request has a 10 s timeout; the run stops
   by itself at the deadline (or after ``--max-requests`` per client). Requests/s,
   errors, p50 and p99 latency (client side), and the CPU each side used;
5. when ``tensorboard`` (and ``tensorboardX``, to write its logdir) is importable, the
   same cold start figure for TensorBoard on an equivalent logdir written with
   ``tensorboardX`` (its ``/data/plugin/scalars/scalars`` route, one request per run,
   complete when every run reaches the last step), as a ratio; otherwise peers are
   skipped. Nothing is installed.

``--quick`` runs every one of these measures, peers included, on small logdirs (10 x 20 x 250
and 1 x 1 x 100,000 points), one repeat and a 3 s load test: a check that the benchmark
works, not figures to compare with the targets.

All traffic is on 127.0.0.1. ``--profile`` also runs the indexing and some chart
requests in this process under cProfile (``create_app`` + Flask test client) and prints
the top functions.

Run::

    python benchmarks/bench_server.py                  # about 1.5 minutes on 2 cores
    python benchmarks/bench_server.py --dir /tmp/vdl   # keep the logdirs for the next runs
    python benchmarks/bench_server.py --quick          # every measure on small logdirs: about 15 s
    python benchmarks/bench_server.py --duration 20 --clients 50
    python benchmarks/bench_server.py --quick --profile   # and where the server's time goes
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import importlib.util
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, ClassVar
from urllib.parse import quote, urlencode

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import bench_reader as br  # noqa: E402  (the logdir builder, shared with the reader benchmark)

perf_counter = time.perf_counter

TARGETS = {"cold_start_s": 1.0, "warm_ms": 10.0, "bytes_per_point": 40.0}
HOST = "127.0.0.1"
BIG = br.Shape(10, 20, 20_000)
LONG = br.Shape(1, 1, 1_000_000)
# --quick: the same measures on small logdirs (the TensorBoard one is written at ~25,000 points/s).
QUICK_BIG = br.Shape(10, 20, 250)
QUICK_LONG = br.Shape(1, 1, 100_000)
REQUEST_TIMEOUT = 10.0
START_TIMEOUT = 120.0
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


# -- servers ----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class Server:
    """A server subprocess; ``stop()`` sends SIGTERM, then kills. Every one started is tracked."""

    live: ClassVar[list[Server]] = []

    def __init__(self, cmd: list[str], port: int, name: str) -> None:
        self.cmd, self.port, self.name = cmd, port, name
        self.log = tempfile.TemporaryFile(mode="w+b")
        self.proc: subprocess.Popen[bytes] | None = None
        self.started = 0.0

    def start(self) -> float:
        """Start it; returns the perf_counter() just before the process was created."""
        Server.live.append(self)
        self.started = perf_counter()
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        return self.started

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def check_alive(self) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            raise RuntimeError(f"{self.name} exited with status {self.proc.returncode}:\n{self.output()[-2000:]}")

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def stop(self) -> None:
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        if self in Server.live:
            Server.live.remove(self)
        self.log.close()

    def status_kb(self, key: str) -> int:
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
        raise KeyError(key)

    def cpu_seconds(self) -> float:
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def visualdl_server(logdir: str) -> Server:
    port = free_port()
    cmd = [sys.executable, "-m", "visualdl", "--logdir", logdir, "--port", str(port), "--reload-interval", "2"]
    return Server(cmd, port, "visualdl")


def stop_all() -> None:
    for server in list(Server.live):
        with contextlib.suppress(Exception):
            server.stop()


# -- HTTP helpers -----------------------------------------------------------------------


def get(conn: http.client.HTTPConnection, path: str) -> tuple[int, bytes]:
    conn.request("GET", path)
    response = conn.getresponse()
    return response.status, response.read()


def get_json(conn: http.client.HTTPConnection, path: str) -> Any:
    status, body = get(conn, path)
    if status != 200:
        raise RuntimeError(f"GET {path} -> {status}: {body[:200]!r}")
    return json.loads(body)


def scalars_path(tag: str, runs: list[str], max_points: int = 1000, **extra: float) -> str:
    query = [("tag", tag), *(("run", r) for r in runs), ("max_points", max_points), *extra.items()]
    return "/api/scalars?" + urlencode(query, quote_via=quote)


def run_names(shape: br.Shape) -> list[str]:
    return [f"run{r:02d}" for r in range(shape.runs)]


def chart_complete(body: bytes, shape: br.Shape) -> bool:
    data = json.loads(body)
    runs = data["runs"]
    return (
        not data["missing"]
        and len(runs) == shape.runs
        and all(r["total_points"] == shape.steps and r["range_points"] == shape.steps for r in runs)
    )


def wait_loaded(server: Server, timeout: float = START_TIMEOUT) -> http.client.HTTPConnection:
    """Poll /api/health until ``loaded``; returns the open connection."""
    end = perf_counter() + timeout
    conn: http.client.HTTPConnection | None = None
    while True:
        server.check_alive()
        if perf_counter() > end:
            raise TimeoutError(f"{server.name} not loaded after {timeout:.0f} s")
        try:
            conn = conn or http.client.HTTPConnection(HOST, server.port, timeout=REQUEST_TIMEOUT)
            if get_json(conn, "/api/health")["loaded"]:
                return conn
        except (OSError, http.client.HTTPException):
            if conn is not None:
                conn.close()
            conn = None
        time.sleep(0.002)


# -- 1. cold start ------------------------------------------------------------------------


def cold_start(
    logdir: str, shape: br.Shape, inspect: Callable[[Server], dict[str, float]] | None = None
) -> dict[str, float]:
    """Seconds from the process start to the first answer, to ``loaded``, to the full chart.

    ``inspect(server)``, when given, is called after the full chart, the server still up
    (untimed); the figures it returns are added to the result.
    """
    server = visualdl_server(logdir)
    path = scalars_path(br.tag_names(shape.tags)[0], run_names(shape))
    with server:
        t0 = server.start()
        end = t0 + START_TIMEOUT
        conn: http.client.HTTPConnection | None = None
        first = loaded = None
        health: dict[str, Any] = {}
        while True:
            server.check_alive()
            if perf_counter() > end:
                raise TimeoutError("no full chart from the server")
            try:
                conn = conn or http.client.HTTPConnection(HOST, server.port, timeout=REQUEST_TIMEOUT)
                if loaded is None:
                    health = get_json(conn, "/api/health")
                    first = first or perf_counter() - t0
                    if health["loaded"]:
                        loaded = perf_counter() - t0
                    else:
                        time.sleep(0.002)
                        continue
                sent = perf_counter()
                status, body = get(conn, path)
                done = perf_counter()
                if status == 200 and chart_complete(body, shape):
                    break
            except (OSError, http.client.HTTPException):
                if conn is not None:
                    conn.close()
                conn = None
            time.sleep(0.002)
        assert first is not None and loaded is not None
        if conn is not None:
            conn.close()
        extra = inspect(server) if inspect is not None else {}
        return {
            **extra,
            "first_answer_s": first,
            "loaded_s": loaded,
            "chart_s": done - t0,
            "chart_request_ms": (done - sent) * 1e3,
            "index_s": float(health["last_poll_seconds"]) if health.get("polls") == 1 else float("nan"),
            "bytes": len(body),
        }


# -- 2. warm requests on a 1M-point series ---------------------------------------------------


def percentile(samples: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(samples), q))


def warm_requests(logdir: str, shape: br.Shape, samples: int) -> dict[str, dict[str, float]]:
    tag = br.tag_names(shape.tags)[0]
    runs = run_names(shape)
    rng = random.Random(7)
    server = visualdl_server(logdir)
    with server:
        server.start()
        conn = wait_loaded(server)

        def timed(paths: list[str], check: Callable[[dict[str, Any]], bool]) -> dict[str, float]:
            times = []
            for p in paths:
                t = perf_counter()
                status, body = get(conn, p)
                times.append(perf_counter() - t)
                if status != 200:
                    raise RuntimeError(f"GET {p} -> {status}: {body[:200]!r}")
            data = json.loads(body)  # the last one checked: the series and the downsampling
            if not check(data):
                raise RuntimeError(f"unexpected answer to {paths[-1]}: {str(data)[:200]}")
            ms = [s * 1e3 for s in times]
            return {"median": statistics.median(ms), "p99": percentile(ms, 99), "n": len(ms), "bytes": len(body)}

        def full(d: dict[str, Any]) -> bool:
            series = d["runs"][0]
            return series["range_points"] == shape.steps and 0 < len(series["steps"]) <= 1000

        for i in range(50):  # untimed: the first merge of the series; each of the 8 threads' first requests
            get(conn, scalars_path(tag, runs, 1000, x_max=float(shape.steps + 10_000_000 + i)))
        out = {}
        out["full range, uncached"] = timed(
            [scalars_path(tag, runs, 1000, x_max=float(shape.steps + i)) for i in range(samples)], full
        )
        zooms = []
        for _ in range(samples):
            span = rng.randint(shape.steps // 100, shape.steps)
            lo = rng.randint(0, shape.steps - span)
            zooms.append(scalars_path(tag, runs, 1000, x_min=float(lo), x_max=float(lo + span) + rng.random()))
        out["zoomed, uncached"] = timed(zooms, lambda d: 0 < len(d["runs"][0]["steps"]) <= 1000)
        out["full range, cached"] = timed([scalars_path(tag, runs, 1000)] * samples, full)
        out["/api/health"] = timed(["/api/health"] * samples, lambda d: bool(d["loaded"]))
        conn.close()
    return out


# -- 3. memory, 4. load ----------------------------------------------------------------------------


def idle_rss_kb(empty: str) -> dict[str, int]:
    server = visualdl_server(empty)
    with server:
        server.start()
        conn = wait_loaded(server)
        get_json(conn, "/api/tags")
        get_json(conn, "/api/health")
        conn.close()
        return {"rss": server.status_kb("VmRSS"), "hwm": server.status_kb("VmHWM")}


def serve_every_tag(server: Server, shape: br.Shape) -> None:
    conn = http.client.HTTPConnection(HOST, server.port, timeout=REQUEST_TIMEOUT)
    for tag in br.tag_names(shape.tags):
        status, body = get(conn, scalars_path(tag, run_names(shape)))
        if status != 200 or not chart_complete(body, shape):
            raise RuntimeError(f"chart of {tag!r}: {status} {body[:200]!r}")
    conn.close()


def random_paths(rng: random.Random, shape: br.Shape, n: int) -> list[str]:
    tags = br.tag_names(shape.tags)
    runs = run_names(shape)
    out = []
    for _ in range(n):
        chosen = rng.sample(runs, rng.randint(1, len(runs)))
        if rng.random() < 0.5:
            out.append(scalars_path(rng.choice(tags), chosen, rng.randint(100, 2000)))
        else:
            span = rng.randint(100, shape.steps)
            lo = rng.randint(0, shape.steps - span)
            out.append(scalars_path(rng.choice(tags), chosen, 1000, x_min=float(lo), x_max=float(lo + span)))
    return out


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, int, bool]:
    """Status, body length, and whether the server closes the connection."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if "content-length" not in headers:
        raise ValueError("no Content-Length")
    length = int(headers["content-length"])
    await reader.readexactly(length)
    return status, length, headers.get("connection", "").lower() == "close"


async def _client(
    port: int, paths: list[str], deadline: float, bound: int, latencies: list[float], errors: Counter[str]
) -> float:
    """Loops until the deadline or ``bound`` requests; returns when it first got a 200 (inf: never)."""
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    n = 0
    first = float("inf")
    while n < bound and perf_counter() < deadline:
        path = paths[n % len(paths)]
        n += 1
        t = perf_counter()
        try:
            if writer is None:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), REQUEST_TIMEOUT)
            assert reader is not None and writer is not None
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\n\r\n".encode())
            status, _, close = await asyncio.wait_for(_read_response(reader), REQUEST_TIMEOUT)
            latencies.append(perf_counter() - t)
            if status != 200:
                errors[f"HTTP {status}"] += 1
            elif first == float("inf"):
                first = perf_counter()
            if close:
                writer.close()
                reader = writer = None
        except (OSError, TimeoutError, ValueError, asyncio.IncompleteReadError) as e:
            errors["timeout" if isinstance(e, TimeoutError) else type(e).__name__] += 1
            if writer is not None:
                writer.close()
            reader = writer = None
    if writer is not None:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    return first


def load_test(server: Server, shape: br.Shape, clients: int, duration: float, bound: int) -> dict[str, Any]:
    rng = random.Random(11)
    plans = [random_paths(rng, shape, 200) for _ in range(clients)]
    latencies: list[float] = []
    errors: Counter[str] = Counter()

    async def all_clients() -> tuple[float, int]:
        start = perf_counter()
        deadline = start + duration
        firsts = await asyncio.gather(
            *(_client(server.port, plan, deadline, bound, latencies, errors) for plan in plans)
        )
        return perf_counter() - start, sum(f > deadline for f in firsts)

    server_cpu0, client_cpu0 = server.cpu_seconds(), time.process_time()
    wall, starved = asyncio.run(all_clients())
    server_cpu, client_cpu = server.cpu_seconds() - server_cpu0, time.process_time() - client_cpu0
    ms = [s * 1e3 for s in latencies] or [float("nan")]
    return {
        "clients": clients,
        "starved": starved,
        "wall_s": wall,
        "ok": len(latencies) - sum(v for k, v in errors.items() if k.startswith("HTTP")),
        "requests": len(latencies) + sum(v for k, v in errors.items() if not k.startswith("HTTP")),
        "errors": dict(errors),
        "rps": len(latencies) / wall,
        "p50_ms": percentile(ms, 50),
        "p99_ms": percentile(ms, 99),
        "max_ms": max(ms),
        "server_cpu_s": server_cpu,
        "client_cpu_s": client_cpu,
    }


# -- 5. TensorBoard ---------------------------------------------------------------------------------


def seconds_until(
    server: Server, checks: dict[str, Callable[[http.client.HTTPConnection], bool]], timeout: float
) -> dict[str, float]:
    """Start ``server`` and run each check (a GET or more on a connection to it, true once what
    it waits for is there) until every one has passed: the seconds from the process's start
    to each first pass. Every check not yet passed runs each round, on its own; a refused or
    broken connection, or an answer not yet complete, is tried again."""
    t0 = server.start()
    conn: http.client.HTTPConnection | None = None
    passed: dict[str, float] = {}
    while len(passed) < len(checks):
        server.check_alive()
        if perf_counter() - t0 > timeout:
            raise TimeoutError(f"{server.name}: {[c for c in checks if c not in passed]} not done in {timeout:.0f} s")
        try:
            conn = conn or http.client.HTTPConnection(HOST, server.port, timeout=REQUEST_TIMEOUT)
            for name, check in checks.items():
                if name not in passed and check(conn):
                    passed[name] = perf_counter() - t0
        except (OSError, http.client.HTTPException, ValueError, IndexError, KeyError):
            if conn is not None:
                conn.close()
            conn = None
        time.sleep(0.02)
    if conn is not None:
        conn.close()
    return passed


def tensorboard_server(logdir: str, flags: tuple[str, ...] = ()) -> Server:
    port = free_port()
    cmd = [sys.executable, "-m", "tensorboard.main", "--logdir", logdir, "--host", HOST, "--port", str(port)]
    cmd += ["--reload_interval", "2", *flags]
    return Server(cmd, port, "tensorboard")


def tensorboard_cold_start(
    logdir: str,
    shape: br.Shape,
    flags: tuple[str, ...] = (),
    inspect: Callable[[Server], dict[str, float]] | None = None,
) -> dict[str, float]:
    """Process start until ``/data/plugin/scalars/scalars`` of one tag reaches the last step in every run.

    ``flags``: more command-line flags of ``tensorboard``; ``inspect`` as for ``cold_start``.
    """
    server = tensorboard_server(logdir, flags)
    tag = br.tag_names(shape.tags)[0]
    paths = [f"/data/plugin/scalars/scalars?{urlencode({'run': r, 'tag': tag})}" for r in run_names(shape)]

    def answered(conn: http.client.HTTPConnection) -> bool:  # any HTTP answer at all
        get(conn, paths[0])
        return True

    def complete(conn: http.client.HTTPConnection) -> bool:
        for p in paths:  # one request per run: events as [wall_time, step, value]
            status, body = get(conn, p)
            events = json.loads(body) if status == 200 else []
            if not events or events[-1][1] != shape.steps - 1:
                return False
        return True

    with server:
        passed = seconds_until(server, {"answered": answered, "complete": complete}, START_TIMEOUT * 2)
        extra = inspect(server) if inspect is not None else {}
        return {**extra, "first_answer_s": passed["answered"], "chart_s": passed["complete"]}


# -- in-process profile ------------------------------------------------------------------------------


def profile(logdir: str, shape: br.Shape, long_dir: str, long_shape: br.Shape) -> None:
    """cProfile of the first indexing and of chart requests, in this process (create_app + test client)."""
    import cProfile
    import pstats

    from visualdl.server._settings import Settings
    from visualdl.server.app import create_app

    def show(title: str, prof: cProfile.Profile, seconds: float) -> None:
        stats = pstats.Stats(prof)
        total = stats.total_tt  # type: ignore[attr-defined]
        rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])  # type: ignore[attr-defined]
        print(f"\nprofile: {title}: {seconds * 1e3:.1f} ms ({total * 1e3:.1f} ms profiled)")
        print(f"  {'own %':>6} {'incl. %':>7} {'calls':>7}  function")
        for (path, line, name), (_, calls, own, incl, _) in rows[:8]:
            where = f"{os.path.basename(path)}:{line}({name})" if line else name
            print(f"  {own / total:>6.0%} {incl / total:>7.0%} {calls:>7}  {where}")

    app = create_app(Settings(logdirs=(("", logdir),), background=False))
    provider = app.extensions["visualdl.provider"]
    prof = cProfile.Profile()
    t = perf_counter()
    prof.runcall(provider.poll)
    show(f"first poll of {shape.points:,} points", prof, perf_counter() - t)

    client = app.test_client()
    paths = [scalars_path(tag, run_names(shape)) for tag in br.tag_names(shape.tags)]
    prof = cProfile.Profile()
    t = perf_counter()
    for p in paths:
        assert prof.runcall(client.get, p).status_code == 200
    show(f"{len(paths)} first charts of {shape.runs} runs", prof, perf_counter() - t)

    app = create_app(Settings(logdirs=(("", long_dir),), background=False))
    app.extensions["visualdl.provider"].poll()
    client = app.test_client()
    tag = br.tag_names(long_shape.tags)[0]
    client.get(scalars_path(tag, ["run00"], 1000, x_max=-1.0))
    prof = cProfile.Profile()
    n = 50
    t = perf_counter()
    for i in range(n):
        response = prof.runcall(client.get, scalars_path(tag, ["run00"], 1000, x_max=float(long_shape.steps + i)))
        assert response.status_code == 200
    show(f"{n} uncached requests of {long_shape.steps:,} points at max_points 1000", prof, perf_counter() - t)


# -- main ------------------------------------------------------------------------------------------


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=None, help="where the logdirs are built and kept (default: a temp dir)")
    parser.add_argument(
        "--quick", action="store_true", help="small logdirs, fewer repeats and samples, a 3 s load test; every figure"
    )
    parser.add_argument("--duration", type=float, default=None, help="seconds of the load test (default 60, quick 3)")
    parser.add_argument("--clients", type=int, default=100, help="concurrent clients of the load test (default 100)")
    parser.add_argument("--max-requests", type=int, default=100_000, help="requests per load-test client at most")
    parser.add_argument("--repeats", type=int, default=None, help="cold starts (default 5, quick 1)")
    parser.add_argument("--no-peer", action="store_true", help="skip tensorboard even when importable")
    parser.add_argument("--profile", action="store_true", help="also cProfile the server in this process")
    args = parser.parse_args()

    quick = args.quick
    repeats = args.repeats or (1 if quick else 5)
    duration = args.duration if args.duration is not None else (3.0 if quick else 60.0)
    samples = 100 if quick else 300
    big, long = (QUICK_BIG, QUICK_LONG) if quick else (BIG, LONG)
    have_tb = importlib.util.find_spec("tensorboard") is not None
    have_tbx = importlib.util.find_spec("tensorboardX") is not None

    signal.signal(signal.SIGTERM, _interrupt)  # so that the servers are stopped on the way out
    print("VisualDL server benchmark")
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} CPUs; all traffic on {HOST}")
    if quick:
        print("quick: small logdirs, one repeat, a short load test; the figures check the benchmark, not the targets")

    started = perf_counter()
    root = args.dir or tempfile.mkdtemp(prefix="bench-server-")
    try:
        logdir, built = br.ensure_logdir(root, big, "vdl", "visualdl")
        long_dir, long_built = br.ensure_logdir(root, long, "vdl", "visualdl")
        empty = os.path.join(root, "empty-logdir")
        os.makedirs(empty, exist_ok=True)
        for path, shape, secs in ((logdir, big, built), (long_dir, long, long_built)):
            size, files = br.dir_bytes(path)
            how = f"built in {secs:.1f} s" if secs else "reused from the cache"
            print(f"logdir {path}: {shape.runs} x {shape.tags} x {shape.steps:,} = {shape.points:,} points, "
                  f"{files} files, {size / 1e6:.1f} MB, {how}")  # fmt: skip
            br.warm_page_cache(path)
        print("OS page cache warm (files read once); every server is a fresh process")

        # 1. cold start
        cold_start(logdir, big)  # untimed: .pyc files, page cache
        colds = [cold_start(logdir, big) for _ in range(repeats)]
        print("cold start to full chart (s): " + ", ".join(f"{c['chart_s']:.3f}" for c in colds))

        # 2. warm requests
        warm = warm_requests(long_dir, long, samples)

        # 3. memory, then 4. load on the same server
        idle = idle_rss_kb(empty)
        server = visualdl_server(logdir)
        with server:
            server.start()
            wait_loaded(server).close()
            loaded_rss = server.status_kb("VmRSS")
            serve_every_tag(server, big)
            peak_hwm, kept_rss = server.status_kb("VmHWM"), server.status_kb("VmRSS")
            print(f"load test: {args.clients} clients for {duration:g} s ...", flush=True)
            load = load_test(server, big, args.clients, duration, args.max_requests)
            after_load_hwm = server.status_kb("VmHWM")
            server.check_alive()
            log_tail = [line for line in server.output().splitlines() if "WARNING" in line or "ERROR" in line]

        # 5. peers
        peer: dict[str, float] | None = None
        if args.no_peer:
            peer_note = "peers skipped (--no-peer)"
        elif have_tb and have_tbx:
            print("peer: the tensorboardX logdir (built once, slowly, when missing) ...", flush=True)
            peer_dir, _ = br.ensure_logdir(root, big, "tbx", "tensorboardX")
            br.warm_page_cache(peer_dir)
            try:
                tensorboard_cold_start(peer_dir, big)  # untimed
                peers = [tensorboard_cold_start(peer_dir, big) for _ in range(repeats)]
                peer = {k: statistics.median(p[k] for p in peers) for k in peers[0]}
                peer_note = ""
            except (RuntimeError, TimeoutError, OSError) as e:
                peer_note = f"tensorboard failed: {str(e).strip().splitlines()[-1] if str(e).strip() else e!r}"
        else:
            missing = [name for name, ok in (("tensorboard", have_tb), ("tensorboardX", have_tbx)) if not ok]
            peer_note = f"{' and '.join(missing)} not installed: peers skipped"

        if args.profile:
            profile(logdir, big, long_dir, long)
    finally:
        stop_all()
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)

    def med(key: str) -> float:
        return statistics.median(c[key] for c in colds)

    def row(label: str, value: float, target: str = "", ok: str = "", digits: int = 3) -> None:
        print(f"{label:<62} {value:>11,.{digits}f} {target:>9} {ok:>4}")

    def verdict(value: float, target: float) -> str:
        return "ok" if value <= target else "MISS"

    print()
    header = f"{'measure':<62} {'visualdl':>11} {'target':>9} {'':>4}"
    print(header)
    print("-" * len(header))
    chart_s = med("chart_s")
    t = TARGETS["cold_start_s"]
    row(f"cold start to full chart, s ({big.points:,} points, median)", chart_s, f"<= {t:g}", verdict(chart_s, t))
    row("  to the first HTTP answer (imports, app), s", med("first_answer_s"))
    row("  to /api/health loaded, s", med("loaded_s"))
    row("  of which the first index (last_poll_seconds), s", med("index_s"))
    kb = colds[0]["bytes"] / 1e3
    row(f"  the chart request itself ({big.runs} runs, {kb:.0f} kB), ms", med("chart_request_ms"), digits=1)
    t = TARGETS["warm_ms"]
    points = f"{long.points / 1e6:g}M" if long.points >= 1_000_000 else f"{long.points / 1e3:g}k"
    for label, w in warm.items():
        if label == "/api/health":
            row("  HTTP floor: /api/health, median ms", w["median"])
            continue
        row(f"warm, {points} points -> 1000, {label}, median ms", w["median"], f"<= {t:g}", verdict(w["median"], t))
        row(f"  p99 ms (n={w['n']:.0f}, {w['bytes'] / 1e3:.0f} kB)", w["p99"])
    bpp = (peak_hwm - idle["rss"]) * 1024 / big.points
    t = TARGETS["bytes_per_point"]
    row("peak RSS - idle server RSS, bytes/point", bpp, f"<= {t:g}", verdict(bpp, t), digits=1)
    row("  idle server (empty logdir) RSS, MB", idle["rss"] / 1024, digits=1)
    row("  peak RSS after load + a chart of every tag, MB", peak_hwm / 1024, digits=1)
    loaded_bpp, kept_bpp = ((rss - idle["rss"]) * 1024 / big.points for rss in (loaded_rss, kept_rss))
    row("  RSS after load, before any chart - idle, bytes/point", loaded_bpp, digits=1)
    row("  RSS kept after the charts - idle, bytes/point", kept_bpp, digits=1)
    row("  peak RSS after the load test, MB", after_load_hwm / 1024, digits=1)
    errors = sum(load["errors"].values())
    row(f"load: {load['clients']} clients, {load['wall_s']:.0f} s: requests/s", load["rps"], digits=1)
    row("  errors", errors, "0", "ok" if errors == 0 else "MISS", digits=0)
    row("  clients without any answer before the deadline", load["starved"], digits=0)
    row("  latency p50, ms", load["p50_ms"], digits=1)
    row("  latency p99, ms", load["p99_ms"], digits=1)
    row("  latency max, ms", load["max_ms"], digits=1)
    row("  server CPU, s per wall s", load["server_cpu_s"] / load["wall_s"], digits=2)
    row("  client (this process) CPU, s per wall s", load["client_cpu_s"] / load["wall_s"], digits=2)
    print()
    print(f"load: {load['requests']:,} requests sent, {load['ok']:,} answered 200; errors: {load['errors'] or 'none'}")
    if log_tail:
        kinds = Counter(re.sub(r"\d+", "N", line)[:100] for line in log_tail).most_common(3)
        print(f"server log: {len(log_tail):,} warning lines: " + "; ".join(f"{n:,} x {k!r}" for k, n in kinds))
    if peer is not None:
        print(f"peer: tensorboard on the same {big.points:,} points written by tensorboardX (median of {repeats})")
        print(f"  cold start to full chart: visualdl {chart_s:.3f} s, tensorboard {peer['chart_s']:.3f} s, "
              f"ratio ours/theirs {chart_s / peer['chart_s']:.3f} (below 1 is better)")  # fmt: skip
        first = peer["first_answer_s"]
        print(f"  tensorboard first HTTP answer {first:.3f} s; it serves a 1,000-point reservoir per series")
    else:
        print(peer_note)
    print(f"total time {perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
