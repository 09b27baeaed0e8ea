"""A fork while the writer builds its provenance (``git status``, seconds in a large
repository) leaves the child free: a fork-based Pool started right after ``LogWriter()``
has workers whose own writers write and close, their data read back, and its tasks finish
(``sdk/_provenance.py`` holds no lock across git; every SDK lock is reset at fork)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest
from kit.waiting import wait_until

from visualdl import LogReader
from visualdl.sdk import _provenance

COMMIT = "0123456789abcdef0123456789abcdef01234567"
GIT_SECS = 3.0  # below the provenance's GIT_TIMEOUT: its answer is taken

_SCRIPT = textwrap.dedent(
    """
    import json, multiprocessing, os, sys, time
    from visualdl import LogWriter

    logdir, started = sys.argv[1], sys.argv[2]

    def task(i):
        w = LogWriter(logdir, display_name=f"task{i}")
        w.add_scalar(f"task{i}", float(i), 0)
        w.close()
        return i

    if __name__ == "__main__":
        w = LogWriter(logdir, display_name="main", system_metrics=True, system_metrics_secs=0.5)
        w.add_scalar("main", -1.0, 0)
        deadline = time.monotonic() + 60
        while not os.path.exists(started):  # the writer's thread is in git status now
            assert time.monotonic() < deadline, "git was never started"
            time.sleep(0.01)
        with multiprocessing.get_context("fork").Pool(2) as pool:
            done = pool.map(task, range(4), chunksize=1)
        w.close()
        print(json.dumps(done))
    """
)


def _repo(path) -> None:
    """A work tree whose commit and branch read from its files; git itself is the fake."""
    (path / ".git" / "refs" / "heads").mkdir(parents=True)
    (path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (path / ".git" / "refs" / "heads" / "main").write_text(COMMIT + "\n")


def _slow_git(bin_dir, started) -> None:
    bin_dir.mkdir()
    git = bin_dir / "git"
    git.write_text(f'#!/bin/sh\ntouch "{started}"\nexec sleep {GIT_SECS}\n')
    git.chmod(0o755)


@pytest.mark.e2e  # a writer process and its fork-Pool workers, git taking seconds
def test_sdk_fork_pool_while_git_status_runs_leaves_the_workers_writers_free(tmp_path, child_env):
    repo, logdir, started = tmp_path / "repo", tmp_path / "logs", tmp_path / "git-started"
    _repo(repo)
    _slow_git(tmp_path / "bin", started)
    (repo / "train.py").write_text(_SCRIPT)
    env = {**child_env, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{child_env.get('PATH', '')}"}
    proc = subprocess.Popen(
        [sys.executable, "train.py", str(logdir), str(started)],
        cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # its Pool's workers and the fake git killed with it on failure
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 0, err
    assert json.loads(out.strip().splitlines()[-1]) == [0, 1, 2, 3]  # every task finished
    assert "gave up" not in err and "lost" not in err, err

    reader = LogReader(str(logdir))
    (run,) = reader.runs()
    writers = {w.display_name: w for w in reader.writers(run)}
    assert sorted(writers) == ["main", "task0", "task1", "task2", "task3"]
    for name, w in writers.items():
        assert w.closed, name
        assert w.provenance is not None and w.provenance.git_commit == COMMIT, name
        assert w.provenance.git_dirty is False, name  # the fake git's (empty) answer
    assert reader.scalars(run, "main").values.tolist() == [-1.0]
    for i in range(4):
        assert reader.scalars(run, f"task{i}").values.tolist() == [float(i)]


def test_sdk_provenance_a_git_past_its_time_is_killed_with_what_it_started(tmp_path, monkeypatch):
    # a git (a wrapper, say) that started a child of its own: both killed, none left running
    bin_dir, pid_file = tmp_path / "bin", tmp_path / "child.pid"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(f'#!/bin/sh\nsleep 120 &\necho $! > "{pid_file}"\nexec sleep 120\n')
    (bin_dir / "git").chmod(0o755)
    _repo(tmp_path / "repo")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setattr(_provenance, "GIT_TIMEOUT", 0.5)
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.append(_provenance.git_state(str(tmp_path / "repo"))), daemon=True)
    reader.start()
    reader.join(60)  # generous: the sleepers take 120 s
    assert not reader.is_alive(), "git_state waited for git's child"
    assert got == [(COMMIT, "main", None)]  # commit and branch from the files, dirty unknown
    child = int(pid_file.read_text())
    wait_until(lambda: not _alive(child), timeout=30, what="git's child killed")


def _alive(pid: int) -> bool:
    """Running (a zombie that no one reaps yet counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False
