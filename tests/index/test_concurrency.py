"""Writers and readers at the same time: threads, processes, and fork()."""

from __future__ import annotations

import io
import multiprocessing
import os
import queue
import shutil
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from PIL import Image

from visualdl import LogReader, LogWriter
from visualdl._formats.vdlog.logformat import FILE_MARKER


def _log_files(logdir: str) -> list[str]:
    return sorted(os.path.join(logdir, f) for f in os.listdir(logdir) if FILE_MARKER in f)


# -- one reader polling while one writer appends --------------------------------------------


def test_reader_polling_sees_exactly_the_flushed_points(logdir):
    batches, per_batch = 20, 250
    w = LogWriter(logdir, flush_secs=3600)  # only flush() writes: after it, the file holds exactly what was added
    reader = LogReader(logdir)
    flushed: queue.Queue[int | None] = queue.Queue()
    acks: queue.Queue[bool] = queue.Queue()
    errors: list[BaseException] = []

    def write() -> None:
        try:
            step = 0
            for _ in range(batches):
                for _ in range(per_batch):
                    w.add_scalar("loss", step * 2.0, step)
                    step += 1
                w.flush()
                flushed.put(step)
                if not acks.get(timeout=30):
                    return  # the reading side failed
        except BaseException as e:
            errors.append(e)
            raise
        finally:
            flushed.put(None)

    def seen() -> int:
        reader.poll()
        if "." not in reader.runs() or "loss" not in reader.tags(".")["scalars"]:
            return 0
        series = reader.scalars(".", "loss")
        n = len(series)
        assert np.array_equal(series.steps, np.arange(n))  # in order, no duplicates, no gaps
        assert np.array_equal(series.values, np.arange(n) * 2.0)
        return n

    thread = threading.Thread(target=write)
    thread.start()
    checked = []
    last = 0
    midway_polls = 0
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            try:
                target = flushed.get_nowait()
            except queue.Empty:
                target = -1
            if target == -1:
                # The writer is adding or flushing: a poll sees a prefix, never less than before.
                n = seen()
                assert last <= n <= last + per_batch
                midway_polls += 1
                continue
            if target is None:
                break
            assert seen() == target  # everything flushed, nothing else
            checked.append(target)
            last = target
            acks.put(True)
    finally:
        acks.put(False)
        thread.join(30)
    assert errors == []
    assert checked == [per_batch * (i + 1) for i in range(batches)]
    assert midway_polls > 0
    assert reader.problems == []
    w.close()
    reader.poll()
    assert reader.writers(".")[0].closed is True


# -- several processes writing into one logdir ----------------------------------------------------

PROCESSES = 4
POINTS = 3000
IMAGE_EVERY = 500


