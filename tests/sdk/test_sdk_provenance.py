"""Where a writer's process came from: its command line, interpreter, working directory, git
state and key packages, recorded by the writer's thread and read back per writer and per run."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from visualdl import LogReader, LogWriter
from visualdl.sdk import _provenance


def _git(cwd, *args):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}  # fmt: skip
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout.strip()


def _repo(path, branch="exp/lr-sweep"):
    path.mkdir(parents=True, exist_ok=True)
    _git(path, "init", "-q", "-b", branch)
    (path / "train.py").write_text(
        textwrap.dedent("""
        import sys
        import numpy  # a key package, imported before the writer
        from visualdl import LogWriter
        with LogWriter(sys.argv[1]) as w:
            w.add_scalar("loss", 1.0, 0)
        """)
    )
    _git(path, "add", "train.py")
    _git(path, "commit", "-q", "-m", "first")
    return _git(path, "rev-parse", "HEAD")


def _run(script, logdir, *args, cwd):
    subprocess.run([sys.executable, str(script), str(logdir), *args], cwd=cwd, check=True, timeout=60)


def _only_writer(logdir):
    reader = LogReader(str(logdir))
    (run,) = reader.runs()
    (writer,) = reader.writers(run)
    return writer.provenance


def test_clean_work_tree_recorded_with_commit_branch_and_command(tmp_path):
    commit = _repo(tmp_path / "code")
    logdir = tmp_path / "logs" / "run0"
    _run(tmp_path / "code" / "train.py", logdir, "--lr", "0.1 x", cwd=tmp_path)
    p = _only_writer(logdir)
    assert p is not None
    assert p.git_commit == commit  # the script's repository, not the working directory's
    assert p.git_branch == "exp/lr-sweep"
    assert p.HasField("git_dirty") and p.git_dirty is False
    assert list(p.argv) == [str(tmp_path / "code" / "train.py"), str(logdir), "--lr", "0.1 x"]
    assert p.cwd == str(tmp_path)
    assert p.executable == sys.executable
    assert p.python.startswith(".".join(map(str, sys.version_info[:3])))
    import numpy

    assert p.packages["numpy"] == numpy.__version__
    assert "torch" not in p.packages  # not imported by the script


def test_edited_tracked_file_is_dirty_and_untracked_file_is_not(tmp_path):
    _repo(tmp_path / "code")
    (tmp_path / "code" / "notes.txt").write_text("untracked")
    _run(tmp_path / "code" / "train.py", tmp_path / "a", cwd=tmp_path)
    assert _only_writer(tmp_path / "a").git_dirty is False
    with open(tmp_path / "code" / "train.py", "a") as f:
        f.write("# edited\n")
    _run(tmp_path / "code" / "train.py", tmp_path / "b", cwd=tmp_path)
    assert _only_writer(tmp_path / "b").git_dirty is True


def test_packed_ref_and_detached_head_read_without_git(tmp_path, monkeypatch):
    commit = _repo(tmp_path / "code", branch="main")
    _git(tmp_path / "code", "pack-refs", "--all")
    assert not (tmp_path / "code" / ".git" / "refs" / "heads" / "main").exists()
    monkeypatch.setenv("PATH", "")  # no git: commit and branch from the files, dirty unknown
    assert _provenance.git_state(str(tmp_path / "code")) == (commit, "main", None)
    monkeypatch.undo()
    _git(tmp_path / "code", "checkout", "-q", "--detach")
    assert _provenance.git_state(str(tmp_path / "code" / ".git" / "..")) == (commit, "", False)


def test_linked_worktree_reads_its_own_head(tmp_path):
    commit = _repo(tmp_path / "code", branch="main")
    _git(tmp_path / "code", "worktree", "add", "-q", "-b", "other", str(tmp_path / "wt"))
    (tmp_path / "wt" / "new.py").write_text("x = 1\n")
    _git(tmp_path / "wt", "add", "new.py")
    _git(tmp_path / "wt", "commit", "-q", "-m", "second")
    second = _git(tmp_path / "wt", "rev-parse", "HEAD")
    assert second != commit
    assert _provenance.git_state(str(tmp_path / "wt")) == (second, "other", False)
    assert _provenance.git_state(str(tmp_path / "code")) == (commit, "main", False)


def test_outside_a_repository_no_git_fields(tmp_path):
    assert _provenance.git_state(str(tmp_path)) == ("", "", None)
    assert _provenance.git_state("") == ("", "", None)


def test_provenance_false_writes_none_and_a_wrong_value_is_refused(tmp_path):
    with LogWriter(str(tmp_path / "off"), provenance=False) as w:
        w.add_scalar("loss", 1.0, 0)
    assert _only_writer(tmp_path / "off") is None
    with pytest.raises(TypeError, match="provenance must be True or False; got 'yes'"):
        LogWriter(str(tmp_path / "bad"), provenance="yes")  # type: ignore[arg-type]


def test_in_process_writer_records_it_and_the_run_table_has_columns(tmp_path):
    with LogWriter(str(tmp_path / "r1")) as w:
        w.add_scalar("loss", 1.0, 0)
    reader = LogReader(str(tmp_path))
    (run,) = reader.runs()
    p = reader.writers(run)[0].provenance
    assert p is not None and list(p.argv) == sys.argv
    assert p.packages["visualdl"]  # imported by this test, whatever its version
    assert reader.runs(where='python ~ "CPython" and packages.numpy != ""') == [run]
    assert reader.runs(where="git_dirty == true") in ([run], [])  # known or not: never an error


def test_provenance_is_built_once_per_process(monkeypatch):
    calls = []
    real = _provenance._build
    monkeypatch.setattr(_provenance, "_cached", None)

    def counted():
        calls.append(1)
        return real()

    monkeypatch.setattr(_provenance, "_build", counted)
    first, second = _provenance.provenance(), _provenance.provenance()
    assert len(calls) == 1
    assert first.argv == second.argv and second.wall_time >= first.wall_time
