"""Ends the reader infers (``visualdl/_index/ends.py``, pure): killed without a trace when the
writer is superseded or silent, "probably out of memory" from the host's last memory
sample, a fatal signal from the sidecar; and a garbled sidecar read through a real reader
is a problem, not a crash."""

from __future__ import annotations

import os

import pytest
from kit.foreign import scalar_event, write_tfevents

from visualdl import LogReader, LogWriter
from visualdl._formats.fatal import FatalDump, preamble
from visualdl._index.ends import HANG_OR_KILL, OUT_OF_MEMORY, HostMemory, infer_end
from visualdl._index.writers import HostMemories
from visualdl._kinds.table import ProcessEnd

GIB = 1 << 30


def _infer(**kw):
    args = dict(
        recorded=None, closed_at=None, fatal=None, fatal_time=None, last_seen=1000.0, last_step=42,
        superseded=False, now=1010.0,
    )  # fmt: skip
    return infer_end(**{**args, **kw})


def test_ends_inferred_running_while_recent():
    assert _infer() is None


def test_ends_inferred_killed_when_superseded_or_silent():
    killed = _infer(superseded=True)
    assert killed == ProcessEnd("killed", 1000.0, step=42, cause="")
    silent = _infer(now=1061.0)
    assert silent is not None and (silent.how, silent.cause) == ("killed", HANG_OR_KILL)
    assert _infer(now=1061.0, silent_after=120.0) is None
    assert _infer(superseded=True, now=1e9, foreign=True) is None  # a TensorBoard file never says


@pytest.mark.parametrize(
    ("used", "available", "wall_time", "oom"),
    [
        (62 * GIB, 1 * GIB, 995.0, True),  # 1.6% available, 5 s before the end
        (60 * GIB, 4 * GIB, 995.0, False),  # 6% available
        (62 * GIB, 1 * GIB, 900.0, False),  # nearly exhausted, but 100 s before the end
        (62 * GIB, float("nan"), 995.0, True),  # available unknown: total - used
    ],
)
def test_ends_inferred_probably_out_of_memory(used, available, wall_time, oom):
    memory = HostMemory(used=used, available=available, total=64 * GIB, wall_time=wall_time)
    end = _infer(superseded=True, memory=lambda: memory)
    assert end is not None and end.how == "killed"
    assert (end.cause == OUT_OF_MEMORY) is oom


def test_ends_inferred_ask_for_memory_only_for_a_kill():
    asked = []

    def memory():
        asked.append(1)
        return None

    assert _infer(memory=memory) is None  # running
    assert _infer(closed_at=1001.0, superseded=True, memory=memory).how == "closed"
    assert not asked
    assert _infer(superseded=True, memory=memory).how == "killed"
    assert asked == [1]


def test_ends_inferred_recorded_and_fatal_come_first():
    recorded = ProcessEnd("signal", 990.0, signal="SIGTERM")
    assert _infer(recorded=recorded, superseded=True) is recorded
    dump = FatalDump("w", 1, "SIGSEGV", "Fatal Python error: Segmentation fault\n...")
    fatal = _infer(fatal=dump, fatal_time=1003.5, superseded=True)
    assert fatal == ProcessEnd("fatal signal", 1003.5, signal="SIGSEGV", traceback=dump.traceback, step=42)
    unnamed = FatalDump("w", 1, "", "junk", "garbled")
    assert _infer(fatal=unnamed, closed_at=1001.0) == ProcessEnd("closed", 1001.0)


