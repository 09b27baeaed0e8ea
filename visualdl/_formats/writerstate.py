"""What a log file's records say of its writer: :class:`WriterState`, one value per file.

Every format's decoder keeps one (:attr:`visualdl._formats.format.Decoder.writer`) and
replaces it as it reads: ours through the table of per-writer records
(:data:`visualdl._formats.vdlog.writerrecords.WRITER_RECORDS`: header, meta, provenance,
tag info, system metrics, process end, footer); TensorBoard's and VisualDL 2's files give
a header alone, made from their first events. The index keeps the value of each file's
last read and turns it into the file's ``WriterInfo`` (:mod:`visualdl._index.writers`),
where a field named as one of ``WriterInfo``'s is carried over as it is.

Frozen, and replaced rather than changed: a query reads it while a read thread makes the
next one, and a round read again starts from the value it started from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from visualdl._kinds.table import ProcessEnd, SystemMetric
from visualdl.proto import pb

__all__ = ["MAX_EVENTS", "WriterState"]

#: Events of a writer's timeline a reader keeps (the SDK writes at most as many).
MAX_EVENTS = 16


@dataclass(frozen=True, slots=True)
class WriterState:
    """A file's writer as its records said it so far (see the module docstring)."""

    #: The file's first writer as its header says it (None until known); renamed by meta records.
    header: pb.Header | None = None
    #: The current writer's stretch of the file is of a newer format version: its records are not read.
    skipped: bool = False
    #: The footer of a writer that closed the file cleanly (None while it goes on).
    footer: pb.Footer | None = None
    #: How the writer's process ended: the last end record since its header that is not an
    #: event (None: none, so far or at all; the reader infers one then).
    end: ProcessEnd | None = None
    #: The events since the header, oldest first (at most :data:`MAX_EVENTS`): what the
    #: process lived on after (a helper thread's exception, a SIGTERM it handled), the end
    #: records with ``event`` set, and in files older than that flag the end records
    #: before the last.
    events: tuple[ProcessEnd, ...] = ()
    #: Where the first writer's process came from (its first provenance record).
    provenance: pb.Provenance | None = None
    #: tag -> replicated, as the file's writers declared it (the last declaration wins).
    tag_info: Mapping[str, bool] = field(default_factory=dict)
    #: The current writer's last declared system metrics (the columns of its next samples).
    declared: tuple[SystemMetric, ...] = ()

    def listing(self) -> tuple[bool, ...]:
        """What of the writer the lists of runs and tags show, as the index's generation
        follows it: whether a header, a footer and a process end were read, and one more
        True per event (an event, or a later end record replacing the end an earlier one told)."""
        return (self.header is not None, self.footer is not None, self.end is not None, *(True for _ in self.events))
