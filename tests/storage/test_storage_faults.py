"""Object storage through a network that fails: a writer and a reader of this process go
through a fault-injection proxy (``kit/faultproxy.py``) in front of the S3 API server.

No upload and no read waits for ever; a failed upload is raised on the caller's next call
once its ``upload_timeout`` is over, its segment keeps its name and body until it is up, and
every point is read back once after the network recovers. Short deadlines are passed as
arguments (``upload_timeout``, ``close_timeout``; the client's timeouts through fsspec's
configuration, see the ``faults`` fixture). The runs of a writer process through every
mode are in ``tests/e2e/test_object_store_faults.py``.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from kit.waiting import wait_until

from visualdl import LogReader, LogWriter
from visualdl._storage.objects import filesystem
from visualdl._storage.segments import split_segment
from visualdl.errors import WriterError


@pytest.fixture
def bucket(bucket, faults):
    """A fresh bucket, reached through the proxy by a client that has asked it once (its
    region), so that the writers' first attempts carry only their PUT."""
    fs, root = filesystem(bucket)
    for attempt in range(5):  # this warm-up is not under test: the fast client's 1 s may pass on a loaded machine
        try:
            fs.ls(root)
            break
        except Exception:
            if attempt == 4:
                raise
            fs.invalidate_cache()
    return bucket


def _steps(url: str, run: str = "run") -> list[int]:
    return LogReader(url).scalars(run, "loss").steps.tolist()


def _segments(url: str) -> list[str]:
    fs, root = filesystem(url)
    fs.invalidate_cache()
    return sorted(p.rpartition("/")[2] for p in fs.find(root) if split_segment(p.rpartition("/")[2]))


@pytest.mark.parametrize("mode", ["blackhole", "refuse"])
def test_upload_to_a_dead_endpoint_is_raised_after_upload_timeout_then_recovers(bucket, faults, mode):
    w = LogWriter(f"{bucket}/run", upload_secs=3600, upload_timeout=2.0)
    for step in range(100):
        w.add_scalar("loss", float(step), step)
    w.flush()
    faults.set(mode)
    for step in range(100, 200):
        w.add_scalar("loss", float(step), step)
    start = time.monotonic()
    with pytest.raises(WriterError, match=r"did not succeed within upload_timeout=2 s .* \d+ bytes \(1 records\)"):
        w.flush()
    print(f"flush() through {mode} raised after {time.monotonic() - start:.2f} s (upload_timeout 2 s)")
    for step in range(200, 300):
        w.add_scalar("loss", float(step), step)  # reported once: logging goes on
    faults.set("pass")
    w.close()
    assert _steps(bucket) == list(range(300))


def test_a_lost_answer_does_not_store_the_segment_twice(bucket, faults):
    w = LogWriter(f"{bucket}/run", upload_secs=3600, upload_timeout=2.0)
    for step in range(1000):
        w.add_scalar("loss", float(step), step)
    faults.set("drop_answers")  # each PUT is stored, its answer lost
    with pytest.raises(WriterError, match="did not succeed"):
        w.flush()
    faults.set("pass")
    assert len(_segments(bucket)) == 1  # retried under one name
    for step in range(1000, 1100):
        w.add_scalar("loss", float(step), step)
    w.close()
    assert _steps(bucket) == list(range(1100))  # each step once
    first, second = (split_segment(n) for n in _segments(bucket))
    assert first is not None and second is not None and (first[2], second[2]) == (1, 2)
    assert faults.counts["drop_answers"] >= 2


def test_close_with_a_dead_endpoint_is_bounded_and_says_what_was_not_uploaded(bucket, faults):
    w = LogWriter(f"{bucket}/run", upload_secs=3600, upload_timeout=60, close_timeout=1.5)
    for step in range(500):
        w.add_scalar("loss", float(step), step)
    faults.set("blackhole")
    start = time.monotonic()
    with pytest.raises(WriterError, match=r"before the writer was closed .* \d+ bytes \(4 records\) are not uploaded"):
        w.close()  # the points' record, the process's end and the footer
    took = time.monotonic() - start
    print(f"close() with a black-holed endpoint returned after {took:.2f} s (close_timeout 1.5 s)")
    assert took < 1.5 + 5  # bounded (a margin for a loaded machine), where it hung for minutes


