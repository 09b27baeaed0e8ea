"""What makes a file one of ours: its name marker, the format version, and records.

A log file is TFRecord-framed (:mod:`visualdl._formats.framing`) serialized ``Record``
messages (``proto/visualdl_log.proto``); the first is a ``Header``. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable

from google.protobuf.message import DecodeError

from visualdl._formats.fatal import is_sidecar_name
from visualdl._formats.protowire import LEN, Window, fields
from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = [
    "FILE_MARKER",
    "FORMAT_VERSION",
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
#: The longest tag (and graph name), in characters: writers refuse longer ones, and the
#: server's API refuses longer query parameters.
MAX_TAG_LENGTH = 1024
#: A wall time above this is milliseconds since the epoch (VisualDL 2's unit), below it
#: seconds (TensorBoard's and ours): 1e11 seconds is the year 5138, 1e11 milliseconds
#: March 1973. The SDK's ``walltime`` and VisualDL 2's timestamps are read by it.
WALLTIME_MS_THRESHOLD = 1e11


def is_log_file(basename: str) -> bool:
    """Whether ``basename`` names one of our logs (not a log's fatal-signal sidecar)."""
    return FILE_MARKER in basename and not basename.startswith(".") and not is_sidecar_name(basename)


def parse_record(payload: bytes) -> pb.Record:
    """The Record in ``payload``; :class:`LogFormatError` when it is not one."""
    try:
        record = pb.Record.FromString(payload)
    except DecodeError as e:
        raise LogFormatError(f"undecodable record payload ({e})") from e
    if record.WhichOneof("kind") is None:
        raise LogFormatError("record of an unknown kind (written by a newer VisualDL?)")
    return record


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
    read = Window(read)
    kind = 0
    span = (0, 0)
    for number, wire, begin, end in fields(read, 0, length):
        if wire != LEN or number not in members:
            continue  # an unknown field, or a known one of another type: ignored, as protobuf does
        if number != kind:
            kind, span = number, (0, 0)
        if number == member.number:
            for inner, inner_wire, inner_begin, inner_end in fields(read, begin, end):
                if inner == blob_number and inner_wire == LEN:
                    span = (inner_begin, inner_end - inner_begin)
    if kind != member.number:
        raise LogFormatError(f"the record is not a {field} record")
    return span
