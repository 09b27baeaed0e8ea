"""Structure-aware mutants of protobuf messages: a field inside a valid message set to a value
that no writer makes, the message still valid protobuf, so that a decoder sees it whole.

Byte mutations mostly make records that do not parse, and a decoder never sees their values;
these keep the message's shape and change what it says: floats to infinities, NaN, float32's
largest, one bit flipped; integers to their type's extremes (``2**64 - 1`` for unsigned,
``-1``); strings to 30 nines or a long text; bytes cut, emptied or replaced; a repeated field
emptied, grown by an extreme element or cut by one; a message field cleared or set empty.
:func:`mutate` changes a copy of a message one to three times.
"""

from __future__ import annotations

import math
import random
import struct
from typing import Any, TypeVar

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

__all__ = ["mutate"]

M = TypeVar("M", bound=Message)
_F = FieldDescriptor
_FLOATS = (_F.TYPE_FLOAT, _F.TYPE_DOUBLE)
_SIGNED = {
    _F.TYPE_INT32: 32, _F.TYPE_SINT32: 32, _F.TYPE_SFIXED32: 32,
    _F.TYPE_INT64: 64, _F.TYPE_SINT64: 64, _F.TYPE_SFIXED64: 64,
}  # fmt: skip
_UNSIGNED = {_F.TYPE_UINT32: 32, _F.TYPE_FIXED32: 32, _F.TYPE_UINT64: 64, _F.TYPE_FIXED64: 64}
_F32_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]


def _flip(rng: random.Random, x: float, double: bool) -> float:
    if double:
        bits = struct.unpack("<Q", struct.pack("<d", x))[0] ^ (1 << rng.randrange(64))
        return float(struct.unpack("<d", struct.pack("<Q", bits))[0])
    bits = struct.unpack("<I", struct.pack("<f", x if math.isnan(x) or abs(x) <= _F32_MAX else 0.0))[0]
    return float(struct.unpack("<f", struct.pack("<I", bits ^ (1 << rng.randrange(32))))[0])


def _value(rng: random.Random, field: FieldDescriptor, old: Any) -> Any:
    """A value of ``field``'s type that writers do not make (or ``old`` changed a little)."""
    kind = field.type
    if kind in _FLOATS:
        double = kind == _F.TYPE_DOUBLE
        choices = [math.inf, -math.inf, math.nan, _F32_MAX, -_F32_MAX, 3e38, 1e30, -1.0, 0.0, 0.5, 1e-45]
        if double:
            choices += [1.7976931348623157e308, 2.0**64, 1e20, 5e-324]
        return _flip(rng, float(old or 0.0), double) if rng.random() < 0.3 else rng.choice(choices)
    if kind in _SIGNED:
        bits = _SIGNED[kind]
        top = (1 << (bits - 1)) - 1
        return rng.choice(
            [0, -1, 1, top, -top - 1, min(1 << 31, top), 300, 70000, int(old or 0) ^ (1 << rng.randrange(bits - 1))]
        )
    if kind in _UNSIGNED:
        top = (1 << _UNSIGNED[kind]) - 1
        return rng.choice([0, 1, top, top >> 1, 1 << 31, 300, int(old or 0) ^ (1 << rng.randrange(_UNSIGNED[kind]))])
    if kind == _F.TYPE_BOOL:
        return not old
    if kind == _F.TYPE_ENUM:
        return rng.choice([0, 1, 2, 3, 99, -1])
    if kind == _F.TYPE_STRING:
        return rng.choice(
            ["", "9" * 30, "-1", "nan", "inf", "1e400", "0", "x" * 5000, "\u00e9\u4e2d", str(old or "")[:1]]
        )
    if kind == _F.TYPE_BYTES:
        data = bytes(old or b"")
        return rng.choice(
            [b"", data[: len(data) // 2], data[:-1], b"9" * 30, rng.randbytes(16), data + rng.randbytes(8)]
        )
    raise AssertionError(f"no mutation for field {field.full_name} of type {kind}")


def _is_map(field: Any) -> bool:
    return field.message_type is not None and bool(field.message_type.GetOptions().map_entry)


def _places(message: Message) -> list[tuple[Message, Any]]:
    """Every field of ``message`` and of the messages it holds, set or not (unset oneof
    members included: setting one switches the oneof)."""
    out: list[tuple[Message, Any]] = []
    stack = [message]
    while stack:
        m = stack.pop()
        for field in m.DESCRIPTOR.fields:
            out.append((m, field))
            if field.type != _F.TYPE_MESSAGE:
                continue
            if field.is_repeated:
                if not _is_map(field):
                    stack.extend(getattr(m, field.name))
            elif m.HasField(field.name):
                stack.append(getattr(m, field.name))
    return out


def _written(m: Message, field: Any) -> bool:
    """Whether ``field`` of ``m`` holds something (a writer wrote it)."""
    value = getattr(m, field.name)
    if field.is_repeated:
        return len(value) > 0
    if field.type == _F.TYPE_MESSAGE:
        return m.HasField(field.name)
    return bool(value)


def _mutate_once(rng: random.Random, message: Message) -> None:
    places = _places(message)
    written = [(m, f) for m, f in places if _written(m, f)]
    # Mostly what the message says (its values), now and then a field it leaves out.
    m, field = rng.choice(written if written and rng.random() < 0.8 else places)
    name = field.name
    if field.is_repeated:
        items = getattr(m, name)
        if field.type == _F.TYPE_MESSAGE:
            op = rng.randrange(3)
            if op == 0 or _is_map(field):
                m.ClearField(name)
            elif op == 1 and len(items):
                items.add().CopyFrom(items[rng.randrange(len(items))])
            elif len(items):
                del items[rng.randrange(len(items))]
            return
        op = rng.randrange(4)
        if op == 0:
            m.ClearField(name)
        elif op == 1 or not len(items):
            items.append(_value(rng, field, items[-1] if len(items) else None))
        elif op == 2:
            del items[rng.randrange(len(items))]
        else:
            i = rng.randrange(len(items))
            items[i] = _value(rng, field, items[i])
        return
    if field.type == _F.TYPE_MESSAGE:
        if m.HasField(name) and rng.random() < 0.5:
            m.ClearField(name)
        else:
            getattr(m, name).SetInParent()  # set, and empty if it was not
        return
    setattr(m, name, _value(rng, field, getattr(m, name)))


def mutate(rng: random.Random, message: M) -> M:
    """A copy of ``message`` with one to three fields mutated (see the module docstring)."""
    out = type(message)()
    out.CopyFrom(message)
    for _ in range(rng.randint(1, 3)):
        _mutate_once(rng, out)
    return out
