"""The end of a process is what happened at its end: a helper thread's uncaught exception and
a SIGTERM the program handles are events of its timeline (``WriterInfo.events``), and the
run's status follows the end it came to. Real processes: a clean run whose thread raised
once, a run that handled SIGTERM and finished, ``with Pool()`` workers with writers of
their own (ended by the pool's SIGTERM while idle), and a worker terminated mid-task."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from visualdl import LogReader

pytestmark = pytest.mark.e2e  # each test runs Python processes of its own: a CPU second or more


def _run(code: str, logdir: str, child_env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), logdir],
        env=child_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done


def _status(logdir: str, run: str) -> str:
    reader = LogReader(logdir)
    for status in ("crashed", "killed", "live", "finished"):
        if run in reader.runs(where=f'status == "{status}"'):
            return status
    raise AssertionError(f"{run} has no status")


def test_process_end_events_a_thread_that_raised_once_leaves_a_finished_run(tmp_path, child_env):
    _run(
        """
        import sys, threading
        from visualdl import LogWriter
        w = LogWriter(sys.argv[1] + "/run")
        w.add_scalar("loss", 1.0, 1)
        t = threading.Thread(target=lambda: 1 / 0, name="loader")
        t.start()
        t.join()
        w.add_scalar("loss", 0.5, 2)
        w.close()
        """,
        str(tmp_path),
        child_env,
    )
    assert _status(str(tmp_path), "run") == "finished"
    (writer,) = LogReader(str(tmp_path)).writers("run")
    assert writer.ended is not None and (writer.ended.how, writer.ended.step) == ("closed", 2)
    assert [(e.how, e.exception_type, e.thread, e.step) for e in writer.events] == [
        ("exception", "ZeroDivisionError", "loader", 1)
    ]


def test_process_end_events_a_handled_sigterm_then_the_end_leaves_a_finished_run(tmp_path, child_env):
    _run(
        """
        import os, signal, sys, time
        from visualdl import LogWriter
        w = LogWriter(sys.argv[1] + "/run")
        got = []
        signal.signal(signal.SIGTERM, lambda *a: got.append(1))  # the program's own: it goes on
        w.add_scalar("loss", 1.0, 1)
        os.kill(os.getpid(), signal.SIGTERM)
        while not got:
            time.sleep(0.01)
        time.sleep(3)  # the program goes on (the watcher records the signal meanwhile)
        w.add_scalar("loss", 0.5, 2)
        w.close()
        """,
        str(tmp_path),
        child_env,
    )
    assert _status(str(tmp_path), "run") == "finished"
    (writer,) = LogReader(str(tmp_path)).writers("run")
    assert [(e.how, e.signal) for e in writer.events] == [("signal", "SIGTERM")]


_POOL = """
import multiprocessing, os, sys, time
from visualdl import LogWriter
W = None
def start(logdir):
    global W
    W = LogWriter(logdir + "/run%d" % os.getpid())
def task(i):
    for step in range(20):
        W.add_scalar("loss", float(step), step)
    return os.getpid()
if __name__ == "__main__":
    ctx = multiprocessing.get_context("fork")
    for _ in range(3):
        with ctx.Pool(4, initializer=start, initargs=(sys.argv[1],)) as pool:  # __exit__ terminates
            pool.map(task, range(16), chunksize=1)
"""


def test_process_end_events_with_pool_workers_finish_every_time(tmp_path, child_env):
    _run(_POOL, str(tmp_path), child_env)
    reader = LogReader(str(tmp_path))
    runs = reader.runs()
    assert 4 <= len(runs) <= 12  # a worker terminated before its writer opened has no file
    ends = {run: [(w.ended.how if w.ended else None) for w in reader.writers(run)] for run in runs}
    assert all(how == ["closed"] for how in ends.values()), ends
    assert sorted(reader.runs(where='status == "finished"')) == sorted(runs)


def test_process_end_events_a_worker_terminated_mid_task_is_killed(tmp_path, child_env):
    _run(
        """
        import multiprocessing, os, sys, time
        from visualdl import LogWriter
        def start(logdir):
            global W
            W = LogWriter(logdir + "/run")
        def task(i):
            W.add_scalar("loss", 1.0, 1)
            W.flush()
            open(os.path.join(os.path.dirname(sys.argv[1]), "busy"), "w").close()
            time.sleep(60)  # terminated here
        if __name__ == "__main__":
            ctx = multiprocessing.get_context("fork")
            pool = ctx.Pool(1, initializer=start, initargs=(sys.argv[1],))
            pool.apply_async(task, (0,))
            busy = os.path.join(os.path.dirname(sys.argv[1]), "busy")
            deadline = time.monotonic() + 60
            while not os.path.exists(busy) and time.monotonic() < deadline:
                time.sleep(0.05)
            pool.terminate()
            pool.join()
        """,
        str(tmp_path / "logs"),
        child_env,
    )
    (writer,) = LogReader(str(tmp_path / "logs")).writers("run")
    assert writer.ended is not None and (writer.ended.how, writer.ended.signal) == ("signal", "SIGTERM")
    assert _status(str(tmp_path / "logs"), "run") == "killed"
