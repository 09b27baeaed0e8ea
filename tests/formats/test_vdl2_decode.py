"""visualdl._formats.vdl2.decode on the files VisualDL 2.5.3 wrote (tests/data/vdl2), compared exactly with
the values passed to its writer (expected.json), and on damaged copies of them."""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import random
import struct
import time
from typing import Any

import numpy as np
import pytest
from kit.paths import DATA
from PIL import Image

from visualdl._formats.vdl2 import decode as _vdl2
from visualdl._kinds.table import HistogramEvent, ImageEvent, ScalarBlock, TextEvent
from visualdl.errors import LogFormatError
from visualdl.proto import vdl2

DATA = os.path.join(DATA, "vdl2")
with open(os.path.join(DATA, "expected.json"), encoding="utf-8") as _file:
    EXPECTED: dict[str, Any] = json.load(_file)
FILES = [(run, name) for run, r in EXPECTED["runs"].items() for name in r["files"]]
TORN = {name for run, name in FILES if "record_ends" in EXPECTED["runs"][run]["files"][name]}


def _read(run: str, name: str) -> bytes:
    with open(os.path.join(DATA, "logdir", run, name), "rb") as f:
        return f.read()


def _f(x: Any) -> float:
    return float(x)  # "nan", "inf", "-inf" or a number


def _bits(values: Any) -> list[int]:
    return np.asarray(values, np.float64).view(np.int64).tolist()


def _frame(value: vdl2.Record.Value, *more: vdl2.Record.Value) -> bytes:
    payload = vdl2.Record(values=[value, *more]).SerializeToString()
    return struct.pack("<Q", len(payload)) + payload


def _points(decoded: _vdl2.Decoded) -> list[tuple[str, int, int, float]]:
    """Scalar points as ``(tag, step, bits of the value, wall time)``, in the block's order."""
    blocks = [e for kind, _, e in decoded.events if kind == "scalars"]
    out = []
    for block in blocks:
        assert isinstance(block, ScalarBlock)
        tags = np.repeat(np.array(block.tags, object), block.counts)
        out += list(
            zip(tags.tolist(), block.steps.tolist(), _bits(block.values), block.wall_times.tolist(), strict=True)
        )
    return out


# -- every fixture, exactly --------------------------------------------------------


