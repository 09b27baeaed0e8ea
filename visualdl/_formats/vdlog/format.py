"""Our own log format (``*.vdlog*``) as a :class:`~visualdl._formats.format.Format`."""

from __future__ import annotations

from typing import Any

from visualdl._formats import framing
from visualdl._formats.format import Format, Read
from visualdl._formats.framing import HEADER_SIZE
from visualdl._formats.protowire import Messages, pruned
from visualdl._formats.recordcheck import check_record
from visualdl._formats.vdlog.decoder import RecordDecoder
from visualdl._formats.vdlog.logformat import blob_span, is_log_file, parse_record
from visualdl._kinds.table import BLOB_KIND
from visualdl.proto import pb

__all__ = ["VDLOG"]


def _blob_span(read: Read, length: int, event: Any) -> tuple[int, int]:
    """The blob field of the event's kind, in its record (the kinds table names both)."""
    kind = BLOB_KIND[type(event)]
    return blob_span(read, length, kind.field, kind.blob_field)


#: What :func:`_prune` keeps of an image's PNG.
PRUNED_BYTES = 1 << 16


def _whole(read: Read, start: int, stop: int) -> None:
    """A record's member kept whole (its decoder counts or reads its bytes)."""
    return None


#: An image's PNG is cut (its decoder lists it from its other fields); every other kind is kept whole.
_RECORD: Messages = {**{f.number: _whole for f in pb.Record.DESCRIPTOR.fields}, pb.Record.IMAGE_FIELD_NUMBER: {}}


def _prune(read: Read, length: int) -> bytes:
    """A record too large to be read whole as its decoder can take it: an image without its
    PNG's bytes (served from the file later), anything else whole."""
    return pruned(read, 0, length, _RECORD, PRUNED_BYTES)


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
    prune=_prune,
)
