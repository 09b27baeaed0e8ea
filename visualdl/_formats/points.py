"""The points batch: scalar points of many records gathered, then given as one
:class:`~visualdl._kinds.table.ScalarBlock` tag after tag.

TensorBoard's and VisualDL 2's files hold a point or a few per record; both decoders
gather a read's points here, one by one or in numpy columns, so that the index gets one
block per read, not one per record. Pure: no I/O.
"""

from __future__ import annotations

import numpy as np

from visualdl._kinds.table import ScalarBlock

__all__ = ["Points"]


class Points:
    """Scalar points gathered in file order, one by one or in columns; :meth:`block` gives
    them tag after tag, each tag's in file order."""

    __slots__ = ("ids", "columns", "tag_ids", "steps", "values", "walls")

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.columns: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self.tag_ids: list[int] = []  # the points added one by one since the last columns
        self.steps: list[int] = []
        self.values: list[float] = []
        self.walls: list[float] = []

    def __len__(self) -> int:
        return len(self.tag_ids) + sum(len(c[0]) for c in self.columns)

    def id(self, tag: str) -> int:
        return self.ids.setdefault(tag, len(self.ids))

    def add(self, tag: str, step: int, value: float, wall: float) -> None:
        self.tag_ids.append(self.ids.setdefault(tag, len(self.ids)))
        self.steps.append(step)
        self.values.append(value)
        self.walls.append(wall)

    def add_columns(self, tag_ids: np.ndarray, steps: np.ndarray, values: np.ndarray, walls: np.ndarray) -> None:
        self._close()
        self.columns.append((tag_ids, steps, values, walls))

    def _close(self) -> None:
        if self.tag_ids:
            self.columns.append(
                (
                    np.array(self.tag_ids, np.int64),
                    np.array(self.steps, np.int64),
                    np.array(self.values, np.float64),
                    np.array(self.walls, np.float64),
                )
            )
            self.tag_ids, self.steps, self.values, self.walls = [], [], [], []

    def block(self) -> ScalarBlock | None:
        self._close()
        if not self.columns:
            return None
        tag_ids, steps, values, walls = (np.concatenate(c) for c in zip(*self.columns, strict=True))
        # A stable sort of small integers is a radix sort.
        keys = tag_ids.astype(np.uint16) if len(self.ids) <= 1 << 16 else tag_ids
        order = np.argsort(keys, kind="stable")
        counts = np.bincount(tag_ids, minlength=len(self.ids)).astype(np.int64)
        return ScalarBlock(list(self.ids), counts, steps[order], values[order], walls[order])