@pytest.mark.parametrize(("run", "name"), FILES)
def test_vdl2_decode_matches_what_the_writer_was_given(run, name):
    spec = EXPECTED["runs"][run]["files"][name]
    data = _read(run, name)
    assert len(data) == spec["size"]
    found = _vdl2.scan(data)
    decoded = _vdl2.decode(name, found.frames)
    assert decoded.problems == []
    records = spec["records"]
    assert len(found.frames) == len(records)
    ends = [offset + 8 + len(payload) for offset, payload in found.frames]
    assert ends == spec.get("record_ends", ends)[: len(records)]

    # Scalars: tag after tag, each tag's points in file order, values bit for bit.
    want: dict[str, list[tuple[int, float, float]]] = {}
    for r in records:
        if r["kind"] in ("value", "tag_value"):
            tag = r["tag"] if r["kind"] == "value" else f"{r['tag']}/{r['sub_tag']}"
            want.setdefault(tag, []).append((r["step"], _f(r["value"]), r["walltime_ms"] / 1000))
    points = _points(decoded)
    assert points == [(t, s, _bits([v])[0], w) for t, rows in want.items() for s, v, w in rows]
    if want:
        (block,) = [e for kind, tag, e in decoded.events if kind == "scalars" and tag == ""]
        assert isinstance(block, ScalarBlock)
        assert block.tags == list(want) and block.counts.tolist() == [len(r) for r in want.values()]
        assert block.steps.dtype == np.int64 and block.values.dtype == np.float64

    # Meta data: the display names, the constructor's at a time between the bounds.
    metas = [r for r in records if r["kind"] == "meta_data"]
    assert [m.display_name for m in decoded.meta] == [r["display_name"] for r in metas]
    for m, r in zip(decoded.meta, metas, strict=True):
        if "walltime_ms" in r:
            assert m.wall_time == r["walltime_ms"] / 1000
        else:
            assert r["walltime_ms_min"] / 1000 <= m.wall_time <= r["walltime_ms_max"] / 1000

    # Images, histograms, text: in file order, one event per record.
    by_kind = {"image": "images", "histogram": "histograms", "text": "text"}
    events = [(kind, tag, e) for kind, tag, e in decoded.events if kind in by_kind.values()]
    # The other kinds, one event each (their values: tests/formats/test_vdl2_kinds.py).
    newer = {"pr_curve": "pr_curves", "roc_curve": "roc_curves", "audio": "audio", "embeddings": "embeddings",
             "hparam": "hparams"}  # fmt: skip
    others = [kind for kind, _, _ in decoded.events if kind not in by_kind.values() and kind != "scalars"]
    assert others == [newer[r["kind"]] for r in records if r["kind"] in newer]
    wanted = [r for r in records if r["kind"] in by_kind]
    assert [(kind, tag) for kind, tag, _ in events] == [(by_kind[r["kind"]], r["tag"]) for r in wanted]
    payloads = dict(found.frames)
    for (_, _, event), r in zip(events, wanted, strict=True):
        assert isinstance(event, ImageEvent | HistogramEvent | TextEvent)
        assert (event.step, event.wall_time) == (r["step"], r["walltime_ms"] / 1000)
        if r["kind"] == "image":
            assert isinstance(event, ImageEvent)
            assert (event.height, event.width, event.channels) == tuple(r["png_shape"])
            assert isinstance(event.ref, _vdl2.ValueRef)
            png = _vdl2.png_of(payloads[event.ref.offset], event.ref.value)
            with Image.open(io.BytesIO(png)) as img:
                assert img.mode == r["png_mode"]
                pixels = np.asarray(img)
            assert hashlib.sha256(pixels.tobytes()).hexdigest() == r["sha256_png_pixels"]
            assert pixels.tolist() == r["pixels_hwc"]
        elif r["kind"] == "histogram":
            assert isinstance(event, HistogramEvent)
            assert event.counts.tolist() == r["hist"] and event.edges.tolist() == r["bin_edges"]
            assert (event.min, event.max) == (r["bin_edges"][0], r["bin_edges"][-1])
            assert event.count == len(r["values_passed"]) == sum(r["hist"])
            assert (event.nan_count, event.pos_inf_count, event.neg_inf_count) == (0, 0, 0)
            passed = r["values_passed"]
            if min(passed) < max(passed):  # numpy's range is the values' own
                assert (event.min, event.max) == (min(passed), max(passed))
            else:  # constant values v: numpy's range is v - 0.5 .. v + 0.5
                assert (event.min, event.max) == (passed[0] - 0.5, passed[0] + 0.5)
            centres = [(a + b) / 2 for a, b in zip(r["bin_edges"][:-1], r["bin_edges"][1:], strict=True)]
            assert event.sum == pytest.approx(sum(c * n for c, n in zip(centres, r["hist"], strict=True)))
        else:
            assert isinstance(event, TextEvent)
            assert event.text == r["text"]

    # The kinds without a view: counted per tag and kind, none dropped.
    counted: dict[tuple[str, str], int] = {}
    for r in records:
        if r["kind"] in _vdl2.COUNTED_KINDS:
            counted[(r["tag"], r["kind"])] = counted.get((r["tag"], r["kind"]), 0) + 1
    assert decoded.counted == counted
    shown = len(points) + len(events) + len(others) + len(decoded.meta) + sum(counted.values())
    assert shown == len(records) == sum(spec["counts"].values())


