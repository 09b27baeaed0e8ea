"""What makes a file one of ours: its name marker, the format version, and records.

A log file is TFRecord-framed (:mod:`visualdl._framing`) serialized ``Record``
messages (``proto/visualdl_log.proto``); the first is a ``Header``. Pure: no I/O.
"""

from __future__ import annotations

from google.protobuf.message import DecodeError

from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = [
    "FILE_MARKER",
    "FORMAT_VERSION",
    "MAX_POINTS_PER_RECORD",
    "MAX_TAG_LENGTH",
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

