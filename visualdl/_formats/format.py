"""The one interface every log format sits behind: :class:`Format`.

The index follows files of several formats (ours, TensorBoard's event files, VisualDL 2's
records) the same way: it lists a directory, keeps the names a format claims, tails each
file with that format's framing, hands the records to that format's decoder, and, for a
blob, asks the format where its bytes lie in the record. What differs between formats
is data and a few functions, not state shared between files, so a :class:`Format` is a
frozen dataclass of values and callables rather than a base class: a format's folder
builds one in its ``format.py`` and the table (:mod:`visualdl._formats.table`) lists it.
Per-file state lives in the object :attr:`Format.decoder` makes for each file; what it
learned of the writer so far is one value of every format alike (its ``writer``, a
:class:`~visualdl._formats.writerstate.WriterState`).

Formats never open a file: the index opens it and gives bytes, or an open file to
check a record in, and gets records, events and offsets back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol

from visualdl._formats import framing
from visualdl._formats.framebatch import Batch
from visualdl._formats.writerstate import WriterState
from visualdl.errors import LogFormatError

__all__ = ["SESSION_START", "UNREADABLE", "Decoder", "Format", "Framing", "Read", "unreadable"]

#: The kind of an item a decoder gives beside the kinds of the table: a session that
#: started again at a step, ``(wall time, step)``; the points written before it from that
#: step on are superseded (TensorBoard's ``purge_step``).
SESSION_START = "session_start"

#: What reading one value of a record may raise when the value is bad (a length that does
#: not match, an infinite float where a whole number must be, an integer out of its
#: dtype's range): a decoder catches these around each value, reports the value as a
#: problem and keeps the record's other values. Anything else out of a decoder is a bug,
#: which the reader catches per record (:func:`visualdl._index.polling._decode`).
UNREADABLE = (LogFormatError, ArithmeticError, ValueError)


def unreadable(e: Exception) -> str:
    """What a problem says of a value that raised one of :data:`UNREADABLE`."""
    return e.message if isinstance(e, LogFormatError) else f"cannot be converted ({type(e).__name__}: {e})"


#: ``read(offset, n)``: up to ``n`` bytes of a record's payload from ``offset``.
Read = Callable[[int, int], bytes]


class Framing(Protocol):
    """How records sit in a file: :func:`visualdl._formats.framing.scan` and
    :func:`visualdl._formats.framing.claimed_end` say what they must do."""

    def scan(
        self, buf: bytes, pos: int = 0, *, file_end: int | None = None, stopped: bool = False
    ) -> Iterator[framing.Frame | framing.Corruption | Batch | int]: ...

    def claimed_end(self, buf: bytes, pos: int) -> int: ...


class Decoder(Protocol):
    """Follows the records of one file, read after read: records in, ``(kind, tag, event)``
    items out (kinds as :data:`visualdl._kinds.table.KINDS` names them, or
    :data:`SESSION_START`), and what it learned of the file's writer on the way."""

    @property
    def writer(self) -> WriterState:
        """What the file's records said of its writer so far: its header (None until known),
        its footer and process end, ... (:class:`~visualdl._formats.writerstate.WriterState`)."""

    @property
    def problems(self) -> list[tuple[int, str]]:
        """``(offset, message)`` of what could not be read, since the caller last cleared it."""

    def decode(self, path: str, items: list[tuple[int, Any]]) -> list[tuple[str, str, object]]: ...

    def unshown(self) -> tuple[tuple[str, str, int], ...]:
        """``(tag, plugin or kind, values)`` of what the file holds and no view shows."""


@dataclass(frozen=True, slots=True)
class Format:
    """One log format: how its files are named, framed, checked, decoded, and where a blob lies.

    A frozen dataclass of callables, not a base class: formats share no behaviour, only
    this shape, and a table of values is what the index iterates (a test iterates it too).
    """

    #: What :attr:`visualdl._index.index.WriterInfo.format` says of its files.
    name: str
    #: Whether a file of this basename is one of this format's (the table asks in order).
    matches: Callable[[str], bool]
    #: A record's payload to what :attr:`decoder`'s ``decode`` takes (:class:`LogFormatError`
    #: when it cannot be); ``bytes`` for formats whose decoder parses in batches.
    parse: Callable[[bytes], Any]
    #: The framing a file is tailed with (one object, shared by every file: it holds no state).
    framing: Framing
    #: Bytes in front of a record's payload (its length prefix, and checksum if any).
    head_size: int
    #: ``check(f, path, offset) -> payload length`` of the record at ``offset`` of the open
    #: file ``f``, once it is whole and as valid as the format can tell; :class:`LogFormatError`
    #: when it is not (the file was truncated or rewritten since it was read).
    check_record: Callable[[BinaryIO, str, int], int]
    #: A fresh per-file :class:`Decoder`.
    decoder: Callable[[], Decoder]
    #: ``blob_span(read, length, event) -> (offset in the payload, size)`` of the blob of a
    #: blob event (an image, a clip, a model, vectors) whose record's payload is ``length``
    #: bytes; only keys and lengths are read. :class:`LogFormatError` when it is not there.
    blob_span: Callable[[Read, int, Any], tuple[int, int]]
    #: Whether its scalar records are columns of many points. A format of a point or a few
    #: per record is read in smaller rounds: its bytes outweigh what they decode to, and
    #: decoding it in batches holds a few arrays per point.
    columnar: bool
    #: Whether an event's blob is no one span of its record (gathered by :attr:`gather`).
    scattered: Callable[[Any], bool] = lambda event: False
    #: ``gather(payload, event) -> bytes``: the blob of a :attr:`scattered` event from its
    #: record's whole payload.
    gather: Callable[[bytes, Any], bytes] | None = None
    #: ``prune(read, length) -> payload``: a record's payload of ``length`` bytes as its
    #: decoder can take it without its blobs' bytes (each cut to its first few KiB, enough
    #: for a PNG's header), read through ``read`` (as for :attr:`blob_span`): how a record
    #: too large to be read whole is indexed. None: such records are read whole.
    prune: Callable[[Read, int], bytes] | None = None