def test_vdl2_decode_keeps_steps_and_special_values():
    """The cases the scalars file was made for, named: what a reader must not round or reorder."""
    decoded = _vdl2.decode("f", _vdl2.scan(_read("scalars", "vdlrecords.1700000000.log")).frames)
    series: dict[str, list[tuple[int, float]]] = {}
    for tag, step, bits, _ in _points(decoded):
        series.setdefault(tag, []).append((step, np.int64(bits).view(np.float64).item()))
    loss_steps = [s for s, _ in series["train/loss"]]
    assert loss_steps[-4:] == [10, 100, 1000, 1 << 40]
    special = [v for _, v in series["eval/special values"]]
    assert math.isnan(special[0]) and special[1:3] == [math.inf, -math.inf]
    assert math.copysign(1, special[4]) == -1 and special[5] == 2.0**-149
    assert special[6] == float(np.finfo(np.float32).max)
    assert any(tag.count("/") == 2 and not tag.isascii() for tag in series)
    assert "losses/group/train" in series and "losses/group/val" in series and "single/only" in series
    assert all("%" not in tag for tag in series)


# -- framing: torn tails and garbage --------------------------------------------------


@pytest.mark.parametrize("name", ["vdlrecords.1700000401.log", "vdlrecords.1700000402.log"])
def test_vdl2_scan_stops_before_a_torn_tail_and_resumes_there(name):
    spec = EXPECTED["runs"]["torn"]["files"][name]
    data = _read("torn", name)
    whole = _read("torn", "vdlrecords.1700000403.log")[:248]  # the file both were cut from
    assert whole.startswith(data)
    found = _vdl2.scan(data)
    assert (found.resume, found.problems) == (spec["last_complete_record_end"], [])
    assert len(found.frames) == spec["complete_records"]
    # Not re-read before the file has grown to where the record can be whole.
    assert found.wait_until == (248 if len(data) - found.resume >= 8 else found.resume + 8)
    # The writer finishes the record: the next scan, from the resume offset, reads just it.
    rest = _vdl2.scan(whole, found.resume)
    assert (len(rest.frames), rest.resume, rest.wait_until, rest.problems) == (1, 248, 0, [])
    lost = spec["lost_record"]
    assert _points(_vdl2.decode(name, rest.frames)) == [
        (lost["tag"], lost["step"], _bits([lost["value"]])[0], lost["walltime_ms"] / 1000)
    ]


def test_vdl2_scan_reports_garbage_without_dying_and_keeps_what_came_before():
    spec = EXPECTED["runs"]["torn"]["files"]["vdlrecords.1700000403.log"]
    data = _read("torn", "vdlrecords.1700000403.log")
    assert int.from_bytes(data[248:256], "little") == spec["garbage_first8_as_le_u64"]
    found = _vdl2.scan(data)
    assert len(found.frames) == spec["complete_records"] == 7
    assert (found.resume, found.wait_until) == (len(data), 0)
    ((offset, message),) = found.problems
    assert offset == 248 and str(spec["garbage_first8_as_le_u64"]) in message
    # A writer appending to the file later (VisualDL 2 never truncates): read from the resume offset.
    record = data[213:248]
    again = _vdl2.scan(data + record, found.resume)
    assert ([o for o, _ in again.frames], again.problems) == ([348], [])
    # Garbage in the middle: skipped to the next record, reported once.
    middle = _vdl2.scan(data + record + data[40:73])
    assert [o for o, _ in middle.frames][-2:] == [348, 383] and [o for o, _ in middle.problems] == [248]


def test_vdl2_scan_reports_a_stretch_of_zeros_once():
    data = _read("multi", "vdlrecords.1700000300.log")
    first = 8 + int.from_bytes(data[:8], "little")
    found = _vdl2.scan(data[:first] + bytes(4096) + data[first:])
    assert len(found.frames) == 11 and [o for o, _ in found.problems] == [first]
    assert "length of 0" in found.problems[0][1]


def test_vdl2_scan_skips_a_record_whose_length_was_damaged():
    """A length made longer, as if the record ran on into the next ones: not a torn tail
    (which would hide every later record), but garbage; the next records are read."""
    data = bytearray(_read("multi", "vdlrecords.1700000300.log"))
    offsets = [o for o, _ in _vdl2.scan(bytes(data)).frames]
    third = offsets[3]
    data[third] += 40
    found = _vdl2.scan(bytes(data))
    assert [o for o, _ in found.problems] == [third]
    assert [o for o, _ in found.frames] == offsets[:3] + offsets[4:]
    assert (found.resume, found.wait_until) == (len(data), 0)


