"""The tag-info record: a property of one tag, declared by its writer once (replicated).

Not a kind of :data:`visualdl._kinds.table.KINDS`: like the process-end record it holds no
data to show, only what a writer said of one of its tags, which the format's decoder keeps
with the writer (:attr:`visualdl._formats.writerstate.WriterState.tag_info`). The SDK
writes one the first time ``add_scalar(tag, ..., replicated=True)`` is called for a tag.
"""

from __future__ import annotations

from visualdl.proto import pb

__all__ = ["encode_tag_info"]


def encode_tag_info(tag: str, *, replicated: bool) -> pb.Record:
    """The record declaring ``tag`` replicated (every rank logs it with the same value), or not."""
    return pb.Record(tag_info=pb.TagInfo(tag=tag, replicated=replicated))
