"""Runs query benchmark: what one query costs, and whether queries starve a server.

In this process, over a runs table of ``--runs`` (30,000) runs ``lr{k}/seed{i}`` with hparams
``lr``, ``seed`` and ``opt`` (the query language alone, :mod:`visualdl._index.runquery`):

1. a 200-term query of regular expressions over the run names (``name ~ "seed{i}7$" or ...``,
   the shape that took 110 s): the first evaluation on a new table, and again (medians of
   ``--repeats``); with ``--before REV``, the query language of that commit over the same table
   (once: it is slow);
2. 1,000 comparisons in one ``or`` chain (a RecursionError before: one Python frame per term);
3. the dearest admissible queries: for each of a few families of regular expressions, the
   longest query of them the work bound (MAX_WORK) admits over this table, and its time.

As a server (``--no-server``: not): ``visualdl --logdir`` over a logdir of as many runs (a
point each, kept in ``--dir``), then ``/api/health`` asked every 0.1 s, alone and while
``--clients`` (8) threads ask for the runs table with the dearest admissible query, one after
the other for ``--seconds``: the health answers' latency (median, max), the queries' latency
and the statuses they got.

Run::

    python benchmarks/bench_queries.py --dir /tmp/vdl-queries --before 139cc4e
    python benchmarks/bench_queries.py --quick     # 3,000 runs, no server
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import types
from collections import Counter
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import bench_server as bs  # noqa: E402  (servers)

perf_counter = time.perf_counter

#: Families of regular expressions, term ``i`` of each; "starry" and "everything" match most
#: names (the dearest answers to gather), "counted" makes RE2's automaton large.
FAMILIES: dict[str, Callable[[int], str]] = {
    "suffix": lambda i: f"seed{i}7$",
    "everything": lambda i: f"e{i}|d",
    "starry": lambda i: f".*{i % 10}.*{(i // 10) % 10}.*{i // 100}",
    "classes": lambda i: f"(?:[0-4]|[3-7]|[6-9]|/|[a-z]){{2,{5 + i % 20}}}{i}$",
    "counted": lambda i: f"(?:.{{0,20}}\\d){{1,20}}[xy{i % 10}]{i}",
}


def names(runs: int) -> list[str]:
    return [f"lr{i % 10}/seed{i}" for i in range(runs)]


def table(runs: int) -> Any:
    from visualdl._index.runcolumns import RunTable, column_of

    every = names(runs)
    return RunTable(
        every,
        hparams={
            "lr": column_of([(i % 10) / 10 for i in range(runs)]),
            "seed": column_of(list(range(runs))),
            "opt": column_of(["adam" if i % 2 else "sgd" for i in range(runs)]),
        },
    )


def regex_query(family: str, terms: int, salt: str = "") -> str:
    """``terms`` of ``family`` in an ``or`` chain; a ``salt`` after each pattern makes a query
    that no column remembers (of one length: ``x000042``)."""
    return " or ".join(f'name ~ "{FAMILIES[family](i)}{salt}"' for i in range(terms))


def old_language(rev: str) -> types.ModuleType:
    """The query language as it was at ``rev``, over today's columns (the same arrays)."""
    source = subprocess.run(
        ["git", "show", f"{rev}:visualdl/_index/runquery.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    module = types.ModuleType("runquery_before")
    sys.modules[module.__name__] = module
    exec(compile(source, f"{rev}:visualdl/_index/runquery.py", "exec"), module.__dict__)
    return module


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = perf_counter()
    out = fn()
    return perf_counter() - t, out


def dearest(family: str, runs: int, salt: str = "") -> tuple[int, str]:
    """The most terms of ``family`` a query over ``runs`` runs may hold, and that query."""
    import visualdl._index.runquery as rq

    lo, hi = 1, rq.MAX_TERMS
    probe = table(runs)

    def admitted(terms: int) -> bool:
        try:
            rq.parse(regex_query(family, terms, salt))._columns(probe)  # the bounds alone, nothing evaluated
        except rq.QueryError:
            return False
        return True

    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if admitted(mid) else (lo, mid - 1)
    return lo, regex_query(family, lo, salt)


def in_process(runs: int, repeats: int, before: str | None) -> dict[str, Any]:
    from visualdl._index.runquery import parse

    out: dict[str, Any] = {}
    text = regex_query("suffix", 200)
    fresh = table(runs)
    seconds, mask = timed(lambda: parse(text).select(fresh))
    out["q200_first_s"] = round(seconds, 4)
    out["q200_matched"] = int(mask.sum())
    out["q200_again_s"] = round(
        statistics.median(timed(lambda: parse(text).select(fresh))[0] for _ in range(repeats)), 4
    )
    out["q200_new_table_s"] = round(
        statistics.median(timed(lambda: parse(text).select(table(runs)))[0] for _ in range(max(1, repeats // 2))), 4
    )
    chain = " or ".join(f"seed == {i}" for i in range(1000))
    out["or_1000_s"] = round(statistics.median(timed(lambda: parse(chain).select(fresh))[0] for _ in range(repeats)), 4)
    if before:
        old = old_language(before)
        seconds, mask = timed(lambda: old.parse(text).select(table(runs)))
        out["before_q200_s"] = round(seconds, 2)
        assert int(mask.sum()) == out["q200_matched"]
        try:
            old.parse(chain).select(fresh)
            out["before_or_1000"] = "answered"
        except RecursionError:
            out["before_or_1000"] = "RecursionError"
    for family in FAMILIES:
        terms, query = dearest(family, runs)
        fresh = table(runs)  # nothing remembered; its distinct names worked out in the time
        started = perf_counter()
        parse(query).select(fresh)
        seconds = perf_counter() - started
        out[f"dearest_{family}"] = {"terms": terms, "chars": len(query), "first_s": round(seconds, 3)}
    return out


# -- as a server ---------------------------------------------------------------------------------


def ensure(root: str, runs: int) -> str:
    """A logdir of ``runs`` runs (hparams and one point each), built once."""
    logdir = os.path.join(root, f"queries-{runs}")
    done = logdir + ".done"
    if os.path.isfile(done):
        return logdir
    shutil.rmtree(logdir, ignore_errors=True)
    from visualdl import LogWriter

    for i, name in enumerate(names(runs)):
        with LogWriter(os.path.join(logdir, name), provenance=False, max_queue=1 << 20) as w:
            w.add_hparams({"lr": (i % 10) / 10, "seed": i, "opt": "adam" if i % 2 else "sgd"}, ["loss"])
            w.add_scalar("loss", 1.0 / (1 + i), 0)
    open(done, "w").close()
    return logdir


def as_server(logdir: str, runs: int, clients: int, seconds: float) -> dict[str, Any]:
    family = "starry"  # the dearest family in process
    terms, query = dearest(family, runs, "x000000")

    def path(salt: str) -> str:  # each request its own patterns: nothing remembered helps
        return "/api/runs/table?" + urlencode({"where": regex_query(family, terms, salt), "limit": 10})

    out: dict[str, Any] = {"query_family": family, "query_terms": terms, "query_chars": len(query)}
    server = bs.visualdl_server(logdir)

    def loaded(conn: http.client.HTTPConnection) -> bool:  # every run indexed, the first read over
        status, body = bs.get(conn, "/api/health")
        return status == 200 and json.loads(body)["status"] == "ok"

    with server:
        passed = bs.seconds_until(server, {"loaded": loaded}, 3600.0)
        out["loaded_after_s"] = round(passed["loaded"], 1)
        conn = http.client.HTTPConnection(bs.HOST, server.port, timeout=600)
        t = perf_counter()
        status, _ = bs.get(conn, path("x999999"))  # the names' distinct texts worked out, as after a poll
        out["first_query"] = {"status": status, "s": round(perf_counter() - t, 2)}
        t = perf_counter()
        status, _ = bs.get(conn, path("x999998"))
        out["one_query_alone"] = {"status": status, "s": round(perf_counter() - t, 2)}

        def health_latencies(until: float) -> list[float]:
            got = []
            c = http.client.HTTPConnection(bs.HOST, server.port, timeout=600)
            while perf_counter() < until:
                t = perf_counter()
                status, _ = bs.get(c, "/api/health")
                got.append(perf_counter() - t)
                assert status == 200, status
                time.sleep(0.1)
            return got

        alone = health_latencies(perf_counter() + 3)
        out["health_alone_ms"] = {"median": round(statistics.median(alone) * 1e3, 1), "max": round(max(alone) * 1e3, 1)}
        stop = perf_counter() + seconds
        statuses: Counter[int] = Counter()
        latencies: list[float] = []
        lock = threading.Lock()

        def client(k: int) -> None:
            c = http.client.HTTPConnection(bs.HOST, server.port, timeout=600)
            n = 0
            while perf_counter() < stop:
                t = perf_counter()
                n += 1
                status, _ = bs.get(c, path(f"x{k}{n:05d}"))
                with lock:
                    statuses[status] += 1
                    latencies.append(perf_counter() - t)

        threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(clients)]
        for thread in threads:
            thread.start()
        time.sleep(0.5)
        during = health_latencies(stop)
        for thread in threads:
            thread.join()
        out["health_while_queried_ms"] = {
            "median": round(statistics.median(during) * 1e3, 1),
            "max": round(max(during) * 1e3, 1),
            "asked": len(during),
        }
        out["queries"] = {
            "statuses": dict(statuses),
            "median_s": round(statistics.median(latencies), 2),
            "max_s": round(max(latencies), 2),
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", default=None, help="where the server's logdir is built and kept")
    parser.add_argument("--runs", type=int, default=None, help="default 30,000, quick 3,000")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--before", default=None, help="a commit whose query language to time as well")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-server", action="store_true")
    args = parser.parse_args()
    runs = args.runs or (3000 if args.quick else 30_000)
    result: dict[str, Any] = {"runs": runs}
    result["in_process"] = in_process(runs, args.repeats, args.before)
    print(json.dumps({"in_process": result["in_process"]}), file=sys.stderr, flush=True)
    if not (args.no_server or args.quick):
        root = args.dir or tempfile.mkdtemp(prefix="vdl-queries-")
        try:
            result["server"] = as_server(ensure(root, runs), runs, args.clients, args.seconds)
        finally:
            if args.dir is None:
                shutil.rmtree(root, ignore_errors=True)
            bs.stop_all()
    print(json.dumps(result, indent=1))
    p = result["in_process"]
    line = f"a 200-term query over {runs:,} runs: {p['q200_first_s']} s first, {p['q200_again_s']} s again"
    if "before_q200_s" in p:
        line += f" (before: {p['before_q200_s']} s)"
    if "server" in result:
        s = result["server"]
        line += (
            f"; /api/health while {args.clients} clients query: median {s['health_while_queried_ms']['median']} ms, "
            f"max {s['health_while_queried_ms']['max']} ms"
        )
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
