"""VisualDL 2's log files (``vdlrecords.*``) as a :class:`~visualdl._formats.format.Format`.

Their framing is a length prefix without checksums (:mod:`visualdl._formats.vdl2.framing`);
an image's PNG and a clip's WAV are one span of their record, but an embedding's rows are
a field each, so its vectors are gathered from the record parsed again.
"""

from __future__ import annotations

from typing import Any

from visualdl._formats.format import Format, Read
from visualdl._formats.protowire import LEN, fields
from visualdl._formats.vdl2.decode import FileDecoder, ValueRef, embedding_vectors
from visualdl._formats.vdl2.framing import BATCHED, HEAD_SIZE, check_record, is_vdl2_file
from visualdl._formats.vdlog.logformat import is_log_file
from visualdl._kinds.table import EmbeddingsEvent, ImageEvent, png_shape
from visualdl.errors import LogFormatError

__all__ = ["VDL2", "blob_span"]

#: Field numbers on the way to an image's or a clip's bytes: Record.values, Value.image
#: or Value.audio, Image.encoded_image_string or Audio.encoded_audio_string.
_VALUES, _IMAGE, _AUDIO, _ENCODED = 1, 5, 6, 4


def blob_span(read: Read, length: int, ref: ValueRef) -> tuple[int, int]:
    """Where the PNG (or WAV) bytes ``ref`` points at lie in the serialized ``Record`` of
    ``length`` bytes: ``(offset from the payload's start, size)``. ``read(offset, n)``
    returns up to ``n`` bytes of the payload; only keys and lengths are read, never the
    bytes themselves. :class:`LogFormatError` when the value is no image or clip."""
    index = 0
    for number, wire, begin, end in fields(read, 0, length):
        if number != _VALUES or wire != LEN:
            continue
        if index == ref.value:
            span = None
            for inner, inner_wire, i_begin, i_end in fields(read, begin, end):
                if inner in (_IMAGE, _AUDIO) and inner_wire == LEN:
                    for field, field_wire, f_begin, f_end in fields(read, i_begin, i_end):
                        if field == _ENCODED and field_wire == LEN:
                            span = (f_begin, f_end - f_begin)
            if span is None:
                break
            return span
        index += 1
    raise LogFormatError(f"value {ref.value} of the record is not an image or a clip")


def _blob_span(read: Read, length: int, event: Any) -> tuple[int, int]:
    """The span of an image or a clip; an image's bytes must still start like a PNG (no
    checksum tells a record changed on disk). Embeddings are no one span: :func:`_gather`."""
    if isinstance(event, EmbeddingsEvent):
        raise LogFormatError("VisualDL 2's embeddings are no one span of the file")
    ref = event.ref
    if not isinstance(ref, ValueRef):
        raise TypeError(f"{type(event).__name__} of a VisualDL 2 file has no value reference: {ref!r}")
    at, size = blob_span(read, length, ref)
    if isinstance(event, ImageEvent) and png_shape(read(at, min(size, 26))) is None:
        raise LogFormatError("the image is not a PNG any more (changed on disk)")
    return at, size


def _scattered(event: Any) -> bool:
    return isinstance(event, EmbeddingsEvent)


def _gather(payload: bytes, event: Any) -> bytes:
    """The vectors of an embeddings event from its record's payload (float32, row after row)."""
    data = embedding_vectors(payload, event.ref.value)
    if len(data) != event.rows * event.dimension * 4:
        raise LogFormatError("the embeddings changed on disk")
    return data


def _matches(basename: str) -> bool:
    return is_vdl2_file(basename) and not is_log_file(basename)


def _parse(payload: bytes) -> bytes:
    """Payloads go to the decoder as they are: it reads scalars from bytes, parses the rest."""
    return payload


VDL2 = Format(
    name="vdl2",
    matches=_matches,
    parse=_parse,
    framing=BATCHED,
    head_size=HEAD_SIZE,
    check_record=check_record,
    decoder=FileDecoder,
    blob_span=_blob_span,
    columnar=False,
    scattered=_scattered,
    gather=_gather,
)
