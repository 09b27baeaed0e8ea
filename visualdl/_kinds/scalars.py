"""The scalars kind: batches of points of several tags, one record per writer flush.

Its storage class is ``series``: the reader keeps each tag's points as numpy columns, and
a record decodes to one :class:`ScalarBlock` for all its tags, split per tag once per poll.
The columns are encoded by :mod:`visualdl._kinds.columns`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from visualdl._kinds.columns import decode_column, encode_float_column, encode_int_column
from visualdl._kinds.kind import Kind
from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = ["KIND", "MAX_POINTS_PER_RECORD", "ScalarBlock", "encode_scalars"]

#: Scalar points in one record at most: writers split a flush past this, readers
#: refuse records that claim more (a reported problem, before anything is inflated).
MAX_POINTS_PER_RECORD = 1 << 20


@dataclass(frozen=True, slots=True)
class ScalarBlock:
    """The points of one scalar record: ``counts[i]`` points of ``tags[i]``, tag after tag."""

    tags: list[str]
    counts: np.ndarray  # int64, one per tag
    steps: np.ndarray  # int64
    values: np.ndarray  # float64
    wall_times: np.ndarray  # float64


def encode_scalars(
    tags: list[str], counts: list[int], steps: np.ndarray, values: np.ndarray, wall_times: np.ndarray
) -> pb.Record:
    """A batch of several tags' points; the columns hold ``counts[0]`` points of ``tags[0]`` first, and so on."""
    batch = pb.ScalarBatch(
        tags=tags,
        counts=counts,
        steps=encode_int_column(steps),
        values=encode_float_column(values),
        wall_times=encode_float_column(wall_times),
    )
    return pb.Record(scalars=batch)


def _decode_scalars(msg: pb.ScalarBatch, path: str, offset: int) -> list[tuple[str, ScalarBlock]]:
    """One block for all the record's tags (its tag is ""): the reader splits blocks per
    tag once per poll, not once per record."""
    if len(msg.counts) != len(msg.tags):
        raise LogFormatError(f"scalar batch with {len(msg.tags)} tags but {len(msg.counts)} counts")
    if len(msg.counts) > MAX_POINTS_PER_RECORD:
        raise LogFormatError(f"scalar batch of {len(msg.counts)} tags, above the limit of {MAX_POINTS_PER_RECORD}")
    tags = list(msg.tags)
    raw_counts = list(msg.counts)
    n = sum(raw_counts)  # Python ints: no wrap-around
    if n > MAX_POINTS_PER_RECORD:
        raise LogFormatError(
            f"scalar batch claims {n} points, above the limit of {MAX_POINTS_PER_RECORD} "
            "(writers split larger flushes into several records)"
        )
    # Values first: their bytes bound n before anything is allocated from it.
    values = decode_column(msg.values, n, np.dtype(np.float64), "values")
    walls = decode_column(msg.wall_times, n, np.dtype(np.float64), "wall_times")
    steps = decode_column(msg.steps, n, np.dtype(np.int64), "steps")
    return [("", ScalarBlock(tags, np.array(raw_counts, dtype=np.int64), steps, values, walls))]


KIND = Kind(
    "scalars",
    "scalars",
    _decode_scalars,
    event=ScalarBlock,
    encode=encode_scalars,
    storage="series",
    title="Scalars",
)
