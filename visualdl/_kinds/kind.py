"""What a kind of record declares: the :class:`Kind` entry each kind's module makes.

A kind's entry is the one place that knows it: the ``Record`` field that carries it,
its event class, its record builder (``encode``, called by ``LogWriter`` and
``SummaryWriter`` alike), its decoder, how the reader keeps its events (its storage
class), the attribute that orders them, what the UI calls it and, for a kind with a
large payload, which field holds it and what media type its bytes are. The writer, the
reader, the API and the UI dispatch through the table of these entries
(:data:`visualdl._kinds.table.KINDS`) rather than through code per kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from typing import Any, Literal, get_args

from visualdl.proto import pb

__all__ = ["STORAGE_CLASSES", "BuiltRecord", "Kind", "RecordRef", "Storage"]

#: How the reader keeps a kind's events: ``series`` as numpy columns per tag (scalars),
#: ``events`` as a list of small events per tag, ``blob`` as a list of events that each
#: point at a payload read from its file only when asked (:class:`RecordRef`).
Storage = Literal["series", "events", "blob"]
STORAGE_CLASSES: tuple[str, ...] = get_args(Storage)


class BuiltRecord:
    """A ``Record`` serialized as it was built, for a kind whose payload is large: its bytes
    are copied once, into the record's, not into a message and again when serialized. The
    writer takes it where it takes a ``pb.Record`` (it only calls :meth:`SerializeToString`)."""

    __slots__ = ("payload",)

    def __init__(self, payload: bytes) -> None:
        self.payload = payload

    def SerializeToString(self) -> bytes:  # the name of pb.Record's method, which the writer calls
        return self.payload


@dataclass(frozen=True, slots=True)
class RecordRef:
    """Where a record sits: the file and the offset of its frame."""

    path: str
    offset: int


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of record. ``name`` is the kind's one name everywhere (tag lists, routes,
    ``LogReader`` methods); ``field`` is the member of ``Record``'s ``kind`` oneof."""

    name: str
    field: str
    #: (message, path, offset) -> [(tag, event), ...]; raises LogFormatError on inconsistent data.
    decode: Callable[[Any, str, int], list[tuple[str, Any]]]
    _: KW_ONLY
    #: The class of the events :attr:`decode` makes.
    event: type
    #: Builds the kind's ``Record`` from the writer's checked, converted values.
    encode: Callable[..., pb.Record]
    storage: Storage
    #: What the web UI calls the kind (its tab's title).
    title: str
    #: For kinds with large payloads: the message field holding them.
    blob_field: str = ""
    #: The media type of the payload's bytes as our writer stores them.
    media_type: str = ""
    #: The events' attribute that orders them (a graph has no step: the newest is shown).
    order: str = "step"

    def __post_init__(self) -> None:
        if self.storage not in STORAGE_CLASSES:
            raise ValueError(f"kind {self.name!r}: storage {self.storage!r} is none of {STORAGE_CLASSES}; pick one")
        has_blob = self.storage == "blob"
        if has_blob != bool(self.blob_field) or has_blob != bool(self.media_type):
            raise ValueError(
                f"kind {self.name!r}: a blob kind names its blob_field and media_type and other kinds"
                f" name neither (storage {self.storage!r}, blob_field {self.blob_field!r},"
                f" media_type {self.media_type!r})"
            )