def test_add_scalar_on_a_dead_endpoint_raises_at_the_memory_bound_instead_of_waiting(bucket, faults):
    w = LogWriter(
        f"{bucket}/run", upload_secs=0.05, upload_bytes=1 << 10, max_pending_bytes=24_000, upload_timeout=2.0,
        max_queue=100, flush_secs=0.05, close_timeout=20,
    )  # fmt: skip
    faults.set("blackhole")
    kept, refused, reported = [], 0, 0
    step = 0
    while refused < 50:  # once the writer is failing, a call past the bound is refused at once
        try:
            w.add_scalar("loss", float(step), step)
            kept.append(step)
        except WriterError as e:
            if "is not kept" in str(e):
                refused += 1
            else:
                reported += 1  # the first report: this call's value was kept
                kept.append(step)
        step += 1
    assert reported == 1
    assert w.stats()["blocked_seconds"] < 30  # the wait for the first report; then no waiting
    faults.set("pass")
    w.close()
    assert _steps(bucket) == kept


def test_a_poll_through_a_dead_endpoint_returns_and_catches_up(bucket, faults):
    w = LogWriter(f"{bucket}/run", upload_secs=3600)
    for step in range(100):
        w.add_scalar("loss", float(step), step)
    w.flush()
    reader = LogReader(bucket)
    assert reader.scalars("run", "loss").steps.tolist() == list(range(100))
    for step in range(100, 200):
        w.add_scalar("loss", float(step), step)
    w.flush()
    for mode in ("blackhole", "refuse", "drop_answers"):
        faults.set(mode)
        reader.poll()  # returns: each request gives up within the client's timeouts
        assert len(reader.scalars("run", "loss")) in (100, 200)
    faults.set("pass")
    wait_until(lambda: reader.poll() or len(reader.scalars("run", "loss")) == 200, 30, "the reader to catch up")
    assert reader.scalars("run", "loss").steps.tolist() == list(range(200))
    w.close()


@pytest.mark.e2e  # a 6 MB segment through the fault proxy: seconds of CPU
def test_close_during_an_upload_attempt_of_a_big_segment_is_bounded(bucket, faults):
    """An attempt already under way when ``close()`` starts is given a time from its segment's
    size (64 s for 16 MiB at a slow link's pace); ``close_timeout`` cuts it short all the same."""
    w = LogWriter(f"{bucket}/run", upload_secs=0.2, upload_timeout=60, close_timeout=1.0, max_pending_bytes=64 << 20)
    w.add_scalar("loss", 0.0, 0)
    w.flush()
    faults.set("blackhole")
    noise = np.random.default_rng(0).integers(0, 255, (1400, 1400, 3), dtype=np.uint8)  # 5.9 MB, incompressible
    w.add_image("noise", noise, 1)
    appender = getattr(w._sink, "_appender")  # noqa: B009 - the sink's, whatever its type
    wait_until(lambda: appender.attempts >= 2, 30, "the image's segment to be under way")  # 23 s allowed to it
    start = time.monotonic()
    with pytest.raises(WriterError, match=r"before the writer was closed"):
        w.close()
    took = time.monotonic() - start
    print(f"close() during a 5.9 MB upload attempt returned after {took:.2f} s (close_timeout 1 s)")
    assert took < 1.0 + 5  # it waited for the attempt's own 23 s before


def test_close_with_a_store_call_that_never_returns_is_bounded(monkeypatch):
    """A filesystem without an event loop (``memory://``, HDFS) whose upload never returns:
    the attempt is left to its thread and ``close()`` returns at ``close_timeout``."""
    from fsspec.implementations.memory import MemoryFileSystem

    release = threading.Event()
    upload = MemoryFileSystem.pipe_file

    def never_returns(fs, path, value, **kwargs):
        if not release.is_set():
            release.wait(600)
        return upload(fs, path, value, **kwargs)

    w = LogWriter(f"memory://vdl-faults-{time.time_ns()}/run", upload_secs=3600, close_timeout=1.0)
    w.add_scalar("loss", 0.0, 0)
    monkeypatch.setattr(MemoryFileSystem, "pipe_file", never_returns)
    start = time.monotonic()
    try:
        # the provenance, the points, the process's end, the footer
        with pytest.raises(WriterError, match=r"\d+ bytes \(4 records\) are not uploaded"):
            w.close()
        took = time.monotonic() - start
    finally:
        release.set()
    print(f"close() with an upload that never returns took {took:.2f} s (close_timeout 1 s)")
    assert took < 1.0 + 5  # it hung for as long as the call did
