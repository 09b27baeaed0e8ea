"""What survives a writer process that is killed, never flushes, or exits without close().

Each writer runs in a subprocess. The tests synchronise on the lines the child prints,
never on sleeps; the only waiting loop is the one that waits for a background flush,
which is the behaviour under test there.
"""

from __future__ import annotations

import signal
import struct
import subprocess
import sys
from typing import IO

import pytest
from kit.waiting import wait_until

from visualdl import LogReader

# Logs `loss` = step * 0.5 + 0.25 forever, flushing every 500 points and printing how
# many points were flushed; an image per batch makes some records larger.
_KILLED_CHILD = """
import sys
import numpy as np
from visualdl import LogWriter

w = LogWriter(sys.argv[1], flush_secs=3600)
rng = np.random.default_rng(0)
step = 0
while True:
    for _ in range(500):
        w.add_scalar("loss", step * 0.5 + 0.25, step)
        step += 1
    w.add_image("noise", rng.integers(0, 256, (128, 128, 3), dtype=np.uint8), step)
    w.flush()
    print(step, flush=True)
"""

# Like the above for 5 flushes; the 6th flush carries a 2 MiB text record, and the
# file write of that flush stops halfway (as a kill in the middle of a write leaves
# it): the child writes half the bytes, says "torn" and hangs until it is killed.
_TORN_CHILD = """
import os
import sys
from visualdl import LogWriter

_write = os.write

def tearing_write(fd, data):
    if len(data) > (1 << 20):
        _write(fd, data[: len(data) // 2])
        print("torn", flush=True)
        sys.stdin.readline()  # never answered: the test kills us here
    return _write(fd, data)

os.write = tearing_write
w = LogWriter(sys.argv[1], flush_secs=3600)
step = 0
for _ in range(5):
    for _ in range(500):
        w.add_scalar("loss", step * 0.5 + 0.25, step)
        step += 1
    w.flush()
    print(step, flush=True)
for _ in range(500):
    w.add_scalar("loss", step * 0.5 + 0.25, step)
    step += 1
w.add_text("blob", "x" * (2 << 20), step)
w.flush()
print("flushed the torn batch?!", flush=True)
"""

# Adds points, never flushes, and waits on stdin: only the background flush can write them.
_IDLE_CHILD = """
import sys
from visualdl import LogWriter

w = LogWriter(sys.argv[1], flush_secs=0.2)
for step in range(100):
    w.add_scalar("acc", step / 4, step)
print("added", flush=True)
sys.stdin.readline()
"""

# Adds points and returns from the script: no flush(), no close(), a flush interval
# longer than the test, so only the close at interpreter exit can write them.
_EXITING_CHILD = """
import sys
from visualdl import LogWriter

w = LogWriter(sys.argv[1], flush_secs=3600)
for step in range(1000):
    w.add_scalar("loss", step * 0.125, step)
w.add_text("note", "goodbye", 3)
print(w.file_name, flush=True)
"""


def _stdout(proc: subprocess.Popen[str]) -> IO[str]:
    assert proc.stdout is not None
    return proc.stdout


def _stderr(proc: subprocess.Popen[str]) -> IO[str]:
    assert proc.stderr is not None
    return proc.stderr


def _start(script: str, logdir: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, logdir],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _kill(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_writer_killed_keeps_every_flushed_point(logdir, child_env):
    proc = _start(_KILLED_CHILD, logdir, child_env)
    try:
        flushed = 0
        for _ in range(6):
            line = _stdout(proc).readline()
            assert line, f"the writer died early: {_stderr(proc).read()}"
            flushed = int(line)
        proc.send_signal(signal.SIGKILL)  # the child is already logging the next batch
    finally:
        _kill(proc)
    assert proc.returncode == -signal.SIGKILL

    reader = LogReader(logdir)
    assert reader.problems == []  # a torn last record is "not yet written"
    series = reader.scalars(".", "loss")
    n = len(series)
    assert flushed == 6 * 500
    assert n >= flushed  # later flushes may have landed before the kill, never fewer
    assert series.steps.tolist() == list(range(n))
    assert series.values.tolist() == [step * 0.5 + 0.25 for step in range(n)]
    assert [event.step for event in reader.images(".", "noise")][:6] == [500, 1000, 1500, 2000, 2500, 3000]
    writers = reader.writers(".")
    assert len(writers) == 1
    assert writers[0].closed is False
    assert writers[0].pid == proc.pid


def _whole_records_end(data: bytes) -> int:
    """Where the last whole record of ``data`` ends, walking the framing by hand."""
    pos = 0
    while pos + 12 <= len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        end = pos + 12 + length + 4
        if end > len(data):
            break
        pos = end
    return pos


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_writer_killed_mid_write_torn_tail_is_not_a_problem(logdir, child_env):
    proc = _start(_TORN_CHILD, logdir, child_env)
    try:
        lines = [_stdout(proc).readline() for _ in range(6)]
        assert lines == ["500\n", "1000\n", "1500\n", "2000\n", "2500\n", "torn\n"], _stderr(proc).read()
        proc.send_signal(signal.SIGKILL)
    finally:
        _kill(proc)

    reader = LogReader(logdir)
    (writer,) = reader.writers(".")
    with open(writer.path, "rb") as f:
        data = f.read()
    assert _whole_records_end(data) < len(data)  # the file really ends in a torn record
    assert reader.problems == []
    assert writer.closed is False
    series = reader.scalars(".", "loss")
    n = len(series)
    assert n >= 2500  # the 6th batch's points precede the torn text in the same write
    assert series.steps.tolist() == list(range(n))
    assert series.values.tolist() == [step * 0.5 + 0.25 for step in range(n)]
    assert "blob" not in reader.tags(".")["text"]
    reader.poll()
    assert reader.problems == []


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_writer_background_flush_without_flush_call(logdir, child_env):
    proc = _start(_IDLE_CHILD, logdir, child_env)
    try:
        assert _stdout(proc).readline() == "added\n"
        reader = LogReader(logdir)

        def count() -> int:
            reader.poll()
            if "." in reader.runs() and "acc" in reader.tags(".")["scalars"]:
                return reader.count(".", "scalars", "acc")
            return 0

        wait_until(lambda: count() == 100, 10, "the background flush (flush_secs=0.2) to write the 100 points")
        assert proc.poll() is None  # still waiting on stdin: nothing but the background thread wrote
        series = reader.scalars(".", "acc")
        assert series.steps.tolist() == list(range(100))
        assert series.values.tolist() == [step / 4 for step in range(100)]
        assert reader.writers(".")[0].closed is False
        assert reader.problems == []
    finally:
        _kill(proc)


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_writer_interpreter_exit_without_close_writes_all_and_footer(logdir, child_env):
    proc = _start(_EXITING_CHILD, logdir, child_env)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "failed" not in err
    reader = LogReader(logdir)
    series = reader.scalars(".", "loss")
    assert series.steps.tolist() == list(range(1000))
    assert series.values.tolist() == [step * 0.125 for step in range(1000)]
    assert [(t.step, t.text) for t in reader.texts(".", "note")] == [(3, "goodbye")]
    writers = reader.writers(".")
    assert len(writers) == 1
    assert writers[0].path == out.strip()
    assert writers[0].closed is True
    assert reader.problems == []
