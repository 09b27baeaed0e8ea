"""VisualDL 2 scalar records of the common shape, many at once, read from their bytes with
numpy. Pure; no I/O.

Nearly every record VisualDL 2 writes for ``add_scalar`` is the same few fields, in the
canonical encoding of its ``Record``: one ``values`` element (key ``0x0a``, a varint
length) holding ``id`` (``0x08``, the step, a varint, absent when 0), ``tag``
(``0x12``, absent when empty), ``timestamp`` (``0x18``, a varint, absent when 0) and
``value`` (``0x25``, a float). ``add_scalars`` writes ``tag_value`` (``0x72``) instead
of ``value``: a ``TagValue`` of a ``tag`` (``0x0a``) and a ``value`` (``0x15``), each
absent when empty or 0. :func:`read` tells, for each payload of a batch, whether it is
exactly that, field after field up to the payload's end (else it is left to the full
parser: nothing is guessed), and reads its point: what :func:`visualdl._formats.vdl2.decode.decode`
reads from it.

Tags are told apart as :mod:`visualdl._formats.tfevents.scalars` tells them (by a hash of their bytes,
then word by word); a tag that is not UTF-8 is left to the full parser (which refuses
it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from visualdl._formats.framebatch import u8_at
from visualdl._formats.tfevents.scalars import group_tags, varint_bits

__all__ = ["Scalars", "read"]

_VALUES_KEY, _ID_KEY, _TAG_KEY, _STAMP_KEY, _VALUE_KEY, _TAG_VALUE_KEY = 0x0A, 0x08, 0x12, 0x18, 0x25, 0x72
_SUB_TAG_KEY, _SUB_VALUE_KEY = 0x0A, 0x15
#: Bytes after the last payload that a read may look at (zeros): a varint, a float.
_PAD = 24
_STOPS = np.uint64(0x8080808080808080)
#: ``[i]``: the low ``i`` bytes of a word.
_LOW_BYTES = np.array([(1 << (8 * i)) - 1 for i in range(9)], np.uint64)
#: Lengths above this are no length of a field in a batch (a batch holds at most 2**31 bytes).
_MAX_LENGTH = np.uint64(1 << 40)


@dataclass(frozen=True, slots=True)
class Scalars:
    """The points of the payloads of the common shape: ``common[i]`` tells payload ``i``;
    the points are those payloads in order, ``tag_ids`` indexing ``tags``; ``stamps``
    are the ``timestamp`` fields as written."""

    common: np.ndarray
    tags: list[str]
    tag_ids: np.ndarray
    steps: np.ndarray
    values: np.ndarray
    stamps: np.ndarray


def _varints(arr: np.ndarray, words: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(values, ends, ok)`` of the varints at ``at`` (uint64, as protobuf reads them:
    modulo 2**64): ``ok`` when a varint ends within 10 bytes and its tenth byte, if any,
    is 0 or 1 (other tenth bytes are left to the parser)."""
    lo = words[at]
    stops = ~lo & _STOPS
    bit = stops & (~stops + np.uint64(1))  # the top bit of the last byte, if in the first 8
    size = (np.log2(np.maximum(bit, np.uint64(1)).astype(np.float64)).astype(np.int64) >> 3) + 1
    b9 = arr[at + 8].astype(np.uint64)
    b10 = arr[at + 9].astype(np.uint64)
    in_lo = stops != 0
    size = np.where(in_lo, size, np.where(b9 < 0x80, 9, 10))
    ok = in_lo | (b9 < 0x80) | (b10 <= 1)
    value = varint_bits(lo & _LOW_BYTES[np.minimum(size, 8)])
    value |= np.where(size >= 9, (b9 & np.uint64(0x7F)) << np.uint64(56), np.uint64(0))
    value |= np.where(size == 10, b10 << np.uint64(63), np.uint64(0))
    return value, at + size, ok


