"""TFRecord framing: golden bytes, checksums against an independent CRC-32C, scanning."""

from __future__ import annotations

import struct

from visualdl import _framing as framing


def _crc32c_reference(data: bytes) -> int:
    """Bitwise CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), independent of the native one."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _masked(crc: int) -> int:
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def test_crc32c_reference_check_value():
    # The standard check value of CRC-32C.
    assert _crc32c_reference(b"123456789") == 0xE3069283


def test_masked_crc_matches_reference():
    for data in (b"", b"a", b"123456789", bytes(range(256)) * 3):
        assert framing.masked_crc(data) == _masked(_crc32c_reference(data))


def test_frame_golden_bytes():
    framed = framing.frame(b"hello")
    length = struct.pack("<Q", 5)
    expected = (
        length
        + struct.pack("<I", _masked(_crc32c_reference(length)))
        + b"hello"
        + struct.pack("<I", _masked(_crc32c_reference(b"hello")))
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
