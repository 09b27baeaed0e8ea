"""VisualDL 2's framing: each record is an 8-byte unsigned length, little-endian, then that
many bytes of a serialized ``Record`` (VisualDL 2.x ``RecordWriter.write``). No header, no
checksum, no footer. Pure: bytes in, no file I/O (:func:`check_record` reads the open file
it is given).

:func:`scan` walks a buffer from an offset and tells whole records, torn tails and garbage
apart (see :mod:`visualdl._formats.vdl2.decode` for the rules); :data:`FRAMING` is this
framing as :class:`visualdl._index.tail.LogFile` takes one, :data:`BATCHED` the same
yielding stretches of one-value records as :class:`visualdl._formats.framebatch.Batch` items.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from visualdl._formats.framebatch import Batched, Layout
from visualdl._formats.framing import Corruption, Frame
from visualdl.errors import LogFormatError

__all__ = [
    "BATCHED",
    "FILE_MARKER",
    "FRAMING",
    "HEAD_SIZE",
    "LAYOUT",
    "MAX_RECORD_BYTES",
    "Scan",
    "check_record",
    "is_vdl2_file",
    "length_of",
    "scan",
]

#: VisualDL 2 finds its files by this in their names (``vdlrecords.<unix seconds>.log``).
FILE_MARKER = "vdlrecords"
#: A longer record is garbage: protobuf messages stop at 2 GiB.
MAX_RECORD_BYTES = (1 << 31) - 1

#: The length prefix of a record: its payload starts this many bytes after the record.
HEAD_SIZE = 8
_HEAD = HEAD_SIZE
_LENGTH = struct.Struct("<Q")
_VALUES_KEY = 0x0A  # field 1 (values), length-delimited
_WHOLE, _TORN, _GARBAGE = 0, 1, 2
#: Bytes of a payload that show whether it starts as a value: its key and a first length byte.
_SEEN = 2
#: Values of a record checked by the framing at most (a resync stays linear).
_MAX_CHECKED = 16
#: Records walked by :data:`FRAMING`'s scan before it yields them: at first, and at most.
_FIRST_WALK, _MAX_WALK = 64, 1 << 16


def is_vdl2_file(basename: str) -> bool:
    return FILE_MARKER in basename and not basename.startswith(".")


# -- framing ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scan:
    """What :func:`scan` found. Offsets are indices into the buffer scanned."""

    #: ``(offset of the length prefix, payload)`` of each whole record, in order.
    frames: list[tuple[int, bytes]]
    #: Where the next scan starts: after the last record or garbage taken, or at a torn tail.
    resume: int
    #: 0, or the length the buffer must reach before the torn record at :attr:`resume`
    #: can be whole (``resume + 8`` while its length prefix is cut short).
    wait_until: int
    #: ``(offset, message)`` of each stretch of garbage skipped.
    problems: list[tuple[int, str]]


def length_of(head: bytes) -> int:
    """The payload length a record's length prefix (8 bytes) claims; -1 when no record has it."""
    (length,) = _LENGTH.unpack_from(head)
    return length if 2 <= length <= MAX_RECORD_BYTES else -1


def _varint(buf: bytes, pos: int, stop: int) -> tuple[int, int]:
    """``(value, end)`` of the varint at ``pos``; end -1 when it runs to ``stop``, -2 when longer than 10 bytes."""
    value = shift = 0
    for i in range(pos, min(stop, pos + 10)):
        byte = buf[i]
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, i + 1
        shift += 7
    return 0, -1 if stop < pos + 10 else -2


def _frame_at(buf: bytes, pos: int, end: int) -> tuple[int, int, str]:
    """``(verdict, length, why)`` of a record starting at ``pos`` of ``buf[:end]``."""
    avail = end - pos
    if avail < _HEAD:
        head = buf[pos:end]
        # A length below 2 GiB has a zero high half and a byte 3 below 0x80.
        if any(head[4:]) or (len(head) > 3 and head[3] >= 0x80):
            return _GARBAGE, -1, f"a length prefix {head.hex()!r} of more than {MAX_RECORD_BYTES} bytes"
        return _TORN, -1, ""
    (length,) = _LENGTH.unpack_from(buf, pos)
    if length > MAX_RECORD_BYTES:
        return _GARBAGE, length, f"a record length of {length} bytes, above the bound of {MAX_RECORD_BYTES}"
    if length < 2:
        return _GARBAGE, length, f"a record length of {length} bytes (VisualDL 2's records hold a value)"
    start = pos + _HEAD
    record_end = start + length
    stop = min(end, record_end)
    if start == end:
        return _TORN, length, ""
    # The payload is values, one after the other (VisualDL 2 writes one): check the
    # first _MAX_CHECKED of them, as far as they are in the buffer.
    at = start
    for _ in range(_MAX_CHECKED):
        if at >= stop:
            break
        if buf[at] != _VALUES_KEY:
            return _GARBAGE, length, f"a record with byte 0x{buf[at]:02x} at byte {at - start}, not a value (0x0a)"
        size, after = _varint(buf, at + 1, stop)
        if after == -1 and stop == end < record_end:
            return _TORN, length, ""
        if after < 0 or after + size > record_end:
            return _GARBAGE, length, f"a record of {length} bytes with a value running past its end"
        at = after + size
    if record_end > end:
        return _TORN, length, ""
    return _WHOLE, length, ""


