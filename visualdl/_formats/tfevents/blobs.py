"""Where an image's PNG (or a clip's WAV) lies in a serialized ``Event``, found by walking
keys and lengths (:mod:`visualdl._formats.protowire`), never the bytes themselves; and an
``Event`` too large to be read whole, without those bytes (:func:`prune`). Pure: the
caller gives ``read(offset, n)`` over the record's payload.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice

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
#: What :func:`prune` keeps of a blob: a PNG's header (its size) and more.
PRUNED_BYTES = 1 << 16
#: How an encoded image starts (PNG, JPEG, GIF).
_IMAGE_MAGIC = (b"\x89PNG", b"\xff\xd8", b"GIF8")


def _image_value(read: Callable[[int, int], bytes], start: int, stop: int) -> Messages | None:
    """How to prune a ``Summary.Value``: an image's bytes (``image``, or an image tensor
    ``[width, height, png, ...]``, told by its strings, since only a tag's first value names
    its plugin), or nothing: a clip's size and a text are the decoder's, whole."""
    for number, wire, begin, end in _fields(read, start, stop):
        if number == _IMAGE and wire == _LEN:
            return {_IMAGE: {}}
        if number == _TENSOR and wire == _LEN:
            found = ((b, e) for n, w, b, e in _fields(read, begin, end) if n == _STRING_VAL and w == _LEN)
            strings = list(islice(found, 3))
            if (
                len(strings) == 3
                and all(e - b <= 20 and read(b, e - b).isdigit() for b, e in strings[:2])
                and read(strings[2][0], 4).startswith(_IMAGE_MAGIC)
            ):
                return {_TENSOR: {}}
    return None


def _whole(read: Callable[[int, int], bytes], start: int, stop: int) -> None:
    """A graph is kept whole: the decoder counts its bytes (and finds a meta graph's graph)."""
    return None


#: The messages on the way to the blobs, for :func:`prune`; Event.graph_def and Event.meta_graph_def kept whole.
_EVENT: Messages = {_SUMMARY: {_VALUE: _image_value}, 4: _whole, 9: _whole}


def prune(read: Callable[[int, int], bytes], length: int) -> bytes:
    """The serialized ``Event`` of ``length`` bytes with the bytes of every image cut to
    their first :data:`PRUNED_BYTES`: what the decoder lists images from (tags, steps,
    shapes) without a copy of them in memory; they are served from the file later
    (:func:`blob_span`). Other values (a clip, whose size the decoder counts; a text) stay whole."""
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
