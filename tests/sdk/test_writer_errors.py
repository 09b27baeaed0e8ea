"""Failures of the background writer are raised on the caller's thread; nothing is dropped."""

from __future__ import annotations

import os
import shutil
import threading

import numpy as np
import pytest

from visualdl import LogReader, LogWriter
from visualdl.errors import WriterError


def test_deleted_logdir_is_reported_and_logging_continues(logdir):
    w = LogWriter(logdir)
    w.add_scalar("x", 1.0, 0)
    w.flush()
    shutil.rmtree(logdir)
    w.add_scalar("x", 2.0, 1)
    with pytest.raises(WriterError, match="was deleted; continuing in"):
        w.flush()
    w.add_scalar("x", 3.0, 2)
    w.close()
    series = LogReader(logdir).scalars(".", "x")
    assert series.steps.tolist() == [1, 2]  # step 0 went with the deleted directory


class _FailingWrites:
    """Make os.write fail with ENOSPC for the sink's file while active."""

    def __init__(self, monkeypatch):
        self.active = True
        real_write = os.write

        def write(fd, data):
            if self.active and threading.current_thread().name.startswith("visualdl-writer"):
                raise OSError(28, "No space left on device")
            return real_write(fd, data)

        monkeypatch.setattr(os, "write", write)


def test_disk_full_raises_then_retries_without_loss(logdir, monkeypatch):
    w = LogWriter(logdir)
    failing = _FailingWrites(monkeypatch)
    w.add_scalar("x", 1.0, 0)
    with pytest.raises(WriterError, match="No space left on device") as info:
        w.flush()
    assert isinstance(info.value.__cause__, OSError)
    failing.active = False
    w.add_scalar("x", 2.0, 1)
    w.flush()
    w.close()
    reader = LogReader(logdir)
    assert reader.scalars(".", "x").values.tolist() == [1.0, 2.0]
    assert reader.problems == []


def test_error_is_raised_from_next_add(logdir, monkeypatch):
    w = LogWriter(logdir, flush_secs=0.05)
    failing = _FailingWrites(monkeypatch)
    w.add_scalar("x", 1.0, 0)
    with pytest.raises(WriterError):
        # The background flush fails within a few intervals; the next add raises it.
        for step in range(1, 10**7):
            w.add_scalar("x", 1.0, step)
            if step % 1000 == 0:
                threading.Event().wait(0.001)
    failing.active = False
    w.close()


def test_backpressure_bounds_memory_and_drops_nothing(logdir, monkeypatch):
    real_write = os.write

    def slow_write(fd, data):  # a disk far slower than the training loop
        if threading.current_thread().name.startswith("visualdl-writer"):
            threading.Event().wait(0.005)
        return real_write(fd, data)

    w = LogWriter(logdir, max_queue=100, max_pending_bytes=24 * 1000)
    monkeypatch.setattr(os, "write", slow_write)
    peak = 0
    for step in range(5000):
        w.add_scalar("x", float(step), step)
        peak = max(peak, w.stats()["pending_bytes"])
    w.close()
    assert peak <= 24 * 1000 + 24  # never above the bound (plus the point being added)
    assert w.stats()["blocked_seconds"] > 0
    assert LogReader(logdir).scalars(".", "x").values.tolist() == [float(s) for s in range(5000)]


def test_the_bound_holds_from_the_first_point_when_max_queue_is_larger(logdir):
    w = LogWriter(logdir, max_queue=10**6, flush_secs=3600, max_pending_bytes=24 * 1000)
    peak = 0
    for step in range(5000):
        w.add_scalar("x", float(step), step)
        peak = max(peak, w.stats()["pending_bytes"])
    w.close()
    assert peak <= 24 * 1000 + 24  # the first look at the pressure came at max_queue points
    assert LogReader(logdir).scalars(".", "x").steps.tolist() == list(range(5000))


