"""A file's budget of scalar points: a crafted file whose deflated columns claim far more
points than any writer of ours stores in its bytes is read up to its budget and named in a
problem; our writer's densest files are read whole; the budget is tight to what our writer
stores; and reading a crafted file costs memory bounded by the reader's rounds, not by the
points it claims."""

from __future__ import annotations

import os
import subprocess
import sys
import zlib

import numpy as np
import pytest

from visualdl import LogReader
from visualdl._formats.framing import frame
from visualdl._index.runs import FREE_POINTS, POINTS_PER_BYTE
from visualdl._kinds.scalars import MAX_POINTS_PER_RECORD, encode_scalars
from visualdl.proto import pb

RECORDS = 3


def _write(path: str, records: list[bytes]) -> int:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(frame(pb.Record(header=pb.Header(format_version=1, writer_id="w")).SerializeToString()))
        for record in records:
            f.write(frame(record))
    return os.path.getsize(path)


def _crafted(first: int) -> bytes:
    """A record of 2^20 points of zeros whose columns are deflated at level 9 (64 points a byte)."""
    n = MAX_POINTS_PER_RECORD
    zeros = pb.Column(codec=pb.SHUFFLE_DEFLATE, data=zlib.compress(bytes(8 * n), 9))
    steps = pb.Column(codec=pb.ARITHMETIC, start=first, stride=1)
    batch = pb.ScalarBatch(tags=["loss"], counts=[n], steps=steps, values=zeros, wall_times=zeros)
    return pb.Record(scalars=batch).SerializeToString()


def _ours(first: int) -> bytes:
    """What our writer stores densest: a constant value at a constant wall time."""
    n = MAX_POINTS_PER_RECORD
    steps = np.arange(first, first + n, dtype=np.int64)
    return encode_scalars(["loss"], [n], steps, np.zeros(n), np.full(n, 1.7e9)).SerializeToString()


@pytest.mark.e2e  # millions of points inflated and read: seconds
def test_reader_budget_refuses_points_past_it_and_names_the_file(logdir):
    n = MAX_POINTS_PER_RECORD
    crafted = os.path.join(logdir, "crafted", "a.vdlog")
    size = _write(crafted, [_crafted(i * n) for i in range(RECORDS)])
    ours_size = _write(os.path.join(logdir, "ours", "a.vdlog"), [_ours(i * n) for i in range(RECORDS)])
    assert RECORDS * n / ours_size < POINTS_PER_BYTE  # our writer's densest: within the budget
    reader = LogReader(logdir)
    reader.poll()

    assert len(reader.scalars("ours", "loss")) == RECORDS * n  # read whole
    kept = len(reader.scalars("crafted", "loss"))
    assert 0 < kept <= FREE_POINTS + POINTS_PER_BYTE * size < RECORDS * n
    (problem,) = reader.problems
    assert problem.path == crafted
    assert 0 < problem.offset <= size
    assert f"scalar points in {problem.offset:,} bytes" in problem.message  # said where it was found
    assert f"more than {POINTS_PER_BYTE} a byte" in problem.message
    reader.poll()
    assert len(reader.scalars("crafted", "loss")) == kept and len(reader.problems) == 1  # said once


def test_reader_budget_is_tight_to_what_our_writer_stores(tmp_path):
    """The densest file our writer makes (one record of the most points, a constant value at
    a constant wall time) is within a few tenths of the budget: a crafted file gets no more
    than a writer of ours could have stored in its bytes."""
    size = _write(str(tmp_path / "ours" / "a.vdlog"), [_ours(0)])
    densest = MAX_POINTS_PER_RECORD / size
    assert densest < POINTS_PER_BYTE < 1.2 * densest


_PEAK = """
import sys
from visualdl import LogReader
reader = LogReader(sys.argv[1])
reader.poll()
assert reader.problems, "the crafted file is named"
print(next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM")))
"""


@pytest.mark.e2e  # a reader in a process of its own (its peak memory), 30M points inflated
def test_reader_budget_a_crafted_file_costs_bounded_memory(logdir):
    """100 records of 2^20 points in 1.6 MB: the reader's peak memory stays within a few
    rounds of decoded points and its scratch file's pages, whatever the file claims (it
    was 2.6 GB: the ranks' agreement held 48 bytes a step for a run of one file)."""
    n = MAX_POINTS_PER_RECORD
    _write(os.path.join(logdir, "crafted", "a.vdlog"), [_crafted(i * n) for i in range(100)])
    done = subprocess.run([sys.executable, "-c", _PEAK, logdir], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    peak_kb = int(done.stdout.split()[-1])
    assert peak_kb < 600 << 10, f"peak {peak_kb >> 10} MB"