def test_ends_inferred_garbled_sidecar_is_a_problem(tmp_path):
    w = LogWriter(str(tmp_path), rank=0, world_size=2, role="trainer")
    w.add_scalar("loss", 1.0, 5)
    w.flush()
    sink = w._sink
    path, writer_id = sink.path, sink.writer_id  # type: ignore[union-attr]
    with open(path + ".fatal", "ab") as f:  # as a crash that wrote junk would leave it
        f.write(preamble(writer_id, os.getpid()) + b"\x00\x01 not a dump\n")
    reader = LogReader(str(tmp_path))
    (writer,) = reader.writers(".")
    assert writer.ended is None  # still running: the junk names no signal
    (problem,) = reader.problems
    assert problem.path == path + ".fatal" and "garbled" in problem.message
    w.close()
    with open(path + ".fatal", "rb") as f:
        assert f.read().endswith(b" not a dump\n")  # a close takes back only its own line


def test_ends_inferred_never_for_a_tensorboard_file(tmp_path):
    write_tfevents(tmp_path, [scalar_event("loss", 1, 0.5)])
    (writer,) = LogReader(str(tmp_path)).writers(".", now=1e12)  # long silent
    assert writer.format == "tfevents" and writer.ended is None


def test_ends_inferred_out_of_memory_through_the_reader(tmp_path, monkeypatch):
    # The wiring point for system metrics: the host's last memory sample before the end.
    w = LogWriter(str(tmp_path), rank=0, world_size=2, role="trainer")
    w.add_scalar("loss", 1.0, 9, walltime=1000.0)
    w.flush()
    asked = []

    def exhausted(self, host, start, stop):
        asked.append((host, start, stop))
        return HostMemory(used=63 * GIB, available=0.5 * GIB, total=64 * GIB, wall_time=stop - 7)

    monkeypatch.setattr(HostMemories, "lowest", exhausted)
    (writer,) = LogReader(str(tmp_path)).writers(".", now=1e12)
    assert writer.ended is not None and (writer.ended.how, writer.ended.cause) == ("killed", OUT_OF_MEMORY)
    ((host, start, stop),) = asked  # the minute before its last sign of life (its start here), 5 s after
    assert host == writer.host and stop - start == 65.0 and start <= writer.start_time - 60 + 1e-6
    w.close()


_OOM_CHILD = """
import os, sys, time
import numpy as np
from visualdl import LogWriter
from visualdl._kinds.table import SystemMetric, encode_system_metrics
logdir, rank, available = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
w = LogWriter(logdir, rank=rank, world_size=2, local_rank=rank, role="trainer", attempt=0, system_metrics=False)
w.add_scalar("loss", 1.0, 9)
if rank == 0:  # the host's sampler: memory running out, as the kernel's OOM killer sees it
    metrics = tuple(SystemMetric(n, "host", "bytes") for n in ("memory_used", "memory_available", "memory_total"))
    record = encode_system_metrics(np.array([time.time()]), np.array([[64e9 - available, available, 64e9]]), metrics)
    w._sink.put_sample(record, record.ByteSize())
w.flush()
if rank == 1:
    os.kill(os.getpid(), 9)  # the OOM killer: nothing more is written
w.close()
"""


@pytest.mark.e2e  # writers in processes of their own, one killed: a CPU second a case
@pytest.mark.parametrize(("available", "cause"), [(0.5e9, OUT_OF_MEMORY), (40e9, "")])
def test_ends_inferred_out_of_memory_from_the_host_sampler_of_another_writer(tmp_path, child_env, available, cause):
    import subprocess
    import sys

    for rank in (0, 1):
        subprocess.run(
            [sys.executable, "-c", _OOM_CHILD, str(tmp_path), str(rank), str(available)], env=child_env, timeout=60
        )
    # rank 1 restarted: its killed attempt is superseded
    w = LogWriter(str(tmp_path), rank=1, world_size=2, local_rank=1, role="trainer", attempt=1, system_metrics=False)
    w.add_scalar("loss", 1.0, 10)
    w.close()
    killed = [x for x in LogReader(str(tmp_path)).writers(".") if x.rank == 1 and x.attempt == 0]
    assert len(killed) == 1 and killed[0].ended is not None
    assert (killed[0].ended.how, killed[0].ended.cause) == ("killed", cause)
