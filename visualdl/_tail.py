"""Tailing one log file: read the bytes added since last time, return whole records.

The I/O edge of the reader. A record not all written yet is left for the next
read, from the same offset; a corrupt stretch is reported once (file and byte
offset) and skipped by resynchronising on the next valid record. Reading never
raises because of what a file holds.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

from visualdl import _framing as framing
from visualdl._logformat import parse_record
from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = ["LogFile", "Problem"]

log = logging.getLogger("visualdl._reader")

#: Bytes read at a time; a record larger than this is read whole when it is complete.
_WINDOW = 64 << 20
#: How much of a file's start is remembered to tell a file rewritten in place.
_HEAD_BYTES = 256


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong in a file: where, and what."""

    path: str
    offset: int
    message: str


class LogFile:
    """One log file being followed."""

    __slots__ = ("path", "offset", "header", "footer", "problems", "skipped", "_identity", "_in_bad_stretch", "_head")

    def __init__(self, path: str) -> None:
        self.path = path
        self.offset = 0
        self.header: pb.Header | None = None
        self.footer: pb.Footer | None = None
        self.problems: list[Problem] = []
        self._identity: tuple[int, int] | None = None
        self._in_bad_stretch = False
        self.skipped = False  # records of a newer format version: not read
        self._head = b""  # the first bytes read (the header frame): a rewritten file differs

    def _problem(self, offset: int, message: str) -> None:
        problem = Problem(self.path, offset, message)
        self.problems.append(problem)
        log.warning("%s at byte %d: %s", self.path, offset, message)

    def status(self) -> str:
        """``"replaced"`` (another file, or a shorter one, is at the path now), ``"grown"`` or ``"same"``."""
        try:
            st = os.stat(self.path)
        except OSError:
            return "grown"  # let read() report why
        identity = (st.st_dev, st.st_ino)
        if self._identity is None:
            self._identity = identity
        if identity != self._identity or st.st_size < self.offset:
            return "replaced"
        if st.st_size == self.offset:
            return "same"
        if self._head:
            try:
                with open(self.path, "rb") as f:
                    if f.read(len(self._head)) != self._head:
                        return "replaced"  # truncated and rewritten in place (same inode)
            except OSError:
                pass
        return "grown"

    def read(self) -> list[tuple[int, pb.Record]]:
        """Whole records added since the last read, with the offsets of their frames."""
        out: list[tuple[int, pb.Record]] = []
        try:
            with open(self.path, "rb") as f:
                st = os.fstat(f.fileno())
                self._identity = self._identity or (st.st_dev, st.st_ino)
                window = _WINDOW
                while self.offset < st.st_size:
                    remaining = st.st_size - self.offset
                    f.seek(self.offset)
                    buf = f.read(min(window, remaining))
                    before = self.offset
                    self._scan(buf, out)
                    if self.offset == before:
                        if len(buf) >= remaining or len(buf) < window:
                            break  # the rest is not all written yet
                        window *= 2  # one record larger than the window
        except OSError as e:
            problem = f"cannot read: {e.strerror or e}"
            if not self.problems or self.problems[-1].message != problem:
                self._problem(self.offset, problem)
        return out

    def _scan(self, buf: bytes, out: list[tuple[int, pb.Record]]) -> None:
        base = self.offset
        if base == 0 and not self._head:
            self._head = buf[:_HEAD_BYTES]
        resume = 0
        for item in framing.scan(buf):
            if isinstance(item, framing.Frame):
                try:
                    record = parse_record(item.payload)
                except LogFormatError as e:
                    self._problem(base + item.offset, e.message)
                    self._in_bad_stretch = False
                    continue
                out.append((base + item.offset, record))
                self._in_bad_stretch = False
            elif isinstance(item, framing.Corruption):
                # A bad stretch that ran into the end of the buffer was reported already
                # when the next read resumes inside it.
                if not (self._in_bad_stretch and item.offset == 0):
                    where = "to the end of the file so far" if item.at_end else "to the next valid record"
                    self._problem(base + item.offset, f"{item.reason}; skipped {item.end - item.offset} bytes {where}")
                self._in_bad_stretch = item.at_end
                continue
            else:
                resume = item
        self.offset = base + resume
