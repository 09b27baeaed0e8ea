"""The embeddings kind: ``rows`` vectors of float32 and a table of labels per row. The
vectors are a ``blob``, read when the projector asks; the labels sit in the event."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from visualdl._kinds.kind import Kind, RecordRef
from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = ["KIND", "EmbeddingsEvent", "encode_embeddings"]


@dataclass(frozen=True, slots=True)
class EmbeddingsEvent:
    """``rows`` vectors of ``dimension`` float32 (:meth:`LogReader.read_blob` gives their
    little-endian bytes, row after row) and ``metadata[row]``: one label per column of
    ``metadata_header`` (empty when there is no metadata)."""

    step: int
    wall_time: float
    rows: int
    dimension: int
    metadata_header: tuple[str, ...]
    metadata: tuple[tuple[str, ...], ...]
    ref: RecordRef


def encode_embeddings(
    tag: str,
    step: int,
    wall_time: float,
    vectors: np.ndarray,
    metadata_header: list[str],
    metadata: list[str],
) -> pb.Record:
    """``vectors``: rows x dimension; ``metadata``: rows x len(metadata_header) labels, row after row."""
    rows, dimension = vectors.shape
    embeddings = pb.Embeddings(
        tag=tag,
        step=step,
        wall_time=wall_time,
        rows=rows,
        dimension=dimension,
        metadata_header=metadata_header,
        metadata=metadata,
        vectors=np.ascontiguousarray(vectors, "<f4").tobytes(),
    )
    return pb.Record(embeddings=embeddings)


def _decode_embeddings(msg: pb.Embeddings, path: str, offset: int) -> list[tuple[str, EmbeddingsEvent]]:
    rows, dim, columns = msg.rows, msg.dimension, len(msg.metadata_header)
    if not (rows and dim):  # the writer refuses them: there is nothing to project
        raise LogFormatError(f"embeddings {msg.tag!r} of {rows} rows of {dim} values, not at least one of one")
    if len(msg.vectors) != rows * dim * 4:
        raise LogFormatError(
            f"embeddings {msg.tag!r}: {len(msg.vectors)} bytes of vectors for {rows} rows of {dim} float32"
        )
    labels = tuple(msg.metadata)
    if len(labels) != (rows * columns if labels else 0):
        raise LogFormatError(f"embeddings {msg.tag!r}: {len(labels)} labels for {rows} rows of {columns} columns")
    metadata = tuple(labels[i : i + columns] for i in range(0, len(labels), columns)) if columns else ()
    event = EmbeddingsEvent(
        msg.step, msg.wall_time, rows, dim, tuple(msg.metadata_header), metadata, RecordRef(path, offset)
    )
    return [(msg.tag, event)]


KIND = Kind(
    "embeddings",
    "embeddings",
    _decode_embeddings,
    event=EmbeddingsEvent,
    encode=encode_embeddings,
    storage="blob",
    title="Projector",
    blob_field="vectors",
    media_type="application/octet-stream",
)
