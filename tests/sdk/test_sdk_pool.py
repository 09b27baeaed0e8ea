"""multiprocessing.Pool workers keep what they log, whether the pool is left by ``with``
(which terminates the workers with SIGTERM) or by ``close()`` and ``join()``."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from typing import Any

import pytest

from visualdl import LogReader, LogWriter

TASKS = 8
POINTS = 100
_WRITER: Any = None  # the writer the tasks log into: inherited by fork, or made by the initializer


def _log_task(task: int) -> int:
    for step in range(POINTS):
        _WRITER.add_scalar(f"task{task}", float(step), step)
    return os.getpid()


def _make_writer(logdir: str) -> None:
    global _WRITER
    _WRITER = LogWriter(logdir)


def _run_pool(idiom: str, initializer: Any = None, initargs: tuple[Any, ...] = ()) -> None:
    ctx = multiprocessing.get_context("fork")
    if idiom == "with":
        with ctx.Pool(2, initializer=initializer, initargs=initargs) as pool:  # __exit__ terminates
            pool.map(_log_task, range(TASKS), chunksize=1)
    else:
        pool = ctx.Pool(2, initializer=initializer, initargs=initargs)
        pool.map(_log_task, range(TASKS), chunksize=1)
        pool.close()
        pool.join()


def _assert_all_arrived(logdir: str) -> None:
    reader = LogReader(logdir)
    for task in range(TASKS):
        assert reader.scalars(".", f"task{task}").steps.tolist() == list(range(POINTS)), f"task{task}"
    assert reader.problems == []


@pytest.mark.parametrize("idiom", ["with", "close_join"])
def test_pool_workers_keep_what_they_log_into_an_inherited_writer(logdir, monkeypatch, idiom):
    w = LogWriter(logdir)
    w.add_scalar("parent", 1.0, 0)
    monkeypatch.setattr(sys.modules[__name__], "_WRITER", w)
    _run_pool(idiom)
    w.close()
    _assert_all_arrived(logdir)
    assert LogReader(logdir).scalars(".", "parent").values.tolist() == [1.0]


@pytest.mark.parametrize("idiom", ["with", "close_join"])
def test_pool_workers_keep_what_they_log_into_their_own_writer(logdir, idiom):
    _run_pool(idiom, initializer=_make_writer, initargs=(logdir,))
    _assert_all_arrived(logdir)


def test_sigterm_handler_is_only_set_in_a_child_that_logs(logdir, monkeypatch):
    # A writer to a bucket earlier in this process left its upload guard installed (for as
    # long as the process lives): start from the program's own disposition.
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        w = LogWriter(logdir)
        w.add_scalar("parent", 1.0, 0)
        monkeypatch.setattr(sys.modules[__name__], "_WRITER", w)
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the parent's disposition is the program's
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(1) as pool:
            assert pool.apply(signal.getsignal, (signal.SIGTERM,)) is signal.SIG_DFL  # not logged yet
            pool.apply(_log_task, (0,))
            assert pool.apply(signal.getsignal, (signal.SIGTERM,)) is not signal.SIG_DFL
        w.close()
    finally:
        signal.signal(signal.SIGTERM, previous)


def _log_then_idle(writer: Any, logged: Any, never: Any) -> None:
    for step in range(POINTS):
        writer.add_scalar("child", float(step), step)
    logged.set()
    never.acquire()  # idle in sem_wait, as a Pool worker waiting for a task


def test_terminated_child_writes_what_it_logged_and_ends_by_sigterm(logdir):
    w = LogWriter(logdir)
    ctx = multiprocessing.get_context("fork")
    logged, never = ctx.Event(), ctx.Lock()
    never.acquire()
    child = ctx.Process(target=_log_then_idle, args=(w, logged, never))
    child.start()
    assert logged.wait(60)
    child.terminate()
    child.join(60)
    assert child.exitcode == -signal.SIGTERM
    w.close()
    reader = LogReader(logdir)
    assert reader.scalars(".", "child").steps.tolist() == list(range(POINTS))
    assert sorted(info.closed for info in reader.writers(".")) == [False, True]  # the child was killed
    assert reader.problems == []


def _log_with_own_handler(writer: Any, result: Any) -> None:
    def handler(signum: int, frame: Any) -> None:
        pass

    signal.signal(signal.SIGTERM, handler)
    writer.add_scalar("child", 1.0, 0)
    result.put(signal.getsignal(signal.SIGTERM) is handler)


def test_a_programs_own_sigterm_handler_is_kept(logdir):
    w = LogWriter(logdir)
    ctx = multiprocessing.get_context("fork")
    result = ctx.SimpleQueue()
    child = ctx.Process(target=_log_with_own_handler, args=(w, result))
    child.start()
    assert result.get() is True
    child.join(60)
    assert child.exitcode == 0
    w.close()
