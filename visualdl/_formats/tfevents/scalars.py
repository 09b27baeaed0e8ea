"""TensorBoard scalar events of the common shape, many at once, read from their bytes with
numpy. Pure; no I/O.

Nearly every event a writer produces for a scalar is the same few bytes, in the
canonical encoding of ``tensorflow.Event``: ``wall_time`` (key ``0x09``, a double),
``step`` (key ``0x10``, a varint, absent when 0), then ``summary`` (``0x2a``) holding one
``value`` (``0x0a``) of a ``tag`` (``0x0a``) and a ``simple_value`` (``0x15``, a float),
every length below 128. :func:`read` tells, for each payload of a batch, whether it has
exactly that shape (the bytes say so, or it is left to the full parser: nothing is
guessed), and reads wall time, step, tag and value of those that do: what
:func:`visualdl._formats.tfevents.decode.simple_scalar` reads from one payload, for all at once.

Tags are told apart by their bytes: payloads are grouped by a hash of their tag's
bytes, and each payload's tag is then compared with its group's first, word by word;
one that differs (a hash collision) is left to the full parser, as is a tag that is
not UTF-8.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from visualdl._formats.framebatch import u8_at

__all__ = ["Scalars", "group_tags", "read", "varint_bits"]

_WALL_KEY, _STEP_KEY, _SUMMARY_KEY, _VALUE_KEY, _TAG_KEY, _SIMPLE_KEY = 0x09, 0x10, 0x2A, 0x0A, 0x0A, 0x15
#: Step varints longer than this are left to the full parser (steps below 2**63 take 9 bytes).
_MAX_VARINT = 10
_MIX = np.uint64(0x9E3779B97F4A7C15)
#: ``[i]``: the low ``i`` bytes of a word.
_LOW_BYTES = np.array([(1 << (8 * i)) - 1 for i in range(9)], np.uint64)
_HEAD_KEYS = np.uint64(_SUMMARY_KEY | _VALUE_KEY << 16 | _TAG_KEY << 32)


def varint_bits(v: np.ndarray) -> np.ndarray:
    """The values of varints of at most 7 bytes, their bytes given little-endian in ``v``
    (bytes after the last cleared): the 7 low bits of each byte, packed."""
    x = v & np.uint64(0x7F7F7F7F7F7F7F7F)
    x = (x & np.uint64(0x007F007F007F007F)) | ((x & np.uint64(0x7F007F007F007F00)) >> np.uint64(1))
    x = (x & np.uint64(0x00003FFF00003FFF)) | ((x & np.uint64(0x3FFF00003FFF0000)) >> np.uint64(2))
    out: np.ndarray = (x & np.uint64(0x000000000FFFFFFF)) | ((x & np.uint64(0x0FFFFFFF00000000)) >> np.uint64(4))
    return out


@dataclass(frozen=True, slots=True)
class Scalars:
    """The points of the payloads of the common shape: ``common[i]`` tells payload ``i``;
    the points are those payloads in order, ``tag_ids`` indexing ``tags``."""

    common: np.ndarray
    tags: list[str]
    tag_ids: np.ndarray
    steps: np.ndarray
    values: np.ndarray
    walls: np.ndarray


def read(buf: bytes, starts: np.ndarray, lengths: np.ndarray) -> Scalars:
    """The scalar points of the payloads ``buf[starts[i] : starts[i] + lengths[i]]``
    (each followed in ``buf`` by at least 4 more bytes, as a framed record is)."""
    arr = np.frombuffer(buf, np.uint8)
    words = u8_at(buf)
    ok = (lengths >= 16) & (lengths < 0x80 + 9)
    idx = np.flatnonzero(ok)
    s, n = starts[idx], lengths[idx]
    fine = arr[s] == _WALL_KEY
    # Bytes 9 to 16: the step's key and varint (absent when the step is 0), or the summary.
    head = words[s + 9]
    has_step = (head & np.uint64(0xFF)) == _STEP_KEY
    # The varint's last byte is the first of bytes 1 to 7 with its top bit clear.
    ends = ~head & np.uint64(0x8080808080808000)
    fine &= ~has_step | (ends != 0)  # a step of more than 7 varint bytes (2**49 and up): left to the parser
    last = ends & (~ends + np.uint64(1))  # its top bit alone
    size = ((np.log2(np.maximum(last, np.uint64(1)).astype(np.float64)).astype(np.int64) - 7) >> 3).clip(0)
    step = varint_bits((head & ((last << np.uint64(1)) - np.uint64(1))) >> np.uint64(8))
    pos = np.where(has_step, 10 + size, 9)  # the summary's key
    step = np.where(has_step, step, np.uint64(0))
    fine &= pos + 6 <= n
    p = s + np.minimum(pos, n - 6)  # in bounds for every payload; the unfit are dropped
    rest = n - (p - s)
    summary = words[p]  # key, length, value key, length, tag key, tag length, 2 bytes of the tag
    # Key, length, key, length, key of the summary, its value and the tag: known but for the lengths.
    lengths_of = (rest - 2) | ((rest - 4) << 16)
    expect = _HEAD_KEYS | lengths_of.astype(np.uint64) << np.uint64(8)
    fine &= ((summary & np.uint64(0xFFFFFFFFFF)) == expect) & (rest - 2 < 0x80) & (rest >= 4)
    tag_len = ((summary >> np.uint64(40)) & np.uint64(0xFF)).astype(np.int64)
    tag_start = p + 6
    tag_end = tag_start + tag_len
    fine &= (tag_len < 0x80) & (tag_end + 5 == s + n)
    tag_end = np.minimum(tag_end, s + n - 5)
    tail = words[tag_end]  # the simple_value key and the float
    fine &= (tail & np.uint64(0xFF)) == _SIMPLE_KEY
    if not fine.all():
        keep = np.flatnonzero(fine)
        idx, s, tag_start, tag_len = idx[keep], s[keep], tag_start[keep], tag_len[keep]
        tail, step = tail[keep], step[keep]
    tags, tag_ids, same = group_tags(buf, tag_start, tag_len)
    common = np.zeros(len(starts), bool)
    common[idx[same]] = True
    if not same.all():
        sel = np.flatnonzero(same)
        s, tail, tag_ids, step = s[sel], tail[sel], tag_ids[sel], step[sel]
    walls = words[s + 1].view(np.float64)
    values = ((tail >> np.uint64(8)) & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32)
    return Scalars(common, tags, tag_ids, step.view(np.int64), values.astype(np.float64), walls)


#: Tags hashed from the first payloads; the others are looked up among them.
_SAMPLE = 512


def group_tags(buf: bytes, start: np.ndarray, length: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(tags, ids, same)``: the distinct tags of the byte ranges, the index of each
    range's tag, and whether the range is exactly its tag's bytes (else: a hash
    collision, or a tag that is not UTF-8: left to the full parser)."""
    words = u8_at(buf)
    n_words = (length + 7) // 8
    most = int(n_words.max()) if len(n_words) else 0
    gathered = []
    key = length.astype(np.uint64) * _MIX
    last = len(words) - 1
    for k in range(most):
        # Keep the bytes of the tag only: the word may run into the bytes after it.
        inside = np.clip(length - 8 * k, 0, 8)
        w = words[np.minimum(start + 8 * k, last)] & _LOW_BYTES[inside]
        gathered.append(w)
        key = (key ^ w) * _MIX
        key ^= key >> np.uint64(29)
    # The distinct keys, and the first range of each: from a sample, then from the rest.
    uniq, first = np.unique(key[:_SAMPLE], return_index=True)
    at = np.minimum(np.searchsorted(uniq, key), max(len(uniq) - 1, 0))
    miss = np.flatnonzero(uniq[at] != key) if len(uniq) else np.arange(len(key))
    if len(miss):
        more, more_first = np.unique(key[miss], return_index=True)
        uniq = np.concatenate((uniq, more))
        first = np.concatenate((first, miss[more_first]))
        order = np.argsort(uniq)
        uniq, first = uniq[order], first[order]
        at = np.searchsorted(uniq, key)
    ids = at
    same = np.ones(len(start), bool)
    for w in gathered:
        same &= w == w[first][ids]
    same &= length == length[first][ids]
    tags: list[str] = []
    renumber = np.full(len(uniq), -1, np.int64)
    for i, at in enumerate(first.tolist()):
        raw = buf[int(start[at]) : int(start[at] + length[at])]
        try:
            tags.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            same &= ids != i
            continue
        renumber[i] = len(tags) - 1
    return tags, renumber[ids], same
