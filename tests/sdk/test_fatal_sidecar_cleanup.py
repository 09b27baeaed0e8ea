"""``.fatal`` sidecars do not stay in the logdir for writers that ended without a fatal
signal: a SIGTERM that ends the writer takes its sidecar back as a close does, and the
sidecar a SIGKILLed writer leaves (its section line alone) is removed by the next writer
that opens in the same directory on the same host. A dump, a live writer's sidecar and
another host's are left alone."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from kit.waiting import wait_until

from visualdl import LogReader, LogWriter
from visualdl._formats.fatal import preamble
from visualdl.sdk._options import safe_host

pytestmark = pytest.mark.e2e  # writers in processes of their own, ended by real signals

_SCRIPT = textwrap.dedent(
    """
    import os, sys, time
    from visualdl import LogWriter
    w = LogWriter(sys.argv[1])
    w.add_scalar("loss", 1.0, 1)
    w.flush()
    print("ready", flush=True)
    time.sleep(60)  # ended here by the test's signal
    """
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONFAULTHANDLER", None)  # the program's own faulthandler would be left alone
    return env


def _ended_by(logdir: str, signum: int) -> None:
    proc = subprocess.Popen([sys.executable, "-c", _SCRIPT, logdir], env=_env(), stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        proc.send_signal(signum)
        assert proc.wait(timeout=60) == -signum
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()


def _sidecars(logdir: str) -> list[str]:
    return sorted(n for n in os.listdir(logdir) if n.endswith(".fatal"))


def test_fatal_sidecar_a_sigterm_end_takes_it_back(tmp_path):
    _ended_by(str(tmp_path), signal.SIGTERM)
    assert _sidecars(str(tmp_path)) == []
    (writer,) = LogReader(str(tmp_path)).writers(".")
    assert writer.ended is not None and (writer.ended.how, writer.ended.signal) == ("signal", "SIGTERM")


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def _crafted(logdir: str, host: str, pid: int, body: bytes) -> str:
    name = f"vdl.{int(time.time()):010d}.{host}.{pid}.0123abcd.vdlog.fatal"
    with open(os.path.join(logdir, name), "wb") as f:
        f.write(preamble("0123abcd", pid) + body)
    return name


def test_fatal_sidecar_a_sigkilled_writers_is_removed_by_the_next_writer(tmp_path):
    logdir = str(tmp_path)
    _ended_by(logdir, signal.SIGKILL)
    (left,) = _sidecars(logdir)  # SIGKILL gives the writer no chance
    dead = _dead_pid()
    dump = _crafted(
        logdir, safe_host(), dead, b"Fatal Python error: Segmentation fault\n\nStack (most recent call first):\n"
    )
    alive = _crafted(logdir, safe_host(), os.getppid(), b"")
    elsewhere = _crafted(logdir, "another-host", dead, b"")
    held = _crafted(logdir, safe_host(), _dead_pid(), b"")  # a live writer in another pid namespace
    assert left not in (dump, alive, elsewhere, held)
    with open(os.path.join(logdir, held), "ab") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_SH)
        w = LogWriter(logdir)  # the next run of the script, a restarted rank
        w.add_scalar("loss", 2.0, 1)
        w.close()
    wait_until(lambda: left not in _sidecars(logdir), timeout=30, what="the killed writer's sidecar to go")
    assert _sidecars(logdir) == sorted([dump, alive, elsewhere, held])
    reader = LogReader(logdir)
    ends = sorted((w.ended.how if w.ended else "") for w in reader.writers("."))
    assert ends == ["closed", "killed"]
