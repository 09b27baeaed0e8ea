"""The meta record: a writer's run named from now on (VisualDL 2's ``add_meta``).

Not a kind of :data:`visualdl._kinds.table.KINDS`: it holds no data to show, only a
property of its writer, which the format's decoder applies to the writer's state as it
reads (its entry of :data:`visualdl._formats.vdlog.writerrecords.WRITER_RECORDS`), so it
has a builder and no decoder or event.
"""

from __future__ import annotations

from visualdl.proto import pb

__all__ = ["encode_meta"]


def encode_meta(wall_time: float, display_name: str) -> pb.Record:
    return pb.Record(meta=pb.Meta(wall_time=wall_time, display_name=display_name))