def test_close_from_many_threads_at_once(logdir):
    for _ in range(20):
        w = LogWriter(logdir)
        w.add_scalar("x", 1.0, 0)
        errors: list[Exception] = []

        def close(writer=w, errors=errors):
            try:
                writer.close()
            except Exception as e:  # noqa: BLE001 - collected and asserted on
                errors.append(e)

        threads = [threading.Thread(target=close) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
    reader = LogReader(logdir)
    assert all(info.closed for info in reader.writers("."))
    # 20 writers one after another, each at step 0: the newest keeps it, the others are replaced.
    assert len(reader.scalars(".", "x")) == 1
    assert len(reader.scalars(".", "x", replaced=True)) == 19
    assert reader.problems == []


def test_multiprocessing_fork_child_data_arrives(logdir):
    import multiprocessing

    w = LogWriter(logdir)
    w.add_scalar("parent", 1.0, 0)
    ctx = multiprocessing.get_context("fork")
    child = ctx.Process(target=_child_logs, args=(w,))
    child.start()
    child.join(30)
    assert child.exitcode == 0
    w.close()
    reader = LogReader(logdir)
    assert reader.scalars(".", "child").values.tolist() == [float(i) for i in range(10)]
    assert reader.scalars(".", "parent").values.tolist() == [1.0]
    assert sorted(info.closed for info in reader.writers(".")) == [True, True]


def _child_logs(writer):
    for i in range(10):
        writer.add_scalar("child", float(i), i)  # no flush, no close: the process's exit does it


def _await_pending_error(writer):
    """Wake the writer thread and wait until it has an error for the next call to raise
    (no flush(): that would raise the error itself)."""
    sink = writer._sink
    with sink._changed:
        sink._wake.set()
        assert sink._changed.wait_for(lambda: sink._error is not None, timeout=60)


_ADDS = {
    "add_scalar": lambda w, step: w.add_scalar("x", float(step), step),
    "add_scalars": lambda w, step: w.add_scalars("m", {"a": float(step)}, step),
    "add_text": lambda w, step: w.add_text("t", f"text {step}", step),
    "add_histogram": lambda w, step: w.add_histogram("h", [float(step)], step),
    "add_image": lambda w, step: w.add_image("i", np.full((2, 2, 3), step, np.uint8), step),
}


def _steps(reader, call):
    if call == "add_scalar":
        return reader.scalars(".", "x").steps.tolist()
    if call == "add_scalars":
        return reader.scalars(".", "m/a").steps.tolist()
    events = {"add_text": reader.texts, "add_histogram": reader.histograms, "add_image": reader.images}[call]
    return [e.step for e in events(".", {"add_text": "t", "add_histogram": "h", "add_image": "i"}[call])]


@pytest.mark.parametrize("call", sorted(_ADDS))
def test_call_raising_a_deferred_error_records_its_own_value(logdir, call):
    add = _ADDS[call]
    w = LogWriter(logdir)
    add(w, 0)
    w.flush()
    shutil.rmtree(logdir)
    add(w, 1)  # the writer recreates the file and has the deletion to report
    _await_pending_error(w)
    with pytest.raises(WriterError, match="was deleted; continuing in"):
        add(w, 2)
    add(w, 3)
    w.close()
    reader = LogReader(logdir)
    assert _steps(reader, call) == [1, 2, 3]  # step 2 too: its call raised, its value is kept
    assert reader.problems == []


def test_deferred_disk_error_keeps_the_raising_calls_value(logdir, monkeypatch):
    w = LogWriter(logdir)
    failing = _FailingWrites(monkeypatch)
    w.add_scalar("x", 0.0, 0)
    _await_pending_error(w)
    with pytest.raises(WriterError, match="No space left on device"):
        w.add_scalar("x", 1.0, 1)
    failing.active = False
    w.close()
    assert LogReader(logdir).scalars(".", "x").values.tolist() == [0.0, 1.0]


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MiB tmpfs (mounting needs root, which CI's user is); unmounted at the end."""
    import subprocess

    disk = tmp_path / "disk"
    disk.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}); the ENOSPC test below covers the logic")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=True)


def _fill(path) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for size in (65536, 512, 1):  # the last bytes too
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)


def _log_for(w, seconds: float) -> tuple[list[int], list[float], int]:
    """add_scalar as fast as possible for ``seconds`` (a workload, not a wait), catching the
    writer's errors; returns the steps kept, each call's seconds and the peak of pending bytes."""
    import time

    kept: list[int] = []
    costs: list[float] = []
    peak = step = 0
    end = time.monotonic() + seconds
    while step % 1000 or time.monotonic() < end:
        start = time.perf_counter()
        try:
            w.add_scalar("x", float(step), step)
            kept.append(step)
        except WriterError as e:
            if "is not kept" not in str(e):
                kept.append(step)  # the report, once: the call kept its value
        costs.append(time.perf_counter() - start)
        if step % 500 == 0:
            peak = max(peak, w.stats()["pending_bytes"])
        step += 1
    return kept, costs, peak


@pytest.mark.e2e  # adds points for 3 s: as many CPU seconds on an idle machine
def test_full_disk_backs_off_logs_once_and_stays_within_the_bound(small_disk, caplog):
    logdir = small_disk / "logs"
    limit = 1 << 20
    w = LogWriter(str(logdir), max_pending_bytes=limit, flush_secs=0.05)
    w.add_scalar("first", -1.0, 0)
    w.flush()
    _fill(small_disk / "filler")
    kept, costs, peak = _log_for(w, 3.0)
    failures = [r for r in caplog.records if "writing" in r.getMessage() and "failed" in r.getMessage()]
    costs.sort()
    print(
        f"disk full: {len(costs)} add_scalar calls in 3 s, median {costs[len(costs) // 2] * 1e6:.2f} us, "
        f"p99 {costs[len(costs) * 99 // 100] * 1e6:.2f} us; peak pending {peak} bytes of {limit}; "
        f"{len(failures)} error lines"
    )
    assert len(failures) == 1, [r.getMessage() for r in failures[:5]]  # once per change of state
    assert peak <= limit + 24
    os.remove(small_disk / "filler")
    w.close()
    assert any("works again" in r.getMessage() for r in caplog.records)
    assert LogReader(str(logdir)).scalars(".", "x").steps.tolist() == kept


@pytest.mark.e2e  # adds points for 3 s: as many CPU seconds on an idle machine
def test_failing_writes_are_retried_with_backoff_not_at_every_call(logdir, monkeypatch, caplog):
    w = LogWriter(logdir, max_pending_bytes=1 << 20, flush_secs=0.05)
    attempts = {"n": 0}
    real_write = os.write

    ours = w._sink._appender._fd  # type: ignore[union-attr]

    def write(fd, data):
        if fd == ours:
            attempts["n"] += 1
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    kept, _, peak = _log_for(w, 3.0)
    print(f"3 s of a failing disk: {attempts['n']} write attempts")
    assert attempts["n"] <= 12  # 0.1 s, then twice as long each time: the first second or two
    failures = [r for r in caplog.records if "No space left" in r.getMessage() and w.file_name in r.getMessage()]
    assert len(failures) == 1
    assert peak <= (1 << 20) + 24
    monkeypatch.setattr(os, "write", real_write)
    w.close()
    assert LogReader(logdir).scalars(".", "x").steps.tolist() == kept
