"""What makes a file one of ours: its name marker, the format version, and records.

A log file is TFRecord-framed (:mod:`visualdl._formats.framing`) serialized ``Record``
messages (``proto/visualdl_log.proto``); the first is a ``Header``. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from google.protobuf.message import DecodeError

from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = [
    "FILE_MARKER",
    "FORMAT_VERSION",
    "MAX_POINTS_PER_RECORD",
    "MAX_TAG_LENGTH",
    "WALLTIME_MS_THRESHOLD",
    "blob_span",
    "is_log_file",
    "parse_record",
]

#: Every log file's name contains this; readers find files by it. TensorBoard's
#: files contain "tfevents" and VisualDL 2's start with "vdlrecords.", so the
#: three are told apart by name.
FILE_MARKER = ".vdlog"
#: Version of the format written; readers skip files of a newer version.
FORMAT_VERSION = 1
#: Scalar points in one record at most: writers split a flush past this, readers
#: refuse records that claim more (a reported problem, before anything is inflated).
MAX_POINTS_PER_RECORD = 1 << 20
#: The longest tag (and graph name), in characters: writers refuse longer ones, and the
#: server's API refuses longer query parameters.
MAX_TAG_LENGTH = 1024
#: A wall time above this is milliseconds since the epoch (VisualDL 2's unit), below it
#: seconds (TensorBoard's and ours): 1e11 seconds is the year 5138, 1e11 milliseconds
#: March 1973. The SDK's ``walltime`` and VisualDL 2's timestamps are read by it.
WALLTIME_MS_THRESHOLD = 1e11


def is_log_file(basename: str) -> bool:
    return FILE_MARKER in basename and not basename.startswith(".")


def parse_record(payload: bytes) -> pb.Record:
    """The Record in ``payload``; :class:`LogFormatError` when it is not one."""
    try:
        record = pb.Record.FromString(payload)
    except DecodeError as e:
        raise LogFormatError(f"undecodable record payload ({e})") from e
    if record.WhichOneof("kind") is None:
        raise LogFormatError("record of an unknown kind (written by a newer VisualDL?)")
    return record


#: A message with more fields than this is not walked for its blob (an embeddings record
#: has a field per row of metadata: 100,000 rows, 100,000 fields; the walk reads the keys
#: through a buffer, so its cost follows the record's bytes, already read once to check them).
_MAX_FIELDS = 1 << 24
_WINDOW = 1 << 16


class _Window:
    """``read(offset, n)`` through a buffer of :data:`_WINDOW` bytes: the walk over a message
    of many small fields reads the file once per window, not once per field."""

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


_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5


def _varint(read: Callable[[int, int], bytes], pos: int, stop: int) -> tuple[int, int]:
    value = shift = 0
    for i, byte in enumerate(read(pos, min(10, stop - pos))):
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos + i + 1
        shift += 7
    raise LogFormatError("undecodable record payload (a truncated varint)")


def _fields(read: Callable[[int, int], bytes], start: int, stop: int) -> Iterator[tuple[int, int, int, int]]:
    """``(number, wire type, value start, value end)`` of each field in ``[start, stop)``."""
    pos = start
    for _ in range(_MAX_FIELDS):
        if pos >= stop:
            return
        key, pos = _varint(read, pos, stop)
        number, wire = key >> 3, key & 7
        begin = pos
        if wire == _VARINT:
            _, pos = _varint(read, pos, stop)
        elif wire == _I64:
            pos += 8
        elif wire == _I32:
            pos += 4
        elif wire == _LEN:
            size, begin = _varint(read, pos, stop)
            pos = begin + size
        else:
            raise LogFormatError(f"undecodable record payload (wire type {wire})")
        if number == 0 or pos > stop:
            raise LogFormatError("undecodable record payload (a field runs past its message)")
        yield number, wire, begin, pos
    if pos < stop:
        raise LogFormatError(f"a record of more than {_MAX_FIELDS} fields")


def blob_span(read: Callable[[int, int], bytes], length: int, field: str, blob_field: str) -> tuple[int, int]:
    """Where the bytes of ``blob_field`` of the ``field`` member of a serialized ``Record`` of
    ``length`` bytes lie: ``(offset from the payload's start, size)``; size 0 when unset.

    ``read(offset, n)`` returns up to ``n`` bytes of the payload from ``offset``; only
    the fields' keys and lengths are read, never their bytes, so the cost does not grow
    with the blob. Protobuf's rules hold: the last value of a field wins, a message
    given twice is merged, and a later member of the ``kind`` oneof replaces an earlier
    one. :class:`LogFormatError` when the payload is malformed or ``field`` is not its kind.
    """
    record = pb.Record.DESCRIPTOR
    member = record.fields_by_name[field]
    members = {f.number for f in record.oneofs_by_name["kind"].fields}
    message = member.message_type
    if message is None:
        raise ValueError(f"Record field {field!r} is not a message: give the field of a kind with a blob")
    blob_number = message.fields_by_name[blob_field].number
    read = _Window(read)
    kind = 0
    span = (0, 0)
    for number, wire, begin, end in _fields(read, 0, length):
        if wire != _LEN or number not in members:
            continue  # an unknown field, or a known one of another type: ignored, as protobuf does
        if number != kind:
            kind, span = number, (0, 0)
        if number == member.number:
            for inner, inner_wire, inner_begin, inner_end in _fields(read, begin, end):
                if inner == blob_number and inner_wire == _LEN:
                    span = (inner_begin, inner_end - inner_begin)
    if kind != member.number:
        raise LogFormatError(f"the record is not a {field} record")
    return span