def _resync(buf: bytes, pos: int, end: int) -> int:
    """The first offset from ``pos`` where a record (whole or torn) could start; ``end`` when none."""
    hit = buf.find(b"\n", pos + _HEAD, end)
    while hit != -1:
        if _frame_at(buf, hit - _HEAD, end)[0] != _GARBAGE:
            return hit - _HEAD
        hit = buf.find(b"\n", hit + 1, end)
    return end


def scan(buf: bytes, start: int = 0) -> Scan:
    """The records of ``buf`` from offset ``start`` (see the module's docstring).

    Never raises because of what ``buf`` holds and never allocates from a length it
    read: work and memory are linear in ``len(buf)``.
    """
    frames, resume, wait_until, garbage = _walk(buf, start)
    end = len(buf)
    problems = []
    for pos, nxt, why in garbage:
        where = "to the next record" if nxt < end else "to the end of the data"
        problems.append((pos, f"garbage: {why}; skipped {nxt - pos} bytes {where}"))
    return Scan(frames, resume, wait_until, problems)


def _walk(
    buf: bytes, start: int, most: int = 1 << 62
) -> tuple[list[tuple[int, bytes]], int, int, list[tuple[int, int, str]]]:
    """What :func:`scan` finds, garbage as ``(offset, end of the stretch, why)``; after
    ``most`` records it stops (resume where it stopped, wait_until -1)."""
    frames: list[tuple[int, bytes]] = []
    garbage: list[tuple[int, int, str]] = []
    end = len(buf)
    pos = start
    unpack = _LENGTH.unpack_from
    while pos < end:
        if len(frames) >= most:
            return frames, pos, -1, garbage
        if end - pos > _HEAD + 1:  # the common case, inline: a whole record with a one-byte value length
            (length,) = unpack(buf, pos)
            stop = pos + _HEAD + length
            if 2 <= length <= MAX_RECORD_BYTES and stop <= end and buf[pos + 8] == _VALUES_KEY:
                size = buf[pos + 9]
                if size < 0x80 and size + 2 == length:  # one value, of a one-byte length
                    frames.append((pos, buf[pos + _HEAD : stop]))
                    pos = stop
                    continue
        verdict, length, why = _frame_at(buf, pos, end)
        if verdict == _WHOLE:
            stop = pos + _HEAD + length
            frames.append((pos, buf[pos + _HEAD : stop]))
            pos = stop
        elif verdict == _TORN:
            return frames, pos, pos + _HEAD + max(length, 0), garbage
        else:
            nxt = _resync(buf, pos + 1, end)
            garbage.append((pos, nxt, why))
            pos = nxt
    return frames, pos, 0, garbage


