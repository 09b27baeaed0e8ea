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
  there so that the caller retries from the same offset once the file has grown
  (:func:`claimed_end` says how far it must grow);
* corruption (a bad length checksum, a bad payload checksum): reported as a
  :class:`Corruption`, then the scan resynchronises on the next position where a
  record with both checksums valid starts. A garbage length is never used to allocate
  memory: a payload is only taken when its bytes are in the buffer.

When the caller knows that the file has stopped growing, it passes ``eof``: a record
that runs past ``eof`` is then a torn write, reported as corruption like any other.

Scanning is linear in the buffer's size, whatever it holds. Resynchronising looks at
every position after the damage, and a position may hold a valid header that claims
a payload spanning much of the buffer; checking each such payload by reading it would
be quadratic. Instead, once a scan has met damage, the CRC of any long stretch is
derived from CRCs of prefixes of the buffer (kept every :data:`_MARK` bytes) and the
linearity of CRCs: ``crc(A + B) = shift(crc(A), len(B)) ^ crc(B)``, where ``shift``
multiplies by ``x**(8 * len(B))`` modulo the polynomial, a few table look-ups per set
bit of the length. An intact file is checked directly, each byte once.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import google_crc32c
import numpy as np

__all__ = ["HEADER_SIZE", "FOOTER_SIZE", "Corruption", "Frame", "claimed_end", "frame", "mask", "masked_crc", "scan"]

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
_extend: Callable[[int, bytes], int] = google_crc32c.extend
_ZERO4 = b"\0\0\0\0"


def masked_crc(data: bytes) -> int:
    """The masked CRC-32C of ``data``, as stored in the framing."""
    return mask(_crc32c(data))


def mask(crc: int) -> int:
    """A CRC-32C as the framing stores it (masked)."""
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


def claimed_end(buf: bytes, pos: int) -> int:
    """How long the buffer must be before a scan resumed at ``pos`` can get further: the end
    of the record whose valid header is at ``pos``, else ``pos`` plus a header."""
    if len(buf) - pos >= HEADER_SIZE:
        length = _valid_header(buf, pos)
        if length >= 0:
            return pos + HEADER_SIZE + length + FOOTER_SIZE
    return pos + HEADER_SIZE


def scan(
    buf: bytes, pos: int = 0, *, file_end: int | None = None, stopped: bool = False
) -> Iterator[Frame | Corruption | int]:
    """Walk ``buf`` from ``pos``: yield frames and corruptions, and last the resume offset.

    The final item is always an ``int``: where the next scan must start (the end of
    the last whole record, or the start of a record not yet complete).

    ``file_end`` is where the file ends as far as known, relative to ``buf`` (by default
    the buffer holds the rest of the file). A record that ends past the buffer but not
    past ``file_end`` is in the file: the scan stops at it, for the caller to read more.
    A record that runs past the end of the file is not yet written, unless a whole valid
    record follows it in the buffer (then the writer went on without it, or its length
    is bad) or ``stopped`` says that the file will not grow: then it is corruption, a
    torn write, and so are the last bytes when fewer than a header.
    """
    end = len(buf)
    file_end = end if file_end is None else max(file_end, end)
    prefix = _Prefix(buf, pos)
    damaged = False  # until then, payloads are checked directly: each byte once, no tables
    while True:
        if end - pos < HEADER_SIZE:
            if stopped and file_end <= end and pos < end:
                yield Corruption(pos, end, f"a truncated record of {end - pos} bytes ends the file", at_end=True)
                pos = end
            yield pos
            return
        length = _valid_header(buf, pos)
        if length >= 0:
            stop = pos + HEADER_SIZE + length + FOOTER_SIZE
            if stop > file_end and not stopped:
                after, waiting = _resync(buf, pos + 1, prefix, file_end, stopped=True)
                if waiting:
                    yield pos  # not yet written
                    return
                reason = f"a record of {length} bytes runs past the end of the file, and a valid record follows it"
                damaged = True
                yield Corruption(pos, after, reason)
                pos = after
                continue
            if stop > end:
                if stop <= file_end:
                    yield pos  # in the file, not yet in the buffer
                    return
                reason = f"a record of {length} bytes runs past the end of the file (a torn write)"
            elif _payload_ok(buf, pos, length, prefix if damaged else None):
                yield Frame(pos, buf[pos + HEADER_SIZE : pos + HEADER_SIZE + length])
                pos = stop
                continue
            else:
                reason = "payload checksum mismatch"
        elif length == -2:
            reason = f"record length above {MAX_RECORD_BYTES} bytes"
        else:
            reason = "length checksum mismatch"
        bad = pos
        damaged = True
        pos, waiting = _resync(buf, pos + 1, prefix, file_end, stopped=stopped)
        yield Corruption(bad, pos, reason, at_end=waiting)
        if waiting:
            yield pos
            return


