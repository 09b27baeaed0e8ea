"""The fast path of scalar events agrees with a full protobuf parse, bit for bit."""

from __future__ import annotations

import random
import struct

from kit.requirements import require

from visualdl._formats.tfevents.decode import parse_event, simple_scalar

try:
    from tensorboard.compat.proto import event_pb2, summary_pb2
except ImportError:  # pragma: no cover - CI installs it
    event_pb2 = None

require(event_pb2 is not None, "tensorboard", "pip install -e '.[bench]'")

STEPS = [0, 1, 127, 128, 2**31, 2**62, -1, -(2**63), 2**63 - 1]
VALUES = [0.0, -0.0, 1.5, float("nan"), float("inf"), float("-inf"), 3.4e38, 1e-45]


def test_simple_scalar_matches_protobuf_or_declines():
    rng = random.Random(7)
    taken = 0
    for _ in range(20_000):
        tag = "".join(rng.choice("aλ/_✓x") for _ in range(rng.choice([0, 1, 5, 40, 63, 64, 127, 128, 300])))
        step = rng.choice([*STEPS, rng.randint(-(2**63), 2**63 - 1)])
        value = summary_pb2.Summary.Value(tag=tag, simple_value=rng.choice(VALUES))
        if rng.random() < 0.1:
            value.metadata.display_name = "with metadata: parsed in full"
        wall = rng.choice([0.0, 1.7e9, rng.random()])
        payload = event_pb2.Event(
            wall_time=wall, step=step, summary=summary_pb2.Summary(value=[value])
        ).SerializeToString()
        if rng.random() < 0.05:
            payload = payload[:-1]
        got = simple_scalar(payload)
        if got is None:
            continue
        taken += 1
        event = parse_event(payload)
        (parsed,) = event.summary.value
        assert parsed.WhichOneof("value") == "simple_value" and not parsed.HasField("metadata")
        assert got[:3] == (event.wall_time, event.step, parsed.tag)
        assert struct.pack("<d", got[3]) == struct.pack("<d", parsed.simple_value)
    assert taken > 5_000


def test_simple_scalar_declines_other_events():
    two = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="a", simple_value=1.0)] * 2)
    for event in (
        event_pb2.Event(wall_time=1.0, file_version="brain.Event:2"),
        event_pb2.Event(wall_time=1.0, step=3, summary=two),
        event_pb2.Event(wall_time=1.0, summary=summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="a")])),
    ):
        assert simple_scalar(event.SerializeToString()) is None
    assert simple_scalar(b"\x09" + bytes(8) + b"\x2a\x0a\x0a\x08\x0a\x01\xff\x15" + bytes(4)) is None  # bad UTF-8


def _event_bytes(step_varint: bytes, summary: bytes) -> bytes:
    step = b"\x10" + step_varint if step_varint else b""
    return b"\x09" + struct.pack("<d", 1.0) + step + summary


def test_simple_scalar_reads_an_overlong_step_as_protobuf_does():
    summary = b"\x2a\x0a\x0a\x08\x0a\x01a\x15" + struct.pack("<f", 2.5)
    varints = (b"\xff" * 9 + b"\x7f", b"\xff" * 9 + b"\x01", b"\x80" * 9 + b"\x02", b"\x81" + b"\x80" * 8 + b"\x7e")
    for varint in varints:
        payload = _event_bytes(varint, summary)
        got = simple_scalar(payload)
        want = event_pb2.Event.FromString(payload)
        assert got is not None and got[1] == want.step and -(2**63) <= got[1] < 2**63


def test_simple_scalar_declines_a_length_byte_that_starts_a_longer_varint():
    # A summary "length" of 0x82 would be the first byte of a two-byte varint.
    payload = _event_bytes(b"\x01", b"\x2a\x82\x0a\x08\x0a\x01a\x15" + struct.pack("<f", 2.5))
    assert simple_scalar(payload) is None


def test_reader_reads_events_with_overlong_steps(tmp_path):
    from visualdl import LogReader
    from visualdl._formats import framing as _framing

    good = _event_bytes(b"", b"\x2a\x0a\x0a\x08\x0a\x01a\x15" + struct.pack("<f", 1.0))
    odd = _event_bytes(b"\xff" * 9 + b"\x7f", b"\x2a\x0a\x0a\x08\x0a\x01a\x15" + struct.pack("<f", 3.0))
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "events.out.tfevents.1.host").write_bytes(
        b"".join(_framing.frame(p) for p in [good] * 30 + [odd])
    )
    reader = LogReader(str(tmp_path))
    assert not reader.problems
    series = reader.scalars("run", "a")
    assert sorted(series.steps.tolist()) == [-1] + [0] * 30
