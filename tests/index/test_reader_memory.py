"""What a reader keeps in memory: scalar points go to a scratch file, results to a bounded cache.

The reader's index (:class:`~visualdl._index.index.Index`, which :class:`LogReader` holds)
is read here directly: these tests look at what it keeps."""

from __future__ import annotations

import numpy as np

from visualdl import LogWriter
from visualdl._index import polling as _reader
from visualdl._index.index import Index
from visualdl._index.series import Series


def _series(reader: Index) -> list[Series]:
    return [
        store
        for state in reader._runs.values()
        for per_file in state.data.values()
        for store in per_file.values()
        if isinstance(store, Series)
    ]


def test_points_are_spilled_and_read_back_exactly_as_a_log_grows(logdir, monkeypatch):
    monkeypatch.setattr(_reader, "SPILL_GARBAGE_BYTES", 4096)
    w = LogWriter(logdir)
    reader = Index(logdir, load=True)
    first_spill = reader._spill
    expected: list[float] = []
    for poll in range(60):
        for step in range(poll * 7, poll * 7 + 7):
            value = float("nan") if step == 100 else np.sin(step) * 1e6
            w.add_scalar("loss", value, step)
            expected.append(value)
        w.flush()
        reader.poll()
        s = reader.scalars(".", "loss")
        assert s.steps.tolist() == list(range(len(expected)))
        np.testing.assert_array_equal(s.values, np.array(expected))
    w.close()
    assert reader._spill is not first_spill  # rewritten without its garbage at least once
    assert reader._spill.garbage < reader._spill.size
    assert sum(series.nbytes for series in _series(reader)) < 4096  # the places of a few chunks


def test_the_results_cache_is_bounded_and_drops_the_least_recently_used(logdir, monkeypatch):
    w = LogWriter(logdir)
    for tag in range(20):
        for step in range(1000):
            w.add_scalar(f"t{tag}", float(step), step)
    w.close()
    reader = Index(logdir, load=True)
    cache = reader._cache
    cache.budget = 5 * 1000 * 24 * 2  # about five tags' merged and resolved series
    for tag in range(20):
        assert len(reader.scalars(".", f"t{tag}")) == 1000
        assert cache.used <= cache.budget
    assert 0 < cache.used
    hit = reader._runs["."].cache.get(("merged", "t19"))
    assert hit is not None  # the newest stays
    assert reader._runs["."].cache.get(("merged", "t0")) is None  # the oldest went
    assert reader.scalars(".", "t0").values.tolist() == [float(s) for s in range(1000)]  # read again from the spill


def test_finished_files_are_looked_at_rarely_and_still_followed(logdir, monkeypatch):
    from visualdl._index import tail as _tail

    closed = LogWriter(logdir + "/done", file_name="w.vdlog")
    closed.add_scalar("loss", 1.0, 0)
    closed.close()
    live = LogWriter(logdir + "/live")
    live.add_scalar("loss", 1.0, 0)
    live.flush()
    reader = Index(logdir, load=True)
    looked: list[str] = []
    real = _tail.LogFile.status

    def status(self):
        looked.append(self.path.split("/")[-2])
        return real(self)

    monkeypatch.setattr(_tail.LogFile, "status", status)
    for step in range(1, 6):
        live.add_scalar("loss", float(step), step)
        live.flush()
        reader.poll()
    assert looked.count("live") == 5 and looked.count("done") == 0
    assert len(reader.scalars("live", "loss")) == 6
    # Appended to after its footer (a writer of the same file_name): seen at its next look.
    again = LogWriter(logdir + "/done", file_name="w.vdlog")
    again.add_scalar("loss", 2.0, 1)
    again.close()
    reader.poll()
    assert len(reader.scalars("done", "loss")) == 1
    monkeypatch.setattr(_tail, "FINISHED_CHECK_SECONDS", 0.0)
    for logfile in reader._runs["done"].files.values():
        logfile._next_check = 0.0  # due
    reader.poll()
    assert reader.scalars("done", "loss").values.tolist() == [1.0, 2.0]
    live.close()


def test_a_run_asked_for_during_the_first_read_is_read_next(logdir, monkeypatch):
    import threading

    for run in range(12):
        w = LogWriter(f"{logdir}/run{run:02d}")
        w.add_scalar("loss", float(run), 0)
        w.close()
    reader = Index(logdir)
    order: list[str] = []
    gate = threading.Event()
    real = Index._load

    def slow_load(self, state, logfile, beat):
        order.append(logfile.path.split("/")[-2])
        gate.wait(5)  # the first files take long, as in a logdir of 10,000 runs
        return real(self, state, logfile, beat)

    monkeypatch.setattr(_reader, "READ_THREADS", 1)
    monkeypatch.setattr(Index, "_load", slow_load)
    poll = threading.Thread(target=reader.poll)
    poll.start()
    while not order:
        pass  # the poll has started reading run00
    waiter = threading.Thread(target=reader._await_run, args=("run09",))
    waiter.start()
    while True:
        with reader._jobs_lock:
            jobs = reader._jobs
            if jobs and jobs[0][1].path.split("/")[-2] == "run09":
                break
    gate.set()
    waiter.join(10)
    poll.join(10)
    assert order[:2] == ["run00", "run09"]  # run09 jumped the queue
    assert reader.scalars("run09", "loss").values.tolist() == [9.0]