def _optional(
    arr: np.ndarray, words: np.ndarray, at: np.ndarray, key: int, stop: np.ndarray, ok: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(values, next)``: the varint field ``key`` at ``at`` if there, before ``stop``
    (else 0), and where the next field starts; ``ok`` is cleared where the varint is refused."""
    there = (arr[at] == key) & (at < stop)
    value, end, fine = _varints(arr, words, at + 1)
    ok &= ~there | fine
    return np.where(there, value, np.uint64(0)), np.where(there, end, at)


def _string(
    arr: np.ndarray, words: np.ndarray, at: np.ndarray, key: int, stop: np.ndarray, ok: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(start, length, next)`` of the length-delimited field ``key`` at ``at`` if there
    (else empty), ending by ``stop``; ``ok`` cleared where it does not."""
    there = (arr[at] == key) & (at < stop)
    size, start, fine = _varints(arr, words, at + 1)
    fine &= size <= _MAX_LENGTH
    length = np.where(there & fine, size, np.uint64(0)).astype(np.int64)
    start = np.where(there, start, at)
    end = start + length
    ok &= ~there | fine
    ok &= end <= stop
    return start, length, np.minimum(end, stop)


def read(buf: bytes, starts: np.ndarray, lengths: np.ndarray) -> Scalars:
    """The scalar points of the payloads ``buf[starts[i] : starts[i] + lengths[i]]``, in
    order (``starts`` increasing)."""
    if len(starts) == 0:
        empty = np.zeros(0, np.int64)
        return Scalars(np.zeros(0, bool), [], empty, empty, np.zeros(0, np.float64), empty)
    first = int(starts[0])
    # A copy of the payloads' bytes with zeros after them: every read below stays in it.
    data = buf[first : int(starts[-1] + lengths[-1])] + bytes(_PAD)
    arr = np.frombuffer(data, np.uint8)
    words = u8_at(data)
    s = starts - first
    end = s + lengths
    ok = (lengths >= 2) & (arr[s] == _VALUES_KEY)
    # One values element, ending exactly at the payload's end.
    size, at, fine = _varints(arr, words, s + 1)
    ok &= fine & (size <= _MAX_LENGTH)
    ok &= at + size.astype(np.int64) == end
    at = np.minimum(at, end)
    steps, at = _optional(arr, words, at, _ID_KEY, end, ok)
    tag_start, tag_len, at = _string(arr, words, at, _TAG_KEY, end, ok)
    stamps, at = _optional(arr, words, at, _STAMP_KEY, end, ok)
    at = np.minimum(at, end)
    key = arr[at]
    scalar = (key == _VALUE_KEY) & (at + 5 == end)
    # add_scalars: a TagValue running to the end, its tag and value each optional.
    pair = np.zeros(len(s), bool)
    value_at = at + 1
    sub_start = np.zeros(len(s), np.int64)
    sub_len = np.zeros(len(s), np.int64)
    no_value = np.zeros(len(s), bool)
    maybe = np.flatnonzero(key == _TAG_VALUE_KEY)
    if len(maybe):
        stop = end[maybe]
        inner, inner_at, fine = _varints(arr, words, at[maybe] + 1)
        fine &= inner <= _MAX_LENGTH
        fine &= inner_at + inner.astype(np.int64) == stop
        start, length, after = _string(arr, words, np.minimum(inner_at, stop), _SUB_TAG_KEY, stop, fine)
        there = (arr[after] == _SUB_VALUE_KEY) & (after < stop)
        fine &= np.where(there, after + 5, after) == stop
        pair[maybe], value_at[maybe], no_value[maybe] = fine, after + 1, ~there
        sub_start[maybe], sub_len[maybe] = start, length
    ok &= scalar | pair
    bits = words[value_at] & np.uint64(0xFFFFFFFF)
    bits = np.where(no_value, np.uint64(0), bits)  # a TagValue's value absent: 0.0
    idx = np.flatnonzero(ok)
    pair = pair[idx]
    main, main_ids, same = group_tags(data, tag_start[idx], tag_len[idx])
    sub_ids = np.full(len(idx), -1, np.int64)
    if pair.any():
        at_pair = np.flatnonzero(pair)
        sub, ids, sub_same = group_tags(data, sub_start[idx][at_pair], sub_len[idx][at_pair])
        sub_ids[at_pair] = ids
        same[at_pair] &= sub_same
    else:
        sub = []
    keep = np.flatnonzero(same)
    idx, main_ids, sub_ids = idx[keep], main_ids[keep], sub_ids[keep]
    common = np.zeros(len(starts), bool)
    common[idx] = True
    # The tags: a main tag alone, or main/sub; the same name either way is one tag.
    pairs, pair_ids = np.unique(main_ids * (len(sub) + 1) + (sub_ids + 1), return_inverse=True)
    names: dict[str, int] = {}
    renumber = np.empty(len(pairs), np.int64)
    for i, code in enumerate(pairs.tolist()):
        m, k = divmod(code, len(sub) + 1)
        name = main[m] if k == 0 else f"{main[m]}/{sub[k - 1]}"
        renumber[i] = names.setdefault(name, len(names))
    values = bits[idx].astype(np.uint32).view(np.float32).astype(np.float64)
    return Scalars(
        common,
        list(names),
        renumber[pair_ids.reshape(-1)],
        steps[idx].view(np.int64),
        values,
        stamps[idx].view(np.int64),
    )
