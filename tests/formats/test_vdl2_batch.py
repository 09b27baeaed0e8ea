"""VisualDL 2 log files read many records at once: the batch framing yields exactly the
records and corruptions of the one-by-one scan, and the batch decoder reads exactly what
the one-by-one decoder reads, whatever the bytes."""

from __future__ import annotations

import random
import struct
from typing import Any

import numpy as np
import pytest
from test_tfevents_batch import _damaged as _tfevents_damaged
from test_tfevents_batch import _expanded

from visualdl._formats import framebatch as _framebatch
from visualdl._formats import framing as _framing
from visualdl._formats.vdl2 import decode as _vdl2
from visualdl._formats.vdl2 import scalars as _vdl2scalars
from visualdl._kinds.table import AudioEvent, HistogramEvent, ImageEvent, ScalarBlock, TextEvent
from visualdl.proto import vdl2

STEPS = [0, 1, 127, 128, 16383, 16384, 2**21, 2**28, 2**35, 2**42, 2**49, 2**56, 2**62, -1, -(2**63), 2**63 - 1]
STAMPS = [0, 1, 1_600_000_000, 1_700_000_000_123, 10**11, 10**11 + 1, -5, 2**63 - 1]
VALUES = [0.0, -0.0, 1.5, float("nan"), float("inf"), float("-inf"), 3.4e38, 1e-45, -7.25]
# Tags that put a false record start inside a payload: a length with a zero high half, then 0x0a.
TRAPS = ["\x05\x00\x00\x00\x00\x00\x00\x00\n\x03abc", "\x00" * 8 + "\n\n\n\n", "x" * 3 + "\x00" * 4 + "\n\x7f"]
# A PNG of 1 x 1 pixel, grey.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010800000000"
    "3a7e9b550000000a49444154789c63600000000200015d2e5dc80000000049454e44ae426082"
)


def _frame(payload: bytes) -> bytes:
    return struct.pack("<Q", len(payload)) + payload


