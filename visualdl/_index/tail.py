"""Tailing one log file: read the bytes added since last time, return whole records.

The I/O edge of the reader. A record not all written yet is left for the next
read, from the same offset, and the file is not read again until it has grown past
that record's end; a corrupt stretch is reported once (file and byte offset) and
skipped by resynchronising on the next valid record. Reading never raises because
of what a file holds, and never blocks on what is not a regular file (a FIFO).

A file that has stopped growing (its size unchanged for :data:`STOPPED_SECONDS`, as
seen by this reader) is read to its end: a record that runs past the end is then a
torn write, reported once and skipped, so that the valid records after it are read
(``proto/FORMAT.md``, "Framing").
"""

from __future__ import annotations

import logging
import os
import stat
import time
from dataclasses import dataclass
from typing import Any, BinaryIO, cast

import numpy as np

from visualdl._formats import framing as framing
from visualdl._formats.format import Decoder, Format, Framing
from visualdl._formats.framebatch import Batch
from visualdl._formats.protowire import Window
from visualdl._formats.vdlog.format import VDLOG
from visualdl._formats.writerstate import WriterState
from visualdl._kinds.scalars import MAX_POINTS_PER_RECORD
from visualdl._storage.local import open_regular
from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = ["LARGE_RECORD_BYTES", "STOPPED_SECONDS", "LogFile", "Problem", "open_regular"]

log = logging.getLogger("visualdl.reader")

