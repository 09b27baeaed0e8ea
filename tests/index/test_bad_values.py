"""A value a decoder cannot convert costs that value, never the records read with it.

Each file holds 1,999 good scalar points and, among them, one audio value whose sample
rate is infinite (no writer makes one; a bit flip or a crafted file does). Every point must
be read, and the bad value reported as a problem naming the file, the offset of its record
and the value, where the reader's problems surface (``LogReader.problems``, ``/api/health``,
``visualdl --inspect``).
"""

from __future__ import annotations

import math
import os
import struct

import pytest
from kit.foreign import scalar_event, scalar_value, tfevents_bytes, vdl2_bytes, write_tfevents, write_vdl2

from visualdl import LogReader
from visualdl._cli import summarise
from visualdl._formats.tfevents import values as tfvalues
from visualdl._formats.vdl2 import values as vdl2values
from visualdl.proto import tb, vdl2

GOOD = 1999
BAD_AT = 1000  # the bad value comes after this many points


def _offsets(data: bytes, head: int) -> list[int]:
    """Where each record of ``data`` starts (``head``: the bytes of a frame besides its payload)."""
    out, offset = [], 0
    while offset < len(data):
        out.append(offset)
        offset += head + struct.unpack_from("<Q", data, offset)[0]
    return out


def _tfevents(directory: str, rate: float, at: tuple[int, ...] = (BAD_AT,)) -> tuple[str, list[int]]:
    """The file, and the offsets of the bad values' records (inserted after ``at`` points)."""
    audio = tb.Summary.Audio(sample_rate=rate, num_channels=1, length_frames=1, encoded_audio_string=b"RIFF")
    value = tb.Summary.Value(tag="clip", audio=audio)
    events = [scalar_event("loss", i, float(i)) for i in range(GOOD)]
    for n, i in enumerate(at):
        events.insert(i + n, tb.Event(wall_time=1.0, step=i, summary=tb.Summary(value=[value])))
    path = write_tfevents(directory, events)
    with open(path, "rb") as f:
        offsets = _offsets(f.read(), 16)
    return path, [offsets[1 + i + n] for n, i in enumerate(at)]  # after the file_version event


def _vdl2(directory: str, rate: float, at: tuple[int, ...] = (BAD_AT,)) -> tuple[str, list[int]]:
    audio = vdl2.Record.Audio(sample_rate=rate, num_channels=1, length_frames=1, encoded_audio_string=b"RIFF")
    values = [scalar_value("loss", i, float(i)) for i in range(GOOD)]
    for n, i in enumerate(at):
        values.insert(i + n, vdl2.Record.Value(id=i, tag="clip", timestamp=1, audio=audio))
    path = write_vdl2(directory, values)
    with open(path, "rb") as f:
        offsets = _offsets(f.read(), 8)
    return path, [offsets[i + n] for n, i in enumerate(at)]


FILES = {"tfevents": _tfevents, "vdl2": _vdl2}


def _more(fmt: str, steps: range) -> bytes:
    """Good points appended to a file of ``fmt`` (without the event file's first event)."""
    if fmt == "tfevents":
        return tfevents_bytes(scalar_event("loss", i, float(i)) for i in steps)[_FIRST_EVENT:]
    return vdl2_bytes(scalar_value("loss", i, float(i)) for i in steps)


_FIRST_EVENT = len(tfevents_bytes([]))


def _assert_every_point(reader: LogReader, n: int = GOOD) -> None:
    series = reader.scalars(".", "loss")
    assert series.steps.tolist() == list(range(n))
    assert series.values.tolist() == [float(i) for i in range(n)]


#: 44100.0 as a float32 (0x472c4400) with bit 29 flipped: about 8e23, an integer past 64 bits.
FLIPPED = struct.unpack("<f", struct.pack("<I", 0x472C4400 ^ (1 << 29)))[0]


@pytest.mark.parametrize("rate", [math.inf, -math.inf, math.nan, 3e38, 1e30, FLIPPED, 44100.5, 0.0])
@pytest.mark.parametrize("fmt", sorted(FILES))
def test_bad_value_costs_only_itself(logdir, fmt, rate):
    path, (offset,) = FILES[fmt](logdir, rate)
    reader = LogReader(logdir)
    _assert_every_point(reader)
    assert reader.tags(".")["audio"] == []
    (problem,) = reader.problems
    assert (problem.path, problem.offset) == (path, offset)
    stored = struct.unpack("<f", struct.pack("<f", rate))[0]  # what the file holds: a float32
    assert "'clip'" in problem.message and f"sample rate of {stored}" in problem.message, problem.message
    assert "reading failed" not in problem.message
    shown = summarise(logdir)  # what --inspect prints
    assert f"{path} at byte {offset}: " in shown and "sample rate" in shown


@pytest.mark.parametrize("fmt", sorted(FILES))
def test_bad_value_shown_in_health(logdir, make_app, fmt):
    path, (offset,) = FILES[fmt](logdir, math.inf)
    health = make_app(logdir).test_client().get("/api/health").get_json()
    (problem,) = health["problems"]
    assert (problem["file"], problem["offset"]) == (os.path.relpath(path, logdir), offset)
    assert "sample rate of inf" in problem["message"]


class _Boom(RuntimeError):
    pass


def _explode(*args: object) -> object:
    raise _Boom("a decoder bug")


@pytest.mark.parametrize("at", [(BAD_AT,), (0, 1, 999, 1998, GOOD)])
@pytest.mark.parametrize("fmt", sorted(FILES))
def test_decoder_that_raises_costs_only_its_record(logdir, monkeypatch, fmt, at):
    """The second depth: whatever a decoder raises, the records read with the one that
    raised are delivered, and the offset never passes records not delivered."""
    if fmt == "tfevents":
        kind, _ = tfvalues.READERS[("audio", "")]
        monkeypatch.setitem(tfvalues.READERS, ("audio", ""), (kind, _explode))
    else:
        kind, _ = vdl2values.READERS["audio"]
        monkeypatch.setitem(vdl2values.READERS, "audio", (kind, _explode))
    path, offsets = FILES[fmt](logdir, 16000.0, at)
    reader = LogReader(logdir)
    _assert_every_point(reader)
    assert [(p.path, p.offset) for p in reader.problems] == [(path, offset) for offset in offsets]
    assert all("a decoder bug" in p.message and "skipped" in p.message for p in reader.problems)
    with open(path, "ab") as f:  # the file goes on: the next read starts after what was read
        f.write(_more(fmt, range(GOOD, GOOD + 10)))
    reader.poll()
    _assert_every_point(reader, GOOD + 10)
    assert len(reader.problems) == len(at)


@pytest.mark.parametrize("num", [1e300, -5.0, math.nan, 2.0**64])
def test_bad_value_a_histograms_count_that_is_no_count_is_a_problem_not_zero(logdir, num):
    histogram = tb.HistogramProto(min=0.0, max=1.0, num=num, sum=1.0, bucket_limit=[0.5, 1.0], bucket=[1.0, 2.0])
    events = [scalar_event("loss", i, float(i)) for i in range(GOOD)]
    events.insert(
        BAD_AT, tb.Event(wall_time=1.0, step=5, summary=tb.Summary(value=[tb.Summary.Value(tag="w", histo=histogram)]))
    )
    path = write_tfevents(logdir, events)
    reader = LogReader(logdir)
    _assert_every_point(reader)
    assert reader.tags(".")["histograms"] == []
    (problem,) = reader.problems
    assert problem.path == path and "'w'" in problem.message and "number of values" in problem.message
