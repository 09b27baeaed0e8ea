"""A tag declared replicated by its writer: ``add_scalar(tag, value, step, replicated=True)``.

Replicated means every rank logs the tag with the same value (an all-reduced loss, a
gradient norm, a parameter checksum); a reader then compares the ranks' values step by
step and names the first step where they disagree. The declaration is written once per
tag, as a ``TagInfo`` record (and again only if it changes); calls that do not pass
``replicated`` never come here.
"""

from __future__ import annotations

from typing import Any, Protocol

from visualdl._kinds.table import encode_tag_info
from visualdl.proto import pb

__all__ = ["declare"]


class _Sink(Protocol):
    def put_item(self, build: Any, nbytes: int) -> None: ...


def declare(declared: dict[str, bool], sink: _Sink, tag: str, replicated: Any) -> None:
    """Write ``tag``'s declaration unless ``declared`` (tag -> what was written) already holds it."""
    if type(replicated) is not bool:
        raise TypeError(f"replicated must be True or False; got {replicated!r}")
    if declared.get(tag) is replicated:
        return
    declared[tag] = replicated

    def build() -> pb.Record:
        return encode_tag_info(tag, replicated=replicated)

    sink.put_item(build, len(tag))
