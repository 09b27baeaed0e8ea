"""The fatal-signal sidecar of a local log (``sdk/_fatal.py``): written by faulthandler when the
process dies of a fatal signal, taken back on a clean close, handed from writer to writer,
never written by a forked child into its parent's, and the program's own faulthandler left
alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from visualdl import LogReader

PROLOGUE = """
import ctypes, faulthandler, os, sys
from visualdl import LogWriter
w = LogWriter(sys.argv[1], rank=0, world_size=2, role="trainer")
w.add_scalar("loss", 1.0, 3)
w.flush()
"""


def _run(logdir: str, body: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROLOGUE + textwrap.dedent(body), logdir],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _without_faulthandler(env: dict[str, str]) -> dict[str, str]:
    """The environment without ``PYTHONFAULTHANDLER``, which would make faulthandler the program's."""
    return {k: v for k, v in env.items() if k != "PYTHONFAULTHANDLER"}


def _sidecars(logdir) -> list[str]:
    return sorted(p for p in os.listdir(logdir) if p.endswith(".fatal"))


HANDOVER = """
import faulthandler, os, sys
from visualdl import LogWriter
def sidecars(d):
    return sum(p.endswith(".fatal") for p in os.listdir(d))
root = sys.argv[1]
steps = [faulthandler.is_enabled()]
first = LogWriter(os.path.join(root, "a"))
second = LogWriter(os.path.join(root, "b"))
steps.append((faulthandler.is_enabled(), sidecars(first.logdir), sidecars(second.logdir)))
first.close()  # the next open writer's sidecar takes over
steps.append((faulthandler.is_enabled(), sidecars(first.logdir), sidecars(second.logdir)))
second.close()
steps.append((faulthandler.is_enabled(), sidecars(first.logdir), sidecars(second.logdir)))
print(steps)
"""


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_sdk_fatal_close_takes_the_sidecar_back_and_gives_faulthandler_back(tmp_path, child_env):
    # In a process of its own: pytest enables faulthandler in its own.
    env = _without_faulthandler(child_env)
    done = subprocess.run([sys.executable, "-c", HANDOVER, str(tmp_path)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[False, (True, 1, 0), (True, 0, 1), (False, 0, 0)]"


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_sdk_fatal_the_programs_faulthandler_is_left_alone(tmp_path, child_env):
    env = {**child_env, "PYTHONFAULTHANDLER": "1"}
    done = _run(str(tmp_path), "def crash():\n    ctypes.string_at(0)\ncrash()\n", env)
    assert done.returncode == -signal.SIGSEGV
    assert "Fatal Python error: Segmentation fault" in done.stderr and "in crash" in done.stderr  # still theirs
    assert _sidecars(tmp_path) == []
    reader = LogReader(str(tmp_path))
    (writer,) = reader.writers(".", now=1e12)
    assert writer.ended is not None and writer.ended.how == "killed"  # no trace of ours


def test_sdk_fatal_a_forked_child_does_not_crash_into_its_parents_sidecar(tmp_path, child_env):
    body = """
    pid = os.fork()
    if pid == 0:
        ctypes.string_at(0)
    _, status = os.waitpid(pid, 0)
    print("child", os.WTERMSIG(status), flush=True)
    w.close()
    """
    done = _run(str(tmp_path), body, _without_faulthandler(child_env))
    assert done.returncode == 0 and done.stdout.strip() == f"child {int(signal.SIGSEGV)}", done.stderr
    (writer,) = LogReader(str(tmp_path)).writers(".")
    assert writer.ended is not None and writer.ended.how == "closed"
    assert _sidecars(tmp_path) == []  # nothing was written after the parent's line: taken back


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_sdk_fatal_os_abort_reads_as_sigabrt_with_its_traceback(tmp_path, child_env):
    done = _run(str(tmp_path), "def give_up():\n    os.abort()\ngive_up()\n", _without_faulthandler(child_env))
    assert done.returncode == -signal.SIGABRT
    assert done.stderr == ""  # as without us: faulthandler writes to the sidecar only
    (writer,) = LogReader(str(tmp_path)).writers(".")
    end = writer.ended
    assert end is not None and (end.how, end.signal, end.step) == ("fatal signal", "SIGABRT", 3)
    assert "in give_up" in end.traceback