@pytest.mark.parametrize(
    ("tail", "verdict"),
    [
        (b"\x05\x00\x00", "torn"),  # a length prefix cut short
        (b"\x05\x00\x00\x00\x00\x00\x01", "garbage"),  # its high bytes already say > 2 GiB
        (struct.pack("<Q", 30) + b"\n\x1c\x12", "torn"),  # a plausible record cut short
        (struct.pack("<Q", 30) + b"\x12\x1c", "garbage"),  # not a value
        (struct.pack("<Q", 30) + b"\n\x7f", "garbage"),  # its value is longer than the record
        (struct.pack("<Q", 1 << 40), "garbage"),
        (struct.pack("<Q", 1), "garbage"),
    ],
)
def test_vdl2_scan_tells_a_torn_tail_from_garbage(tail, verdict):
    data = _read("multi", "vdlrecords.1700000300.log")
    found = _vdl2.scan(data + tail)
    assert len(found.frames) == 11
    if verdict == "torn":
        assert (found.resume, found.problems) == (len(data), []) and found.wait_until > len(data + tail)
    else:
        assert (found.resume, [o for o, _ in found.problems]) == (len(data + tail), [len(data)])


# -- decoding what VisualDL 2.5.3 did not write, but a file may hold ------------------


def test_vdl2_decode_takes_seconds_from_files_before_2_0_3():
    V = vdl2.Record.Value
    data = _frame(V(id=1, tag="old", timestamp=1_590_000_000, value=0.5)) + _frame(
        V(id=2, tag="new", timestamp=1_700_000_000_123, value=0.5)
    )
    data += _frame(V(id=3, tag="note", timestamp=1_590_000_001, text=vdl2.Record.Text(encoded_text_string="x")))
    decoded = _vdl2.decode("f", _vdl2.scan(data).frames)
    assert [(t, w) for t, _, _, w in _points(decoded)] == [("old", 1_590_000_000.0), ("new", 1_700_000_000.123)]
    assert decoded.events[0][2] == TextEvent(3, 1_590_000_001.0, "x")


def test_vdl2_decode_reads_every_value_of_a_record_and_counts_unknown_kinds():
    V = vdl2.Record.Value
    two = _frame(V(id=1, tag="a", value=1.0), V(id=2, tag="b", value=2.0))
    none = _frame(V(id=3, tag="future"))  # a kind this schema does not know, or none
    decoded = _vdl2.decode("f", _vdl2.scan(two + none + two).frames)
    assert [(t, s) for t, s, _, _ in _points(decoded)] == [("a", 1), ("a", 1), ("b", 2), ("b", 2)]
    assert decoded.counted == {("future", "unknown"): 1}


def test_vdl2_decode_never_reads_a_value_across_two_records():
    """Records are parsed together only when each is exactly one value: a value cut short
    at the end of one payload must not be completed by the next payload's bytes."""
    short = b"\n\x04\x08\x01"  # a value of 4 bytes, 2 of them here
    # An empty value, then one point: two values, as many as the two records.
    rest = b"\n\x00" + vdl2.Record(values=[vdl2.Record.Value(id=5, tag="t", value=1.0)]).SerializeToString()
    assert len(vdl2.Record.FromString(short + rest).values) == 2  # what parsing them together gives
    decoded = _vdl2.decode("f", [(0, short), (100, rest)])
    assert [o for o, _ in decoded.problems] == [0]
    assert [(t, s) for t, s, _, _ in _points(decoded)] == [("t", 5)] and decoded.counted == {("", "unknown"): 1}


