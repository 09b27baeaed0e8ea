"""The table of per-writer records: what our records that are not data say of their writer.

A header, a meta record, a provenance record, a tag info, system metrics, a process end and
a footer hold no tag's data to show (they are not kinds of
:data:`visualdl._kinds.table.KINDS`); each says something of the file's writer. Each has one
:class:`WriterRecord` entry here: the ``Record`` field that carries it, how its message is
decoded and how the decoded value is applied to the file's :class:`WriterState`, which the
index turns into the file's ``WriterInfo``. :class:`visualdl._formats.vdlog.decoder.RecordDecoder`
dispatches through :data:`WRITER_RECORDS`, and ``tests/kinds/test_kinds_table.py`` decodes
every entry from real bytes and applies it.

Adding a per-writer record: its message and a field of ``Record``'s oneof in
``proto/visualdl_log.proto``, one entry of :data:`WRITER_RECORDS`, and the field of
:class:`WriterState` it applies to (named as a field of ``WriterInfo`` when the reader
shows it: it is carried over as it is).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, replace
from typing import Any

from visualdl._formats.vdlog.logformat import FORMAT_VERSION
from visualdl._formats.writerstate import MAX_EVENTS, WriterState
from visualdl._kinds.table import ProcessEnd, SystemBatch, decode_process_end, decode_system_metrics
from visualdl.proto import pb

__all__ = ["WRITER_RECORDS", "WriterRecord"]


def _fine(value: Any) -> str:
    return ""


@dataclass(frozen=True, slots=True)
class WriterRecord:
    """One per-writer record. ``field`` is the member of ``Record``'s ``kind`` oneof; ``attr``
    the field of :class:`WriterState` that :attr:`apply` changes."""

    field: str
    attr: str
    #: ``(message, state, path, offset) -> value`` to apply; None: nothing to apply. Raises
    #: one of :data:`visualdl._formats.format.UNREADABLE` on a bad record (it alone is lost).
    decode: Callable[[Any, WriterState, str, int], Any]
    #: ``(state, value) -> state``: the writer's state with the decoded value applied.
    apply: Callable[[WriterState, Any], WriterState]
    _: KW_ONLY
    #: Read in a writer's stretch of a newer format version too (whose other records are skipped).
    newer: bool = True
    #: Its values are also samples, which the decoder keeps until the index takes them
    #: (:attr:`visualdl._formats.vdlog.decoder.RecordDecoder.system`).
    samples: bool = False
    #: What a value that is still applied says is wrong ("": nothing), as a problem at its offset.
    problem: Callable[[Any], str] = _fine


def _message(message: Any, state: WriterState, path: str, offset: int) -> Any:
    """The message as it is: the state keeps it."""
    return message


def _start(state: WriterState, header: pb.Header) -> WriterState:
    """A header starts a writer's stretch of the file (later ones: appended by another writer,
    whose records are read as the first's): not closed, not ended, no metrics declared."""
    first = state.header if state.header is not None else header
    skipped = header.format_version > FORMAT_VERSION
    return replace(state, header=first, skipped=skipped, footer=None, end=None, events=(), declared=())


def _newer(header: pb.Header) -> str:
    if header.format_version <= FORMAT_VERSION:
        return ""
    return (
        f"format version {header.format_version} is newer than {FORMAT_VERSION}; "
        "its records are skipped: upgrade visualdl to read them"
    )


def _display_name(message: pb.Meta, state: WriterState, path: str, offset: int) -> str | None:
    return message.display_name or None


def _renamed(state: WriterState, name: str) -> WriterState:
    """The writer's run named from now on (a meta record before any header names nothing)."""
    if state.header is None:
        return state
    header = pb.Header()
    header.CopyFrom(state.header)
    header.display_name = name
    return replace(state, header=header)


def _came_from(state: WriterState, provenance: pb.Provenance) -> WriterState:
    return state if state.provenance is not None else replace(state, provenance=provenance)


def _tag_info(message: pb.TagInfo, state: WriterState, path: str, offset: int) -> tuple[str, bool] | None:
    return (message.tag, message.replicated) if message.tag else None


def _declared_tag(state: WriterState, info: tuple[str, bool]) -> WriterState:
    """The tag declared so (a declaration already made, by a writer appending to the file
    again, keeps the state as it is)."""
    tag, replicated = info
    if state.tag_info.get(tag) is replicated:
        return state
    return replace(state, tag_info={**state.tag_info, tag: replicated})


def _samples(message: pb.SystemMetrics, state: WriterState, path: str, offset: int) -> SystemBatch:
    """The samples of the record, in the columns it declares or else the writer declared last."""
    return decode_system_metrics(message, state.declared, path, offset)


def _sampled(state: WriterState, batch: SystemBatch) -> WriterState:
    return state if batch.metrics is state.declared else replace(state, declared=batch.metrics)


def _end(message: pb.ProcessEnd, state: WriterState, path: str, offset: int) -> tuple[ProcessEnd, bool]:
    return decode_process_end(message), message.event


def _ended(state: WriterState, told: tuple[ProcessEnd, bool]) -> WriterState:
    """A record with ``event`` set is an event of the writer's timeline, never its end: the
    process lived through it (a helper thread's exception, a SIGTERM the program handled).
    The end is the last record without it; one before it (a file older than the flag, whose
    events were end records a later one followed) is an event too. Events are kept in
    ``events``, oldest first (the last :data:`~visualdl._formats.writerstate.MAX_EVENTS`).
    A writer whose records are all events has no end: its reader infers one."""
    end, event = told
    if event:
        return replace(state, events=(*state.events, end)[-MAX_EVENTS:])
    if state.end is None:
        return replace(state, end=end)
    return replace(state, end=end, events=(*state.events, state.end)[-MAX_EVENTS:])


def _closed(state: WriterState, footer: pb.Footer) -> WriterState:
    return replace(state, footer=footer)


#: Every per-writer record by its ``Record`` field, in the order a writer writes them.
WRITER_RECORDS: dict[str, WriterRecord] = {
    record.field: record
    for record in (
        WriterRecord("header", "header", _message, _start, problem=_newer),
        WriterRecord("meta", "header", _display_name, _renamed),
        WriterRecord("provenance", "provenance", _message, _came_from, newer=False),
        WriterRecord("tag_info", "tag_info", _tag_info, _declared_tag),
        WriterRecord("system_metrics", "declared", _samples, _sampled, newer=False, samples=True),
        WriterRecord("process_end", "end", _end, _ended),
        WriterRecord("footer", "footer", _message, _closed),
    )
}
