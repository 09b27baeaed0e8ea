"""How a log in object storage is cut into segments, and how their names read back.

Objects cannot be appended to, so a writer to a URL uploads **segments**: immutable
objects, each a whole log file of this format (the writer's header, then records;
the last one ends with the footer), named ::

    vdls.<upload time, ms since the epoch, 13 digits>.<sequence number, 6 digits or more>.<log name>

Readers put the segments of one log name together, in name order, as one log file
(whose path is ``<run>/<log name>``): a header in the middle of a file is already how
a log file goes on after its writer was restarted. Names start with their upload time
so that one S3 ``ListObjectsV2`` with ``StartAfter`` a few minutes back returns only
the new segments of a run.

A log name is the writer's own (its default names are unique). Writers that are given
one ``file_name`` (eight ranks all writing ``train.vdlog``) append to one file on a disk,
but their segments in a bucket would take each other's names when uploaded in the same
millisecond, and one writer's would overwrite another's: each such writer's segments
carry a log name of their own, the given name with a token of the writer before its
``.vdlog`` (:func:`shared_log_name`), so that each reads back as a log of its own.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable

from visualdl._formats.vdlog.logformat import FILE_MARKER

__all__ = ["SEGMENT_PREFIX", "group_segments", "segment_name", "shared_log_name", "split_segment"]

#: Segment objects' names start with this (after it: upload time, sequence number, log name).
SEGMENT_PREFIX = "vdls."
# A writer's millionth segment has a 7-digit sequence number: the digits are not bounded.
_SEGMENT = re.compile(r"^vdls\.(\d{13})\.(\d{6,})\.(.+)$")


def segment_name(upload_ms: int, seq: int, log_name: str) -> str:
    return f"{SEGMENT_PREFIX}{upload_ms:013d}.{seq:06d}.{log_name}"


def shared_log_name(log_name: str, token: str | None = None) -> str:
    """The log name of one writer of a ``log_name`` that several writers may share:
    ``train.vdlog`` -> ``train.<8 hex digits>.vdlog`` (a new token unless one is given)."""
    token = token or secrets.token_hex(4)
    stem, marker, rest = log_name.rpartition(FILE_MARKER)
    if not marker:
        return f"{log_name}.{token}"
    return f"{stem}.{token}{marker}{rest}"


def split_segment(name: str) -> tuple[str, int, int] | None:
    """``(log name, upload ms, sequence number)`` of a segment's name; None for other names."""
    m = _SEGMENT.match(name)
    if m is None:
        return None
    return m.group(3), int(m.group(1)), int(m.group(2))


def group_segments(names: Iterable[str]) -> tuple[list[str], dict[str, list[str]]]:
    """Names of one directory split into plain names and segments by log name:
    ``([name, ...], {log name: [segment name, ...] in order})``."""
    plain: list[str] = []
    grouped: dict[str, list[tuple[int, int, str]]] = {}
    for name in names:
        seg = split_segment(name)
        if seg is None:
            plain.append(name)
        else:
            grouped.setdefault(seg[0], []).append((seg[1], seg[2], name))
    return plain, {log_name: [n for *_, n in sorted(items)] for log_name, items in grouped.items()}
