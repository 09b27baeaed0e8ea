"""float64 columns stored as little-endian bytes, as histograms and curves keep them.

Several kinds store arrays of float64 as ``bytes`` fields: one numpy call each way, so
that neither the writer nor the reader loops in Python over an array's elements.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from visualdl.errors import LogFormatError

__all__ = ["F8", "float64_bytes", "float64_columns"]

#: The dtype of the stored bytes: float64, little-endian on every machine.
F8 = np.dtype("<f8")


def float64_columns(msg: Any, names: tuple[str, ...], what: str) -> list[np.ndarray]:
    """The fields ``names`` of ``msg`` as native float64 arrays, all of one length;
    :class:`LogFormatError` naming ``what`` when they are not."""
    columns = []
    for name in names:
        data = getattr(msg, name)
        if len(data) % 8:
            raise LogFormatError(f"{what}: {name} is not a whole number of float64")
        columns.append(np.frombuffer(data, F8).astype(np.float64))
    if len({c.size for c in columns}) > 1:
        sizes = ", ".join(f"{n} {c.size}" for n, c in zip(names, columns, strict=True))
        raise LogFormatError(f"{what}: columns of different lengths ({sizes})")
    return columns


def float64_bytes(columns: dict[str, np.ndarray], names: tuple[str, ...]) -> dict[str, bytes]:
    """The arrays ``names`` of ``columns`` as the bytes their fields store, by name."""
    return {name: np.ascontiguousarray(columns[name], F8).tobytes() for name in names}
