"""Columnar in-memory series of scalar points. Pure: no I/O.

A :class:`Series` grows by whole chunks into preallocated numpy columns (capacity
grows by half, so appends are amortised O(1) and memory stays within 1.5x of
24 bytes per point). Views handed out are read-only slices, never changed afterwards:
appends write past them, and putting points in step order builds new arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ScalarSeries", "Series", "merge"]

_MIN_CAPACITY = 64


@dataclass(frozen=True, slots=True)
class ScalarSeries:
    """Points of one tag ordered by step (ties keep the order they were written in)."""

    steps: np.ndarray  # int64
    values: np.ndarray  # float64
    wall_times: np.ndarray  # float64

    def __len__(self) -> int:
        return int(self.steps.size)


def _readonly(arr: np.ndarray) -> np.ndarray:
    view = arr.view()
    view.flags.writeable = False
    return view


class Series:
    """A growing series of (step, value, wall_time) points."""

    __slots__ = ("_steps", "_values", "_walls", "_n", "_sorted")

    def __init__(self) -> None:
        self._steps = np.empty(0, np.int64)
        self._values = np.empty(0, np.float64)
        self._walls = np.empty(0, np.float64)
        self._n = 0
        self._sorted = True

    def __len__(self) -> int:
        return self._n

    @property
    def nbytes(self) -> int:
        return self._steps.nbytes + self._values.nbytes + self._walls.nbytes

    def extend(self, steps: np.ndarray, values: np.ndarray, walls: np.ndarray) -> None:
        k = steps.size
        if k == 0:
            return
        n = self._n
        if n + k > self._steps.size:
            capacity = max(_MIN_CAPACITY, n + k, (n * 3) // 2)
            self._steps = self._grow(self._steps, capacity)
            self._values = self._grow(self._values, capacity)
            self._walls = self._grow(self._walls, capacity)
        if self._sorted and ((n and steps[0] < self._steps[n - 1]) or (k > 1 and (np.diff(steps) < 0).any())):
            self._sorted = False
        self._steps[n : n + k] = steps
        self._values[n : n + k] = values
        self._walls[n : n + k] = walls
        self._n = n + k

    def _grow(self, arr: np.ndarray, capacity: int) -> np.ndarray:
        out = np.empty(capacity, arr.dtype)
        out[: self._n] = arr[: self._n]
        return out

    def view(self) -> ScalarSeries:
        """The points so far, ordered by step."""
        n = self._n
        if not self._sorted:
            order = np.argsort(self._steps[:n], kind="stable")
            capacity = self._steps.size
            for name in ("_steps", "_values", "_walls"):
                old = getattr(self, name)
                new = np.empty(capacity, old.dtype)
                np.take(old[:n], order, out=new[:n])
                setattr(self, name, new)
            self._sorted = True
        return ScalarSeries(_readonly(self._steps[:n]), _readonly(self._values[:n]), _readonly(self._walls[:n]))


def merge(parts: list[ScalarSeries]) -> ScalarSeries:
    """Several step-ordered series as one, ordered by step; ties keep the order of ``parts``."""
    parts = [p for p in parts if len(p)]
    if not parts:
        empty = np.empty(0, np.int64)
        return ScalarSeries(_readonly(empty), _readonly(np.empty(0)), _readonly(np.empty(0)))
    if len(parts) == 1:
        return parts[0]
    steps = np.concatenate([p.steps for p in parts])
    order = np.argsort(steps, kind="stable")
    return ScalarSeries(
        _readonly(steps[order]),
        _readonly(np.concatenate([p.values for p in parts])[order]),
        _readonly(np.concatenate([p.wall_times for p in parts])[order]),
    )
