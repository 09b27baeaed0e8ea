"""Where an image's PNG (or a clip's WAV) lies in a serialized ``Event``, found by walking
keys and lengths (:mod:`visualdl._formats.protowire`), never the bytes themselves; and an
``Event`` too large to be read whole, without those bytes (:func:`prune`). Pure: the
caller gives ``read(offset, n)`` over the record's payload.
"""

from __future__ import annotations

from collections.abc import Callable

from visualdl._formats.protowire import Messages, pruned
from visualdl._formats.protowire import fields as _fields
from visualdl._formats.tfevents.decode import BlobRef
from visualdl.errors import LogFormatError

__all__ = ["PRUNED_BYTES", "blob_span", "prune"]

_LEN = 2
#: Field numbers on the way to an image's (or a clip's) bytes: Event.summary, Summary.value,
#: Value.image (Value.audio), Image.encoded_image_string (Audio.encoded_audio_string);
#: Value.tensor, TensorProto.string_val.
_SUMMARY, _VALUE, _IMAGE, _AUDIO, _ENCODED, _TENSOR, _STRING_VAL = 5, 1, 4, 6, 4, 8, 8
#: The messages on the way to the blobs, for :func:`prune`; every other long field is a blob.
_EVENT: Messages = {_SUMMARY: {_VALUE: {_IMAGE: {}, _AUDIO: {}, _TENSOR: {}}}}
#: What :func:`prune` keeps of a blob: a PNG's header (its size) and more.
PRUNED_BYTES = 1 << 16


def prune(read: Callable[[int, int], bytes], length: int) -> bytes:
    """The serialized ``Event`` of ``length`` bytes with every image's PNG, clip's WAV and
    string tensor element cut to its first :data:`PRUNED_BYTES`: what the decoder lists
    them from (tags, steps, shapes) without a copy of them in memory. The bytes are served
    from the file later (:func:`blob_span`)."""
    return pruned(read, 0, length, _EVENT, PRUNED_BYTES)


def blob_span(read: Callable[[int, int], bytes], length: int, ref: BlobRef) -> tuple[int, int]:
    """Where the PNG bytes ``ref`` points at lie in the serialized ``Event`` of ``length``
    bytes: ``(offset from the payload's start, size)``. ``read(offset, n)`` returns up to
    ``n`` bytes of the payload; only keys and lengths are read, never the PNG bytes.
    :class:`LogFormatError` when the event holds no such image."""
    index = 0
    for number, wire, begin, end in _fields(read, 0, length):
        if number != _SUMMARY or wire != _LEN:
            continue
        for inner, inner_wire, v_begin, v_end in _fields(read, begin, end):
            if inner != _VALUE or inner_wire != _LEN:
                continue
            if index == ref.value:
                return _span_in_value(read, v_begin, v_end, ref.element)
            index += 1
    raise LogFormatError("the event holds no such image")


def _span_in_value(read: Callable[[int, int], bytes], start: int, stop: int, element: int) -> tuple[int, int]:
    span = None
    for number, wire, begin, end in _fields(read, start, stop):
        if wire != _LEN:
            continue
        if element < 0 and number in (_IMAGE, _AUDIO):
            for inner, inner_wire, i_begin, i_end in _fields(read, begin, end):
                if inner == _ENCODED and inner_wire == _LEN:
                    span = (i_begin, i_end - i_begin)
        elif element >= 0 and number == _TENSOR:
            k = 0
            for inner, inner_wire, i_begin, i_end in _fields(read, begin, end):
                if inner == _STRING_VAL and inner_wire == _LEN:
                    if k == element:
                        span = (i_begin, i_end - i_begin)
                    k += 1
    if span is None:
        raise LogFormatError("the event holds no such image")
    return span