# -- checksums of any stretch of a buffer ------------------------------------------------

#: Prefix CRCs are kept every this many bytes: a stretch's CRC costs at most two CRCs of this many.
_MARK = 4096
#: Payloads up to this size are checked directly; longer ones through prefix CRCs.
_DIRECT = 4096


def _crc_table() -> np.ndarray:
    """The byte table of reflected CRC-32C: one step of the register per input byte."""
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(0x82F63B78), t >> 1).astype(np.uint32)
    return t


_TABLE = _crc_table()


def _apply(tables: np.ndarray, v: np.ndarray) -> np.ndarray:
    """A linear map of 32-bit values given by its byte tables (4 x 256)."""
    out: np.ndarray = tables[0][v & 0xFF] ^ tables[1][(v >> 8) & 0xFF]
    out ^= tables[2][(v >> 16) & 0xFF] ^ tables[3][v >> 24]
    return out


@functools.cache
def _shift_tables() -> np.ndarray:
    """``[i]``: byte tables of appending ``2**i`` zero bytes to the CRC register (32 x 4 x 256)."""
    basis = np.arange(256, dtype=np.uint32)[None, :] << (np.arange(4, dtype=np.uint32)[:, None] * 8)
    out = np.empty((32, 4, 256), np.uint32)
    out[0] = _TABLE[basis & 0xFF] ^ (basis >> 8)
    for i in range(1, 32):
        out[i] = _apply(out[i - 1], _apply(out[i - 1], basis))
    return out


@functools.cache
def _shift_lists() -> list[list[list[int]]]:
    return [[row.tolist() for row in level] for level in _shift_tables()]


def _shift(crc: int, n: int) -> int:
    """``crc`` moved past ``n`` zero bytes: ``crc(A + B) == _shift(crc(A), len(B)) ^ crc(B)``."""
    tables = _shift_lists()
    i = 0
    while n:
        if n & 1:
            t0, t1, t2, t3 = tables[i]
            crc = t0[crc & 0xFF] ^ t1[(crc >> 8) & 0xFF] ^ t2[(crc >> 16) & 0xFF] ^ t3[crc >> 24]
        n >>= 1
        i += 1
    return crc


def _shift_many(crcs: np.ndarray, ns: np.ndarray) -> np.ndarray:
    """:func:`_shift` of many values at once (uint32 values, int64 counts)."""
    tables = _shift_tables()
    out = crcs.astype(np.uint32)
    top = int(ns.max()) if ns.size else 0
    for i in range(top.bit_length()):
        sel = np.flatnonzero((ns >> i) & 1)
        if sel.size:
            out[sel] = _apply(tables[i], out[sel])
    return out


