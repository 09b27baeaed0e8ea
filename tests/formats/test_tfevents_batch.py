"""Event files read many records at once: the batch framing yields exactly the records and
corruptions of the one-by-one scan, and the batch decoder reads exactly what the one-by-one
decoder reads, whatever the bytes."""

from __future__ import annotations

import dataclasses
import os
import random
import struct
from collections.abc import Sequence

import numpy as np
import pytest
from kit.requirements import require

from visualdl._formats import framebatch as _framebatch
from visualdl._formats import framing as _framing
from visualdl._formats.tfevents import scalars as _tfscalars
from visualdl._formats.tfevents.decode import simple_scalar
from visualdl.proto import tb

try:
    from tensorboard.compat.proto import event_pb2
except ImportError:  # pragma: no cover - CI installs it
    event_pb2 = None

LEAD = 0x09
STEPS = [0, 1, 127, 128, 16383, 16384, 2**31, 2**48, 2**49, 2**62, -1, -(2**63), 2**63 - 1]
VALUES = [0.0, -0.0, 1.5, float("nan"), float("inf"), float("-inf"), 3.4e38, 1e-45]
# Tags that put a false record start inside a payload: four zero bytes, then 0x09 five bytes on.
TRAPS = ["A\x00\x00\x00\x00BCDE\tZ", "\x00\x00\x00\x00\x00\x00\x00\x00\t\t\t\t\t", "x" * 7 + "\x00" * 4 + "\t"]


def _scalar_event(rng: random.Random, tag: str | None = None, step: int | None = None) -> bytes:
    if tag is None:
        tag = (
            rng.choice(TRAPS)
            if rng.random() < 0.04
            else rng.choice([f"loss/{rng.randrange(30)}", "ü/λ", "a" * rng.choice([1, 7, 8, 9, 16, 17, 100, 127, 128])])
        )
    if step is None:
        step = rng.choice([*STEPS, rng.randrange(0, 100_000)])
    wall = 1.7e9 + rng.random() if rng.random() < 0.98 else rng.choice([0.0, 1e-300])  # 0.0: no key 0x09
    event = tb.Event(wall_time=wall, step=step)
    event.summary.value.add(tag=tag, simple_value=rng.choice(VALUES))
    return event.SerializeToString()


def _other_event(rng: random.Random) -> bytes:
    event = tb.Event(wall_time=1.7e9, step=rng.randrange(1000))
    which = rng.randrange(4)
    if which == 0:
        event.file_version = "brain.Event:2"
    elif which == 1:
        for k in range(2):
            event.summary.value.add(tag=f"two/{k}", simple_value=float(k))
    elif which == 2:
        value = event.summary.value.add(tag="h")
        value.histo.min, value.histo.max, value.histo.num = 0.0, 1.0, 3.0
        value.histo.bucket_limit.extend([0.5, 1.0])
        value.histo.bucket.extend([1.0, 2.0])
    else:
        value = event.summary.value.add(tag="big", simple_value=1.0)
        value.metadata.display_name = "d" * rng.choice([10, 300])
    return event.SerializeToString()


def _log(rng: random.Random, n: int, other: float = 0.05) -> bytes:
    return b"".join(_framing.frame(_other_event(rng) if rng.random() < other else _scalar_event(rng)) for _ in range(n))


def _expanded(items: Sequence[object]) -> list[object]:
    """Batches as the frames they hold; other items as they are."""
    out: list[object] = []
    for item in items:
        if isinstance(item, _framebatch.Batch):
            for i in range(len(item)):
                out.append(_framing.Frame(item.offset + item.frame(i), item.payload(i)))
        else:
            out.append(item)
    return out


def _damaged(rng: random.Random, buf: bytes, false_start: bytes = b"") -> bytes:
    """``buf`` with a few bit flips, cuts, inserted bytes, zeroed words and, when given,
    copies of ``false_start`` (what a record's start looks like in this framing)."""
    data = bytearray(buf)
    for _ in range(rng.choice([1, 1, 2, 5])):
        what = rng.randrange(5 if false_start else 4)
        at = rng.randrange(len(data))
        if what == 0:
            data[at] ^= 1 << rng.randrange(8)
        elif what == 1:
            del data[at : at + rng.randrange(1, 40)]
        elif what == 2:
            data[at:at] = rng.randbytes(rng.randrange(1, 40))
        elif what == 3:
            data[at : at + 4] = bytes(4)
        else:
            data[at:at] = false_start
    return bytes(data)


