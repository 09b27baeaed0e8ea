"""TensorBoard's event files (``*tfevents*``) as a :class:`~visualdl._formats.format.Format`.

They share our TFRecord framing and its checksums; most events are scalars, found in
batches by the lead byte every ``Event`` starts with (its ``wall_time`` key, ``0x09``)
and read from their bytes, the others parsed by the decoder.
"""

from __future__ import annotations

from typing import Any

from visualdl._formats.format import Format, Read
from visualdl._formats.framebatch import Batched
from visualdl._formats.framing import HEADER_SIZE
from visualdl._formats.recordcheck import check_record
from visualdl._formats.tfevents.blobs import blob_span, prune
from visualdl._formats.tfevents.decode import BlobRef, EventDecoder, is_tfevents_file
from visualdl._formats.tfevents.graphs import GraphRef, graph_span

__all__ = ["TFEVENTS"]

#: Every serialized ``Event`` starts with its ``wall_time`` key (field 1, 64-bit).
_LEAD = 0x09


def _blob_span(read: Read, length: int, event: Any) -> tuple[int, int]:
    ref = event.ref
    if isinstance(ref, GraphRef):
        return graph_span(read, length, ref)
    if not isinstance(ref, BlobRef):
        raise TypeError(f"{type(event).__name__} of an event file has no blob reference: {ref!r}")
    return blob_span(read, length, ref)


def _parse(payload: bytes) -> bytes:
    """Payloads go to the decoder as they are: it parses only the events not read from bytes."""
    return payload


TFEVENTS = Format(
    name="tfevents",
    matches=is_tfevents_file,
    parse=_parse,
    framing=Batched(_LEAD),
    head_size=HEADER_SIZE,
    check_record=check_record,
    decoder=EventDecoder,
    blob_span=_blob_span,
    columnar=False,
    prune=prune,
)
