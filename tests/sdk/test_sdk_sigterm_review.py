"""SIGTERM in a process whose main thread opened a writer ends it exactly as it would have
ended without us: the parent (a launcher such as torchrun's elastic agent, which sends
SIGTERM to its workers and waits for them) sees exit status -SIGTERM, whatever the main
thread was doing; a handler of the program's own, set before or after the writer opened,
is called and alone decides what happens."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

from visualdl import LogReader

PROLOGUE = """
import os, signal, sys, threading, time
from visualdl import LogWriter
"""


def _start(logdir: str, body: str, child_env: dict[str, str]) -> subprocess.Popen[str]:
    code = PROLOGUE + textwrap.dedent(body)
    return subprocess.Popen(
        [sys.executable, "-c", code, logdir], env=child_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _end_of(logdir: str):
    reader = LogReader(logdir)
    (run,) = reader.runs()
    (writer,) = reader.writers(run)
    return writer.ended


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_sdk_sigterm_parent_sees_minus_sigterm_from_a_blocked_main_thread(tmp_path, child_env):
    # As torchrun's agent does: wait for the worker to be busy, SIGTERM it, wait for it.
    child = _start(
        str(tmp_path),
        """
        w = LogWriter(sys.argv[1], rank=0, world_size=2, role="trainer")
        w.add_scalar("loss", 1.0, 7)
        print("ready", flush=True)
        threading.Lock().acquire(); threading.Lock().acquire()  # a collective that never returns
        lock = threading.Lock(); lock.acquire(); lock.acquire()
        """,
        child_env,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    child.send_signal(signal.SIGTERM)
    _, err = child.communicate(timeout=60)
    assert child.returncode == -signal.SIGTERM, err
    end = _end_of(str(tmp_path))
    assert end is not None and (end.how, end.signal, end.step) == ("signal", "SIGTERM", 7)


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_sdk_sigterm_handler_set_before_the_writer_is_the_programs(tmp_path, child_env):
    child = _start(
        str(tmp_path),
        """
        signal.signal(signal.SIGTERM, lambda *a: sys.exit(3))
        w = LogWriter(sys.argv[1], rank=0, world_size=2, role="trainer")
        w.add_scalar("loss", 1.0, 7)
        print("ready", flush=True)
        while True:
            time.sleep(0.05)
        """,
        child_env,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    child.send_signal(signal.SIGTERM)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 3, err  # the program's own handler ran; exit closed the writer
    end = _end_of(str(tmp_path))
    assert end is not None and end.how == "closed"


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_sdk_sigterm_handler_set_after_the_writer_decides_alone(tmp_path, child_env):
    # A program that handles SIGTERM itself after opening a writer (to checkpoint, then exit
    # on its own) is neither hammered with SIGTERM nor ended by the writer's watcher.
    child = _start(
        str(tmp_path),
        """
        import visualdl.sdk._sigterm as guard
        guard.FLUSH_SECS = 0.2  # the watcher's own deadline, to see what it does past it
        w = LogWriter(sys.argv[1], rank=0, world_size=2, role="trainer")
        w.add_scalar("loss", 1.0, 7)
        calls = []
        got = threading.Event()
        signal.signal(signal.SIGTERM, lambda *a: (calls.append(1), got.set()))
        print("ready", flush=True)
        while not got.is_set():
            time.sleep(0.01)
        for _ in range(300):  # 3 s: past the watcher's deadline and its retries
            time.sleep(0.01)
        w.add_scalar("loss", 0.5, 8)
        w.close()
        print("calls", len(calls), flush=True)
        """,
        child_env,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    assert out.strip() == "calls 1"
    reader = LogReader(str(tmp_path))
    (writer,) = reader.writers(reader.runs()[0])
    assert [(e.how, e.signal) for e in writer.events] == [("signal", "SIGTERM")]  # received, recorded
    assert writer.ended is not None and writer.ended.how == "closed"  # and lived on: its end is the close
