"""Many small framed records at once: where they lie in a buffer, each checked, with a
fixed number of numpy passes instead of Python work per record. Pure; no I/O.

The framing is :mod:`visualdl._formats.framing`'s (:data:`TFRECORD`), or another of a
:class:`Layout`: a little-endian length in a header, the payload, a footer, and a check
of the records found (VisualDL 2's, :data:`visualdl._formats.vdl2.decode.LAYOUT`: an 8-byte length, no
footer, no checksum, each record's shape checked as its one-by-one scan checks it; the
offsets below are TensorBoard's). :func:`find` is a fast path for the common
case, a stretch of intact records, and promises nothing more: it returns the longest
run of whole records it can prove valid from a position (possibly none), and the
caller's scalar scan takes over where it stops (damage, a record not all written, a
record it did not find). Whatever it returns is exactly what the scalar scan would
have yielded for those bytes.

How, for a buffer ``buf`` and a start ``pos``:

1. **Candidates.** A record starts with its length, whose four high bytes are zero
   (lengths stay below 2**31), and its payload starts with a known byte ``lead``
   (a TensorBoard ``Event`` starts with its ``wall_time`` key, ``0x09``). Positions
   with both are found with one comparison over the bytes and a gather over the few
   that match.
2. **The chain.** Each candidate names where the next record would start
   (``position + 16 + length``). Following these links from ``pos`` gives the records;
   a false candidate (the same bytes inside a payload) is never linked to, and the
   links are followed with numpy except across such a candidate.
3. **Checksums, all at once.** A CRC without initial and final XOR (``R``) is linear,
   and ``R(m + R(m)) == 0`` for any message ``m`` (the CRC register is cleared by its
   own value). Each record's stored checksums give what ``R`` of its length and of its
   payload must be (the stored value unmasked, corrected for the initial and final
   XOR, which depend only on the length). Written in place of the stored checksums,
   in a copy of the stretch, they make ``R`` of every valid record zero, and so ``R``
   of the whole stretch: one native CRC pass over it checks every record. A stretch
   that fails is halved until the valid prefix before the first bad record is known.
   For the check to pass with a bad record, the errors of several records would have
   to cancel, shifted by their distances: for damage, as unlikely as a CRC collision.
   Two checksums crafted to cancel pass it, where one by one they would not; a CRC is
   no defence against whoever writes the file, who can as well write valid ones.

Input that defeats the fast path (damage every few records, false record starts in
every payload, payloads of another shape) costs about what the one-by-one scan costs:
:class:`Batched` looks at a small stretch first and tries less often after each
short batch, and the chain stops following links one record at a time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import google_crc32c
import numpy as np

from visualdl._formats import framing as framing
from visualdl._formats.framing import _TABLE, FOOTER_SIZE, HEADER_SIZE, _shift

__all__ = ["BATCH_BYTES", "RETRY", "TFRECORD", "Batch", "Batched", "Layout", "find", "u8_at", "u32_at"]

_FRAMING = HEADER_SIZE + FOOTER_SIZE
_TABLE_LIST: list[int] = _TABLE.tolist()
_MASK_DELTA = 0xA282EAD8
_ONES = 0xFFFFFFFF
#: Bytes checked by one CRC pass at most: a failed check is bisected within this.
_STRETCH = 4 << 20
#: Records checked by the first CRC pass (damage is often near).
_FIRST_CHECKED = 64
#: Fewer records than this are left to the scalar scan (numpy's set-up costs more).
MIN_RECORDS = 16
#: Records in a row that the chain takes although their payload does not start with the lead byte.
_ASIDE = 64
#: Bytes of a batch at most: what decoding it holds at once grows with its records.
BATCH_BYTES = 1 << 20
#: What the first find() after records taken one by one looks at.
_FIRST_LIMIT = 64 << 10
#: Records taken one by one at most before find() is tried again.
_MAX_RETRY = 1 << 16
#: The chain stops where it has taken fewer than this many records per stretch of linked
#: candidates (false candidates in every payload): one by one is cheaper then.
_MIN_PER_STRETCH = 2
#: Records taken one by one before :class:`Batched` tries :func:`find` again.
RETRY = 64


@dataclass(frozen=True, slots=True)
class Batch:
    """Whole valid records of ``buf`` found together: ``starts[i]`` is where record
    ``i``'s payload starts and ``lengths[i]`` its length; ``offset`` is where the first
    record's frame starts, ``end`` where the last one's ends; a frame is ``header``
    bytes, the payload, ``footer`` bytes."""

    buf: bytes
    offset: int
    end: int
    starts: np.ndarray
    lengths: np.ndarray
    header: int = HEADER_SIZE
    footer: int = FOOTER_SIZE

    def __len__(self) -> int:
        return len(self.starts)

    def head(self, n: int) -> Batch:
        """The first ``n`` records."""
        starts, lengths = self.starts[:n], self.lengths[:n]
        end = int(starts[-1] + lengths[-1]) + self.footer if n else self.offset
        return Batch(self.buf, self.offset, end, starts, lengths, self.header, self.footer)

    def after(self, n: int) -> Batch:
        """The records from record ``n`` on (``0 < n < len(self)``)."""
        start = int(self.starts[n]) - self.header
        return Batch(self.buf, start, self.end, self.starts[n:], self.lengths[n:], self.header, self.footer)

    def payload(self, i: int) -> bytes:
        start = int(self.starts[i])
        return self.buf[start : start + int(self.lengths[i])]

    def frame(self, i: int) -> int:
        """Where record ``i``'s frame starts, from :attr:`offset` on."""
        return int(self.starts[i]) - self.header - self.offset