class _Prefix:
    """CRCs of ``buf[origin:x]`` for any ``x``, from marks every :data:`_MARK` bytes built as needed.

    Marks are built once, front to back, so all the queries of one scan cost the
    buffer's length plus at most :data:`_MARK` bytes each.
    """

    __slots__ = ("buf", "origin", "marks")

    def __init__(self, buf: bytes, origin: int) -> None:
        self.buf = buf
        self.origin = origin
        self.marks = [0]

    def at(self, x: int) -> int:
        i = (x - self.origin) // _MARK
        marks = self.marks
        buf = self.buf
        while len(marks) <= i:
            a = self.origin + (len(marks) - 1) * _MARK
            marks.append(_extend(marks[-1], buf[a : a + _MARK]))
        a = self.origin + i * _MARK
        return _extend(marks[i], buf[a:x]) if x > a else marks[i]

    def stretch(self, start: int, stop: int) -> int:
        """The CRC-32C of ``buf[start:stop]``."""
        return self.at(stop) ^ _shift(self.at(start), stop - start)


def _payload_ok(buf: bytes, pos: int, length: int, prefix: _Prefix | None) -> bool:
    """Whether the payload of the record at ``pos`` (all in ``buf``) matches its checksum:
    through ``prefix`` when given and the payload is long, else directly."""
    start = pos + HEADER_SIZE
    stored: int = _CRC.unpack_from(buf, start + length)[0]
    if prefix is None or length <= _DIRECT:
        return masked_crc(buf[start : start + length]) == stored
    return mask(prefix.stretch(start, start + length)) == stored


# -- resynchronising -----------------------------------------------------------------------

#: Candidates looked at one by one before switching to numpy.
_SCALAR_TRIES = 16
#: The first numpy chunk; each next one is twice as large, up to _RESYNC_CHUNK.
_FIRST_CHUNK = 1 << 14
_RESYNC_CHUNK = 1 << 22
_ARANGE_HEADER = np.arange(HEADER_SIZE, dtype=np.int64)


#: What :func:`_record_at` finds at a position.
_NONE, _WHOLE, _IN_FILE, _PAST_END = 0, 1, 2, 3


def _record_at(buf: bytes, at: int, prefix: _Prefix, file_end: int) -> int:
    """Whether a whole valid record starts at ``at`` (_WHOLE), a valid header whose record
    ends past the buffer but in the file (_IN_FILE) or past the file (_PAST_END), or none."""
    length = _valid_header(buf, at)
    if length < 0:
        return _NONE
    stop = at + HEADER_SIZE + length + FOOTER_SIZE
    if stop > len(buf):
        return _IN_FILE if stop <= file_end else _PAST_END
    return _WHOLE if _payload_ok(buf, at, length, prefix) else _NONE


def _resync(buf: bytes, pos: int, prefix: _Prefix, file_end: int, *, stopped: bool) -> tuple[int, bool]:
    """The next position at or after ``pos`` where a record starts.

    Returns ``(position, waiting)``: ``waiting`` is false for a whole valid record; true
    for a valid header whose record ends past the buffer (in the file: the caller reads
    more; past the file: not yet written, unless a whole valid record follows it, which
    is then the answer; unless ``stopped``, when it is no record), or when there is no
    record: then the position is within the last few bytes, too short to tell, or the
    end of a file that stopped growing.

    Candidates need four zero high bytes of the length (it is at most 2**31) and a
    checksum that is not four zero bytes (which rules out zero-filled stretches). The
    first few are found with ``bytes.find`` and checked one by one (damage is usually
    followed by a valid record within bytes); then numpy finds candidates in chunks
    that double in size, and their checksums are checked as arrays. Every check costs
    a bounded amount (prefix CRCs), so this is linear in the bytes it looks at.
    """
    end = len(buf)
    last = end - HEADER_SIZE  # the last position holding a whole header
    fallback = -1  # the first record running past the end of the file
    p = pos
    for _ in range(_SCALAR_TRIES):
        if p > last:
            break
        q = buf.find(_ZERO4, p + 4, last + 8)
        if q < 0:
            p = last + 1
            break
        at = q - 4
        p = at + 1
        if buf[at + 8 : at + 12] == _ZERO4:
            continue
        found = _record_at(buf, at, prefix, file_end)
        if found == _WHOLE:
            return at, False
        if found == _IN_FILE:
            return (at if fallback < 0 else fallback), True
        if found == _PAST_END and fallback < 0 and not stopped:
            fallback = at
    arr = np.frombuffer(buf, np.uint8)
    chunk = _FIRST_CHUNK
    while p <= last:
        stop = min(last + 1, p + chunk)
        chunk = min(2 * chunk, _RESYNC_CHUNK)
        n = stop - p
        a = arr[p : stop + HEADER_SIZE - 1]
        cand = (a[4 : 4 + n] == 0) & (a[5 : 5 + n] == 0) & (a[6 : 6 + n] == 0) & (a[7 : 7 + n] == 0)
        cand &= (a[8 : 8 + n] | a[9 : 9 + n] | a[10 : 10 + n] | a[11 : 11 + n]) != 0
        where = np.flatnonzero(cand)
        if where.size:
            found, at, past = _first_record(buf, arr, where + p, prefix, file_end)
            if found == _WHOLE:
                return at, False
            if fallback < 0 and not stopped:
                fallback = past
            if found == _IN_FILE:
                return (at if fallback < 0 else fallback), True
        p = stop
    if fallback >= 0:
        return fallback, True
    if stopped and file_end <= end:
        return end, True
    return max(pos, last + 1), True


