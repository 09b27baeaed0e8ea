"""A writer process and a server process through every fault of the network to S3, with
every point counted: the fault-injection proxy (``kit/faultproxy.py``) between them and the
S3 API server refuses, black-holes, drops answers or goes silent for a while, then passes
again. Nothing is lost, nothing is read twice, no call hangs, and the writer is told.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from kit.faultproxy import FaultProxy, client_env, fault_proxy
from kit.ports import free_port
from kit.requirements import require
from kit.s3 import CREDENTIALS, s3_environment, serve_s3
from kit.waiting import wait_until

from visualdl import LogReader, LogWriter
from visualdl._storage.objects import filesystem

try:
    import moto  # noqa: F401
    import s3fs  # noqa: F401

    _HAVE_S3 = True
except ImportError:  # pragma: no cover - the test extra installs both
    _HAVE_S3 = False
require(_HAVE_S3, "moto and s3fs", "pip install -e '.[test]'")

FAULTS = ["refuse", "blackhole", "drop_answers", "outage"]

# Logs 100 points per "more" line and answers with the next step and the WriterErrors seen;
# "close" closes the writer (its time and error on the last line).
_WRITER = textwrap.dedent(
    """
    import sys, time
    from visualdl import LogWriter
    from visualdl.errors import WriterError
    w = LogWriter(sys.argv[1], upload_secs=0.2, upload_timeout=2.0, close_timeout=60, flush_secs=0.1)
    step = errors = 0
    for line in sys.stdin:
        if line.strip() == "close":
            start = time.monotonic()
            try:
                w.close()
                print("closed", errors, round(time.monotonic() - start, 2), "ok", flush=True)
            except WriterError as e:
                print("closed", errors, round(time.monotonic() - start, 2), repr(e), flush=True)
            break
        for _ in range(100):
            try:
                w.add_scalar("loss", float(step), step)
            except WriterError:
                errors += 1  # reported once per failure; the call kept its value
            step += 1
        print(step, errors, flush=True)
    """
)


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with serve_s3() as url, s3_environment(url):
        yield url


_names = iter(range(1_000_000))


@pytest.fixture
def bucket(endpoint) -> str:
    fs, _ = filesystem("s3://x")
    name = f"faults{next(_names)}"
    fs.mkdir(name)
    return f"s3://{name}"


@pytest.fixture
def proxy(endpoint) -> Iterator[FaultProxy]:
    with fault_proxy(endpoint) as p:
        yield p


class _Writer:
    def __init__(self, url: str, proxy: FaultProxy, env: dict[str, str]) -> None:
        env = {**env, **CREDENTIALS, **client_env(proxy)}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WRITER, url], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.steps = self.errors = 0

    def more(self) -> tuple[int, int]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("more\n")
        self.proc.stdin.flush()
        self.steps, self.errors = map(int, self.proc.stdout.readline().split())
        return self.steps, self.errors

    def close(self) -> list[str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("close\n")
        self.proc.stdin.flush()
        last = self.proc.stdout.readline().strip().split(maxsplit=3)
        assert self.proc.wait(timeout=120) == 0
        self.proc.stdin.close()
        self.proc.stdout.close()
        return last


@pytest.mark.parametrize("mode", FAULTS)
def test_a_writer_process_through_a_fault_recovers_and_every_point_is_read_once(bucket, proxy, mode, child_env):
    writer = _Writer(f"{bucket}/run", proxy, child_env)
    try:
        for _ in range(3):
            writer.more()
        wait_until(lambda: proxy.counts["pass"] >= 1, 60, "a first upload")
        proxy.set(mode, seconds=4.0)
        start = time.monotonic()
        # Until the writer is told (upload_timeout 2 s) and has tried again on a new connection:
        wait_until(lambda: writer.more()[1] >= 1 and proxy.counts[mode] >= 2, 90, f"a WriterError through {mode}", 0.05)
        told = time.monotonic() - start
        if mode != "outage":
            proxy.set("pass")  # an outage ends on its own
        steps_before = writer.steps
        wait_until(lambda: proxy.current() == "pass", 30, "the end of the fault")
        for _ in range(3):
            writer.more()
        closed = writer.close()
    finally:
        if writer.proc.poll() is None:
            writer.proc.kill()
    assert closed[0] == "closed" and closed[3] == "ok", closed
    assert writer.errors == 1  # reported once, however long the fault lasted
    steps = LogReader(bucket).scalars("run", "loss").steps.tolist()
    assert steps == list(range(writer.steps))  # every point, each once
    print(
        f"{mode}: WriterError {told:.1f} s after the fault began (upload_timeout 2 s), {steps_before} steps "
        f"logged meanwhile; {len(steps)} points read back; close() took {closed[2]} s; "
        f"connections {dict(proxy.counts)}"
    )


def test_close_of_a_writer_process_with_a_dead_endpoint_is_bounded(bucket, proxy, child_env):
    script = textwrap.dedent(
        """
        import sys, time
        from visualdl import LogWriter
        w = LogWriter(sys.argv[1], upload_secs=3600, close_timeout=float(sys.argv[2]))
        for step in range(1000):
            w.add_scalar("loss", float(step), step)
        print("logged", flush=True)
        sys.stdin.readline()
        start = time.monotonic()
        try:
            w.close()
        except Exception as e:
            print(round(time.monotonic() - start, 2), e, flush=True)
        """
    )
    env = {**child_env, **CREDENTIALS, **client_env(proxy)}
    proc = subprocess.Popen(
        [sys.executable, "-c", script, f"{bucket}/run", "3"], env=env, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    assert proc.stdout.readline().strip() == "logged"
    proxy.set("blackhole")
    start = time.monotonic()
    proc.stdin.write("\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    assert proc.wait(timeout=60) == 0  # and the interpreter's exit does not hang either
    took = time.monotonic() - start
    proc.stdin.close()
    proc.stdout.close()
    seconds, message = line.split(maxsplit=1)
    # the provenance, the points, the end, the footer
    assert "bytes (4 records) are not uploaded" in message, message
    print(f"close() with close_timeout=3 against a black hole: {seconds} s; the process ended after {took:.1f} s")
    assert float(seconds) < 3 + 5


def test_a_server_polling_through_a_fault_keeps_answering_and_catches_up(bucket, proxy, child_env):
    port = free_port()
    env = {**child_env, **CREDENTIALS, **client_env(proxy)}
    server = subprocess.Popen(
        [sys.executable, "-m", "visualdl", "--logdir", bucket, "--port", str(port), "--reload-interval", "1"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip

    def get(path: str) -> Any:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            return json.loads(r.read())

    def steps() -> list[int]:
        try:
            runs = get("/api/scalars?tag=loss&run=run")["runs"]
        except OSError:
            return []
        return runs[0]["steps"] if runs else []

    w = LogWriter(f"{bucket}/run", upload_secs=3600)  # this process writes to the store itself
    step = 0
    try:
        for _ in range(100):
            w.add_scalar("loss", float(step), step)
            step += 1
        w.flush()
        wait_until(lambda: steps() == list(range(step)), 60, "the first points", 0.1)
        for mode in FAULTS:
            proxy.set(mode, seconds=3.0)
            polls = get("/api/health")["polls"]
            for _ in range(100):
                w.add_scalar("loss", float(step), step)
                step += 1
            w.flush()

            # Polls go on through the fault (each request gives up), and the API answers meanwhile.
            def polled(before: int = polls) -> bool:
                return bool(get("/api/health")["polls"] >= before + 2)

            wait_until(polled, 60, f"polls through {mode}", 0.1)
            assert len(steps()) <= step
            proxy.set("pass")

            def caught_up(n: int = step) -> bool:
                return steps() == list(range(n))

            wait_until(caught_up, 60, f"catching up after {mode}", 0.1)
        print(f"server through {FAULTS}: every one of {step} points shown after each; {dict(proxy.counts)}")
    finally:
        w.close()
        server.terminate()
        server.communicate(timeout=30)