#: Bytes read at a time; a record larger than this is read whole when it is complete
#: (unless larger than :data:`LARGE_RECORD_BYTES`).
_WINDOW = 64 << 20
#: A record larger than this, in a format that can prune it (``Format.prune``), is never
#: read whole: its checksums are checked a chunk at a time and its decoder gets it without
#: its blobs' bytes (a 600 MB image), which are read from the file when asked for.
LARGE_RECORD_BYTES = 16 << 20
#: How much of a file's start is remembered to tell a file rewritten in place.
_HEAD_BYTES = 256
#: A file whose size this reader has seen unchanged for this long has stopped growing.
STOPPED_SECONDS = 60.0
#: A finished file (closed by its writer, or stopped growing) is looked at this often, not
#: at every poll: a logdir of 10,000 finished runs costs a listing, not 10,000 stats.
FINISHED_CHECK_SECONDS = 30.0
#: The clock of :data:`STOPPED_SECONDS` (tests replace it).
_now = time.monotonic
#: What a decoded scalar point costs in memory, for :meth:`LogFile.read`'s budget.
_POINT_BYTES = 24


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong in a file: where, and what."""

    path: str
    offset: int
    message: str


def _cost(record: Any, nbytes: int) -> int:
    """Roughly what a record takes in memory once decoded (scalar columns inflate)."""
    if not isinstance(record, pb.Record):
        return nbytes + _POINT_BYTES  # a foreign format's record: a few points at most
    if record.WhichOneof("kind") != "scalars":
        return nbytes
    counts = record.scalars.counts
    points = sum(counts) if len(counts) <= MAX_POINTS_PER_RECORD else 0  # more: refused when decoded
    return nbytes + _POINT_BYTES * min(points, MAX_POINTS_PER_RECORD)


class LogFile:
    """One log file being followed, in its format (:class:`~visualdl._formats.format.Format`;
    ours by default).

    The format's ``parse`` turns a record's payload into what its decoder takes
    (:class:`LogFormatError` when it cannot), and its ``framing`` finds the records in the
    bytes (the ``scan`` and ``claimed_end`` of :mod:`visualdl._formats.framing`, or alike);
    :attr:`decoder` is this file's decoder, which keeps what it learned of the writer.
    ``source`` gives the bytes of a file that is not one local file (an object in a
    store, a writer's segments: :class:`visualdl._storage.parts.PartsSource`, from the store that listed it).
    """

    __slots__ = (
        "path", "format", "parse", "decoder", "framing", "offset", "writer", "problems", "more",
        "busy", "source", "_identity", "_in_bad_stretch", "_head", "_wait_until", "_size", "_since", "_settled",
        "_reported", "_next_check",
    )  # fmt: skip

    def __init__(self, path: str, fmt: Format = VDLOG, source: Any = None) -> None:
        self.path = path
        self.source = source
        self.format = fmt
        self.parse = fmt.parse
        self.decoder: Decoder = fmt.decoder()
        self.framing: Framing = fmt.framing
        self.offset = 0
        #: What the file's records said of its writer, as its decoder had it after the last read.
        self.writer = WriterState()
        self.problems: list[Problem] = []
        self._identity: object = None
        self._in_bad_stretch = False
        self.more = False  # the last read stopped at its budget: more is there to read now
        self.busy = False  # a reader thread is reading this file
        self._head = b""  # the first bytes read (the header frame): a rewritten file differs
        self._wait_until = 0  # the size the file must reach before a read can get further
        self._size = -1  # the size last seen, and since when (monotonic seconds)
        self._since = 0.0
        self._settled = -1  # the size at which the file was last read as stopped
        self._reported = -1  # the offset of the last bad stretch reported
        self._next_check: float | None = None  # a finished file: when to look at it again (monotonic)

    @property
    def header(self) -> pb.Header | None:
        """The file's writer as its header says it (None until known)."""
        return self.writer.header

    def _problem(self, offset: int, message: str) -> None:
        problem = Problem(self.path, offset, message)
        self.problems.append(problem)
        log.warning("%s at byte %d: %s", self.path, offset, message)

    def _observe(self, size: int) -> None:
        if size != self._size:
            self._size = size
            self._since = _now()

    def stopped(self) -> bool:
        """Whether this reader has seen the file's size unchanged for :data:`STOPPED_SECONDS`."""
        return self._size >= 0 and _now() - self._since >= STOPPED_SECONDS

    def _open(self) -> tuple[BinaryIO, object, int]:
        """The file opened, its identity and its size; ``OSError`` when it cannot be."""
        if self.source is not None:
            return cast("tuple[BinaryIO, object, int]", self.source.open())
        f, st = open_regular(self.path)
        return f, (st.st_dev, st.st_ino), st.st_size

    def due(self, now: float) -> bool:
        """Whether a poll at ``now`` (monotonic seconds) should look at this file: always
        while it may grow, every :data:`FINISHED_CHECK_SECONDS` once it is finished (a
        footer read and nothing after it, or its size unchanged for :data:`STOPPED_SECONDS`,
        and every byte read). The files of a poll are spread over that interval."""
        finished = (self.writer.footer is not None or self.stopped()) and self.offset == self._size and not self.more
        if not finished:
            self._next_check = None
            return True
        if self._next_check is not None and now < self._next_check:
            return False
        first = self._next_check is None  # just read to its end: the next look is an interval away
        self._next_check = now + FINISHED_CHECK_SECONDS * (0.75 + 0.5 * (hash(self.path) % 1000) / 1000)
        return not first

    def status(self) -> str:
        """``"replaced"`` (another file, or a shorter one, is at the path now), ``"grown"``
        (there is something to read) or ``"same"``."""
        if self.source is not None:
            identity, size = self.source.stat()  # as the latest listing found it: no request
        else:
            try:
                st = os.stat(self.path)
            except OSError:
                return "grown"  # let read() report why
            if not stat.S_ISREG(st.st_mode):
                return "grown"
            identity, size = (st.st_dev, st.st_ino), st.st_size
        if self._identity is None:
            self._identity = identity
        if identity != self._identity or size < self.offset:
            return "replaced"
        self._observe(size)
        if size == self.offset or size == self._settled:
            return "same"
        if size < self._wait_until and not self.stopped():
            return "same"  # the record at the offset is not all written yet: nothing to read
        if self._head and not (self.source is not None and self.source.appended):
            try:
                f, _, _ = self._open()
                with f:
                    if f.read(len(self._head)) != self._head:
                        return "replaced"  # truncated and rewritten in place (same inode)
            except OSError:
                pass
        return "grown"

    def rewind(self, offset: int) -> None:
        """Read from ``offset`` again (where an earlier read started) at the next read, as
        soon as the next poll: what was read from there could not be stored."""
        self.offset = offset
        self.more = False
        self._wait_until = 0
        self._settled = -1
        self._next_check = None

    def read(self, budget: int | None = None) -> list[tuple[int, Any]]:
        """Whole records added since the last read, with the offsets of their frames.

        With a ``budget`` (bytes), the read stops after the record that brings what the
        records take decoded (scalar points inflate) to it, and sets :attr:`more`.
        """
        out: list[tuple[int, Any]] = []
        self.more = False
        try:
            f, identity, size = self._open()
            with f:
                self._identity = self._identity or identity
                self._observe(size)
                final = self.stopped()
                spent = 0
                while self.offset < size and (final or self._wait_until <= size):
                    start = self.offset
                    if self._wait_until - start > LARGE_RECORD_BYTES and self._wait_until <= size:
                        cost = self._take_large(f, out)
                        if cost is not None:
                            spent += cost
                            if budget is not None and spent >= budget:
                                self.more = self.offset < size
                                break
                            continue
                    f.seek(start)
                    window = _WINDOW if budget is None else min(_WINDOW, budget)  # raw bytes cost at least as much
                    want = min(size - start, max(window, self._wait_until - start))
                    buf = f.read(want)
                    left = None if budget is None else budget - spent
                    spent += self._scan(buf, out, size - start, final, left)
                    if budget is not None and spent >= budget:
                        self.more = self.offset < size
                        break
                    if len(buf) < want:
                        break  # shorter than it was: the next status() tells why
                    if self.offset == start and not start + len(buf) < self._wait_until <= size:
                        break  # nothing more to take from this file now (else: a record larger than the window)
                if final and not self.more:
                    self._settled = size
        except OSError as e:
            problem = f"cannot read: {e.strerror or e}"
            if not self.problems or self.problems[-1].message != problem:
                self._problem(self.offset, problem)
        return out

    def _take_large(self, f: BinaryIO, out: list[tuple[int, Any]]) -> int | None:
        """Take the record at :attr:`offset`, larger than :data:`LARGE_RECORD_BYTES` and whole in
        the file, without reading it whole: checked a chunk at a time (``Format.check_record``),
        and pruned of its blobs' bytes (``Format.prune``); what it costs. None when the format
        cannot prune, or the record is not valid as it is: it is then read whole, as any other
        record is (and its damage reported)."""
        prune = self.format.prune
        start = self.offset
        if prune is None:
            return None
        payload = start + self.format.head_size

        def read(offset: int, n: int) -> bytes:
            f.seek(payload + offset)
            return f.read(n)

        try:
            length = self.format.check_record(f, self.path, start)
            if payload + length > self._wait_until:
                return None
            record = self.parse(prune(Window(read), length))
        except LogFormatError:
            return None
        if start == 0 and not self._head:
            f.seek(0)
            self._head = f.read(_HEAD_BYTES)
        out.append((start, record))
        self.offset, self._wait_until, self._in_bad_stretch = self._wait_until, 0, False
        return _cost(record, 0)

    def _scan(self, buf: bytes, out: list[tuple[int, Any]], file_end: int, stopped: bool, budget: int | None) -> int:
        """Take the records of ``buf``, the file's bytes from :attr:`offset` (``file_end``
        bytes are in the file from there); returns what they cost."""
        base = self.offset
        if base == 0 and not self._head:
            self._head = buf[:_HEAD_BYTES]
        resume = 0
        spent = 0
        for item in self.framing.scan(buf, file_end=file_end, stopped=stopped):
            if isinstance(item, framing.Frame):
                self._in_bad_stretch = False
                try:
                    record = self.parse(item.payload)
                except LogFormatError as e:
                    self._problem(base + item.offset, e.message)
                    continue
                out.append((base + item.offset, record))
                spent += _cost(record, len(item.payload))
                if budget is not None and spent >= budget:
                    resume = self.framing.claimed_end(buf, item.offset)  # the end of the record taken
                    break
            elif isinstance(item, Batch):
                self._in_bad_stretch = False  # its records are parsed by the decoder
                cost = np.cumsum(item.lengths + _POINT_BYTES)
                if budget is not None and spent + int(cost[-1]) >= budget:
                    take = int(np.searchsorted(cost, budget - spent)) + 1  # the record that reaches it
                    item = item.head(take)
                    out.append((base + item.offset, item))
                    spent += int(cost[take - 1])
                    resume = item.end
                    break
                out.append((base + item.offset, item))
                spent += int(cost[-1])
            elif isinstance(item, framing.Corruption):
                # A bad stretch that ran into the end of the buffer was reported already
                # when the next read resumes inside it.
                if not (self._in_bad_stretch and item.offset == 0) and base + item.offset != self._reported:
                    where = "to the end of the file so far" if item.at_end else "to the next valid record"
                    self._problem(base + item.offset, f"{item.reason}; skipped {item.end - item.offset} bytes {where}")
                    self._reported = base + item.offset
                self._in_bad_stretch = item.at_end
                if item.at_end and stopped and file_end <= len(buf):
                    # Nothing valid follows up to the end of a file that stopped growing:
                    # stay at the bad stretch, in case its writer comes back and completes it.
                    resume = item.offset
                    break
            else:
                resume = item
        self.offset = base + resume
        self._wait_until = base + self.framing.claimed_end(buf, resume) if resume < len(buf) else 0
        return spent