def _first_record(buf: bytes, arr: np.ndarray, at: np.ndarray, prefix: _Prefix, file_end: int) -> tuple[int, int, int]:
    """Of the candidate positions ``at`` (ascending), the first where a whole valid record
    starts (``_WHOLE``, position), unless a record ending past the buffer but in the file
    comes first (``_IN_FILE``, its position); else ``(_NONE, -1)``. Third, the first
    position before those where a record runs past the end of the file, or -1."""
    heads = arr[at[:, None] + _ARANGE_HEADER]
    crc = np.full(at.size, _U32, np.uint32)
    for j in range(8):
        crc = _TABLE[(crc ^ heads[:, j]) & 0xFF] ^ (crc >> 8)
    crc ^= np.uint32(_U32)
    masked = ((crc >> 15) | (crc << 17)) + np.uint32(_MASK_DELTA)
    stored = heads[:, 8:12].copy().view("<u4")[:, 0]
    # Candidates have four zero high bytes: the length is the low four.
    length = heads[:, 0:4].copy().view("<u4")[:, 0].astype(np.int64)
    keep = np.flatnonzero((masked == stored) & (length <= MAX_RECORD_BYTES))
    if not keep.size:
        return _NONE, -1, -1
    at, length = at[keep], length[keep]
    stop = at + (HEADER_SIZE + FOOTER_SIZE) + length
    outside = stop > len(buf)
    in_file = np.flatnonzero(outside & (stop <= file_end))
    bound = int(in_file[0]) if in_file.size else at.size
    past = np.flatnonzero(stop[:bound] > file_end)
    first_past = int(at[past[0]]) if past.size else -1
    inside = np.flatnonzero(~outside[:bound])
    if inside.size:
        ok = _payloads_ok(buf, arr, prefix, at[inside], length[inside])
        good = np.flatnonzero(ok)
        if good.size:
            return _WHOLE, int(at[inside[good[0]]]), first_past
    if in_file.size:
        return _IN_FILE, int(at[bound]), first_past
    return _NONE, -1, first_past


def _payloads_ok(buf: bytes, arr: np.ndarray, prefix: _Prefix, at: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Whether each record (all in ``buf``) matches its payload checksum."""
    start = at + HEADER_SIZE
    stop = start + length
    before = np.array([prefix.at(x) for x in start.tolist()], np.uint32)
    through = np.array([prefix.at(x) for x in stop.tolist()], np.uint32)
    crc = through ^ _shift_many(before, length)
    masked = ((crc >> 15) | (crc << 17)) + np.uint32(_MASK_DELTA)
    stored = arr[stop[:, None] + _ARANGE_HEADER[:4]].copy().view("<u4")[:, 0]
    ok: np.ndarray = masked == stored
    return ok
