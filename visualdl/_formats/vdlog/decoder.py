"""Our own records of one file, followed read after read: the :class:`~visualdl._formats.format.Decoder`
of the ``.vdlog`` format.

A file holds a writer's ``Header`` first, then records of the kinds of the table, and a
``ProcessEnd`` and a ``Footer`` when its writer closed it; a writer appending to the file later starts with a
header of its own. Records of a format version newer than this one are skipped (and said
once). Pure: parsed records in, ``(kind, tag, event)`` items out.
"""

from __future__ import annotations

from typing import Any

from visualdl._formats.format import UNREADABLE, unreadable
from visualdl._formats.vdlog.logformat import FORMAT_VERSION
from visualdl._kinds.table import KIND_BY_FIELD, SystemBatch, SystemMetric, decode_system_metrics
from visualdl.proto import pb

__all__ = ["RecordDecoder"]


class RecordDecoder:
    """Follows the records of one of our files: its writer (:attr:`header`, :attr:`footer`),
    the records of a newer format version skipped, and the problems until taken."""

    __slots__ = ("header", "footer", "end", "provenance", "problems", "skipped", "tag_info", "system", "_declared")

    def __init__(self) -> None:
        self.header: pb.Header | None = None
        self.footer: pb.Footer | None = None
        #: How the writer's process ended: the first end record since its header.
        self.end: pb.ProcessEnd | None = None
        #: Where the first writer's process came from (its first provenance record).
        self.provenance: pb.Provenance | None = None
        #: ``(offset, message)`` of what could not be read, since the caller last cleared it.
        self.problems: list[tuple[int, str]] = []
        #: The current writer's records are of a newer format version: not read.
        self.skipped = False
        #: tag -> replicated, as the file's writers declared it (``TagInfo`` records; the last wins).
        self.tag_info: dict[str, bool] = {}
        #: System samples decoded and not yet taken by the reader (which empties it).
        self.system: list[SystemBatch] = []
        self._declared: tuple[SystemMetric, ...] = ()  # the writer's last declared system metrics

    def decode(self, path: str, items: list[tuple[int, Any]]) -> list[tuple[str, str, object]]:
        """Records as ``(kind, tag, event)``; headers, footers, process ends, provenance and meta
        update the writer."""
        out: list[tuple[str, str, object]] = []
        for offset, record in items:
            field_name = record.WhichOneof("kind")
            kind = KIND_BY_FIELD.get(field_name or "")
            if kind is None:
                if field_name == "header":
                    self._on_header(offset, record.header)
                elif field_name == "footer":
                    self.footer = record.footer
                elif field_name == "process_end":
                    if self.end is None:
                        self.end = record.process_end
                elif field_name == "provenance":
                    if self.provenance is None and not self.skipped:
                        self.provenance = record.provenance
                elif field_name == "tag_info" and record.tag_info.tag:
                    self.tag_info[record.tag_info.tag] = record.tag_info.replicated
                elif field_name == "meta" and record.meta.display_name and self.header is not None:
                    self.header.display_name = record.meta.display_name
                elif field_name == "system_metrics" and not self.skipped:
                    self._on_system(path, offset, record.system_metrics)
                continue
            if self.skipped:
                continue  # written in a newer format version
            if self.header is None and offset == 0:
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

    def _on_system(self, path: str, offset: int, message: pb.SystemMetrics) -> None:
        try:
            batch = decode_system_metrics(message, self._declared, path, offset)
        except UNREADABLE as e:  # the record is bad: it alone is lost
            self.problems.append((offset, unreadable(e)))
            return
        self._declared = batch.metrics
        self.system.append(batch)

    def _on_header(self, offset: int, header: pb.Header) -> None:
        """A header starts a writer's stretch of the file (later ones: appended by another writer)."""
        self.skipped = header.format_version > FORMAT_VERSION
        if self.skipped:
            message = (
                f"format version {header.format_version} is newer than {FORMAT_VERSION}; "
                "its records are skipped: upgrade visualdl to read them"
            )
            self.problems.append((offset, message))
        if self.header is None:
            self.header = header
        self.footer = None  # the file goes on: not closed until a footer follows
        self.end = None
        self._declared = ()

    def unshown(self) -> tuple[tuple[str, str, int], ...]:
        """Nothing: every kind of ours has a view."""
        return ()
