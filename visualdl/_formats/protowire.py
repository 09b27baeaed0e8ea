"""The protobuf wire format walked by hand: keys and lengths only, never a value's bytes.

Every format keeps a blob (an image's PNG, a clip's WAV, a model) inside a serialized
message; finding where it lies, without parsing the message (which would hold the
blob, whole, in memory), is a walk over field keys and lengths. The three formats
walk different messages with the same walk, so it lives here once. Pure: the caller
gives ``read(offset, n)`` over the bytes; nothing here opens a file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from visualdl.errors import LogFormatError

__all__ = ["I32", "I64", "LEN", "MAX_FIELDS", "VARINT", "Messages", "Window", "fields", "pruned", "varint"]

#: Wire types.
VARINT, I64, LEN, I32 = 0, 1, 2, 5
#: A message with more fields than this is not walked for its blob (an embeddings record
#: has a field per row of metadata: 100,000 rows, 100,000 fields; the walk reads the keys
#: through a buffer, so its cost follows the record's bytes, already read once to check them).
MAX_FIELDS = 1 << 24
_WINDOW = 1 << 16


class Window:
    """``read(offset, n)`` through a buffer of 64 KiB: the walk over a message of many
    small fields reads the file once per window, not once per field."""

    __slots__ = ("_read", "_start", "_data")

    def __init__(self, read: Callable[[int, int], bytes]) -> None:
        self._read = read
        self._start = 0
        self._data = b""

    def __call__(self, pos: int, n: int) -> bytes:
        end = pos + n
        if not (self._start <= pos and end <= self._start + len(self._data)):
            self._start = pos
            self._data = self._read(pos, max(n, _WINDOW))
        return self._data[pos - self._start : end - self._start]


def varint(read: Callable[[int, int], bytes], pos: int, stop: int) -> tuple[int, int]:
    """The varint at ``pos`` and the position after it; :class:`LogFormatError` when cut short."""
    value = shift = 0
    for i, byte in enumerate(read(pos, min(10, stop - pos))):
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos + i + 1
        shift += 7
    raise LogFormatError("undecodable record payload (a truncated varint)")


def fields(read: Callable[[int, int], bytes], start: int, stop: int) -> Iterator[tuple[int, int, int, int]]:
    """``(number, wire type, value start, value end)`` of each field in ``[start, stop)``."""
    pos = start
    for _ in range(MAX_FIELDS):
        if pos >= stop:
            return
        key, pos = varint(read, pos, stop)
        number, wire = key >> 3, key & 7
        begin = pos
        if wire == VARINT:
            _, pos = varint(read, pos, stop)
        elif wire == I64:
            pos += 8
        elif wire == I32:
            pos += 4
        elif wire == LEN:
            size, begin = varint(read, pos, stop)
            pos = begin + size
        else:
            raise LogFormatError(f"undecodable record payload (wire type {wire})")
        if number == 0 or pos > stop:
            raise LogFormatError("undecodable record payload (a field runs past its message)")
        yield number, wire, begin, pos
    if pos < stop:
        raise LogFormatError(f"a record of more than {MAX_FIELDS} fields")


#: Which length-delimited fields of a message are messages themselves, by field number,
#: each with its own such map (the way to the blobs that :func:`pruned` cuts), or with a
#: function of ``(read, start, stop)`` that tells it from the message's own fields: its map,
#: or None to keep that message whole.
Messages = Mapping[int, "Messages | Callable[[Callable[[int, int], bytes], int, int], Messages | None]"]


def _varint_bytes(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def pruned(read: Callable[[int, int], bytes], start: int, stop: int, messages: Messages, keep: int) -> bytes:
    """The message in ``[start, stop)`` with the bytes of each length-delimited field longer
    than ``keep`` cut to its first ``keep`` (and the lengths in front rewritten), except the
    fields ``messages`` names, which are messages pruned alike: a large record as its
    decoder can parse it, without its blobs' bytes, read through ``read`` a field at a time.
    :class:`LogFormatError` when the bytes are no such message."""
    parts = []
    pos = start
    for number, wire, begin, end in fields(read, start, stop):
        inner = messages.get(number)
        if callable(inner) and wire == LEN and end - begin > keep:
            inner = inner(read, begin, end)
        if wire != LEN or end - begin <= keep or (number in messages and inner is None):
            parts.append(read(pos, end - pos))  # a small field, or a message kept whole
        else:
            value = read(begin, keep) if inner is None else pruned(read, begin, end, inner, keep)  # type: ignore[arg-type]
            parts += [_varint_bytes(number << 3 | LEN), _varint_bytes(len(value)), value]
        pos = end
    return b"".join(parts)
