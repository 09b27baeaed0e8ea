"""The first non-finite point of each series, kept as the points are stored. Pure.

A :class:`Firsts` is kept per log file and tag, next to its series, and updated with each
block of points the index appends to it (a few numpy calls per block, never a read of the
series). It holds what :mod:`visualdl._index.wrong` needs to name the first point of a run
that went wrong without reading any series back:

* the first non-finite point: the one with the lowest step, then the lowest wall time
  (points arriving out of order are compared as they come: the lowest wins, whenever
  it arrives); a step logged twice in a file counts with each of its points;
* the lowest step and the highest wall time of the file's points of the tag, which is
  what the restarts of :mod:`visualdl._index.restarts` decide by: a later attempt starting
  at step ``s`` replaces the earlier attempts' points from ``s`` on. Since the first
  non-finite point is the one of lowest step, it is replaced exactly when every non-finite
  point of that file is: a replaced first point leaves none behind.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["Firsts", "nonfinite_name"]


def nonfinite_name(value: float) -> str:
    """``"nan"``, ``"inf"`` or ``"-inf"``."""
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


class Firsts:
    """One file's tag: its lowest step, its highest wall time, its first non-finite point."""

    __slots__ = ("first_step", "last_wall", "bad")

    def __init__(self) -> None:
        self.first_step: int | None = None
        self.last_wall = -math.inf
        #: ``(step, wall time, value)`` of the first non-finite point, or None.
        self.bad: tuple[int, float, float] | None = None

    def add(self, steps: np.ndarray, values: np.ndarray, walls: np.ndarray) -> None:
        """Take a block of points (any order)."""
        if not steps.size:
            return
        low = int(steps.min())
        self.first_step = low if self.first_step is None else min(self.first_step, low)
        top = float(walls.max())
        if math.isnan(top):  # a crafted file's times: the others count
            with np.errstate(invalid="ignore"):
                top = float(np.nanmax(walls)) if not np.isnan(walls).all() else -math.inf
        self.last_wall = max(self.last_wall, top)
        if np.isfinite(values.sum()):  # no non-finite value (a sum overflowing to inf is checked below)
            return
        bad = ~np.isfinite(values)
        if not bad.any():
            return
        at = np.flatnonzero(bad)
        b_steps = steps[at]
        low_bad = b_steps.min()
        at = at[b_steps == low_bad]
        if at.size > 1:  # the lowest wall time among the lowest step's (NaN times last)
            at = at[np.argsort(np.where(np.isnan(walls[at]), np.inf, walls[at]), kind="stable")[:1]]
        i = int(at[0])
        found = (int(steps[i]), float(walls[i]), float(values[i]))
        if self.bad is None or _earlier(found, self.bad):
            self.bad = found


def _earlier(a: tuple[int, float, float], b: tuple[int, float, float]) -> bool:
    if a[0] != b[0]:
        return a[0] < b[0]
    wa = a[1] if not math.isnan(a[1]) else math.inf
    wb = b[1] if not math.isnan(b[1]) else math.inf
    return wa < wb
