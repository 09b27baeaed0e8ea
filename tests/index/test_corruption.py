"""Damaged log files: the reader keeps every intact record, reports damage once, never raises.

The files are written by LogWriter, then damaged with plain byte operations; record
boundaries are found by walking the framing here, independently of the reader.
"""

from __future__ import annotations

import os
import random
import struct
import threading
import tracemalloc

import numpy as np
import pytest

from visualdl import LogReader, LogWriter
from visualdl._formats.framing import frame, masked_crc
from visualdl._formats.vdlog.logformat import parse_record
from visualdl._kinds.table import KINDS
from visualdl.proto import pb

BATCHES = 8
PER_BATCH = 10


def _frames(data: bytes) -> list[tuple[int, int]]:
    """``(start, end)`` of every record of a whole, undamaged file."""
    out = []
    pos = 0
    while pos < len(data):
        assert pos + 12 <= len(data)
        (length,) = struct.unpack_from("<Q", data, pos)
        end = pos + 12 + length + 4
        assert end <= len(data)
        out.append((pos, end))
        pos = end
    return out


def _write_log(logdir: str) -> tuple[str, bytes]:
    """A closed file: a header, BATCHES scalar records of PER_BATCH points of "x", the process's
    end, a footer."""
    w = LogWriter(logdir, flush_secs=3600, provenance=False)
    for batch in range(BATCHES):
        for i in range(PER_BATCH):
            step = batch * PER_BATCH + i
            w.add_scalar("x", step * 1.5, step, walltime=1_700_000_000.0 + step)
        w.flush()
    w.close()
    with open(w.file_name, "rb") as f:
        return w.file_name, f.read()


def _all_steps() -> list[int]:
    return list(range(BATCHES * PER_BATCH))


def _assert_points(reader: LogReader, steps: list[int], run: str = ".") -> None:
    series = reader.scalars(run, "x")
    assert series.steps.tolist() == steps
    assert series.values.tolist() == [s * 1.5 for s in steps]
    assert series.wall_times.tolist() == [1_700_000_000.0 + s for s in steps]


def _late_record() -> bytes:
    """A valid framed record that the tests append after damage."""
    text = pb.Text(tag="late", step=7, wall_time=1_700_000_100.0, text="written after the damage " * 4)
    return frame(pb.Record(text=text).SerializeToString())


def _append(path: str, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)


def _bogus_header(length: int) -> bytes:
    """A record header claiming ``length`` bytes, with a valid length checksum."""
    head = struct.pack("<Q", length)
    return head + struct.pack("<I", masked_crc(head))


# -- garbage after the end of a finished file ---------------------------------------------

_GARBAGE = {
    "random": random.Random(7).randbytes(100),
    # the first 8 bytes of a header: a plausible small length, no checksum yet
    "partial_header": struct.pack("<Q", 40),
    # a whole valid header claiming 40 bytes, of which 10 are there
    "torn_record": _bogus_header(40) + b"\x00" * 10,
}


@pytest.mark.parametrize("kind", sorted(_GARBAGE))
def test_reader_garbage_at_tail_reported_at_most_once(logdir, kind):
    path, original = _write_log(logdir)
    garbage_at = len(original)
    _append(path, _GARBAGE[kind])

    reader = LogReader(logdir)
    for _ in range(5):
        reader.poll()  # never raises
    _assert_points(reader, _all_steps())
    assert reader.writers(".")[0].closed is True  # the footer precedes the garbage
    assert len(reader.problems) <= 1
    assert all(p.path == path and p.offset == garbage_at for p in reader.problems)

    _append(path, _late_record())
    reader.poll()
    reader.poll()
    assert [(t.step, t.text) for t in reader.texts(".", "late")] == [(7, "written after the damage " * 4)]
    _assert_points(reader, _all_steps())
    # Followed by a valid record, the garbage is corruption: one problem, where it starts.
    assert [(p.path, p.offset) for p in reader.problems] == [(path, garbage_at)]


# -- damage inside a record in the middle of the file ----------------------------------------


