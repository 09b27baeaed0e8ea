"""The process-end record: how a writer's process ended (closed, an exception, a signal).

Not a kind of :data:`visualdl._kinds.table.KINDS`: like the meta record it holds no data
to show, only a property of its writer, which the format's decoder applies to the
writer's state (its entry of :data:`visualdl._formats.vdlog.writerrecords.WRITER_RECORDS`).
The SDK writes one end per writer (``sdk/_ends.py``), after any *events* it wrote as
records with ``event`` set (what the process lived through: a helper thread's uncaught
exception, a SIGTERM the program handled). The end of a writer's stretch of a file is its
last record without ``event``; in files older than the flag, its last record.

Readers infer two more ends that no process can write (:mod:`visualdl._index.ends`): a
``"fatal signal"`` (a segfault or an abort, told by the ``faulthandler`` sidecar file
next to the log) and ``"killed"`` (a file that ends without an end record, its writer
gone: SIGKILL, the OOM killer, a preempted machine).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from visualdl.proto import pb

__all__ = [
    "HOWS",
    "INFERRED_HOWS",
    "MESSAGE_CHARS",
    "TRACEBACK_CHARS",
    "ProcessEnd",
    "decode_process_end",
    "encode_process_end",
]

How = Literal["closed", "exception", "signal"]
HOWS: tuple[str, ...] = ("closed", "exception", "signal")
#: Ends a reader infers, never written in a log.
INFERRED_HOWS: tuple[str, ...] = ("fatal signal", "killed")
#: A traceback is kept to its last this many characters (the innermost frames and the error).
TRACEBACK_CHARS = 16_384
#: An exception's message is kept to its first this many characters.
MESSAGE_CHARS = 4_096


@dataclass(frozen=True, slots=True)
class ProcessEnd:
    """How a writer's process ended. ``step`` is the last scalar step it logged (None: none).
    ``cause``: what a reader guesses of an inferred end (``"probably out of memory"``);
    never written."""

    how: str
    wall_time: float
    exception_type: str = ""
    message: str = ""
    traceback: str = ""
    signal: str = ""
    thread: str = ""
    step: int | None = None
    cause: str = ""


def encode_process_end(end: ProcessEnd, *, event: bool = False) -> pb.Record:
    """The record of ``end``; ``event``: what the process lived through and went on after,
    not its end (a later record is, or none)."""
    if end.how not in HOWS:
        raise ValueError(f"process end {end.how!r} is none of {HOWS}; pick one")
    traceback = end.traceback
    if len(traceback) > TRACEBACK_CHARS:
        traceback = "...\n" + traceback[-(TRACEBACK_CHARS - 4) :]
    message = pb.ProcessEnd(
        how=end.how,
        wall_time=end.wall_time,
        exception_type=end.exception_type,
        message=end.message[:MESSAGE_CHARS],
        traceback=traceback,
        signal=end.signal,
        thread=end.thread,
        event=event,
    )
    if end.step is not None:
        message.last_step = end.step
    return pb.Record(process_end=message)


def decode_process_end(msg: pb.ProcessEnd) -> ProcessEnd:
    return ProcessEnd(
        how=msg.how,
        wall_time=msg.wall_time,
        exception_type=msg.exception_type,
        message=msg.message,
        traceback=msg.traceback,
        signal=msg.signal,
        thread=msg.thread,
        step=msg.last_step if msg.HasField("last_step") else None,
    )