def test_vdl2_decode_reports_values_it_cannot_read():
    V, R = vdl2.Record.Value, vdl2.Record
    frames = [
        struct.pack("<Q", 5) + b"\n\x03\xff\xff\xff",  # framed as a value, but not a Value
        _frame(V(tag="img", image=R.Image(encoded_image_string=b"GIF89a not a png"))),
        _frame(V(tag="h", histogram=R.Histogram(hist=[1, 2], bin_edges=[0, 1]))),
        _frame(V(tag="h", histogram=R.Histogram(hist=[1, -2], bin_edges=[0, 1, 2]))),
        _frame(V(tag="h", histogram=R.Histogram(hist=[1, 2], bin_edges=[0, 1e308, -1e308]))),
        _frame(V(tag="ok", value=1.0)),
    ]
    found = _vdl2.scan(b"".join(frames))
    assert (len(found.frames), found.problems) == (6, [])
    decoded = _vdl2.decode("f", found.frames)
    assert [o for o, _ in decoded.problems] == [0, *np.cumsum([len(f) for f in frames[:4]]).tolist()]
    assert "undecodable" in decoded.problems[0][1] and "not a PNG" in decoded.problems[1][1]
    assert [t for t, _, _, _ in _points(decoded)] == ["ok"] and decoded.events[:-1] == []
    with pytest.raises(LogFormatError):
        _vdl2.png_of(frames[5][8:])


# -- damaged copies: no exception, nothing invented -----------------------------------


def _canon(decoded: _vdl2.Decoded) -> list[Any]:
    """Everything a decode produced, comparable and order-free."""
    out: list[Any] = [("point", *p) for p in _points(decoded)]
    for kind, tag, e in decoded.events:
        if isinstance(e, ImageEvent):
            out.append((kind, tag, e.step, e.wall_time, e.height, e.width, e.channels, e.ref.offset))
        elif isinstance(e, HistogramEvent):
            out.append((kind, tag, e.step, e.wall_time, tuple(e.edges.tolist()), tuple(e.counts.tolist())))
        elif isinstance(e, TextEvent):
            out.append((kind, tag, e.step, e.wall_time, e.text))
    out += [("meta", m.offset, m.wall_time, m.display_name) for m in decoded.meta]
    out += [("counted", *key) for key, n in decoded.counted.items() for _ in range(n)]
    return sorted(out, key=repr)


@pytest.mark.e2e  # 3,000 cut and damaged copies of the files decoded: seconds
def test_vdl2_damaged_files_raise_nothing_and_invent_nothing():
    rng = random.Random(20261123)
    sources = [_read(run, name) for run, name in FILES if name not in TORN]
    sources.append(_read("torn", "vdlrecords.1700000403.log")[:248])
    deadline = time.thread_time() + 15.0  # a guard: the work is a fixed number of cases (CPU s: load aside)
    for data in sources:
        frames = _vdl2.scan(data).frames
        original = {offset: (payload, _canon(_vdl2.decode("f", [(offset, payload)]))) for offset, payload in frames}
        ends = [offset + 8 + len(payload) for offset, payload in frames]
        for _ in range(250):
            # A cut anywhere: the records before it, a torn tail, no problem.
            cut = rng.randrange(len(data) + 1)
            found = _vdl2.scan(data[:cut])
            whole = [(o, p) for (o, p), end in zip(frames, ends, strict=True) if end <= cut]
            assert found.frames == whole and found.problems == []
            assert found.resume == (ends[len(whole) - 1] if whole else 0)
            assert (found.wait_until == 0) == (found.resume == cut)

            # A few bytes changed: records untouched by the change decode as before.
            damaged = bytearray(data)
            hit = sorted(rng.sample(range(len(data)), rng.randint(1, 4)))
            for pos in hit:
                damaged[pos] = (damaged[pos] + rng.randrange(1, 256)) % 256
            found = _vdl2.scan(bytes(damaged))
            assert found.resume <= len(data) and all(0 <= o < len(data) for o, _ in found.problems)
            together = _vdl2.decode("f", found.frames)
            alone = [_vdl2.decode("f", [frame]) for frame in found.frames]
            assert _canon(together) == sorted((c for d in alone for c in _canon(d)), key=repr)
            assert [p for d in alone for p in d.problems] == together.problems
            for (offset, payload), decoded in zip(found.frames, alone, strict=True):
                untouched = not any(offset <= pos < offset + 8 + len(payload) for pos in hit)
                if untouched and offset in original and original[offset][0] == payload:
                    assert _canon(decoded) == original[offset][1]
            before = {o for o, end in zip(original, ends, strict=True) if end <= hit[0]}
            assert before <= {o for o, _ in found.frames}
        assert time.thread_time() < deadline, "the damaged-file test is over its time budget"
