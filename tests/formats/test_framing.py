"""TFRecord framing: golden bytes, checksums against an independent CRC-32C, scanning."""

from __future__ import annotations

import random
import struct
import threading
import time

import google_crc32c
import numpy as np
import pytest
from kit.crc import crc32c_reference, masked_reference

from visualdl._formats import framing as framing


def test_crc32c_reference_check_value():
    # The standard check value of CRC-32C.
    assert crc32c_reference(b"123456789") == 0xE3069283


def test_masked_crc_matches_reference():
    for data in (b"", b"a", b"123456789", bytes(range(256)) * 3):
        assert framing.masked_crc(data) == masked_reference(crc32c_reference(data))


def test_frame_golden_bytes():
    framed = framing.frame(b"hello")
    length = struct.pack("<Q", 5)
    expected = (
        length
        + struct.pack("<I", masked_reference(crc32c_reference(length)))
        + b"hello"
        + struct.pack("<I", masked_reference(crc32c_reference(b"hello")))
    )
    assert framed == expected
    assert framed.hex() == "0500000000000000" + framed[8:12].hex() + "68656c6c6f" + framed[-4:].hex()


def test_scan_whole_records_and_resume_offset():
    buf = framing.frame(b"a") + framing.frame(b"bc")
    items = list(framing.scan(buf))
    assert [(i.offset, i.payload) for i in items[:-1] if isinstance(i, framing.Frame)] == [(0, b"a"), (17, b"bc")]
    assert items[-1] == len(buf)


def test_scan_partial_tail_is_not_yet_written():
    whole = framing.frame(b"first")
    partial = framing.frame(b"second record")
    for cut in range(1, len(partial)):
        items = list(framing.scan(whole + partial[:cut]))
        assert [i.payload if isinstance(i, framing.Frame) else i for i in items[:-1]] == [b"first"]
        assert items[-1] == len(whole), cut


def test_scan_resyncs_after_corruption():
    a, b, c = framing.frame(b"aaaa"), framing.frame(b"bbbb"), framing.frame(b"cccc")
    damaged = bytearray(a + b + c)
    damaged[len(a) + 13] ^= 0xFF  # inside b's payload
    items = list(framing.scan(bytes(damaged)))
    frames = [i for i in items if isinstance(i, framing.Frame)]
    corruptions = [i for i in items if isinstance(i, framing.Corruption)]
    assert [f.payload for f in frames] == [b"aaaa", b"cccc"]
    assert len(corruptions) == 1 and corruptions[0].offset == len(a)
    assert corruptions[0].end == len(a) + len(b)
    assert items[-1] == len(damaged)


def test_scan_huge_length_with_valid_checksum_is_corruption():
    length = struct.pack("<Q", 2**60)
    bogus = length + struct.pack("<I", framing.masked_crc(length)) + b"xxxx"
    good = framing.frame(b"ok")
    items = list(framing.scan(bogus + good))
    assert [i.payload for i in items if isinstance(i, framing.Frame)] == [b"ok"]


# -- stretches, torn writes, files that stopped growing -------------------------------------


def _header(length: int) -> bytes:
    """A record header claiming ``length`` bytes, with a valid length checksum."""
    head = struct.pack("<Q", length)
    return head + struct.pack("<I", masked_reference(crc32c_reference(head)))


def test_scan_checksum_of_any_stretch_matches_reference():
    rng = random.Random(5)
    buf = rng.randbytes(20_000)
    prefix = framing._Prefix(buf, 3)
    for _ in range(300):
        start = rng.randrange(3, len(buf))
        stop = rng.randrange(start, len(buf) + 1)
        assert prefix.stretch(start, stop) == crc32c_reference(buf[start:stop]), (start, stop)
    crcs = np.array([rng.getrandbits(32) for _ in range(50)], np.uint32)
    lengths = np.array([rng.randrange(1 << 31) for _ in range(50)], np.int64)
    expected = [framing._shift(int(c), int(n)) for c, n in zip(crcs, lengths, strict=True)]
    assert framing._shift_many(crcs, lengths).tolist() == expected


def test_scan_record_past_the_end_followed_by_a_valid_record_is_corruption():
    good = framing.frame(b"after")
    buf = framing.frame(b"before") + _header(1000) + b"x" * 7 + good
    items = list(framing.scan(buf))
    assert [i.payload for i in items if isinstance(i, framing.Frame)] == [b"before", b"after"]
    (bad,) = [i for i in items if isinstance(i, framing.Corruption)]
    assert (bad.offset, bad.end) == (22, len(buf) - len(good))
    assert "runs past the end of the file" in bad.reason
    assert items[-1] == len(buf)


def test_scan_record_past_the_end_with_nothing_after_is_not_yet_written():
    buf = framing.frame(b"before") + _header(1000) + b"x" * 7
    assert list(framing.scan(buf))[1:] == [22]
    assert framing.claimed_end(buf, 22) == 22 + 12 + 1000 + 4