def _image(index: int, k: int) -> np.ndarray:
    return np.full((4, 6, 3), (index * 50 + k // IMAGE_EVERY) % 256, np.uint8)


def _spawned_writer(logdir: str, index: int, barrier) -> None:
    w = LogWriter(logdir, flush_secs=0.05, max_queue=200)  # frequent writes, interleaved with the others
    barrier.wait(60)
    for k in range(POINTS):
        w.add_scalar(f"proc{index}/loss", index + k / POINTS, k)
        w.add_scalar("shared", float(index * POINTS + k), index * POINTS + k)
        if k % IMAGE_EVERY == 0:
            w.add_image("shared_images", _image(index, k), index * POINTS + k)
            w.add_image(f"proc{index}/images", _image(index, k), k)
    w.close()


@pytest.mark.e2e  # writers in spawned processes: seconds of CPU
def test_writer_processes_share_a_logdir(logdir):
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(PROCESSES)
    procs = [ctx.Process(target=_spawned_writer, args=(logdir, i, barrier)) for i in range(PROCESSES)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0] * PROCESSES

    assert len(_log_files(logdir)) == PROCESSES
    reader = LogReader(logdir)
    assert reader.problems == []
    assert reader.runs() == ["."]
    writers = reader.writers(".")
    assert len({w.writer_id for w in writers}) == PROCESSES
    assert sorted(w.pid for w in writers) == sorted(p.pid or 0 for p in procs)
    assert all(w.closed for w in writers)

    for i in range(PROCESSES):
        own = reader.scalars(".", f"proc{i}/loss")
        assert own.steps.tolist() == list(range(POINTS))
        assert own.values.tolist() == [i + k / POINTS for k in range(POINTS)]
        images = reader.images(".", f"proc{i}/images")
        assert [e.step for e in images] == list(range(0, POINTS, IMAGE_EVERY))
    shared = reader.scalars(".", "shared")
    assert shared.steps.tolist() == list(range(PROCESSES * POINTS))
    assert shared.values.tolist() == [float(s) for s in range(PROCESSES * POINTS)]
    images = reader.images(".", "shared_images")
    expected = [(i * POINTS + k, i, k) for i in range(PROCESSES) for k in range(0, POINTS, IMAGE_EVERY)]
    assert [e.step for e in images] == [step for step, _, _ in expected]
    for event, (_, i, k) in zip(images, expected, strict=True):
        pixels = np.asarray(Image.open(io.BytesIO(reader.read_blob(event))))
        assert np.array_equal(pixels, _image(i, k))


# -- threads sharing one LogWriter ---------------------------------------------------------------


def test_writer_threads_share_one_writer(logdir):
    threads_n, per_thread = 8, 4000
    w = LogWriter(logdir, max_queue=500)  # the writer thread drains while the others add
    barrier = threading.Barrier(threads_n)
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            barrier.wait(30)
            for i in range(per_thread):
                w.add_scalar(f"thread{t}", float(i * threads_n + t), i)
                w.add_scalar("shared", float(t), i * threads_n + t)
        except BaseException as e:
            errors.append(e)
            raise

    threads = [threading.Thread(target=work, args=(t,)) for t in range(threads_n)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: races show up
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        sys.setswitchinterval(interval)
    w.close()
    assert errors == []
    assert w.stats()["scalar_points"] == 2 * threads_n * per_thread

    reader = LogReader(logdir)
    assert reader.problems == []
    for t in range(threads_n):
        own = reader.scalars(".", f"thread{t}")
        assert own.steps.tolist() == list(range(per_thread))
        assert own.values.tolist() == [float(i * threads_n + t) for i in range(per_thread)]
    shared = reader.scalars(".", "shared")
    assert shared.steps.tolist() == list(range(threads_n * per_thread))
    assert shared.values.tolist() == [float(s % threads_n) for s in range(threads_n * per_thread)]


# -- fork() --------------------------------------------------------------------------------------


def _read_alone(path: str, scratch: str) -> LogReader:
    """A reader of ``path`` alone: the file copied into a directory of its own."""
    os.makedirs(scratch)
    shutil.copy(path, scratch)
    return LogReader(scratch)


@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")  # Python 3.12+
def test_writer_fork_child_writes_its_own_file(tmp_path, logdir):
    w = LogWriter(logdir, flush_secs=3600)
    for s in range(100):
        w.add_scalar("parent", float(s), s)
    w.flush()
    for s in range(100, 150):
        w.add_scalar("parent", float(s), s)  # still pending when the process forks
    w.add_text("parent_text", "from the parent", 1)
    assert w.stats()["pending_bytes"] > 0
    parent_file = w.file_name

    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 1
        try:
            for s in range(1000, 1040):
                w.add_scalar("child", -float(s), s)
            w.add_text("child_text", "from the child", 2)
            w.flush()
            w.close()
            code = 0
        finally:
            os._exit(code)

    for s in range(150, 200):
        w.add_scalar("parent", float(s), s)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    w.flush()
    w.close()

    files = _log_files(logdir)
    assert len(files) == 2
    assert parent_file in files
    (child_file,) = [f for f in files if f != parent_file]

    reader = LogReader(logdir)
    assert reader.problems == []
    assert sorted((w.pid, w.path, w.closed) for w in reader.writers(".")) == sorted(
        [(os.getpid(), parent_file, True), (pid, child_file, True)]
    )

    parent = _read_alone(parent_file, str(tmp_path / "parent_only"))
    assert parent.problems == []
    assert parent.tags(".")["scalars"] == ["parent"]
    assert parent.tags(".")["text"] == ["parent_text"]
    series = parent.scalars(".", "parent")
    assert series.steps.tolist() == list(range(200))
    assert series.values.tolist() == [float(s) for s in range(200)]

    child = _read_alone(child_file, str(tmp_path / "child_only"))
    assert child.problems == []
    assert child.tags(".")["scalars"] == ["child"]
    assert child.tags(".")["text"] == ["child_text"]
    series = child.scalars(".", "child")
    assert series.steps.tolist() == list(range(1000, 1040))
    assert series.values.tolist() == [-float(s) for s in range(1000, 1040)]
    assert [t.text for t in child.texts(".", "child_text")] == ["from the child"]


# The parent logs a point (left pending), forks a child that exits normally (so that
# the interpreter's exit handlers run in it) without touching the writer, then logs
# another point and exits without close().
_FORKING_PARENT = """
import os
import sys
from visualdl import LogWriter

w = LogWriter(sys.argv[1], flush_secs=3600)
w.add_scalar("parent", 1.0, 0)
pid = os.fork()
if pid == 0:
    sys.exit(0)
_, status = os.waitpid(pid, 0)
w.add_scalar("parent", 2.0, 1)
print(pid, os.waitstatus_to_exitcode(status), w.file_name)
"""


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_writer_fork_child_that_never_logs_creates_no_file(logdir, child_env):
    result = subprocess.run(
        [sys.executable, "-c", _FORKING_PARENT, logdir],
        env=child_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    child_pid, child_exit, parent_file = result.stdout.split()
    assert child_exit == "0"
    assert _log_files(logdir) == [parent_file]
    reader = LogReader(logdir)
    assert reader.problems == []
    (writer,) = reader.writers(".")
    assert writer.pid != int(child_pid)
    assert writer.closed is True
    series = reader.scalars(".", "parent")
    assert series.steps.tolist() == [0, 1]
    assert series.values.tolist() == [1.0, 2.0]
