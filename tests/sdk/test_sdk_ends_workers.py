"""Ends that no excepthook sees: a ``multiprocessing`` worker's exception (caught and
printed by ``multiprocessing`` itself) and a ``with LogWriter(...)`` block left by an
exception. Real processes; the ends read back with ``LogReader``."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import textwrap

import pytest

from visualdl import LogReader, LogWriter


def _worker(logdir: str, how: str) -> None:
    w = LogWriter(logdir, rank=1, world_size=2, role="trainer")
    for step in range(10, 15):
        w.add_scalar("loss", 0.5, step)
    if how == "raise":
        raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
    if how == "exit1":
        sys.exit(3)
    if how == "exit0":
        sys.exit(0)


def _ended(logdir: str):
    (run,) = LogReader(logdir).runs()
    (writer,) = LogReader(logdir).writers(run)
    return writer.ended


def _spawn(logdir: str, how: str) -> int | None:
    p = multiprocessing.get_context("spawn").Process(target=_worker, args=(logdir, how))
    p.start()
    p.join(60)
    return p.exitcode


@pytest.mark.e2e  # multiprocessing workers, each a process importing visualdl: a CPU second
def test_sdk_ends_multiprocessing_worker_exception_is_its_end(tmp_path):
    assert _spawn(str(tmp_path), "raise") == 1
    end = _ended(str(tmp_path))
    assert end is not None
    assert (end.how, end.exception_type, end.step) == ("exception", "RuntimeError", 14)
    assert end.message.startswith("CUDA out of memory") and "_worker" in end.traceback


@pytest.mark.e2e  # multiprocessing workers, each a process importing visualdl: a CPU second
def test_sdk_ends_multiprocessing_worker_exit_status(tmp_path):
    assert _spawn(str(tmp_path / "a"), "exit1") == 3
    end = _ended(str(tmp_path / "a"))
    assert end is not None and (end.how, end.exception_type, end.message) == ("exception", "SystemExit", "3")
    assert _spawn(str(tmp_path / "b"), "exit0") == 0
    end = _ended(str(tmp_path / "b"))
    assert end is not None and end.how == "closed"


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_sdk_ends_with_block_left_by_an_exception(tmp_path, child_env):
    code = textwrap.dedent(
        """
        import sys
        from visualdl import LogWriter
        try:
            with LogWriter(sys.argv[1], rank=0, world_size=2, role="trainer") as w:
                w.add_scalar("loss", 1.0, 7)
                raise ValueError("bad batch")
        except ValueError:
            pass  # the program goes on; the writer ended by it
        """
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=child_env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    end = _ended(str(tmp_path))
    assert end is not None and (end.how, end.exception_type, end.message, end.step) == (
        "exception",
        "ValueError",
        "bad batch",
        7,
    )