def _tag(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.04:
        return rng.choice(TRAPS)
    if r < 0.1:
        return rng.choice(["", "ü/λ", "🙂", "a" * rng.choice([7, 8, 9, 16, 17, 100, 127, 128, 300])])
    return f"loss/{rng.randrange(30)}"


def _scalar(rng: random.Random, tag: str | None = None, step: int | None = None) -> vdl2.Record.Value:
    value = vdl2.Record.Value(
        id=rng.choice([*STEPS, rng.randrange(100_000)]) if step is None else step,
        tag=_tag(rng) if tag is None else tag,
        timestamp=rng.choice([*STAMPS, 1_700_000_000_000 + rng.randrange(10**9)]),
    )
    if rng.random() < 0.15:
        value.tag_value.tag = rng.choice(["", "a", "b", "ü", "c" * 130])
        value.tag_value.value = rng.choice(VALUES)
    else:
        value.value = rng.choice(VALUES)
    return value


def _other(rng: random.Random) -> vdl2.Record.Value:
    value = vdl2.Record.Value(id=rng.randrange(1000), tag=_tag(rng), timestamp=1_700_000_000_000)
    which = rng.randrange(7)
    if which == 0:
        value.meta_data.display_name = rng.choice(["", "run", "名前"])
    elif which == 1:
        value.image.encoded_image_string = PNG
    elif which == 2:
        value.text.encoded_text_string = "t" * rng.choice([1, 200])
    elif which == 3:
        value.histogram.hist.extend([1.0, 2.0])
        value.histogram.bin_edges.extend([0.0, 0.5, 1.0])
    elif which == 4:
        value.audio.sample_rate = 8000
        value.audio.encoded_audio_string = b"x" * 10
    elif which == 5:
        value.image.encoded_image_string = b"not a png"
    # 6: no value at all (an unknown kind)
    return value


def _payload(rng: random.Random, other: float) -> bytes:
    if rng.random() < other:
        r = rng.random()
        if r < 0.1:  # two values in one record
            return vdl2.Record(values=[_scalar(rng), _scalar(rng)]).SerializeToString()
        if r < 0.15:  # bytes that are no Record, framed as one value
            junk = b"\x0a\x08" + rng.randbytes(8)
            return junk
        return vdl2.Record(values=[_other(rng)]).SerializeToString()
    return vdl2.Record(values=[_scalar(rng)]).SerializeToString()


def _log(rng: random.Random, n: int, other: float = 0.05) -> bytes:
    return b"".join(_frame(_payload(rng, other)) for _ in range(n))


def _damaged(rng: random.Random, buf: bytes) -> bytes:
    # A false record start: a small length, its zero high bytes, then a values key.
    return _tfevents_damaged(rng, buf, bytes([rng.randrange(2, 40)]) + bytes(7) + b"\n")


def _same_scan(buf: bytes, file_end: int | None = None, stopped: bool = False) -> list[object]:
    want = list(_vdl2.FRAMING.scan(buf, file_end=file_end, stopped=stopped))
    got: list[object] = list(_vdl2.BATCHED.scan(buf, file_end=file_end, stopped=stopped))
    assert _expanded(got) == want
    return got


# -- framing -----------------------------------------------------------------------


def test_batched_scan_yields_what_the_scan_yields_on_intact_logs():
    rng = random.Random(1)
    buf = _log(rng, 5000, other=0.0)
    got = _same_scan(buf)
    assert any(isinstance(item, _framebatch.Batch) and len(item) > 1000 for item in got)
    assert sum(len(item) for item in got if isinstance(item, _framebatch.Batch)) > 4900
    # Records of other kinds, one value each, are in batches too; records of two values end them.
    _same_scan(_log(rng, 5000, other=0.05))


def test_walk_in_steps_yields_what_one_walk_yields():
    rng = random.Random(11)
    buf = _damaged(rng, _log(rng, 3000, other=0.3))
    scan = _vdl2.scan(buf)
    frames = [(item.offset, item.payload) for item in _vdl2.FRAMING.scan(buf) if isinstance(item, _framing.Frame)]
    assert frames == scan.frames


@pytest.mark.parametrize("seed", range(3))
def test_batched_scan_yields_what_the_scan_yields_at_every_cut(seed: int):
    rng = random.Random(100 + seed)
    buf = _log(rng, 40, other=[0.0, 0.1, 0.3][seed])
    for cut in range(len(buf) + 1):
        for stopped in (False, True):
            _same_scan(buf[:cut], stopped=stopped)
        _same_scan(buf[:cut], file_end=cut + 10, stopped=True)


@pytest.mark.parametrize("seed", range(60))
def test_batched_scan_yields_what_the_scan_yields_on_damaged_logs(seed: int):
    rng = random.Random(seed)
    buf = _damaged(rng, _log(rng, rng.choice([50, 400, 3000]), other=rng.choice([0.0, 0.05, 0.5])))
    cut = rng.choice([len(buf), rng.randrange(len(buf))])
    for stopped in (False, True):
        for file_end in (None, cut + 100):
            _same_scan(buf[:cut], file_end=file_end, stopped=stopped)


@pytest.mark.parametrize("seed", range(20))
def test_batched_scan_yields_what_the_scan_yields_on_garbage(seed: int):
    rng = random.Random(1000 + seed)
    # Garbage made of pieces of records, zeros, false starts and random bytes.
    pieces = []
    for _ in range(rng.randrange(50, 400)):
        r = rng.random()
        if r < 0.5:
            pieces.append(_frame(_payload(rng, 0.1)))
        elif r < 0.6:
            pieces.append(bytes(rng.randrange(1, 30)))
        elif r < 0.8:
            pieces.append(bytes([rng.randrange(256)]) + bytes(7) + b"\n" + rng.randbytes(rng.randrange(0, 5)))
        else:
            pieces.append(rng.randbytes(rng.randrange(1, 30)))
    buf = b"".join(pieces)
    for stopped in (False, True):
        _same_scan(buf, stopped=stopped)


def test_batched_scan_with_false_starts_in_every_payload():
    rng = random.Random(8)
    values = [_scalar(rng, tag=TRAPS[i % len(TRAPS)]) for i in range(3000)]
    buf = b"".join(_frame(vdl2.Record(values=[v]).SerializeToString()) for v in values)
    _same_scan(buf)


def test_find_stops_at_a_record_of_another_shape():
    rng = random.Random(2)
    payloads = [vdl2.Record(values=[_scalar(rng, tag="t")]).SerializeToString() for _ in range(300)]
    payloads[120] = vdl2.Record(values=[_scalar(rng, tag="t"), _scalar(rng, tag="u")]).SerializeToString()
    buf = b"".join(_frame(p) for p in payloads)
    batch = _framebatch.find(buf, 0, 0x0A, layout=_vdl2.LAYOUT)
    assert batch is not None and len(batch) == 120
    assert [batch.payload(i) for i in range(120)] == payloads[:120]
    assert batch.end == sum(len(p) + 8 for p in payloads[:120])
    assert batch.head(7).end == sum(len(p) + 8 for p in payloads[:7])


# -- decoding ----------------------------------------------------------------------


def _canon(decoded: _vdl2.Decoded) -> list[Any]:
    """Everything decoded, values bit for bit."""
    out: list[Any] = []
    for kind, tag, event in decoded.events:
        if isinstance(event, ScalarBlock):
            out.append(
                (
                    kind,
                    tag,
                    event.tags,
                    event.counts.tolist(),
                    event.steps.tolist(),
                    event.values.view(np.int64).tolist(),
                    event.wall_times.view(np.int64).tolist(),
                )
            )
        elif isinstance(event, HistogramEvent):
            out.append((kind, tag, event.step, event.wall_time, event.edges.tolist(), event.counts.tolist()))
        else:
            assert isinstance(event, (ImageEvent, TextEvent, AudioEvent))
            out.append((kind, tag, event))
    return [out, decoded.meta, decoded.counted, decoded.problems]


def _batched_items(buf: bytes) -> list[tuple[int, Any]]:
    """What a reader takes from ``buf``: ``(offset, payload or Batch)``."""
    items: list[tuple[int, Any]] = []
    for item in _vdl2.BATCHED.scan(buf):
        if isinstance(item, _framebatch.Batch):
            items.append((item.offset, item))
        elif isinstance(item, _framing.Frame):
            items.append((item.offset, item.payload))
    return items


def _same_decode(buf: bytes) -> _vdl2.Decoded:
    want = _vdl2.decode("f", _vdl2.scan(buf).frames)
    items = _batched_items(buf)
    got = _vdl2.decode("f", items)
    assert _canon(got) == _canon(want)
    return got


@pytest.mark.parametrize("seed", range(12))
def test_batch_decode_reads_what_the_decoder_reads(seed: int):
    rng = random.Random(seed)
    buf = _log(rng, rng.choice([300, 3000]), other=rng.choice([0.0, 0.02, 0.2]))
    if seed % 3 == 2:
        buf = _damaged(rng, buf)
    decoded = _same_decode(buf)
    assert decoded.events


def test_batch_decode_reads_every_step_and_value_from_the_bytes():
    rng = random.Random(5)
    values = []
    for i in range(4000):
        value = vdl2.Record.Value(
            id=STEPS[i % len(STEPS)] if i % 2 else rng.randrange(-(2**63), 2**63),
            tag=["a", "b", "ü/λ", "c" * 200, ""][i % 5],
            timestamp=STAMPS[i % len(STAMPS)],
        )
        # Float32 bit patterns of every kind, NaN payloads too.
        bits = rng.choice([rng.getrandbits(32), 0x7FC00001, 0xFF800000, 0x7F800001, 0x80000000, 1])
        value.value = struct.unpack("<f", struct.pack("<I", bits))[0]
        if i % 7 == 0:
            value.ClearField("value")
            value.tag_value.tag = ["x", "", "y" * 150][i % 3]
            if i % 2:
                value.tag_value.value = struct.unpack("<f", struct.pack("<I", bits))[0]
        values.append(value)
    payloads = [vdl2.Record(values=[v]).SerializeToString() for v in values]
    buf = b"".join(_frame(p) for p in payloads)
    batch = _framebatch.find(buf, 0, 0x0A, layout=_vdl2.LAYOUT)
    assert batch is not None and len(batch) == len(payloads)
    found = _vdl2scalars.read(buf, batch.starts, batch.lengths)
    assert found.common.all()
    _same_decode(buf)
    # Points bit for bit against protobuf, one by one.
    got_values = found.values.view(np.int64).tolist()
    for j, value in enumerate(values):
        which = value.WhichOneof("one_value")
        tag = value.tag if which == "value" else f"{value.tag}/{value.tag_value.tag}"
        number = value.value if which == "value" else value.tag_value.value
        assert found.tags[found.tag_ids[j]] == tag
        assert int(found.steps[j]) == value.id and int(found.stamps[j]) == value.timestamp
        assert got_values[j] == struct.unpack("<q", struct.pack("<d", number))[0]


def test_batch_decode_leaves_what_is_not_the_common_shape_to_the_parser():
    rng = random.Random(6)
    common = vdl2.Record(values=[vdl2.Record.Value(id=3, tag="t", timestamp=5, value=1.0)]).SerializeToString()
    odd = [
        b"\x0a\x09\x12\x01t\x08\x03\x25\x00\x00\x80\x3f",  # tag before id
        b"\x0a\x0e\x08\x03\x08\x04\x12\x01t\x18\x05\x25\x00\x00\x80\x3f",  # id twice: the last counts
        b"\x0a\x07\x12\x01\xff\x25\x00\x00\x80\x3f",  # a tag that is not UTF-8
        b"\x0a\x0b\x08\x03\x12\x01t\x25\x00\x00\x80\x3f\x28\x01",  # an unknown field after the value
        b"\x0a\x04\x12\x01t\x25",  # a value cut short
        b"\x0a\x14\x08" + b"\xff" * 9 + b"\x03" + b"\x12\x01t\x25\x00\x00\x80\x3f",  # a tenth step byte of 3
        b"\x0a\x03\x12\x01t",  # no value at all
        b"\x0a\x09\x72\x07\x15\x00\x00\x80\x3f\x0a\x00",  # a TagValue's fields swapped
    ]
    payloads = []
    for i in range(2000):
        payloads.append(odd[i % len(odd)] if rng.random() < 0.2 else common)
    buf = b"".join(_frame(p) for p in payloads)
    decoded = _same_decode(buf)
    assert decoded.problems


def test_reader_reads_vdl2_logs_the_same_in_batches(tmp_path, monkeypatch):
    from visualdl import LogReader

    rng = random.Random(7)
    run = tmp_path / "run"
    run.mkdir()
    meta = vdl2.Record.Value(timestamp=1_700_000_000_000)
    meta.meta_data.display_name = "shown"
    payloads = [vdl2.Record(values=[meta]).SerializeToString()]
    for step in range(20_000):
        value = _scalar(rng, tag=f"loss/{step % 7}", step=step) if rng.random() < 0.97 else _other(rng)
        payloads.append(vdl2.Record(values=[value]).SerializeToString())
    (run / "vdlrecords.1700000000.log").write_bytes(b"".join(_frame(p) for p in payloads))

    def everything() -> dict[Any, object]:
        reader = LogReader(str(tmp_path))
        out: dict[Any, object] = {}
        for tag in reader.tags("run")["scalars"]:
            s = reader.scalars("run", tag)
            out[("s", tag)] = (s.steps.tolist(), s.values.tobytes(), s.wall_times.tolist())
        for tag in reader.tags("run")["histograms"]:
            out[("h", tag)] = [(h.step, h.counts.tolist()) for h in reader.histograms("run", tag)]
        for tag in reader.tags("run")["text"]:
            out[("t", tag)] = [(t.step, t.text) for t in reader.texts("run", tag)]
        out["problems"] = [(p.offset, p.message) for p in reader.problems]
        return out

    batched = everything()
    monkeypatch.setattr(_vdl2, "BATCHED", _vdl2.FRAMING)
    assert everything() == batched
    assert len(batched[("s", "loss/3")][0]) > 2000  # type: ignore[index]
