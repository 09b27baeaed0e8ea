"""Our own log format (``*.vdlog*``) as a :class:`~visualdl._formats.format.Format`."""

from __future__ import annotations

from typing import Any

from visualdl._formats import framing
from visualdl._formats.format import Format, Read
from visualdl._formats.framing import HEADER_SIZE
from visualdl._formats.recordcheck import check_record
from visualdl._formats.vdlog.decoder import RecordDecoder
from visualdl._formats.vdlog.logformat import blob_span, is_log_file, parse_record
from visualdl._kinds.table import BLOB_KIND

__all__ = ["VDLOG"]


def _blob_span(read: Read, length: int, event: Any) -> tuple[int, int]:
    """The blob field of the event's kind, in its record (the kinds table names both)."""
    kind = BLOB_KIND[type(event)]
    return blob_span(read, length, kind.field, kind.blob_field)


VDLOG = Format(
    name="visualdl",
    matches=is_log_file,
    parse=parse_record,
    framing=framing,
    head_size=HEADER_SIZE,
    check_record=check_record,
    decoder=RecordDecoder,
    blob_span=_blob_span,
    columnar=True,
)