@pytest.mark.parametrize("where", ["length", "length_crc", "payload", "payload_crc"])
def test_reader_flipped_bytes_in_middle_record_lose_only_that_record(logdir, where):
    path, original = _write_log(logdir)
    frames = _frames(original)
    assert len(frames) == BATCHES + 3  # header, scalar batches, end, footer
    start, end = frames[len(frames) // 2]
    batch = parse_record(original[start + 12 : end - 4]).scalars
    damaged_steps = KINDS["scalars"].decode(batch, path, start)[0][1].steps
    assert len(damaged_steps) == PER_BATCH
    at = {"length": start + 1, "length_crc": start + 9, "payload": (start + end) // 2, "payload_crc": end - 3}[where]
    data = bytearray(original)
    data[at] ^= 0xFF
    with open(path, "wb") as f:
        f.write(data)

    reader = LogReader(logdir)
    reader.poll()
    _assert_points(reader, [s for s in _all_steps() if s not in set(damaged_steps.tolist())])
    assert reader.writers(".")[0].closed is True  # the records after the damage are read
    assert len(reader.problems) == 1
    problem = reader.problems[0]
    assert problem.path == path
    assert problem.offset == start
    assert "checksum" in problem.message


# -- a file cut in the middle of a record, then completed ---------------------------------------


@pytest.mark.parametrize("cut", ["in_length", "after_header", "in_payload", "in_payload_crc"])
def test_reader_truncated_file_waits_then_reads_rest(tmp_path, logdir, cut):
    source = str(tmp_path / "source")
    _, original = _write_log(source)
    frames = _frames(original)
    start, end = frames[-3]  # the last scalar record, before the end and the footer
    at = {
        "in_length": start + 5,
        "after_header": start + 12,
        "in_payload": (start + end) // 2,
        "in_payload_crc": end - 1,
    }[cut]
    path = os.path.join(logdir, "vdl.cut.vdlog")
    with open(path, "wb") as f:
        f.write(original[:at])

    reader = LogReader(logdir)
    reader.poll()
    last_batch = list(range((BATCHES - 1) * PER_BATCH, BATCHES * PER_BATCH))
    _assert_points(reader, [s for s in _all_steps() if s not in last_batch])
    assert reader.problems == []
    assert reader.writers(".")[0].closed is False

    _append(path, original[at:])
    result = reader.poll()
    assert result.new_records == 1
    _assert_points(reader, _all_steps())
    assert reader.writers(".")[0].closed is True
    assert reader.problems == []


# -- a length field claiming 2**60 bytes ---------------------------------------------------------


def _poll_bounded(reader: LogReader) -> int:
    """Poll in a thread: fail instead of hanging, and return the peak traced allocation."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            reader.poll()
        except BaseException as e:
            errors.append(e)
            raise

    tracemalloc.start()
    try:
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not thread.is_alive(), "poll() hung on a huge length"
    assert errors == []
    return peak


@pytest.mark.parametrize("later", ["already_there", "appended_later"])
def test_reader_huge_length_with_valid_checksum_is_skipped(tmp_path, logdir, later):
    source = str(tmp_path / "source")
    _, original = _write_log(source)
    frames = _frames(original)
    middle = len(frames) // 2
    split = frames[middle][0]  # a record boundary: batches before it are in frames 1 .. middle - 1
    bogus = _bogus_header(2**60)
    path = os.path.join(logdir, "vdl.huge.vdlog")
    head = original[:split] + bogus
    rest = original[split:]
    with open(path, "wb") as f:
        f.write(head + rest if later == "already_there" else head)

    reader = LogReader(logdir, load=False)
    peak = _poll_bounded(reader)
    assert peak < 32 << 20  # nothing sized by the bogus length was allocated
    if later == "appended_later":
        _assert_points(reader, [s for s in _all_steps() if s < (middle - 1) * PER_BATCH])
        assert reader.writers(".")[0].closed is False
        _append(path, rest)
        assert _poll_bounded(reader) < 32 << 20

    _assert_points(reader, _all_steps())  # every record after the bogus header is read too
    assert reader.writers(".")[0].closed is True
    assert [(p.path, p.offset) for p in reader.problems] == [(path, split)]


# -- files that hold nothing valid -----------------------------------------------------------------


def test_reader_empty_and_random_files_leave_other_runs_intact(logdir):
    good = os.path.join(logdir, "good")
    path, _ = _write_log(good)
    os.makedirs(os.path.join(logdir, "bad"))
    os.makedirs(os.path.join(logdir, "empty"))
    noise = os.path.join(logdir, "bad", "vdl.1700000000.host.1.0badf00d.vdlog")
    with open(noise, "wb") as f:
        f.write(np.random.default_rng(3).bytes(4096))
    empty = os.path.join(logdir, "empty", "vdl.1700000000.host.2.0e0e0e0e.vdlog")
    open(empty, "wb").close()
    empty_in_good = os.path.join(good, "vdl.1700000001.host.3.00000000.vdlog")
    open(empty_in_good, "wb").close()

    reader = LogReader(logdir)
    for _ in range(3):
        reader.poll()
    assert reader.runs() == ["bad", "empty", "good"]
    _assert_points(reader, _all_steps(), run="good")
    assert [w.path for w in reader.writers("good")] == [path]
    assert reader.writers("bad") == []
    assert reader.writers("empty") == []
    assert all(tags == [] for tags in reader.tags("bad").values())
    # The random file is reported, once; an empty file is a writer that has not written yet.
    assert [(p.path, p.offset) for p in reader.problems] == [(noise, 0)]

    # The reader keeps following: the empty file gets a header and points, the good run grows.
    header = pb.Record(header=pb.Header(format_version=1, writer_id="e" * 32, host="h", pid=2))
    batch = LogWriter(good, flush_secs=3600)
    batch.add_scalar("x", 1000 * 1.5, 1000, walltime=1_700_000_000.0 + 1000)
    batch.close()
    _append(empty, frame(header.SerializeToString()))
    reader.poll()
    _assert_points(reader, [*_all_steps(), 1000], run="good")
    assert [w.writer_id for w in reader.writers("empty")] == ["e" * 32]
    assert [(p.path, p.offset) for p in reader.problems] == [(noise, 0)]


# -- a record running past the end of the file ---------------------------------------------


class _Clock:
    """The clock of "the file stopped growing", moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> _Clock:
    from visualdl._index import tail as _tail

    fake = _Clock()
    monkeypatch.setattr(_tail, "_now", fake, raising=False)
    return fake


def _poll_peak(reader: LogReader) -> int:
    """Peak traced allocation of one poll."""
    tracemalloc.start()
    try:
        reader.poll()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_reader_record_past_the_end_is_not_read_again_until_the_file_reaches_it(tmp_path, logdir):
    source = str(tmp_path / "source")
    _, original = _write_log(source)
    frames = _frames(original)
    split = frames[-1][0]  # before the footer
    path = os.path.join(logdir, "vdl.waiting.vdlog")
    junk = np.random.default_rng(1).bytes(8 << 20)  # no valid record in it
    claimed = len(junk) + (1 << 20)
    with open(path, "wb") as f:
        f.write(original[:split] + _bogus_header(claimed) + junk)

    reader = LogReader(logdir)
    _assert_points(reader, _all_steps())
    assert reader.problems == []  # not yet written
    for _ in range(3):
        assert _poll_peak(reader) < 1 << 20  # the 8 MB behind the header are not read again
    _append(path, b"\x00" * 1000)  # grown, but not past the record's end
    assert _poll_peak(reader) < 1 << 20
    assert reader.problems == []


def test_reader_record_past_the_end_followed_by_valid_records_is_skipped(tmp_path, logdir):
    source = str(tmp_path / "source")
    _, original = _write_log(source)
    frames = _frames(original)
    split = frames[len(frames) // 2][0]
    path = os.path.join(logdir, "vdl.bogus.vdlog")
    with open(path, "wb") as f:
        f.write(original[:split] + _bogus_header(1 << 30) + original[split:])

    reader = LogReader(logdir)
    _assert_points(reader, _all_steps())  # the records after the bogus header are not hidden
    assert reader.writers(".")[0].closed is True
    [problem] = reader.problems
    assert (problem.path, problem.offset) == (path, split)
    assert "runs past the end of the file" in problem.message


def test_reader_torn_last_record_reported_once_the_file_stops_growing(tmp_path, logdir, clock):
    source = str(tmp_path / "source")
    _, original = _write_log(source)
    frames = _frames(original)
    start, end = frames[-3]  # the last scalar batch, before the end and the footer
    at = (start + end) // 2
    path = os.path.join(logdir, "vdl.torn.vdlog")
    with open(path, "wb") as f:
        f.write(original[:at])
    last_batch = list(range((BATCHES - 1) * PER_BATCH, BATCHES * PER_BATCH))
    before = [s for s in _all_steps() if s not in last_batch]

    reader = LogReader(logdir)
    clock.now += 59
    reader.poll()
    assert reader.problems == []  # it may still be written
    clock.now += 2
    reader.poll()
    [problem] = reader.problems
    assert (problem.path, problem.offset) == (path, start)
    assert "torn write" in problem.message
    for _ in range(3):
        clock.now += 100
        reader.poll()
    assert len(reader.problems) == 1  # reported once
    _assert_points(reader, before)
    assert reader.writers(".")[0].closed is False

    _append(path, original[at:])  # the writer was only paused: its record is read after all
    reader.poll()
    _assert_points(reader, _all_steps())
    assert reader.writers(".")[0].closed is True
    assert len(reader.problems) == 1


def test_reader_truncated_header_reported_once_the_file_stops_growing(logdir, clock):
    path, original = _write_log(logdir)
    _append(path, b"\x07\x00\x00\x00\x00")  # five bytes of a header
    reader = LogReader(logdir)
    assert reader.problems == []
    clock.now += 61
    reader.poll()
    reader.poll()
    [problem] = reader.problems
    assert (problem.path, problem.offset) == (path, len(original))
    assert "truncated record of 5 bytes" in problem.message
    _assert_points(reader, _all_steps())


def test_reader_stopped_file_resyncs_past_a_torn_record_to_the_records_after_it(tmp_path, logdir, clock):
    source = str(tmp_path / "source")
    _, original = _write_log(source)
    frames = _frames(original)
    start, end = frames[2]
    path = os.path.join(logdir, "vdl.gap.vdlog")
    # A record torn by a killed writer, then more records appended after it, which do
    # not complete it: its claimed end lies past the end of the file.
    torn = original[start : start + 12 + 5]
    later = original[end:]
    bogus_len = len(later) + 100
    with open(path, "wb") as f:
        f.write(original[:start] + _bogus_header(bogus_len) + torn[12:] + later[:10])
    reader = LogReader(logdir)
    assert reader.problems == []
    _append(path, later[10:])  # grows, still short of the claimed end: not read
    reader.poll()
    _assert_points(reader, list(range(PER_BATCH)))
    clock.now += 59
    reader.poll()
    _assert_points(reader, list(range(PER_BATCH)))
    clock.now += 2  # 61 s without growing
    reader.poll()
    steps = [s for s in _all_steps() if s >= PER_BATCH * 2 or s < PER_BATCH]
    _assert_points(reader, steps)
    [problem] = reader.problems
    assert (problem.path, problem.offset) == (path, start)


# -- scalar records over the point limit -----------------------------------------------------


def _deflated_zeros(points: int) -> pb.Column:
    import zlib

    return pb.Column(codec=pb.SHUFFLE_DEFLATE, data=zlib.compress(bytes(points * 8), 9))


def _scalar_record(points: int) -> bytes:
    column = _deflated_zeros(points)
    batch = pb.ScalarBatch(
        tags=["big"], counts=[points], steps=pb.Column(codec=pb.ARITHMETIC, start=0, stride=1),
        values=column, wall_times=column,
    )  # fmt: skip
    return frame(pb.Record(scalars=batch).SerializeToString())


def test_reader_point_limit_is_what_writers_split_at():
    from visualdl._kinds.scalars import MAX_POINTS_PER_RECORD
    from visualdl.sdk import _sink

    assert MAX_POINTS_PER_RECORD == _sink._MAX_POINTS_PER_RECORD == 1 << 20


def test_reader_scalar_record_over_the_point_limit_is_a_problem_not_inflated(logdir):
    path = os.path.join(logdir, "vdl.bomb.vdlog")
    header = pb.Record(header=pb.Header(format_version=1, writer_id="b" * 32))
    with open(path, "wb") as f:
        f.write(frame(header.SerializeToString()) + _scalar_record((1 << 20) + 1) + _late_record())
    reader = LogReader(logdir, load=False)
    assert _poll_bounded(reader) < 8 << 20  # nothing was inflated (16 MB of columns)
    [problem] = reader.problems
    assert "above the limit of 1048576" in problem.message
    assert reader.tags(".")["scalars"] == []
    assert [t.step for t in reader.texts(".", "late")] == [7]  # the records after it are read


def test_reader_scalar_record_at_the_point_limit_is_read(logdir):
    path = os.path.join(logdir, "vdl.limit.vdlog")
    header = pb.Record(header=pb.Header(format_version=1, writer_id="c" * 32))
    with open(path, "wb") as f:
        f.write(frame(header.SerializeToString()) + _scalar_record(1 << 20))
    reader = LogReader(logdir)
    assert reader.problems == []
    assert len(reader.scalars(".", "big")) == 1 << 20


def test_reader_reads_a_file_in_rounds_of_bounded_decoded_size(monkeypatch, logdir):
    from visualdl._index import polling as _reader

    _write_log(logdir)
    monkeypatch.setattr(_reader, "ROUND_BYTES", 1)  # one record per round
    reads = []
    read = _reader.LogFile.read

    def counting_read(self, budget=None):
        out = read(self, budget)
        reads.append(len(out))
        return out

    monkeypatch.setattr(_reader.LogFile, "read", counting_read)
    reader = LogReader(logdir)
    _assert_points(reader, _all_steps())
    assert reads == [1] * (BATCHES + 3) + [0] or reads == [1] * (BATCHES + 3)
