"""TFRecord framing: how records sit in a log file. Bytes in, records out; no file I/O.

Every record, little-endian::

    uint64 length | uint32 masked_crc32c(length bytes) | payload[length] | uint32 masked_crc32c(payload)

with ``masked(crc) = ((crc >> 15) | (crc << 17)) + 0xA282EAD8 (mod 2**32)`` and CRC-32C
(Castagnoli) computed by the native ``google-crc32c`` package. This is the framing of
TensorBoard's event files, so one scanner serves both.

:func:`scan` walks a buffer that holds the bytes of a file from some offset on. It
tells apart three things at a position:

* a whole valid record: yielded, and the scan moves past it;
* the start of a record that is not all there yet (fewer than 12 header bytes, or a
  valid header whose payload runs past the buffer): "not yet written", the scan stops
  there so that the caller retries from the same offset once the file has grown;
* corruption (a bad length checksum, a bad payload checksum): reported as a
  :class:`Corruption`, then the scan resynchronises on the next position where a
  record with both checksums valid starts. A garbage length is never used to allocate
  memory: a payload is only taken when its bytes are in the buffer.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import google_crc32c
import numpy as np

__all__ = ["HEADER_SIZE", "FOOTER_SIZE", "Corruption", "Frame", "frame", "masked_crc", "scan"]

#: A length above this is taken for corruption (protobuf messages stop at 2 GiB).
MAX_RECORD_BYTES = 1 << 31
HEADER_SIZE = 12
FOOTER_SIZE = 4
_MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF
_LEN = struct.Struct("<Q")
_HEAD = struct.Struct("<QI")
_CRC = struct.Struct("<I")
_crc32c: Callable[[bytes], int] = google_crc32c.value


def masked_crc(data: bytes) -> int:
    """The masked CRC-32C of ``data``, as stored in the framing."""
    crc = _crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & _U32) + _MASK_DELTA) & _U32


def frame(payload: bytes) -> bytes:
    """One framed record holding ``payload``."""
    length = _LEN.pack(len(payload))
    return b"".join((length, _CRC.pack(masked_crc(length)), payload, _CRC.pack(masked_crc(payload))))


@dataclass(frozen=True, slots=True)
class Frame:
    """A valid record: its payload and the offset of its first byte in the buffer."""

    offset: int
    payload: bytes


@dataclass(frozen=True, slots=True)
class Corruption:
    """Bytes ``[offset, end)`` of the buffer hold no valid record.

    ``at_end`` is true when no valid record follows in the buffer: the bad stretch may
    go on in bytes not written yet, and the next scan resumes inside it.
    """

    offset: int
    end: int
    reason: str
    at_end: bool = False


def _valid_header(buf: bytes, pos: int) -> int:
    """The payload length of a record header at ``pos``: -1 for a bad checksum, -2 for a length
    above :data:`MAX_RECORD_BYTES`."""
    length, crc = _HEAD.unpack_from(buf, pos)
    if masked_crc(buf[pos : pos + 8]) != crc:
        return -1
    return length if length <= MAX_RECORD_BYTES else -2


def _payload_ok(buf: bytes, pos: int, length: int) -> bytes | None:
    start = pos + HEADER_SIZE
    payload = buf[start : start + length]
    (crc,) = _CRC.unpack_from(buf, start + length)
    return payload if masked_crc(payload) == crc else None


def scan(buf: bytes, pos: int = 0) -> Iterator[Frame | Corruption | int]:
    """Walk ``buf`` from ``pos``: yield frames and corruptions, and last the resume offset.

    The final item is always an ``int``: where the next scan must start (the end of
    the last whole record, or the start of a record not yet complete).
    """
    end = len(buf)
    while True:
        if end - pos < HEADER_SIZE:
            yield pos
            return
        length = _valid_header(buf, pos)
        if length >= 0:
            if pos + HEADER_SIZE + length + FOOTER_SIZE > end:
                yield pos  # not yet written
                return
            payload = _payload_ok(buf, pos, length)
            if payload is not None:
                yield Frame(pos, payload)
                pos += HEADER_SIZE + length + FOOTER_SIZE
                continue
            reason = "payload checksum mismatch"
        elif length == -2:
            reason = f"record length above {MAX_RECORD_BYTES} bytes"
        else:
            reason = "length checksum mismatch"
        bad = pos
        pos, waiting = _resync(buf, pos + 1)
        yield Corruption(bad, pos, reason, at_end=waiting)
        if waiting:
            yield pos
            return


def _resync(buf: bytes, pos: int) -> tuple[int, bool]:
    """The next position at or after ``pos`` where a record starts.

    Returns ``(position, waiting)``: ``waiting`` is true when the position holds a
    valid header whose payload is not all in the buffer yet, or is within the last
    few bytes, too short to tell.

    Candidates are found with numpy first: a length below 2**32 has four zero high
    bytes, and a checksum is almost never four zero bytes (which rules out zero-filled
    stretches). Only candidates get their checksums computed.
    """
    end = len(buf)
    last = end - HEADER_SIZE
    arr = np.frombuffer(buf, np.uint8)
    while pos <= last:
        stop = min(last + 1, pos + _RESYNC_CHUNK)
        n = stop - pos
        a = arr[pos : stop + HEADER_SIZE - 1]
        cand = (a[4 : 4 + n] == 0) & (a[5 : 5 + n] == 0) & (a[6 : 6 + n] == 0) & (a[7 : 7 + n] == 0)
        cand &= (a[8 : 8 + n] | a[9 : 9 + n] | a[10 : 10 + n] | a[11 : 11 + n]) != 0
        for offset in np.flatnonzero(cand).tolist():
            at = pos + offset
            length = _valid_header(buf, at)
            if length >= 0:
                if at + HEADER_SIZE + length + FOOTER_SIZE > end:
                    return at, True
                if _payload_ok(buf, at, length) is not None:
                    return at, False
        pos = stop
    return max(pos, 0), True


_RESYNC_CHUNK = 1 << 22
