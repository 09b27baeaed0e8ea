"""Column codecs of scalar batches (the scalars kind's codec): numpy arrays <-> ``Column``
messages. Pure.

A column holds ``count`` elements of one dtype (int64 steps, float64 values and wall
times), little-endian. The encoder picks the smallest of:

* ``ARITHMETIC`` (integers only): ``start + i * stride``, no data at all; the common
  case of steps logged every k iterations;
* ``SHUFFLE_DEFLATE``: the bytes regrouped by significance (all first bytes, then all
  second bytes, ...) and deflated; wall times of one batch share their high bytes and
  shrink to about a third;
* ``RAW``: the bytes as they are, when nothing else is smaller.

Decoding is a handful of numpy calls per column, never a Python loop per element.
"""

from __future__ import annotations

import zlib

import numpy as np

from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = ["decode_column", "encode_float_column", "encode_int_column"]

_INT = np.dtype("<i8")
_FLOAT = np.dtype("<f8")
# Deflate only when it saves at least this fraction of the raw size.
_MIN_SAVING = 0.1


def _shuffled(raw: np.ndarray) -> bytes:
    return raw.view(np.uint8).reshape(-1, raw.itemsize).T.tobytes()


def _packed(raw: np.ndarray) -> pb.Column:
    data = raw.tobytes()
    if raw.size >= 8:
        deflated = zlib.compress(_shuffled(raw), 1)
        if len(deflated) <= len(data) * (1 - _MIN_SAVING):
            return pb.Column(codec=pb.SHUFFLE_DEFLATE, data=deflated)
    return pb.Column(codec=pb.RAW, data=data)


def encode_int_column(values: np.ndarray) -> pb.Column:
    """Encode int64 values (steps)."""
    arr = np.ascontiguousarray(values, dtype=_INT)
    if arr.size == 0:
        return pb.Column(codec=pb.ARITHMETIC)
    start = int(arr[0])
    if arr.size == 1:
        return pb.Column(codec=pb.ARITHMETIC, start=start)
    stride = int(arr[1]) - start
    if -(2**63) <= stride < 2**63 and np.array_equal(arr, start + stride * np.arange(arr.size, dtype=_INT)):
        return pb.Column(codec=pb.ARITHMETIC, start=start, stride=stride)
    return _packed(arr)


def encode_float_column(values: np.ndarray) -> pb.Column:
    """Encode float64 values (values, wall times); NaN and infinities are kept bit for bit."""
    return _packed(np.ascontiguousarray(values, dtype=_FLOAT))


def decode_column(column: pb.Column, count: int, dtype: np.dtype, where: str) -> np.ndarray:
    """The ``count`` elements of ``column`` as a fresh native-order array of ``dtype``.

    ``where`` names the column for the error raised when the data does not match
    ``count`` (a :class:`LogFormatError` without file or offset; the reader adds them).
    """
    codec = column.codec
    if codec == pb.ARITHMETIC:
        if dtype.kind != "i":
            raise LogFormatError(f"{where}: ARITHMETIC codec on a float column")
        if column.data:
            raise LogFormatError(f"{where}: ARITHMETIC column with data")
        # int64 arithmetic, wrapping exactly as the encoder's check did.
        return np.int64(column.start) + np.int64(column.stride) * np.arange(count, dtype=np.int64)
    data = column.data
    itemsize = dtype.itemsize
    if codec == pb.SHUFFLE_DEFLATE:
        try:
            # Never inflate past what count announces (a deflate bomb stops here).
            data = zlib.decompressobj().decompress(data, count * itemsize + 1)
        except zlib.error as e:
            raise LogFormatError(f"{where}: bad deflate data ({e})") from e
    elif codec != pb.RAW:
        raise LogFormatError(f"{where}: unknown codec {codec}")
    if len(data) != count * itemsize:
        raise LogFormatError(f"{where}: {len(data)} bytes for {count} elements of {itemsize} bytes")
    little = dtype.newbyteorder("<")
    if codec == pb.SHUFFLE_DEFLATE:
        planes = np.frombuffer(data, np.uint8).reshape(itemsize, count)
        # One contiguous read per byte plane: ~3x faster than a transposed copy.
        out = np.empty((count, itemsize), np.uint8)
        for i in range(itemsize):
            out[:, i] = planes[i]
        return out.view(little).reshape(count).astype(dtype, copy=False)
    return np.frombuffer(data, little).astype(dtype, copy=True)
