"""What the reader finds in a logdir besides log files: FIFOs, directories it may not list,
files whose reads do not return. None of them stops the reader, the other files, or the
process's exit; each is reported in ``problems``.

What could hang runs in a subprocess or a daemon thread, with a deadline.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import urllib.request

import pytest
from kit.waiting import wait_until

from visualdl import LogReader, LogWriter
from visualdl._index import polling as reader_module
from visualdl._index.index import Index
from visualdl._index.tail import LogFile

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")


def _write_run(path: str, tag: str = "x") -> None:
    with LogWriter(path, flush_secs=3600) as w:
        w.add_scalar(tag, 1.5, 1, walltime=1_700_000_000.0)


def _run_python(code: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the process did not end within {timeout} s (stdout: {e.stdout!r})")


def test_reader_fifo_named_like_a_log_file_is_reported_not_waited_on(tmp_path, child_env):
    _write_run(str(tmp_path / "good"))
    os.makedirs(tmp_path / "bad")
    fifo = tmp_path / "bad" / "vdl.1700000000.host.1.00000000.vdlog"
    os.mkfifo(fifo)
    code = f"""
        from visualdl import LogReader
        reader = LogReader({str(tmp_path)!r})
        print(reader.runs(), reader.scalars("good", "x").values.tolist())
        print([(p.path, p.message) for p in reader.problems])
    """
    result = _run_python(code, child_env, timeout=30)
    assert result.returncode == 0, result.stderr
    runs, problems = result.stdout.splitlines()
    assert runs == "['good'] [1.5]"
    assert str(fifo) in problems and "FIFO" in problems


def test_logfile_opened_as_a_fifo_reports_instead_of_blocking(tmp_path):
    """A path found as a regular file that is a FIFO by the time it is opened."""
    fifo = str(tmp_path / "vdl.1700000000.host.1.00000000.vdlog")
    os.mkfifo(fifo)
    logfile = LogFile(fifo)
    thread = threading.Thread(target=logfile.read, daemon=True)
    thread.start()
    thread.join(10)
    if thread.is_alive():  # blocked in open(): a writer opening the FIFO lets it go
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading a FIFO blocked")
    assert logfile.problems and "not a regular file" in logfile.problems[0].message


def test_poll_goes_on_without_a_file_whose_read_does_not_return(tmp_path, monkeypatch):
    _write_run(str(tmp_path / "stuck"))
    _write_run(str(tmp_path / "fine"))
    release = threading.Event()
    stored = threading.Event()
    read, store = LogFile.read, Index._store

    def read_or_hang(self, *args):
        if "stuck" in self.path:
            release.wait()
        return read(self, *args)

    def store_and_tell(self, state, path, decoded):
        store(self, state, path, decoded)
        if "stuck" in path:
            stored.set()

    monkeypatch.setattr(LogFile, "read", read_or_hang)
    monkeypatch.setattr(Index, "_store", store_and_tell)
    monkeypatch.setattr(reader_module, "STALL_SECONDS", 0.5, raising=False)
    reader = LogReader(tmp_path, load=False)
    thread = threading.Thread(target=reader.poll, daemon=True)
    thread.start()
    thread.join(20)
    try:
        assert not thread.is_alive(), "poll() waited for a read that does not return"
        assert reader.scalars("fine", "x").values.tolist() == [1.5]
        reader.poll()  # the stuck file is not read a second time meanwhile
    finally:
        release.set()
    assert stored.wait(20)  # the stuck read stores what it read when it returns
    assert reader.scalars("stuck", "x").values.tolist() == [1.5]
    reader.poll()
    assert reader.scalars("stuck", "x").values.tolist() == [1.5]


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_process_exits_while_a_read_does_not_return(tmp_path, child_env):
    _write_run(str(tmp_path / "stuck"))
    _write_run(str(tmp_path / "fine"))
    code = f"""
        import threading
        from visualdl._index import polling as _reader
        from visualdl._logreader import LogReader
        from visualdl._index.tail import LogFile

        read = LogFile.read
        def read_or_hang(self, *args):
            if "stuck" in self.path:
                threading.Event().wait()  # a hung network mount
            return read(self, *args)

        LogFile.read = read_or_hang
        _reader.STALL_SECONDS = 0.5
        reader = LogReader({str(tmp_path)!r})
        print(reader.scalars("fine", "x").values.tolist())
    """
    result = _run_python(code, child_env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[1.5]"


def test_reader_reports_a_directory_it_cannot_list_and_keeps_its_runs(tmp_path, monkeypatch):
    _write_run(str(tmp_path / "team" / "run1"))
    _write_run(str(tmp_path / "other"))
    reader = LogReader(tmp_path)
    assert reader.runs() == ["other", "team/run1"]
    assert reader.problems == []

    locked = str(tmp_path / "team")
    scandir = os.scandir

    def scandir_denied(path="."):
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", scandir_denied)
    _write_run(str(tmp_path / "new"))
    reader.poll()
    reader.poll()
    assert reader.runs() == ["new", "other", "team/run1"]  # its runs are kept as they were
    assert reader.scalars("team/run1", "x").values.tolist() == [1.5]
    [problem] = reader.problems
    assert problem.path == locked and "Permission denied" in problem.message

    monkeypatch.setattr(os, "scandir", scandir)
    reader.poll()
    assert reader.problems == []  # listed again: nothing wrong now


@pytest.mark.e2e  # visualdl started in a process of its own: a CPU second
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_server_stops_with_a_fifo_in_the_logdir(tmp_path, child_env, sig, free_port):
    _write_run(str(tmp_path / "good"))
    _write_run(str(tmp_path / "also"))
    os.mkfifo(tmp_path / "good" / "vdl.1700000000.host.9.00000000.vdlog")
    port = free_port
    proc = subprocess.Popen(
        [sys.executable, "-m", "visualdl", "--logdir", str(tmp_path), "--port", str(port), "--reload-interval", "0.2"],
        env=child_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        assert f":{port}/" in proc.stdout.readline()

        def shows_good() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/runs", timeout=5) as response:
                    return b'"good"' in response.read()
            except OSError:
                return False  # not listening yet

        wait_until(shows_good, 30, "the good run to show", interval=0.1)  # the server indexes in the background
        proc.send_signal(sig)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("the server did not stop")
        assert proc.returncode == 0, err
        assert "VisualDL stopped" in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
