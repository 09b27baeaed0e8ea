"""Embeddings as LogWriter takes them (checked and copied on the caller's thread).

As VisualDL 2: ``mat`` holds one vector per row; ``metadata`` is one label per row, or
a list of columns of labels (``metadata[column][row]``) whose names are
``metadata_header`` (by default ``label_0``, ``label_1``, ...). A single column of
labels is named ``label`` unless ``metadata_header`` names it. Labels are stored as
strings (numbers as ``str(number)``).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from visualdl.sdk._convert import MAX_PAYLOAD_BYTES, check_text, describe, number_array

__all__ = ["check_embeddings"]


def _matrix(mat: Any) -> np.ndarray:
    if mat is None:
        raise TypeError("mat must be a matrix with one vector per row; got None")
    arr = number_array(mat, "mat", "a matrix with one vector per row")
    if arr.ndim != 2 or 0 in arr.shape:
        raise ValueError(f"mat must be a non-empty matrix (rows x dimension); got shape {arr.shape}")
    if arr.size * 4 > MAX_PAYLOAD_BYTES:
        raise ValueError(
            f"mat of shape {arr.shape} is {arr.size * 4:,} bytes as float32, above the limit of "
            f"{MAX_PAYLOAD_BYTES:,} bytes of one record; log a sample of the rows"
        )
    with np.errstate(over="ignore"):
        vectors = np.array(arr, dtype="<f4", order="C")
    if not np.isfinite(vectors).all():
        raise ValueError("mat must hold finite numbers that fit in float32; got NaN or infinite values")
    return vectors


def _label(value: Any, where: str) -> str:
    if isinstance(value, str):
        return check_text(value, where)
    if isinstance(value, numbers.Number | np.generic):
        return str(value)
    raise TypeError(f"{where} must be a string or a number; got {describe(value)}")


def _column(values: Any, rows: int, where: str, per: str = "row of mat") -> list[str]:
    listed = values.tolist() if isinstance(values, np.ndarray) else values
    if not isinstance(listed, list | tuple):
        raise TypeError(f"{where} must be a list of labels; got {describe(values)}")
    if len(listed) != rows:
        raise ValueError(f"{where} must hold one label per {per} ({rows}); got {len(listed)}")
    return [_label(v, f"{where}[{i}]") for i, v in enumerate(listed)]


def check_embeddings(mat: Any, metadata: Any, metadata_header: Any) -> tuple[np.ndarray, list[str], list[str]]:
    """The vectors (float32, rows x dimension), the names of the metadata columns and the
    labels, row after row."""
    vectors = _matrix(mat)
    rows = vectors.shape[0]
    if metadata is None:
        if metadata_header:
            raise ValueError("metadata_header names the columns of metadata, but metadata is None")
        return vectors, [], []
    listed = metadata.tolist() if isinstance(metadata, np.ndarray) else metadata
    if not isinstance(listed, list | tuple) or not listed:
        raise TypeError(f"metadata must be a list of labels, or a list of columns of labels; got {describe(metadata)}")
    if isinstance(listed[0], list | tuple | np.ndarray):
        columns = [_column(column, rows, f"metadata[{c}]") for c, column in enumerate(listed)]
        default = [f"label_{c}" for c in range(len(columns))]
    else:
        columns = [_column(listed, rows, "metadata")]
        default = ["label"]
    if metadata_header is None or (isinstance(metadata_header, list | tuple) and not metadata_header):
        header = default
    else:
        header = _column(metadata_header, len(columns), "metadata_header", "column of metadata")
    labels = [label for row in zip(*columns, strict=True) for label in row]
    return vectors, header, labels
