"""A record of the TFRecord framing checked again where it was read: ours and TensorBoard's.

A blob (an image, a model) is served long after its record was read, from the file as it
is then; its record may have been truncated or rewritten meanwhile. Both checksums are
checked by streaming the record a chunk at a time, so that nothing the size of the
blob is held in memory. The caller opens the file; nothing here does.
"""

from __future__ import annotations

from typing import BinaryIO

import google_crc32c

from visualdl._formats import framing
from visualdl._formats.framing import FOOTER_SIZE, HEADER_SIZE
from visualdl.errors import LogFormatError

__all__ = ["check_record"]

#: Bytes of a record checked at a time.
_CHECK_CHUNK = 1 << 20


def check_record(f: BinaryIO, path: str, offset: int) -> int:
    """The payload length of the record at ``offset`` of ``f``, once both its checksums are
    checked by streaming it (a chunk at a time, whatever its size); :class:`LogFormatError`
    when the record is not whole and valid there (the file was truncated or rewritten)."""
    f.seek(offset)
    head = f.read(HEADER_SIZE)
    if len(head) < HEADER_SIZE:
        raise LogFormatError("record is gone (file truncated)", path, offset)
    length = framing.claimed_end(head, 0) - HEADER_SIZE - FOOTER_SIZE
    if length < 0:
        raise LogFormatError("record header changed on disk", path, offset)
    crc = 0
    left = length
    while left:
        chunk = f.read(min(left, _CHECK_CHUNK))
        if not chunk:
            break
        crc = google_crc32c.extend(crc, chunk)
        left -= len(chunk)
    tail = f.read(FOOTER_SIZE)
    if left or len(tail) != FOOTER_SIZE or framing.mask(crc) != int.from_bytes(tail, "little"):
        raise LogFormatError("record payload changed on disk", path, offset)
    return length
