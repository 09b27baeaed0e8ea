"""Fuzzing the reader with hostile log files, for a bounded time (about 30 s in all).

Two sources of files:

* structure-aware: random ``Record`` messages (lying counts, random columns and codecs,
  deflate bombs, undecodable payloads, records nested in blobs) framed with valid
  checksums, mixed with bad checksums, huge or out-of-file lengths, torn records and
  junk;
* byte mutations of the format v1 fixture (flips, inserted, deleted and duplicated
  stretches, cuts, junk headers), copied to a temporary directory.

Each file is appended in random pieces with a ``poll()`` after each, then read as a file
that stopped growing. The reader must never raise or hang, must stay within a memory
bound, and must not invent data: everything it returns comes from a record with both
checksums valid somewhere in the file (checked by brute force over every offset), and for
a mutated fixture file from the original file.

Every case has its own seed; a failure names it. Reproduce one with
``VISUALDL_FUZZ_SEED=<seed> VISUALDL_FUZZ_CASES=1 pytest tests/index/test_fuzz_reader.py``.
"""

from __future__ import annotations

import os
import random
import shutil
import struct
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from kit.paths import DATA

from visualdl import LogReader
from visualdl._formats.framing import frame, masked_crc
from visualdl._formats.vdlog.logformat import parse_record
from visualdl._index import tail as _tail
from visualdl._kinds.table import KIND_BY_FIELD
from visualdl.errors import LogFormatError
from visualdl.proto import pb

FIXTURE = os.path.join(DATA, "format_v1", "logdir")
SECONDS = float(os.environ.get("VISUALDL_FUZZ_SECONDS", "14"))  # per test: two tests
CASES = int(os.environ.get("VISUALDL_FUZZ_CASES", "0"))  # 0: as many as fit in SECONDS
# Under CI a fixed seed, so that the gate is the same on every run (the cases a slower machine
# runs are a prefix of those a faster one runs); elsewhere a new seed each run explores more.
SEED = int(os.environ.get("VISUALDL_FUZZ_SEED", "0")) or (
    20261123 if os.environ.get("CI") else random.SystemRandom().randrange(1, 2**31)
)
CASE_DEADLINE = 60.0  # one case: a hang fails it
NAME = "vdl.1700000000.fuzz.1.00000000.vdlog"


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# -- what a reader returns, and what the bytes of a file allow ---------------------------------


Data = dict[tuple[str, str, str], set[Any]]


def _bits(values: Any) -> list[int]:
    return np.ascontiguousarray(values, dtype="<f8").view("<u8").tolist()


def _bit(value: float) -> int:
    return int(_bits([value])[0])


def _event_key(kind: str, event: Any) -> Any:
    if kind == "images":
        return (event.step, _bit(event.wall_time), event.height, event.width, event.channels)
    if kind == "histograms":
        stats = (event.count, event.nan_count, event.pos_inf_count, event.neg_inf_count)
        floats = _bits([event.min, event.max, event.sum, event.sum_squares])
        return (event.step, _bit(event.wall_time), event.edges.tobytes(), event.counts.tobytes(), *stats, *floats)
    if kind == "text":
        return (event.step, _bit(event.wall_time), event.text)
    return (event.name, _bit(event.wall_time), event.format, event.size)


def _returned(reader: LogReader) -> Data:
    """Everything ``reader`` returns, by (run, kind, tag)."""
    out: Data = {}
    for run in reader.runs():
        for kind, tags in reader.tags(run).items():
            for tag in tags:
                key = out.setdefault((run, kind, tag), set())
                if kind == "scalars":
                    for replaced in (False, True):
                        s = reader.scalars(run, tag, replaced=replaced)
                        key.update(zip(s.steps.tolist(), _bits(s.values), _bits(s.wall_times), strict=True))
                elif kind == "graphs":  # every graph of the name, not only the newest
                    key.update(_event_key(kind, g) for g in reader._index._events(run, "graphs", tag))
                else:
                    key.update(_event_key(kind, e) for e in reader._index._events(run, kind, tag))
    return out


