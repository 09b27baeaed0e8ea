"""Which rank is at each quantile edge of a job's band, step by step. Pure.

A band's edge at quantile ``q`` over the ``n`` values of a step (NaN ignored) is numpy's
``linear`` interpolation between the order statistics ``floor((n - 1) q)`` and the next
(:func:`visualdl._index.aggregate.sorted_quantiles`); it is a value no rank need hold. The
rank named for that edge holds the order statistic numpy's ``nearest`` method gives, the
one at index ``round((n - 1) q)``, half to even: of the two values the edge lies between,
the one with the larger weight (the nearer one), the even index at equal weights. So its
value is the edge itself wherever ``(n - 1) q`` is whole (21 ranks: p5 is the 2nd lowest
value, p95 the 2nd highest) or the two values are equal, and otherwise the nearer of the
two values the edge lies between. Of the ranks holding that value, the lowest; -1 where
the step has no value (every one NaN). ±Inf are values like any other.

Both functions take the values a step at a time as a band does: a block of rows (steps x
ranks, the block the band already holds) or every point grouped by step; one numpy pass
per quantile, no Python loop per point, no memory beyond the band's own block.
"""

from __future__ import annotations

import numpy as np

__all__ = ["nearest_order", "ranks_of_groups", "ranks_of_rows"]


def nearest_order(valid: np.ndarray, quantiles: tuple[float, ...]) -> np.ndarray:
    """The index of each quantile's order statistic among ``valid`` values, numpy's ``nearest``
    method: ``round((valid - 1) q)``, half to even; shaped (len(quantiles), rows), 0 where
    ``valid`` is 0."""
    last = np.maximum(valid - 1, 0)
    order: np.ndarray = np.rint(last * np.asarray(quantiles)[:, None]).astype(np.int64)
    return order


def ranks_of_rows(values: np.ndarray, order_values: np.ndarray, valid: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """The lowest rank holding each row's order statistic: ``values`` (steps x ranks, NaN
    where a rank has no value, ranks ascending along a row), the order statistics
    ``order_values`` (quantiles x steps) and ``valid`` values per row; shaped like
    ``order_values``, -1 where a row has no value (NaN equals nothing)."""
    out = np.full(order_values.shape, -1, np.int64)
    some = valid > 0
    at = np.empty(values.shape, bool)
    for j in range(order_values.shape[0]):  # a loop per quantile, not per point
        np.equal(values, order_values[j][:, None], out=at)
        out[j, some] = ranks[np.argmax(at, axis=1)][some]
    return out


def ranks_of_groups(values: np.ndarray, starts: np.ndarray, who: np.ndarray, order_values: np.ndarray) -> np.ndarray:
    """The same over points grouped by step: ``values`` (NaN where no value) in groups from
    ``starts``, each point's rank ``who`` (ascending within a group), ``order_values``
    (quantiles x groups); -1 where a group has no value."""
    out = np.full(order_values.shape, -1, np.int64)
    sizes = np.diff(np.append(starts, values.size))
    for j in range(order_values.shape[0]):  # a loop per quantile, not per point
        at = np.flatnonzero(values == np.repeat(order_values[j], sizes))  # few: the ties of one value
        if not at.size:  # every step of this edge without a value (all NaN)
            continue
        g = np.searchsorted(starts, at, side="right") - 1
        first = np.concatenate(([True], g[1:] != g[:-1]))  # the lowest rank of each group
        out[j, g[first]] = who[at[first]]
    return out
