"""How a log in object storage is cut into segments, and how their names read back.

Objects cannot be appended to, so a writer to a URL uploads **segments**: immutable
objects, each a whole log file of this format (the writer's header, then records;
the last one ends with the footer), named ::

    vdls.<upload time, ms since the epoch, 13 digits>.<sequence number, 6 digits>.<log name>

Readers put the segments of one log name together, in name order, as one log file
(whose path is ``<run>/<log name>``): a header in the middle of a file is already how
a log file goes on after its writer was restarted. Names start with their upload time
so that one S3 ``ListObjectsV2`` with ``StartAfter`` a few minutes back returns only
the new segments of a run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["SEGMENT_PREFIX", "group_segments", "segment_name", "split_segment"]

#: Segment objects' names start with this (after it: upload time, sequence number, log name).
SEGMENT_PREFIX = "vdls."
_SEGMENT = re.compile(r"^vdls\.(\d{13})\.(\d{6})\.(.+)$")


def segment_name(upload_ms: int, seq: int, log_name: str) -> str:
    return f"{SEGMENT_PREFIX}{upload_ms:013d}.{seq:06d}.{log_name}"


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