def _allowed(data: bytes, run: str, out: Data) -> None:
    """Add to ``out`` what every record with both checksums valid, at any offset of ``data``, holds."""
    arr = np.frombuffer(data, np.uint8)
    n = len(data) - 16
    if n < 0:
        return
    # Candidates: a length below 2**32 (its high bytes zero), then both checksums by hand.
    high = (arr[4 : 4 + n + 1] | arr[5 : 5 + n + 1] | arr[6 : 6 + n + 1] | arr[7 : 7 + n + 1]) == 0
    for pos in np.flatnonzero(high).tolist():
        length, crc = struct.unpack_from("<QI", data, pos)
        end = pos + 12 + length
        if end + 4 > len(data) or masked_crc(data[pos : pos + 8]) != crc:
            continue
        payload = data[pos + 12 : end]
        if masked_crc(payload) != struct.unpack_from("<I", data, end)[0]:
            continue
        try:
            record = parse_record(payload)
        except LogFormatError:
            continue
        field = record.WhichOneof("kind") or ""
        kind = KIND_BY_FIELD.get(field)
        if kind is None:
            continue
        try:
            events = kind.decode(getattr(record, field), "", pos)
        except LogFormatError:
            continue
        for tag, event in events:
            if kind.name == "scalars":
                bounds = np.concatenate(([0], np.cumsum(event.counts)))
                for i, t in enumerate(event.tags):
                    lo, hi = int(bounds[i]), int(bounds[i + 1])
                    points = zip(
                        event.steps[lo:hi].tolist(), _bits(event.values[lo:hi]), _bits(event.wall_times[lo:hi]),
                        strict=True,
                    )  # fmt: skip
                    out.setdefault((run, "scalars", t), set()).update(points)
            else:
                out.setdefault((run, kind.name, tag), set()).add(_event_key(kind.name, event))


def _assert_subset(returned: Data, allowed: Data, what: str) -> None:
    for key, values in returned.items():
        extra = values - allowed.get(key, set())
        assert not extra, f"{what}: {key} holds {len(extra)} values from nowhere, e.g. {sorted(extra, key=repr)[:2]}"


# -- running a case -------------------------------------------------------------------------


def _bounded(fn: Callable[[], None], seed: int) -> None:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - boundary: reported below, with the seed
            errors.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(CASE_DEADLINE)
    assert not thread.is_alive(), f"case seed {SEED}+{seed}: hung for {CASE_DEADLINE} s"
    if errors:
        raise AssertionError(f"case seed {SEED}+{seed}: {errors[0]!r}") from errors[0]