def test_batched_scan_yields_what_the_scan_yields_on_intact_logs():
    rng = random.Random(1)
    buf = _log(rng, 3000)
    batched = list(_framebatch.Batched(LEAD).scan(buf))
    assert any(isinstance(item, _framebatch.Batch) and len(item) > 1000 for item in batched)
    assert _expanded(batched) == list(_framing.scan(buf))


@pytest.mark.parametrize("seed", range(40))
def test_batched_scan_yields_what_the_scan_yields_on_damaged_logs(seed: int):
    rng = random.Random(seed)
    buf = _damaged(rng, _log(rng, rng.choice([50, 400, 2000]), other=rng.choice([0.0, 0.05, 0.5])))
    cut = rng.choice([len(buf), rng.randrange(len(buf))])
    for stopped in (False, True):
        for file_end in (None, cut + 100):
            want = list(_framing.scan(buf[:cut], file_end=file_end, stopped=stopped))
            got = list(_framebatch.Batched(LEAD).scan(buf[:cut], file_end=file_end, stopped=stopped))
            assert _expanded(got) == want


def test_find_stops_before_a_bad_record_and_skips_false_starts():
    # Every fifth payload holds a false record start.
    rng = random.Random(2)
    payloads = [_scalar_event(rng, tag=TRAPS[i % len(TRAPS)] if i % 5 == 0 else "t") for i in range(500)]
    frames = [_framing.frame(p) for p in payloads]
    buf = b"".join(frames)
    batch = _framebatch.find(buf, 0, LEAD)
    assert batch is not None and len(batch) == 500 and batch.end == len(buf)
    assert [batch.payload(i) for i in range(500)] == payloads
    bad = bytearray(buf)
    at = sum(len(f) for f in frames[:321]) + 20  # inside the payload of record 321
    bad[at] ^= 0x40
    batch = _framebatch.find(bytes(bad), 0, LEAD)
    assert batch is not None and len(batch) == 321
    assert batch.end == sum(len(f) for f in frames[:321])
    # A header whose length is changed breaks the chain there.
    bad = bytearray(buf)
    bad[sum(len(f) for f in frames[:77])] ^= 0x01
    batch = _framebatch.find(bytes(bad), 0, LEAD)
    assert batch is not None and len(batch) == 77


def test_find_leaves_a_record_not_all_written():
    rng = random.Random(3)
    buf = _log(rng, 200, other=0.0)
    batch = _framebatch.find(buf[:-3], 0, LEAD)
    assert batch is not None and len(batch) == 199
    frames = [item for item in _framing.scan(buf) if isinstance(item, _framing.Frame)]
    assert batch.end == frames[-1].offset  # up to the record cut short, not into it
    assert list(_framing.scan(buf[:-3], batch.end)) == [batch.end]


def test_batched_scan_gives_up_on_false_starts_in_every_payload():
    rng = random.Random(8)
    buf = b"".join(_framing.frame(_scalar_event(rng, tag=TRAPS[i % len(TRAPS)])) for i in range(3000))
    batched = list(_framebatch.Batched(LEAD).scan(buf))
    assert _expanded(batched) == list(_framing.scan(buf))
    # Links followed one record at a time cost more than the one-by-one scan: few batches.
    in_batches = sum(len(item) for item in batched if isinstance(item, _framebatch.Batch))
    assert in_batches < 1000


