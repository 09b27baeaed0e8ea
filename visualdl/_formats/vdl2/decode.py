"""VisualDL 2 log files (``vdlrecords.*``): their framing, and their records turned
into the events of our own kinds. Pure: bytes in, no file I/O.

Framing (VisualDL 2.x ``RecordWriter.write``): each record is an 8-byte unsigned
length, little-endian, then that many bytes of a serialized ``Record``
(``proto/vdl2_record.proto``). No header, no checksum, no footer. A writer appends
length and record in one write, and only ever appends.

:func:`scan` walks a buffer from an offset and tells three things apart, since
nothing checks the bytes:

* a whole record: its length is at most :data:`MAX_RECORD_BYTES`, at least 2, it
  fits in the buffer, and its payload is what VisualDL 2 writes: ``values``
  elements (byte ``0x0a``, a varint length, that many bytes), one after the other,
  ending exactly at the record's end (one element in VisualDL 2's files; the first
  16 are checked, the rest is protobuf's to refuse);
* a torn tail, a record not all written yet: the bytes up to the end of the buffer
  are a possible start of a record (a length prefix cut short, or a plausible
  length whose payload runs past the end). It is no problem: the scan stops before
  it, and :attr:`Scan.wait_until` says how long the buffer must be to complete it;
* garbage: anything else (VisualDL 2's own reader trusts the length and dies with a
  ``MemoryError`` on a huge one). It is a problem at its byte offset; the scan skips
  to the next offset where a record could start, or to the end of the buffer.

:func:`decode` turns records into ``(kind, tag, event)`` items, the items
:meth:`visualdl._kinds.table.Kind.decode` gives for our own records:

* ``value`` (``add_scalar``): a point of the tag; the value is the float64 of the
  float32 stored, exactly. ``tag_value`` (``add_scalars``): a point of the tag
  ``main_tag/sub_tag``. All the points of a call are in one
  :class:`~visualdl._kinds.table.ScalarBlock`, tag after tag (in order of first
  appearance), each tag's points in file order.
* ``image``: an :class:`~visualdl._kinds.table.ImageEvent` whose height, width and
  channels come from the PNG's IHDR chunk (pixels are not decoded); the PNG stays
  in the file, found again by :func:`png_of`.
* ``histogram``: a :class:`~visualdl._kinds.table.HistogramEvent` of the stored
  ``numpy.histogram`` counts and edges. VisualDL 2 stores nothing else, so ``min``
  and ``max`` are the outer edges (numpy makes them the values' minimum and
  maximum, except for constant values ``v``, where they are ``v - 0.5`` and
  ``v + 0.5``), ``sum`` and ``sum_squares`` are approximated from the bucket
  centres, and the NaN and infinity counts are 0 (numpy refuses such values, so
  VisualDL 2 cannot write them).
* ``text``: a :class:`~visualdl._kinds.table.TextEvent`.
* ``audio``: an :class:`~visualdl._kinds.table.AudioEvent`; the WAV stays in the file, as
  an image's PNG.
* ``pr_curve``, ``roc_curve``: a :class:`~visualdl._kinds.table.PrCurveEvent` or
  :class:`~visualdl._kinds.table.RocCurveEvent` of the stored counts and rates; VisualDL 2
  stores no thresholds: threshold ``i`` of ``n`` is ``i / (n - 1)``, as its writer
  bins predictions.
* ``hparam``: an :class:`~visualdl._kinds.table.HParamsEvent` (tag
  :data:`~visualdl._kinds.table.HPARAMS_TAG`) of the values as typed (int, float, str) and
  the metrics' names (their stored ``float_value`` 0 means nothing).
* ``embeddings``: an :class:`~visualdl._kinds.table.EmbeddingsEvent`; its labels are the
  rows' ``label`` columns, named by ``label_meta`` (one unnamed column: ``label``).
  Each row's vector is a field of its own, so :func:`embedding_vectors` gathers them
  when asked, from the record parsed again.
* ``meta_data``: a :class:`Meta` (the writer's display name), not an event.
* the kinds without a view here (:data:`COUNTED_KINDS`, and values of no known
  kind) are counted per tag and kind in :attr:`Decoded.counted`.

Wall times are seconds: the ``timestamp`` field holds milliseconds since the epoch
(seconds before VisualDL 2.0.3), told apart by magnitude as our SDK does with a
``walltime``: above :data:`WALLTIME_MS_THRESHOLD` it is milliseconds.

For the reader: :data:`FRAMING` is this framing as :class:`visualdl._index.tail.LogFile`
takes one (the ``scan`` and ``claimed_end`` of :mod:`visualdl._formats.framing`, whose rules
on "not yet written", torn writes of a stopped file and corruption it follows);
:data:`BATCHED` is the same framing yielding stretches of records of one value as
:class:`visualdl._formats.framebatch.Batch` items (found with numpy, each checked as
:func:`scan` checks it; exactly what :data:`FRAMING` yields, fewer items);
:class:`FileDecoder` follows one file's records read after read (its writer's
header, the kinds not shown, problems), reading the scalar records of a batch from
their bytes (:mod:`visualdl._formats.vdl2.scalars`) and parsing the others; :func:`blob_span`
finds an image's PNG in a record without reading it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from google.protobuf.message import DecodeError

from visualdl._formats.format import UNREADABLE, unreadable
from visualdl._formats.framebatch import Batch
from visualdl._formats.points import Points
from visualdl._formats.vdl2 import scalars as vdl2scalars
from visualdl._formats.vdl2.framing import (
    _VALUES_KEY,
    BATCHED,
    FILE_MARKER,
    FRAMING,
    HEAD_SIZE,
    LAYOUT,
    MAX_RECORD_BYTES,
    Scan,
    _varint,
    is_vdl2_file,
    length_of,
    scan,
)
from visualdl._formats.vdl2.values import (
    _HPARAMS,
    _SCALARS,
    NOT_READ,
    READERS,
    ValueRef,
    _seconds,
    _Value,
    embedding_vectors,
    parse_record,
    png_of,
)
from visualdl._formats.vdlog.logformat import WALLTIME_MS_THRESHOLD
from visualdl._formats.writerstate import WriterState
from visualdl._kinds.table import (
    HPARAMS_TAG,
    ScalarBlock,
)
from visualdl.errors import LogFormatError
from visualdl.proto import pb, vdl2

__all__ = [
    "BATCHED",
    "COUNTED_KINDS",
    "NOT_READ",
    "READERS",
    "FILE_MARKER",
    "FRAMING",
    "HEAD_SIZE",
    "LAYOUT",
    "MAX_RECORD_BYTES",
    "Decoded",
    "FileDecoder",
    "Meta",
    "Scan",
    "ValueRef",
    "decode",
    "embedding_vectors",
    "is_vdl2_file",
    "length_of",
    "parse_record",
    "png_of",
    "scan",
]

#: VisualDL 2's kinds that have no view here: their values are counted, not read (none
#: now; values of no known kind are still counted, as ``"unknown"``).
COUNTED_KINDS: tuple[str, ...] = ()


# -- records ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Meta:
    """A ``meta_data`` value: written first by every VisualDL 2 writer (its start
    time), again by ``add_meta``. VisualDL 2 shows a run by its last non-empty
    display name."""

    offset: int
    wall_time: float
    display_name: str


@dataclass(frozen=True, slots=True)
class Decoded:
    """What :func:`decode` made of some records."""

    #: ``(kind, tag, event)``, kinds and events as :data:`visualdl._kinds.table.KINDS` makes
    #: them; all scalar points in one ``("scalars", "", ScalarBlock)`` item, last.
    events: list[tuple[str, str, object]]
    meta: list[Meta]
    #: ``(tag, VisualDL 2 kind) -> values`` of the kinds not shown (``"unknown"``: no known kind).
    counted: dict[tuple[str, str], int]
    #: ``(offset of the record, message)`` of what could not be read.
    problems: list[tuple[int, str]]


def _one_value(payload: bytes) -> bool:
    """Whether ``payload`` is exactly one ``values`` element (then it parses alone as it
    does among others: no element runs on into the next payload)."""
    if len(payload) > 1 and payload[0] == _VALUES_KEY and payload[1] == len(payload) - 2 < 0x80:
        return True  # the common case: a one-byte length
    if payload[:1] != b"\n":
        return False
    size, after = _varint(payload, 1, len(payload))
    return after >= 0 and after + size == len(payload)


def _values(
    frames: Sequence[tuple[int, bytes]], problems: list[tuple[int, str]]
) -> tuple[list[int], list[int] | None, Sequence[_Value]]:
    """Every value, in file order, with the offset of its record and its index in the
    record (None: every index is 0).

    Records of one value each are parsed in one protobuf call: their concatenation is
    one Record holding all their values (repeated fields append).
    """
    if all(_one_value(payload) for _, payload in frames):
        try:
            merged = vdl2.Record.FromString(b"".join(payload for _, payload in frames)).values
        except DecodeError:
            merged = None
        if merged is not None and len(merged) == len(frames):
            return [offset for offset, _ in frames], None, merged
    offsets: list[int] = []
    indices: list[int] = []
    values: list[_Value] = []
    for offset, payload in frames:
        try:
            record = parse_record(payload)
        except LogFormatError as e:
            problems.append((offset, e.message))
            continue
        for index, value in enumerate(record.values):
            offsets.append(offset)
            indices.append(index)
            values.append(value)
    return offsets, indices, values


def decode(path: str, items: Sequence[tuple[int, bytes | Batch]]) -> Decoded:
    """The events of the records ``items`` of the file at ``path`` (which only goes into
    the images' :class:`ValueRef`): ``(offset, payload)`` as :attr:`Scan.frames` lists
    them, or ``(offset of its first frame, Batch)``, whose records of the common scalar
    shape are read from their bytes (:mod:`visualdl._formats.vdl2.scalars`), the others parsed."""
    out = _Out()
    points = Points()
    pending: list[tuple[int, bytes]] = []  # records to parse, in file order
    for offset, item in items:
        if not isinstance(item, Batch):
            pending.append((offset, item))
            continue
        _batch_into(path, offset, item, pending, points, out)
    _values_into(path, pending, points, out)
    block = points.block()
    if block is not None:
        out.events.append((_SCALARS, "", block))
    out.problems.sort(key=lambda problem: problem[0])  # file order: records that did not parse came first
    return Decoded(out.events, out.meta, out.counted, out.problems)


def _batch_into(
    path: str, offset: int, item: Batch, pending: list[tuple[int, bytes]], points: Points, out: _Out
) -> None:
    """The records of ``item`` (its first frame at ``offset``), after those ``pending``:
    the common scalars read from their bytes, the others left pending, in file order."""
    found = vdl2scalars.read(item.buf, item.starts, item.lengths)
    common = np.flatnonzero(found.common)
    # The tags in order of their first point: ids given in file order, as one by one.
    uniq, first = np.unique(found.tag_ids, return_index=True)
    order = np.argsort(first)
    tag_order, tag_first = uniq[order].tolist(), first[order].tolist()
    ids = np.zeros(len(found.tags), np.int64)
    columns = (found.tag_ids, found.steps, found.values, _walls(found.stamps))
    done = named = 0

    def take(cut: int) -> None:
        """The points of the common records up to point ``cut``, after the records pending."""
        nonlocal done, named
        _values_into(path, pending, points, out)
        pending.clear()
        while named < len(tag_first) and tag_first[named] < cut:
            ids[tag_order[named]] = points.id(found.tags[tag_order[named]])
            named += 1
        tag_ids, steps, values, walls = (c[done:cut] for c in columns)
        points.add_columns(ids[tag_ids], steps, values, walls)
        done = cut

    others = np.flatnonzero(~found.common)
    cuts = np.searchsorted(common, others).tolist()
    for cut, i in zip(cuts, others.tolist(), strict=True):
        if cut > done:
            take(cut)
        pending.append((offset + item.frame(i), item.payload(i)))
    if done < len(common):
        take(len(common))


class _Out:
    """What :func:`decode` gathers but the points."""

    __slots__ = ("events", "meta", "counted", "problems")

    def __init__(self) -> None:
        self.events: list[tuple[str, str, object]] = []
        self.meta: list[Meta] = []
        self.counted: dict[tuple[str, str], int] = {}
        self.problems: list[tuple[int, str]] = []


def _walls(stamps: np.ndarray) -> np.ndarray:
    """Wall times (seconds) of ``timestamp`` fields: milliseconds above the threshold."""
    stamp = stamps.astype(np.float64)
    out: np.ndarray = np.where(stamp > WALLTIME_MS_THRESHOLD, stamp / 1000.0, stamp)
    return out


def _values_into(path: str, frames: Sequence[tuple[int, bytes]], points: Points, out: _Out) -> None:
    """The values of the records ``frames``, parsed: their points into ``points``, the rest into ``out``."""
    if not frames:
        return
    offsets, indices, all_values = _values(frames, out.problems)
    events, meta, counted, problems = out.events, out.meta, out.counted, out.problems
    add = points.add
    for i, value in enumerate(all_values):
        which = value.WhichOneof("one_value")
        if which == "value":
            add(value.tag, value.id, value.value, _seconds(value.timestamp))
        elif which == "tag_value":
            add(f"{value.tag}/{value.tag_value.tag}", value.id, value.tag_value.value, _seconds(value.timestamp))
        else:
            offset = offsets[i]
            if which == "meta_data":
                meta.append(Meta(offset, _seconds(value.timestamp), value.meta_data.display_name))
            elif which in READERS:
                kind, make = READERS[which]
                ref = ValueRef(path, offset, 0 if indices is None else indices[i])
                tag = HPARAMS_TAG if kind == _HPARAMS else value.tag
                try:
                    events.append((kind, tag, make(value, value.id, _seconds(value.timestamp), ref)))
                except UNREADABLE as e:  # the value is bad: it alone is lost
                    problems.append((offset, f"{which} {value.tag!r}: {unreadable(e)}"))
            else:
                key = (value.tag, which or "unknown")
                counted[key] = counted.get(key, 0) + 1


# -- following a file ------------------------------------------------------------


class FileDecoder:
    """Follows the records of one file, read after read, as
    :class:`visualdl._formats.tfevents.decode.EventDecoder` follows an event file.

    :meth:`decode` turns ``(offset, payload)`` items into ``(kind, tag, event)`` items
    (:func:`decode`), and keeps what is not an event: :attr:`header`, what is known of
    the writer as our header says it (its start time is the wall time of the file's
    first ``meta_data``, else of its first value; its display name is the last
    non-empty one, as VisualDL 2 shows it; no host, pid or rank); the counts of the
    kinds not shown (:meth:`unshown`); and the problems, until taken.
    """

    __slots__ = ("header", "counted", "problems")

    def __init__(self) -> None:
        self.header: pb.Header | None = None
        #: ``(tag, VisualDL 2 kind) -> values`` not shown, over every read.
        self.counted: dict[tuple[str, str], int] = {}
        #: ``(offset, message)`` of the records that could not be read, since last taken.
        self.problems: list[tuple[int, str]] = []

    @property
    def writer(self) -> WriterState:
        """The header alone: a writer of this format never says it closed the file, nor how it ended."""
        return WriterState(header=self.header)

    def decode(self, path: str, items: Sequence[tuple[int, bytes | Batch]]) -> list[tuple[str, str, object]]:
        with np.errstate(all="ignore"):  # whatever the numbers written, no warnings
            decoded = decode(path, items)
        self.problems.extend(decoded.problems)
        for key, n in decoded.counted.items():
            self.counted[key] = self.counted.get(key, 0) + n
        if self.header is None:
            start = _first_wall_time(decoded)
            if start is not None:
                self.header = pb.Header(start_time=start, pid=-1, rank=-1, world_size=-1, local_rank=-1, attempt=-1)
        names = [m.display_name for m in decoded.meta if m.display_name]
        if names and self.header is not None:
            self.header.display_name = names[-1]
        return decoded.events

    def unshown(self) -> tuple[tuple[str, str, int], ...]:
        """``(tag, VisualDL 2 kind, values)`` of what the file holds and is not shown."""
        return tuple((tag, kind, n) for (tag, kind), n in sorted(self.counted.items()))


def _first_wall_time(decoded: Decoded) -> float | None:
    if decoded.meta:
        return decoded.meta[0].wall_time
    walls = [
        float(e.wall_times.min()) if isinstance(e, ScalarBlock) else float(getattr(e, "wall_time", 0.0))
        for _, _, e in decoded.events
    ]
    return min(walls, default=None)