class _Framing:
    """VisualDL 2's framing as :class:`visualdl._index.tail.LogFile` takes one: the ``scan`` and
    ``claimed_end`` of :mod:`visualdl._formats.framing`, over :func:`scan`'s verdicts.

    A torn tail is "not yet written" (the scan stops at it) while the file may grow;
    when ``stopped`` says it will not and the buffer holds the file to its end, it is
    a torn write: a :class:`~visualdl._formats.framing.Corruption`, and the scan goes on at the
    next record after it, if any. Garbage is a ``Corruption`` from its offset to the next
    place a record could start; garbage running to the end of a buffer is ``at_end``,
    and leaves the last bytes where a record's start may be cut short for the next scan.
    """

    __slots__ = ()

    def scan(
        self, buf: bytes, pos: int = 0, *, file_end: int | None = None, stopped: bool = False
    ) -> Iterator[Frame | Corruption | int]:
        end = len(buf)
        final = stopped and (file_end is None or file_end <= end)
        most = _FIRST_WALK  # records per walk: a caller that stops early wastes little
        while True:
            frames, resume, wait, garbage = _walk(buf, pos, most)
            bad = iter(garbage)
            stretch = next(bad, None)
            for offset, payload in frames:
                while stretch is not None and stretch[0] < offset:
                    yield Corruption(stretch[0], stretch[1], stretch[2])
                    stretch = next(bad, None)
                yield Frame(offset, payload)
            for offset, stop, why in ([stretch] if stretch else []) + list(bad):
                if stop < end:
                    yield Corruption(offset, stop, why)
                    continue
                if not final:  # a record may start in the last bytes, its length prefix cut short
                    stop = resume = next(
                        (p for p in range(max(offset + 1, end - _HEAD), end) if _frame_at(buf, p, end)[0] == _TORN),
                        end,
                    )
                yield Corruption(offset, stop, why, at_end=True)
            if wait < 0:  # stopped after `most` records (nothing after the last): go on
                pos, most = resume, min(2 * most, _MAX_WALK)
                continue
            if resume >= end or not final:
                yield resume
                return
            # A torn record in a file that stopped growing: a torn write.
            nxt = _resync(buf, resume + 1, end)
            if nxt >= end:
                yield Corruption(resume, end, f"a truncated record of {end - resume} bytes ends the file", at_end=True)
                yield end
                return
            length = self.claimed_end(buf, resume) - resume - _HEAD
            reason = f"a record of {length} bytes runs past the end of the file, and a record follows it"
            yield Corruption(resume, nxt, reason)
            pos = nxt

    @staticmethod
    def claimed_end(buf: bytes, pos: int) -> int:
        """The end of the record at ``pos`` as its length prefix claims it, else ``pos`` plus
        a prefix. Nothing checks a length alone (after garbage, the last bytes may start
        with any): until the record's first value starts as a value, the end claimed is
        where that can be seen, so that a bogus length never keeps a growing file unread."""
        verdict, length, _ = _frame_at(buf, pos, len(buf))
        if verdict == _GARBAGE or length < 0:
            return pos + _HEAD
        end = pos + _HEAD + length
        return end if len(buf) >= pos + _HEAD + _SEEN else min(end, pos + _HEAD + _SEEN)


#: The framing of VisualDL 2's files, for :class:`visualdl._index.tail.LogFile`.
FRAMING = _Framing()


def _valid_batch(buf: bytes, frames: np.ndarray, lengths: np.ndarray, checked: int) -> int:
    """How many of the linked records (frame offsets, payload lengths, each in ``buf``)
    are, in order, whole records of one value as :func:`scan` takes them: a length of 2
    to :data:`MAX_RECORD_BYTES`, one ``values`` element of a 1- or 2-byte varint length
    ending exactly at the record's end. Records of other shapes (several values, longer
    varints: rare) end the batch; the one-by-one scan takes them."""
    arr = np.frombuffer(buf, np.uint8)
    last = len(buf) - 1
    at = frames + _HEAD
    b0 = arr[np.minimum(at, last)]
    b1 = arr[np.minimum(at + 1, last)].astype(np.int64)
    b2 = arr[np.minimum(at + 2, last)].astype(np.int64)
    one = (b1 < 0x80) & (lengths == b1 + 2)
    two = (b1 >= 0x80) & (b2 < 0x80) & (lengths == ((b1 & 0x7F) | (b2 << 7)) + 3)
    ok = (b0 == _VALUES_KEY) & (one | two) & (lengths >= 2) & (lengths <= MAX_RECORD_BYTES)
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if len(bad) else len(ok)


#: VisualDL 2's framing for :func:`visualdl._formats.framebatch.find`: no footer, no checksum; each
#: record checked as the one-by-one scan checks it (:func:`_valid_batch`).
LAYOUT = Layout(_HEAD, 0, _valid_batch, FRAMING)
#: VisualDL 2's framing for :class:`visualdl._index.tail.LogFile`, many records at once: every
#: payload starts with a ``values`` key (``0x0a``).
BATCHED = Batched(_VALUES_KEY, LAYOUT)


def check_record(f: BinaryIO, path: str, offset: int) -> int:
    """The payload length of the record at ``offset`` of ``f``, once its length prefix is
    still a record's and the record is all in the file (VisualDL 2 writes no checksums:
    nothing more can be checked); :class:`LogFormatError` otherwise."""
    f.seek(offset)
    head = f.read(HEAD_SIZE)
    if len(head) < HEAD_SIZE:
        raise LogFormatError("record is gone (file truncated)", path, offset)
    length = length_of(head)
    if length < 0:
        raise LogFormatError("record length changed on disk", path, offset)
    if offset + HEAD_SIZE + length > f.seek(0, os.SEEK_END):
        raise LogFormatError("record is gone (file truncated)", path, offset)
    return length
