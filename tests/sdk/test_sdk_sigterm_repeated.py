"""A program that handles SIGTERM itself may receive it more than once: each handled SIGTERM
is recorded as an event and written at once (a first one to checkpoint, a second to stop),
and once the program gives SIGTERM back to the writers' handler, the next one is its end."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import pytest

from visualdl import LogReader

CHILD = """
import signal, sys, time
from visualdl import LogWriter
w = LogWriter(sys.argv[1] + "/run")
w.add_scalar("loss", 1.0, 7)
calls = []
previous = signal.signal(signal.SIGTERM, lambda *a: calls.append(1))  # the program's own
print("ready", flush=True)
for n in (1, 2):
    while len(calls) < n:
        time.sleep(0.01)
    print("handled", n, flush=True)
sys.stdin.readline()  # the parent saw both events written
signal.signal(signal.SIGTERM, previous)  # the checkpoint is done: SIGTERM ends the process again
print("restored", flush=True)
while True:
    time.sleep(0.01)
"""


def _events(logdir: str) -> int:
    try:
        (writer,) = LogReader(logdir).writers("run")
    except (ValueError, OSError):  # not written yet
        return 0
    return len(writer.events)


def _wait_events(logdir: str, count: int, child: subprocess.Popen[str]) -> bool:
    deadline = time.monotonic() + 30.0
    while time.monotonic() < deadline and child.poll() is None:
        if _events(logdir) >= count:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_sdk_sigterm_repeated_handled_twice_then_ended(tmp_path, child_env):
    logdir = str(tmp_path)
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(CHILD), logdir],
        env=child_env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "ready"
        for n in (1, 2):
            child.send_signal(signal.SIGTERM)
            assert child.stdout.readline().strip() == f"handled {n}"
            assert _wait_events(logdir, n, child), f"SIGTERM number {n} was not recorded"
        child.stdin.write("go\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "restored"
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == -signal.SIGTERM, err
    (writer,) = LogReader(logdir).writers("run")
    assert [(e.how, e.signal) for e in writer.events] == [("signal", "SIGTERM")] * 2
    assert writer.ended is not None and (writer.ended.how, writer.ended.signal) == ("signal", "SIGTERM")