@dataclass(frozen=True, slots=True)
class Layout:
    """A framing of records as :func:`find` and :class:`Batched` take one: a frame is
    ``header`` bytes (starting with a little-endian uint64 length, below 2**32 in a
    valid frame), the payload, then ``footer`` bytes.

    ``valid(buf, frames, lengths, checked)`` tells how many of the records (frame
    offsets and payload lengths, linked one after the other), taken in order, are valid
    before the first that is not (``checked``: a hint, how many to check first).
    ``aside`` records in a row may be linked although their payload does not start with
    the lead byte. ``framing`` is the one-by-one scan of the same records (the ``scan``
    and ``claimed_end`` of :mod:`visualdl._formats.framing`)."""

    header: int
    footer: int
    valid: Callable[[bytes, np.ndarray, np.ndarray, int], int]
    framing: Any
    aside: int = 0


class Batched:
    """A framing (:class:`visualdl._index.tail.Framing`) that yields a :class:`Batch` for each
    stretch :func:`find` finds (of :data:`BATCH_BYTES` at most), and the one-by-one
    scan's items for the rest (:attr:`Layout.framing`; by default TensorBoard's
    :func:`visualdl._formats.framing.scan`), trying :func:`find` again after
    :data:`RETRY` records scanned one by one (twice as many each time it found few, up to
    :data:`_MAX_RETRY`); the stretch it looks at starts at 64 KiB and doubles while the
    batches fill it."""

    __slots__ = ("lead", "layout")

    def __init__(self, lead: int, layout: Layout | None = None) -> None:
        self.lead = lead
        self.layout = TFRECORD if layout is None else layout

    def claimed_end(self, buf: bytes, pos: int) -> int:
        end: int = self.layout.framing.claimed_end(buf, pos)
        return end

    def scan(
        self, buf: bytes, pos: int = 0, *, file_end: int | None = None, stopped: bool = False
    ) -> Iterator[Batch | framing.Frame | framing.Corruption | int]:
        layout = self.layout
        sizes = layout.header + layout.footer
        retry = RETRY  # records taken one by one before trying find() again
        limit = _FIRST_LIMIT  # bytes a find() looks at: grows while batches fill it
        while True:
            taken = 0
            while True:  # batches while they fill what find() looks at
                # Right after damage, check a few records first: more damage is often near.
                checked = _FIRST_CHECKED if limit == _FIRST_LIMIT else limit
                batch = find(buf, pos, self.lead, limit, checked, layout)
                if batch is None:
                    break
                yield batch
                taken += len(batch)
                full = batch.end - pos >= limit // 2
                pos = batch.end
                if not full:  # it stopped at damage, a record of another shape, or the end
                    break
                limit = min(2 * limit, BATCH_BYTES)
            # Few records found together (damage, records of another shape): look less often.
            retry = RETRY if taken >= 16 * RETRY else min(2 * retry, _MAX_RETRY)
            limit = _FIRST_LIMIT
            taken = 0
            for item in layout.framing.scan(buf, pos, file_end=file_end, stopped=stopped):
                if isinstance(item, int):
                    yield item
                    return
                yield item
                if isinstance(item, framing.Frame):
                    pos = item.offset + sizes + len(item.payload)
                    taken += 1
                    if taken >= retry:
                        break
                else:
                    pos = item.end


