"""How a writer's process ended, as the SDK records it and ``LogReader`` reads it back:
real child processes that close, raise in the main thread or another one, or are
stopped by SIGTERM or SIGINT."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from visualdl import LogReader, LogWriter
from visualdl._kinds.table import ProcessEnd

PROLOGUE = """
import os, sys, threading
from visualdl import LogWriter
w = LogWriter(sys.argv[1], rank=3, world_size=4, role="trainer")
for step in range(1200, 1205):
    w.add_scalar("loss", 1.0 / step, step)
"""


def _run(logdir: str, body: str, child_env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    code = PROLOGUE + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", code, logdir], env=child_env, capture_output=True, text=True, timeout=60
    )


def _end(logdir: str) -> ProcessEnd | None:
    reader = LogReader(logdir)
    (run,) = reader.runs()
    (writer,) = reader.writers(run)
    return writer.ended


def _events(logdir: str) -> tuple[ProcessEnd, ...]:
    """What the writer's process lived on after: the end records before its end."""
    reader = LogReader(logdir)
    (run,) = reader.runs()
    (writer,) = reader.writers(run)
    return writer.events


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_sdk_ends_close_is_a_clean_end(tmp_path, child_env):
    done = _run(str(tmp_path), "w.close()\n", child_env)
    assert done.returncode == 0, done.stderr
    end = _end(str(tmp_path))
    assert end is not None
    assert (end.how, end.step, end.thread, end.exception_type, end.signal) == ("closed", 1204, "MainThread", "", "")


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_sdk_ends_exit_without_close_is_a_clean_end(tmp_path, child_env):
    done = _run(str(tmp_path), "", child_env)
    assert done.returncode == 0, done.stderr
    end = _end(str(tmp_path))
    assert end is not None and (end.how, end.step) == ("closed", 1204)


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_sdk_ends_main_thread_exception_with_traceback_and_step(tmp_path, child_env):
    body = """
    calls = []
    previous = sys.excepthook
    sys.excepthook = lambda *a: (calls.append(a[0].__name__), previous(*a), print("own hook", calls))
    def train():
        raise RuntimeError("CUDA out of memory")
    train()
    """
    done = _run(str(tmp_path), body, child_env)
    assert done.returncode == 1
    assert "RuntimeError: CUDA out of memory" in done.stderr  # Python's report still printed
    assert "own hook ['RuntimeError']" in done.stdout  # and the program's hook still called
    end = _end(str(tmp_path))
    assert end is not None
    assert (end.how, end.exception_type, end.message, end.step, end.thread) == (
        "exception",
        "RuntimeError",
        "CUDA out of memory",
        1204,
        "MainThread",
    )
    assert end.traceback.startswith("Traceback (most recent call last):")
    assert "in train" in end.traceback and end.traceback.endswith("RuntimeError: CUDA out of memory\n")


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_sdk_ends_thread_exception_is_an_event_and_the_later_close_the_end(tmp_path, child_env):
    body = """
    class LoaderError(Exception):
        pass
    def load():
        raise LoaderError("shard 7 is missing")
    t = threading.Thread(target=load, name="loader")
    t.start()
    t.join()
    w.add_scalar("loss", 0.5, 1300)
    w.close()
    """
    done = _run(str(tmp_path), body, child_env)
    assert done.returncode == 0, done.stderr
    assert "LoaderError: shard 7 is missing" in done.stderr  # threading's report still printed
    end = _end(str(tmp_path))
    assert end is not None and (end.how, end.step) == ("closed", 1300)  # the process went on
    (event,) = _events(str(tmp_path))
    end = event
    assert (end.how, end.exception_type, end.message, end.thread, end.step) == (
        "exception",
        "__main__.LoaderError",
        "shard 7 is missing",
        "loader",
        1204,
    )
    assert "in load" in end.traceback


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_sdk_ends_thread_exception_is_written_at_once(tmp_path, child_env):
    body = """
    t = threading.Thread(target=lambda: 1 / 0, name="worker-2")
    t.start()
    t.join()
    os.kill(os.getpid(), 9)  # no exit, no close: the event was written when it happened
    """
    done = _run(str(tmp_path), body, child_env)
    assert done.returncode == -signal.SIGKILL
    (event,) = _events(str(tmp_path))
    assert (event.how, event.exception_type, event.thread, event.step) == (
        "exception",
        "ZeroDivisionError",
        "worker-2",
        1204,
    )
    assert _end(str(tmp_path)) is None  # an event, not the end: killed once silent (the reader's rule)


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_sdk_ends_signal(tmp_path, child_env, signum):
    code = PROLOGUE + 'print("ready", flush=True)\nthreading.Event().wait(60)\n'
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)],
        env=child_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        child.send_signal(signum)
        child.wait(30)
    finally:
        child.kill()
        child.communicate()
    end = _end(str(tmp_path))
    assert end is not None
    assert (end.how, end.signal, end.thread, end.step) == ("signal", signal.Signals(signum).name, "MainThread", 1204)
    if signum == signal.SIGTERM:
        assert child.returncode == -signal.SIGTERM  # it still ends by SIGTERM
        assert end.exception_type == end.traceback == ""
    else:
        assert end.exception_type == "KeyboardInterrupt" and "KeyboardInterrupt" in end.traceback


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_sdk_ends_hooks_only_while_a_writer_is_open(tmp_path, child_env):
    """In a process of its own: a writer another test left open would keep the hooks here."""
    body = """
    w.close()
    before = (sys.excepthook, threading.excepthook)
    second = LogWriter(sys.argv[1] + "/second")
    assert (sys.excepthook, threading.excepthook) != before, "no hooks while a writer is open"
    second.close()
    assert (sys.excepthook, threading.excepthook) == before, "hooks left after the last close"
    assert before == (sys.__excepthook__, threading.__excepthook__), before
    print("ok")
    """
    done = _run(str(tmp_path), body, child_env)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_sdk_ends_forked_child_records_its_own_end(tmp_path):
    w = LogWriter(str(tmp_path / "parent"))
    w.add_scalar("loss", 1.0, 1)
    pid = os.fork()
    if pid == 0:  # the child: a writer of its own, then an uncaught exception in a thread
        code = 1
        try:
            child = LogWriter(str(tmp_path / "child"))
            child.add_scalar("loss", 2.0, 2)
            t = threading.Thread(target=lambda: 1 / 0, name="child-thread")
            t.start()
            t.join()
            child.close()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    w.close()
    child_end = _end(str(tmp_path / "child"))
    parent_end = _end(str(tmp_path / "parent"))
    assert child_end is not None and child_end.how == "closed"  # the child went on after its thread
    (event,) = _events(str(tmp_path / "child"))
    assert (event.how, event.thread, event.step) == ("exception", "child-thread", 2)
    assert parent_end is not None and (parent_end.how, parent_end.step) == ("closed", 1)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # pytest's hook, under ours
def test_sdk_ends_program_hook_set_over_ours_is_kept_and_not_wrapped_twice(tmp_path):
    seen: list[str] = []
    original = threading.excepthook
    w = LogWriter(str(tmp_path / "a"))
    ours = threading.excepthook

    def own(args: threading.ExceptHookArgs) -> None:
        seen.append(f"own {args.exc_type.__name__}")
        ours(args)  # the program chains to the hook it found

    threading.excepthook = own
    try:
        w.close()
        assert threading.excepthook is own  # not ours to take back
        again = LogWriter(str(tmp_path / "b"))
        assert threading.excepthook is own  # ours is in the chain already: not wrapped over the program's
        t = threading.Thread(target=lambda: 1 / 0, name="t")
        t.start()
        t.join()
        again.close()
    finally:
        threading.excepthook = original
    assert seen == ["own ZeroDivisionError"]  # called once, no loop
    (event,) = _events(str(tmp_path / "b"))
    assert (event.how, event.thread) == ("exception", "t")
