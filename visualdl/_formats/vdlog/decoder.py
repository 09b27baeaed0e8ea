"""Our own records of one file, followed read after read: the :class:`~visualdl._formats.format.Decoder`
of the ``.vdlog`` format.

A file holds a writer's ``Header`` first, then records of the kinds of the table and the
records that say something of the writer (meta, provenance, tag info, system metrics), and
a ``ProcessEnd`` and a ``Footer`` when its writer closed it; a writer appending to the file
later starts with a header of its own. Records of a format version newer than this one are
skipped (and said once). A writer to an object store uploads its log as segments, each
starting with the writer's header again (:mod:`visualdl._storage.segments`): a header of
the writer whose records come before it goes on with that writer's stretch, its system
metrics' columns still declared; a header of another writer starts a stretch of its own.
Pure: parsed records in, ``(kind, tag, event)`` items out; the per-writer records change
:attr:`RecordDecoder.writer` through their table (:data:`visualdl._formats.vdlog.writerrecords.WRITER_RECORDS`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from visualdl._formats.format import UNREADABLE, unreadable
from visualdl._formats.vdlog.writerrecords import WRITER_RECORDS, WriterRecord
from visualdl._formats.writerstate import WriterState
from visualdl._kinds.table import KIND_BY_FIELD, SystemBatch

__all__ = ["RecordDecoder"]


class RecordDecoder:
    """Follows the records of one of our files: its writer (:attr:`writer`), the system
    samples until taken, and the problems until taken."""

    __slots__ = ("writer", "problems", "system", "_writer_id")

    def __init__(self) -> None:
        #: What the file's records said of its writer so far (replaced, never changed).
        self.writer = WriterState()
        #: ``(offset, message)`` of what could not be read, since the caller last cleared it.
        self.problems: list[tuple[int, str]] = []
        #: System samples decoded and not yet taken by the reader (which empties it).
        self.system: list[SystemBatch] = []
        # the writer of the stretch being read (its header's id; "" before any, or unknown)
        self._writer_id = ""

    def decode(self, path: str, items: list[tuple[int, Any]]) -> list[tuple[str, str, object]]:
        """Records as ``(kind, tag, event)``; the per-writer records update :attr:`writer`."""
        out: list[tuple[str, str, object]] = []
        for offset, record in items:
            field_name = record.WhichOneof("kind")
            kind = KIND_BY_FIELD.get(field_name or "")
            if kind is None:
                entry = WRITER_RECORDS.get(field_name or "")
                if entry is not None:
                    self._apply(entry, getattr(record, field_name), path, offset)
                continue
            if self.writer.skipped:
                continue  # written in a newer format version
            if self.writer.header is None and offset == 0:
                self.problems.append((0, "file does not start with a header record"))
            try:
                events = kind.decode(getattr(record, field_name), path, offset)
            except UNREADABLE as e:  # the record is bad: it alone is lost
                self.problems.append((offset, unreadable(e)))
                continue
            name = kind.name
            for tag, event in events:
                out.append((name, tag, event))
        return out

    def _apply(self, entry: WriterRecord, message: Any, path: str, offset: int) -> None:
        """One per-writer record applied to :attr:`writer` (a bad one alone is lost, said)."""
        if self.writer.skipped and not entry.newer:
            return
        try:
            value = entry.decode(message, self.writer, path, offset)
        except UNREADABLE as e:
            self.problems.append((offset, unreadable(e)))
            return
        if value is None:
            return
        problem = entry.problem(value)
        if problem:
            self.problems.append((offset, problem))
        before = self.writer
        self.writer = entry.apply(before, value)
        if entry.field == "header":
            same = bool(value.writer_id) and value.writer_id == self._writer_id
            self._writer_id = value.writer_id
            if same:  # the next segment of the same writer: what it said holds (columns, events, end)
                self.writer = replace(
                    self.writer, declared=before.declared, events=before.events, end=before.end, footer=before.footer
                )
        if entry.samples:
            self.system.append(value)

    def unshown(self) -> tuple[tuple[str, str, int], ...]:
        """Nothing: every kind of ours has a view."""
        return ()
