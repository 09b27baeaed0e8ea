"""A process that lived through an event (a helper thread's uncaught exception, a SIGTERM
the program's own handler took) and was then SIGKILLed (the OOM killer) is killed: the event
is on its timeline (``WriterInfo.events``), not its end, and the reader's inference for a
writer gone without a trace applies. Real processes, a real SIGKILL; the writer's clock runs
well behind, so that its file is already silent for longer than the reader's rule."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

from visualdl import LogReader
from visualdl._index.ends import SILENT_AFTER

pytestmark = pytest.mark.e2e  # each test runs a Python process of its own: a CPU second or more

#: Seconds the writer's clock runs behind: its last record is that old when the test reads it.
BEHIND = SILENT_AFTER * 2

_PRELUDE = """
import glob, os, signal, sys, threading, time
real = time.time
time.time = lambda: real() - float(sys.argv[2])
from visualdl import LogWriter

def written(word):  # the event's record is in the log file (the SDK writes it at once)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for path in glob.glob(sys.argv[1] + "/run/*"):
            with open(path, "rb") as f:
                if word in f.read():
                    return
        time.sleep(0.02)
    sys.exit("the event was never written")
"""


def _killed(code: str, logdir: str, child_env: dict[str, str]) -> None:
    script = textwrap.dedent(_PRELUDE) + textwrap.dedent(code) + "\nos.kill(os.getpid(), signal.SIGKILL)\n"
    done = subprocess.run(
        [sys.executable, "-c", script, logdir, str(BEHIND)],
        env=child_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr


def _status(reader: LogReader, run: str) -> str:
    for status in ("crashed", "killed", "live", "finished"):
        if run in reader.runs(where=f'status == "{status}"'):
            return status
    raise AssertionError(f"{run} has no status")


def test_process_end_event_then_kill_a_thread_exception_then_sigkill_is_killed(tmp_path, child_env):
    _killed(
        """
        w = LogWriter(sys.argv[1] + "/run", provenance=False)
        w.add_scalar("loss", 1.0, 1)
        t = threading.Thread(target=lambda: 1 / 0, name="loader")
        t.start()
        t.join()
        written(b"ZeroDivisionError")
        w.add_scalar("loss", 0.5, 2)
        w.flush()
        """,
        str(tmp_path),
        child_env,
    )
    reader = LogReader(str(tmp_path))
    (writer,) = reader.writers("run")
    assert writer.ended is not None and writer.ended.how == "killed", writer.ended
    assert [(e.how, e.exception_type, e.thread, e.step) for e in writer.events] == [
        ("exception", "ZeroDivisionError", "loader", 1)
    ]
    assert _status(reader, "run") == "killed"


def test_process_end_event_then_kill_a_handled_sigterm_then_sigkill_is_killed(tmp_path, child_env):
    _killed(
        """
        w = LogWriter(sys.argv[1] + "/run", provenance=False)
        got = []
        signal.signal(signal.SIGTERM, lambda *a: got.append(1))  # the program's own: it goes on
        w.add_scalar("loss", 1.0, 1)
        os.kill(os.getpid(), signal.SIGTERM)
        written(b"SIGTERM")
        w.add_scalar("loss", 0.5, 2)
        w.flush()
        """,
        str(tmp_path),
        child_env,
    )
    reader = LogReader(str(tmp_path))
    (writer,) = reader.writers("run")
    assert writer.ended is not None and writer.ended.how == "killed", writer.ended
    assert [(e.how, e.signal, e.step) for e in writer.events] == [("signal", "SIGTERM", 1)]
    assert _status(reader, "run") == "killed"