def test_read_agrees_with_the_one_by_one_decoder():
    rng = random.Random(4)
    payloads = [_scalar_event(rng) if rng.random() < 0.8 else _other_event(rng) for _ in range(5000)]
    payloads += [p[:-1] + b"\x00" for p in payloads[:50]]  # not events of the common shape
    payloads.append(b"\x09" + bytes(8) + b"\x2a\x0a\x0a\x08\x0a\x01\xff\x15" + bytes(4))  # a tag that is not UTF-8
    buf = b"".join(_framing.frame(p) for p in payloads)
    batch = _framebatch.find(buf, 0, LEAD)
    assert batch is not None and len(batch) == len(payloads)
    found = _tfscalars.read(buf, batch.starts, batch.lengths)
    points = iter(range(len(found.steps)))
    ordinary = 0
    for i, payload in enumerate(payloads):
        want = simple_scalar(payload)
        if not found.common[i]:
            # Declined: not the common shape, or a step of more than 7 varint bytes.
            assert want is None or not 0 <= want[1] < 2**49
            continue
        j = next(points)
        assert want is not None
        got = (float(found.walls[j]), int(found.steps[j]), found.tags[found.tag_ids[j]], float(found.values[j]))
        assert got[:3] == want[:3]
        assert struct.pack("<d", got[3]) == struct.pack("<d", want[3])
        ordinary += 1
    assert next(points, None) is None
    assert ordinary > 2000


def test_read_tells_tags_apart_by_every_byte():
    rng = random.Random(5)
    base = "a" * 40
    tags = [base, base[:-1] + "b", "b" + base[1:], base[:20] + "c" + base[21:], base[:-1], base + "a"]
    tags += ["a" * 8, "a" * 16]
    payloads = [_scalar_event(rng, tag=tags[i % len(tags)], step=i) for i in range(800)]
    buf = b"".join(_framing.frame(p) for p in payloads)
    batch = _framebatch.find(buf, 0, LEAD)
    assert batch is not None
    found = _tfscalars.read(buf, batch.starts, batch.lengths)
    assert found.common.tolist() == [simple_scalar(p) is not None for p in payloads]  # all but walls of 0.0
    assert sorted(found.tags) == sorted(tags)
    taken = np.flatnonzero(found.common).tolist()
    assert [found.tags[t] for t in found.tag_ids] == [tags[i % len(tags)] for i in taken]


def test_reader_reads_a_tensorboardx_log_the_same_in_batches(tmp_path, monkeypatch):
    require(event_pb2 is not None, "tensorboard", "pip install -e '.[bench]'")
    try:
        from tensorboardX import SummaryWriter
    except ImportError:  # pragma: no cover - CI installs it
        SummaryWriter = None
    require(SummaryWriter is not None, "tensorboardX", "pip install -e '.[test]'")
    from visualdl import LogReader
    from visualdl._formats import table as _table

    rng = np.random.default_rng(6)
    writer = SummaryWriter(str(tmp_path / "run"), max_queue=10_000, flush_secs=1000)
    for step in range(3000):
        for k in range(5):
            writer.add_scalar(f"loss/{k}", float(rng.normal()), step)
        if step % 97 == 0:
            writer.add_histogram("w", rng.normal(size=100), step)
            writer.add_text("note", f"step {step}", step)
            writer.add_scalar("nan", float("nan"), step)
    writer.close()

    def everything() -> dict[tuple[str, str], object]:
        reader = LogReader(str(tmp_path))
        out: dict[tuple[str, str], object] = {}
        for tag in reader.tags("run")["scalars"]:
            s = reader.scalars("run", tag)
            out[("s", tag)] = (s.steps.tolist(), s.values.tobytes(), s.wall_times.tolist())
        for tag in reader.tags("run")["histograms"]:
            out[("h", tag)] = [(h.step, h.counts.tolist()) for h in reader.histograms("run", tag)]
        for tag in reader.tags("run")["text"]:
            out[("t", tag)] = [(t.step, t.text) for t in reader.texts("run", tag)]
        assert not reader.problems
        return out

    batched = everything()
    unbatched = tuple(dataclasses.replace(f, framing=_framing) if f.name == "tfevents" else f for f in _table.FORMATS)
    monkeypatch.setattr(_table, "FORMATS", unbatched)
    assert everything() == batched
    assert len(batched) == 8 and len(batched[("s", "loss/3")][0]) == 3000  # type: ignore[index]
    assert os.listdir(tmp_path / "run")