def test_scan_record_in_the_file_but_past_the_buffer_waits_for_more():
    record = framing.frame(b"r" * 100)
    buf = framing.frame(b"before") + record[:50]
    # The file holds the whole record: the caller reads more, nothing is corruption.
    assert list(framing.scan(buf, file_end=len(buf) + 100))[1:] == [22]


def test_scan_stopped_file_reports_a_torn_write_and_reads_past_it():
    torn = _header(1000) + b"x" * 7
    buf = framing.frame(b"a") + torn
    items = list(framing.scan(buf, stopped=True))
    assert isinstance(items[1], framing.Corruption) and items[1].at_end
    assert (items[1].offset, items[1].end, items[-1]) == (17, len(buf), len(buf))
    assert "torn write" in items[1].reason
    # Fewer than 12 bytes ending a file that stopped growing: a truncated record.
    items = list(framing.scan(framing.frame(b"a") + b"\x05\x00\x00", stopped=True))
    assert isinstance(items[1], framing.Corruption) and "truncated record of 3 bytes" in items[1].reason
    # A torn write with records after it, then the end of a stopped file: both read.
    good = framing.frame(b"b")
    items = list(framing.scan(buf + b"\x01" + good, stopped=True))
    assert [i.payload for i in items if isinstance(i, framing.Frame)] == [b"a", b"b"]


def _count_crc_bytes(monkeypatch) -> list[int]:
    counted = [0]
    value, extend = framing._crc32c, getattr(framing, "_extend", google_crc32c.extend)

    def counting_value(data):
        counted[0] += len(data)
        return value(data)

    def counting_extend(crc, data):
        counted[0] += len(data)
        return extend(crc, data)

    monkeypatch.setattr(framing, "_crc32c", counting_value)
    monkeypatch.setattr(framing, "_extend", counting_extend, raising=False)
    return counted


def test_scan_intact_buffer_checksums_each_byte_once(monkeypatch):
    """No prefix CRCs (nor their tables) for a file without damage: a cold read pays nothing for them."""
    payloads = [random.Random(i).randbytes(100_000 + i) for i in range(10)]
    buf = b"".join(framing.frame(p) for p in payloads)
    counted = _count_crc_bytes(monkeypatch)
    items = list(framing.scan(buf))
    assert [i.payload if isinstance(i, framing.Frame) else i for i in items[:-1]] == payloads
    assert counted[0] == sum(8 + len(p) for p in payloads)


def _scan_bounded(buf: bytes, seconds: float = 60.0) -> list:
    """``list(scan(buf))`` in a thread: fail instead of hanging for minutes."""
    out: list = []
    thread = threading.Thread(target=lambda: out.extend(framing.scan(buf)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"scanning {len(buf)} bytes took over {seconds} s"
    return out


def _headers_claiming_inside(size: int) -> bytes:
    """A valid header every 12 bytes, each claiming a payload that ends inside the buffer."""
    rng = random.Random(size)
    out = bytearray()
    for pos in range(0, size - 12, 12):
        room = size - pos - 16
        out += _header(rng.randint(room // 2, room) if room > 0 else 1)
    return bytes(out)


def _bad_headers_between_records(size: int) -> bytes:
    """Headers claiming most of what follows (their payload checksum fails), each followed
    by a small valid record."""
    out = bytearray()
    while len(out) < size:
        out += _header(max(0, size - len(out) - 64)) + framing.frame(b"")
    return bytes(out)


@pytest.mark.parametrize("make", [_headers_claiming_inside, _bad_headers_between_records])
def test_scan_checksums_each_byte_a_bounded_number_of_times(monkeypatch, make):
    """Resynchronising is linear: the bytes checksummed per byte of the buffer do not grow
    with its size (checking each claimed payload by reading it made them grow linearly)."""
    counted = _count_crc_bytes(monkeypatch)
    per_byte = []
    for size in (64 << 10, 256 << 10):
        buf = make(size)
        counted[0] = 0
        items = _scan_bounded(buf)
        assert isinstance(items[-1], int)
        per_byte.append(counted[0] / len(buf))
    assert per_byte[1] < 1.5 * per_byte[0] + 8, per_byte


def test_scan_damage_between_many_small_records_is_linear():
    """A damaged byte before each of many small records: every resynchronisation looks
    only as far as the next record (it looked 4 MiB ahead each time)."""
    unit = b"\x01" + framing.frame(b"")
    buf = unit * ((512 << 10) // len(unit))
    items = _scan_bounded(buf)
    assert len([i for i in items if isinstance(i, framing.Frame)]) == len(buf) // len(unit)
    # Against the same records undamaged, in this run (CPU time of this thread; the clean scan's
    # best of 3): about 4 times (a resynchronisation a record), where looking 4 MiB ahead took
    # 35 s, 700 times.
    clean = framing.frame(b"") * (len(buf) // len(unit))
    damaged_s, clean_s = _scan_cpu_seconds(buf), min(_scan_cpu_seconds(clean) for _ in range(3))
    assert damaged_s < 20 * clean_s, (damaged_s, clean_s)


def _scan_cpu_seconds(buf: bytes) -> float:
    start = time.thread_time()
    list(framing.scan(buf))
    return time.thread_time() - start