def u8_at(buf: bytes) -> np.ndarray:
    """``out[i]``: the little-endian uint64 at byte ``i`` of ``buf`` (any alignment)."""
    return np.ndarray((max(len(buf) - 7, 0),), "<u8", buffer=buf, strides=(1,))


def u32_at(buf: bytes) -> np.ndarray:
    """``out[i]``: the little-endian uint32 at byte ``i`` of ``buf`` (any alignment)."""
    return np.ndarray((max(len(buf) - 3, 0),), "<u4", buffer=buf, strides=(1,))


def find(
    buf: bytes, pos: int, lead: int, limit: int = 1 << 62, checked: int = 1 << 62, layout: Layout | None = None
) -> Batch | None:
    """The valid records from ``pos`` on, as far as they can be found together and lie in
    ``buf`` and in ``pos + limit`` bytes; None when fewer than :data:`MIN_RECORDS`. The
    first checksum pass covers ``checked`` records, each next twice as many. The
    framing is ``layout``'s (by default :data:`TFRECORD`)."""
    layout = TFRECORD if layout is None else layout
    sizes = layout.header + layout.footer
    stop = min(len(buf), pos + limit)
    if stop - pos < MIN_RECORDS * (sizes + 1):
        return None
    starts = _chain(buf, pos, stop, lead, layout)
    if len(starts) < MIN_RECORDS:
        return None
    lengths = u8_at(buf)[starts].astype(np.int64)
    good = layout.valid(buf, starts, lengths, checked)
    if good < MIN_RECORDS:
        return None
    starts, lengths = starts[:good], lengths[:good]
    end = int(starts[-1] + lengths[-1]) + sizes
    return Batch(buf, pos, end, starts + layout.header, lengths, layout.header, layout.footer)


def _chain(buf: bytes, pos: int, stop: int, lead: int, layout: Layout) -> np.ndarray:
    """Frame offsets of the records linked from ``pos`` whose frames end by ``stop``."""
    header, sizes = layout.header, layout.header + layout.footer
    arr = np.frombuffer(buf, np.uint8, stop - pos, pos)
    words = u32_at(buf)
    # A candidate q has buf[q + header] == lead and four zero bytes at q + 4.
    cand = np.flatnonzero(arr[header : stop - pos - layout.footer] == lead) + pos
    cand = cand[words[cand + 4] == 0]
    nxt = cand + (sizes + words[cand].astype(np.int64))
    # Where a candidate is not followed by the next one: the chain leaves the candidates.
    breaks = np.flatnonzero(nxt[:-1] != cand[1:])
    pieces: list[np.ndarray] = []
    q = pos  # where the next record starts
    aside = 0  # records in a row whose payload does not start with lead
    taken = rounds = 0
    while q + sizes <= stop:  # once per stretch of linked candidates, and per record outside them
        rounds += 1
        if rounds > 64 and taken < _MIN_PER_STRETCH * rounds:
            break
        i = int(np.searchsorted(cand, q))
        if i < len(cand) and cand[i] == q:
            b = int(np.searchsorted(breaks, i))
            k = int(breaks[b]) if b < len(breaks) else len(cand) - 1
            pieces.append(cand[i : k + 1])
            taken += k + 1 - i
            q = int(nxt[k])
            aside = 0
        elif words[q + 4] == 0 and aside < layout.aside:
            pieces.append(np.array([q], np.int64))
            taken += 1
            q += sizes + int(words[q])
            aside += 1
        else:
            break
    if not pieces:
        return np.zeros(0, np.int64)
    out: np.ndarray = np.concatenate(pieces) if len(pieces) > 1 else pieces[0]
    if q > stop:  # the last record runs past the buffer
        out = out[:-1]
    return out


