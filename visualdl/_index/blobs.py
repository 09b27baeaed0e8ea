"""Where a blob lies in its log file, and reading it: what the index serves an image's PNG,
a model, a clip or embedding vectors from, long after the record was read.

The record is read again and checked as its format can (it may have been truncated or
rewritten since), then the format says where the blob lies in it; no format is named
here. The files are opened through the store that listed them (the index's); the
formats only see their bytes.
"""

from __future__ import annotations

import os

from visualdl._formats.format import Format
from visualdl._formats.table import format_of
from visualdl._kinds.table import AudioEvent, EmbeddingsEvent, GraphEvent, ImageEvent
from visualdl._storage import Store
from visualdl.errors import LogFormatError

__all__ = ["format_of_path", "open_blob", "read_gathered"]


def format_of_path(path: str) -> Format:
    """The format of the log file at ``path`` (a local path or a store's URL)."""
    fmt = format_of(path.rpartition("/")[2].rpartition(os.sep)[2])
    if fmt is None:
        raise LogFormatError("not a log file any more", path, 0)
    return fmt


def open_blob(store: Store, event: ImageEvent | GraphEvent | AudioEvent | EmbeddingsEvent) -> tuple[str, int, int]:
    """Where the PNG bytes of an image event, the model bytes of a graph event, the WAV
    bytes of an audio event or the vectors of an embeddings event lie:
    ``(path, offset, length)``, to be read from the file (``store.open(path)``, the store
    that listed it) or streamed by the caller; what :meth:`LogReader.read_blob` reads,
    without holding it all in memory.

    The record is checked first as its format can (``Format.check_record``: both
    checksums, streamed a chunk at a time, where the format has them; else its length,
    and that an image's bytes still start like a PNG). A blob that is no one span of
    its record (``Format.scattered``: VisualDL 2's embeddings) is gathered by
    :meth:`LogReader.read_blob`; here it is a :class:`LogFormatError`, as a record gone
    or changed on disk is.
    """
    ref = event.ref
    fmt = format_of_path(ref.path)
    f = store.open(ref.path)
    with f:
        length = fmt.check_record(f, ref.path, ref.offset)
        start = ref.offset + fmt.head_size

        def read(offset: int, n: int) -> bytes:
            f.seek(start + offset)
            return f.read(n)

        try:
            at, size = fmt.blob_span(read, length, event)
        except LogFormatError as e:
            raise LogFormatError(e.message, ref.path, ref.offset) from e
    return ref.path, start + at, size


def read_gathered(store: Store, fmt: Format, event: EmbeddingsEvent) -> bytes:
    """The blob of an event that is no one span of its record, from its record read again."""
    ref = event.ref
    f = store.open(ref.path)
    with f:
        length = fmt.check_record(f, ref.path, ref.offset)
        f.seek(ref.offset + fmt.head_size)
        payload = f.read(length)
    try:
        if len(payload) != length or fmt.gather is None:
            raise LogFormatError("record is gone (file truncated)")
        return fmt.gather(payload, event)
    except LogFormatError as e:
        raise LogFormatError(e.message, ref.path, ref.offset) from e
