"""Files of the foreign formats built from their messages, value by value: TensorBoard event
files and VisualDL 2 records holding exactly what a test says, crafted values included
(an infinite sample rate, a width of 30 nines), which no real writer would let through.

The messages are the project's own copies of the formats' schemas (``visualdl.proto.tb``,
``visualdl.proto.vdl2``), so no TensorBoard or VisualDL 2 install is needed.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterable

from visualdl._formats.framing import frame
from visualdl.proto import tb, vdl2

__all__ = ["WALL", "scalar_event", "scalar_value", "tfevents_bytes", "vdl2_bytes", "write_tfevents", "write_vdl2"]

#: The wall time of the first point the helpers make (seconds); point ``i`` is ``i`` later.
WALL = 1_700_000_000.0


def scalar_event(tag: str, step: int, value: float) -> tb.Event:
    """A TensorBoard event of one ``simple_value`` (the shape every writer makes)."""
    summary = tb.Summary(value=[tb.Summary.Value(tag=tag, simple_value=value)])
    return tb.Event(wall_time=WALL + step, step=step, summary=summary)


def scalar_value(tag: str, step: int, value: float) -> vdl2.Record.Value:
    """A VisualDL 2 ``add_scalar`` value (its timestamp in milliseconds, as 2.0.3 on writes)."""
    return vdl2.Record.Value(id=step, tag=tag, timestamp=int((WALL + step) * 1000), value=value)


def tfevents_bytes(events: Iterable[tb.Event]) -> bytes:
    """An event file: its ``file_version`` event first, then ``events``, each framed."""
    first = tb.Event(wall_time=WALL, file_version="brain.Event:2")
    return b"".join(frame(e.SerializeToString()) for e in (first, *events))


def vdl2_bytes(values: Iterable[vdl2.Record.Value]) -> bytes:
    """A VisualDL 2 log: one record per value, each an 8-byte length and the record."""
    out = []
    for value in values:
        payload = vdl2.Record(values=[value]).SerializeToString()
        out.append(struct.pack("<Q", len(payload)) + payload)
    return b"".join(out)


def write_tfevents(directory: str | os.PathLike[str], events: Iterable[tb.Event]) -> str:
    """``events`` in an event file in ``directory`` (made if need be); its path."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "events.out.tfevents.1700000000.host")
    with open(path, "wb") as f:
        f.write(tfevents_bytes(events))
    return path


def write_vdl2(directory: str | os.PathLike[str], values: Iterable[vdl2.Record.Value]) -> str:
    """``values`` in a VisualDL 2 log in ``directory`` (made if need be); its path."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "vdlrecords.1700000000.log")
    with open(path, "wb") as f:
        f.write(vdl2_bytes(values))
    return path