def _valid_prefix(buf: bytes, starts: np.ndarray, lengths: np.ndarray, count: int) -> int:
    """How many of the records (frame offsets ``starts``, payload ``lengths``), taken in
    order, have both checksums valid before the first that has not; checked ``count``
    records first, then twice as many each pass."""
    good = 0
    n = len(starts)
    # ``count``: records of the next stretch; twice as many after each that passed.
    while good < n:
        first = int(starts[good])
        # Up to _STRETCH bytes, at least one record.
        last = max(good + 1, int(np.searchsorted(starts, first + _STRETCH, "right")))
        last = min(last, n, good + count)
        count *= 2
        if _all_valid(buf, starts[good:last], lengths[good:last]):
            good = last
            continue
        lo, hi = good, last - 1  # records lo..hi: the first bad one is among them
        while lo < hi:
            mid = (lo + hi) // 2
            if _all_valid(buf, starts[lo : mid + 1], lengths[lo : mid + 1]):
                lo = mid + 1
            else:
                hi = mid
        return lo
    return good


def _all_valid(buf: bytes, starts: np.ndarray, lengths: np.ndarray) -> bool:
    """Whether every record of a contiguous stretch has both checksums valid."""
    first = int(starts[0])
    stop = int(starts[-1] + lengths[-1]) + _FRAMING
    copy = np.frombuffer(buf, np.uint8, stop - first, first).copy()
    words = u32_at(buf)
    rel = starts - first
    out = np.ndarray((len(copy) - 3,), "<u4", buffer=copy, strides=(1,))
    out[rel + 8] = _unmask(words[starts + 8]) ^ np.uint32(_affine(8))
    trailers = starts + HEADER_SIZE + lengths
    table = _affine_table()
    if int(lengths.max()) < len(table):
        fix = table[lengths]
    else:
        uniq, inverse = np.unique(lengths, return_inverse=True)
        fix = np.array([_affine(int(u)) for u in uniq], np.uint32)[inverse]
    out[rel + HEADER_SIZE + lengths] = _unmask(words[trailers]) ^ fix
    return bool(google_crc32c.value(copy) == _affine(len(copy)))


def _unmask(masked: np.ndarray) -> np.ndarray:
    """The CRCs whose masked values (as the framing stores them) are ``masked``."""
    x = masked.astype(np.uint32) - np.uint32(_MASK_DELTA)
    out: np.ndarray = (x << np.uint32(15)) | (x >> np.uint32(17))
    return out


@functools.cache
def _affine_table() -> np.ndarray:
    """:func:`_affine` of 0 to 4095 bytes."""
    out = np.empty(4096, np.uint32)
    out[0] = 0
    for n in range(1, len(out)):  # one more zero byte each: a step of the register
        crc = int(out[n - 1]) ^ _ONES
        crc = _TABLE_LIST[crc & 0xFF] ^ (crc >> 8)
        out[n] = crc ^ _ONES
    return out


@functools.lru_cache(maxsize=4096)
def _affine(n: int) -> int:
    """What the initial and final XOR add to the CRC-32C of any ``n`` bytes."""
    return _shift(_ONES, n) ^ _ONES


#: TensorBoard's framing (:mod:`visualdl._formats.framing`): both checksums checked.
TFRECORD = Layout(HEADER_SIZE, FOOTER_SIZE, _valid_prefix, framing, _ASIDE)