def _follow(logdir: str, writes: list[tuple[str, bytes]], rng: random.Random, clock: _Clock) -> LogReader:
    """Write ``(path, bytes)`` in random pieces, polling between them; then let the files stop."""
    reader = LogReader(logdir, load=False)
    pieces: list[tuple[str, bytes]] = []
    for path, data in writes:
        cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randrange(0, 6)))) if len(data) > 1 else []
        pieces += [(path, data[a:b]) for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
    for path, piece in pieces:
        with open(path, "ab") as f:
            f.write(piece)
        result = reader.poll()
        assert result.bytes_read >= 0
        if rng.random() < 0.2:
            clock.now += 61  # the file stops for a while, then goes on
            reader.poll()
    clock.now += 61
    reader.poll()
    reader.poll()
    return reader


def _time_up(start: float, done: int) -> bool:
    if CASES:
        return done >= CASES
    return time.monotonic() - start >= SECONDS


# -- structure-aware files --------------------------------------------------------------------


def _column(rng: random.Random, n: int, dtype: str) -> pb.Column:
    choice = rng.random()
    if choice < 0.15 and dtype == "i":
        return pb.Column(codec=pb.ARITHMETIC, start=rng.randrange(-(2**63), 2**63), stride=rng.randrange(-5, 6))
    count = n if rng.random() < 0.8 else rng.randrange(0, n + 3)  # a lying count now and then
    raw = np.random.default_rng(rng.randrange(2**32)).bytes(count * 8)
    if choice < 0.5:
        return pb.Column(codec=pb.RAW, data=raw)
    if choice < 0.9:
        return pb.Column(codec=pb.SHUFFLE_DEFLATE, data=zlib.compress(raw, 1))
    column = pb.Column(codec=pb.SHUFFLE_DEFLATE, data=np.random.default_rng(1).bytes(rng.randrange(40)))
    if rng.random() < 0.5:
        column.MergeFromString(b"\x08\x07")  # codec 7: unknown to this reader
    return column


def _scalars(rng: random.Random) -> pb.Record:
    if rng.random() < 0.05:  # a bomb: many points in a few bytes, at or over the limit
        n = rng.choice([1 << 20, (1 << 20) + 1, 1 << 27])
        zeros = pb.Column(codec=pb.SHUFFLE_DEFLATE, data=zlib.compress(bytes(min(n, 1 << 20) * 8), 9))
        steps = pb.Column(codec=pb.ARITHMETIC, stride=1)
        return pb.Record(scalars=pb.ScalarBatch(tags=["bomb"], counts=[n], steps=steps, values=zeros, wall_times=zeros))
    tags = [rng.choice(["loss", "acc", "lr", "é/x", ""]) for _ in range(rng.randrange(0, 4))]
    counts = [rng.randrange(0, 20) for _ in tags]
    if rng.random() < 0.1:
        counts = [rng.choice([2**64 - 1, 2**40, 1 << 21, 3]) for _ in tags]  # lying
    if rng.random() < 0.05:
        counts.append(1)  # more counts than tags
    n = sum(counts) if sum(counts) < 10_000 else 5
    batch = pb.ScalarBatch(tags=tags, counts=counts, steps=_column(rng, n, "i"))
    batch.values.CopyFrom(_column(rng, n, "f"))
    batch.wall_times.CopyFrom(_column(rng, n, "f"))
    return pb.Record(scalars=batch)


def _record(rng: random.Random, nested: bytes) -> pb.Record:
    kind = rng.choice(["header", "scalars", "scalars", "scalars", "image", "histogram", "text", "graph", "footer"])
    step, wall = rng.randrange(-5, 50), rng.choice([1.5, 1e9, float("nan"), -0.0])
    if kind == "header":
        version = 1 if rng.random() < 0.9 else 2
        header = pb.Header(format_version=version, writer_id=f"{rng.getrandbits(128):032x}", rank=rng.randrange(-1, 3))
        header.attempt = rng.randrange(-1, 2)
        return pb.Record(header=header)
    if kind == "scalars":
        return _scalars(rng)
    if kind == "image":
        png = nested or np.random.default_rng(rng.randrange(99)).bytes(rng.randrange(100))
        return pb.Record(image=pb.Image(tag="img", step=step, wall_time=wall, height=2, width=3, channels=3, png=png))
    if kind == "histogram":
        n = rng.randrange(0, 5)
        edges = np.sort(np.random.default_rng(n).normal(size=n + 1 if rng.random() < 0.8 else n + 2))
        hist = pb.Histogram(tag="h", step=step, wall_time=wall, edges=edges.tobytes(), counts=np.ones(n).tobytes())
        hist.count = rng.randrange(0, 3)
        hist.min, hist.max = rng.random(), rng.random()
        if rng.random() < 0.1:
            hist.edges = b"\x01\x02\x03"
        return pb.Record(histogram=hist)
    if kind == "text":
        return pb.Record(text=pb.Text(tag="t", step=step, wall_time=wall, text=rng.choice(["", "x" * 30, "ünï"])))
    if kind == "graph":
        return pb.Record(graph=pb.Graph(name=rng.choice(["g", "h"]), wall_time=wall, format="onnx", data=nested))
    return pb.Record(footer=pb.Footer(wall_time=wall, records=3))


def _chunk(rng: random.Random, previous: bytes) -> bytes:
    """One stretch of a generated file: mostly framed records, sometimes damage."""
    choice = rng.random()
    nested = frame(_record(rng, b"").SerializeToString()) if rng.random() < 0.1 else b""
    if choice < 0.6:
        return frame(_record(rng, nested).SerializeToString())
    if choice < 0.65:
        return frame(np.random.default_rng(rng.randrange(99)).bytes(rng.randrange(1, 60)))  # undecodable
    if choice < 0.7:
        return frame(b"\xa2\x06\x00")  # a Record of an unknown kind only
    whole = frame(_record(rng, nested).SerializeToString())
    if choice < 0.75:  # bad payload checksum
        return whole[:-1] + bytes([whole[-1] ^ 0x40])
    if choice < 0.8:  # bad length checksum
        return whole[:9] + bytes([whole[9] ^ 1]) + whole[10:]
    length = rng.choice([2**31 + 1, 2**40, 2**64 - 1, rng.randrange(0, 1 << 20), len(previous) + 5])
    head = struct.pack("<Q", length)
    head += struct.pack("<I", masked_crc(head))
    if choice < 0.9:  # a valid header claiming a length that lies
        return head + whole[: rng.randrange(len(whole))]
    if choice < 0.95:  # a torn record
        return whole[: rng.randrange(1, len(whole))]
    return rng.choice([b"\x00" * rng.randrange(1, 40), np.random.default_rng(7).bytes(rng.randrange(1, 40))])


def _generated(rng: random.Random) -> bytes:
    out = frame(_record(random.Random(0), b"").SerializeToString()) if rng.random() < 0.8 else b""
    for _ in range(rng.randrange(1, 25)):
        out += _chunk(rng, out)
    return out


@pytest.mark.e2e  # thousands of generated files: tens of seconds
def test_fuzz_reader_structure_aware_files(tmp_path, monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(_tail, "_now", clock)
    start = time.monotonic()
    case = 0
    while not _time_up(start, case):
        rng = random.Random(SEED + case)
        data = _generated(rng)
        logdir = tmp_path / f"case{case}"
        logdir.mkdir()
        path = str(logdir / NAME)
        traced = case % 4 == 0

        def run(
            data: bytes = data, logdir: str = str(logdir), path: str = path, traced: bool = traced, rng=rng
        ) -> None:
            if traced:
                tracemalloc.start()
            try:
                reader = _follow(logdir, [(path, data)], rng, clock)
                peak = tracemalloc.get_traced_memory()[1] if traced else 0
            finally:
                if traced:
                    tracemalloc.stop()
            returned = _returned(reader)
            allowed: Data = {}
            _allowed(data, ".", allowed)
            _assert_subset(returned, allowed, "generated file")
            points = sum(len(v) for k, v in returned.items() if k[1] == "scalars")
            assert peak < (48 << 20) + 100 * points, f"peak {peak} bytes for {points} points"
            assert all(0 <= p.offset <= len(data) for p in reader.problems)
            assert not [p for p in reader.problems if p.message.startswith("reading failed")]

        _bounded(run, case)
        case += 1
    print(f"{case} generated files, seeds {SEED}+0 to {SEED}+{case - 1}")
    assert case > 0


# -- mutations of real files --------------------------------------------------------------------


def _mutated(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randrange(1, 6)):
        choice = rng.random()
        at = rng.randrange(len(out) + 1)
        if choice < 0.3 and out:
            out[min(at, len(out) - 1)] ^= 1 << rng.randrange(8)
        elif choice < 0.45:
            out[at:at] = np.random.default_rng(at).bytes(rng.randrange(1, 30))
        elif choice < 0.6:
            del out[at : at + rng.randrange(1, 40)]
        elif choice < 0.75:
            source = rng.randrange(len(out) + 1)
            out[at:at] = out[source : source + rng.randrange(1, 200)]  # a duplicated stretch
        elif choice < 0.85:
            del out[at:]
        else:
            head = struct.pack("<Q", rng.choice([rng.randrange(0, 400), 2**31 - 1, 2**62]))
            out[at:at] = head + struct.pack("<I", masked_crc(head))
    return bytes(out)


def _fixture_files() -> list[tuple[str, str]]:
    return [
        (run, name) for run in sorted(os.listdir(FIXTURE)) for name in sorted(os.listdir(os.path.join(FIXTURE, run)))
    ]


@pytest.mark.e2e  # thousands of mutated files: tens of seconds
def test_fuzz_reader_mutated_fixture_files(tmp_path, monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(_tail, "_now", clock)
    original = _returned(LogReader(FIXTURE))
    files = _fixture_files()
    start = time.monotonic()
    case = 0
    while not _time_up(start, case):
        rng = random.Random(SEED + 1_000_000 + case)
        logdir = tmp_path / f"case{case}"
        chosen = rng.sample(files, rng.randrange(1, 3))
        writes = []
        for run, name in chosen:
            with open(os.path.join(FIXTURE, run, name), "rb") as f:
                writes.append((run, str(logdir / run / name), _mutated(rng, f.read())))
            os.makedirs(logdir / run, exist_ok=True)
        untouched = [(r, n) for r, n in files if (r, n) not in chosen]
        for run, name in untouched:
            os.makedirs(logdir / run, exist_ok=True)
            shutil.copy(os.path.join(FIXTURE, run, name), logdir / run / name)

        def run_case(
            logdir: str = str(logdir), writes: list[tuple[str, str, bytes]] = writes, untouched=untouched, rng=rng
        ) -> None:
            reader = _follow(logdir, [(path, data) for _, path, data in writes], rng, clock)
            returned = _returned(reader)
            _assert_subset(returned, original, "mutated fixture")
            allowed: Data = {}
            for run, _, data in writes:
                _allowed(data, run, allowed)
            for run, name in untouched:
                with open(os.path.join(FIXTURE, run, name), "rb") as f:
                    _allowed(f.read(), run, allowed)
            _assert_subset(returned, allowed, "mutated fixture")
            assert not [p for p in reader.problems if p.message.startswith("reading failed")]

        _bounded(run_case, 1_000_000 + case)
        case += 1
    print(f"{case} mutated fixtures, seeds {SEED}+1000000 to {SEED}+{1_000_000 + case - 1}")
    assert case > 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fuzz_reader_oracle_finds_the_fixture(seed):
    """The brute-force oracle itself: it finds every record of an intact file."""
    allowed: Data = {}
    for run, name in _fixture_files():
        with open(os.path.join(FIXTURE, run, name), "rb") as f:
            _allowed(f.read(), run, allowed)
    returned = _returned(LogReader(FIXTURE))
    _assert_subset(returned, allowed, "fixture")
    assert sum(len(v) for v in returned.values()) > 20
