"""In-memory series: step order, stable ties, views that never change."""

from __future__ import annotations

import numpy as np
import pytest

from visualdl._series import Series, merge


def _extend(series, steps, values):
    steps = np.asarray(steps, np.int64)
    series.extend(steps, np.asarray(values, np.float64), steps.astype(np.float64))


def test_series_sorts_by_step_keeping_tie_order():
    s = Series()
    _extend(s, [0, 1, 2], [10, 11, 12])
    _extend(s, [1, 3], [21, 23])
    view = s.view()
    assert view.steps.tolist() == [0, 1, 1, 2, 3]
    assert view.values.tolist() == [10, 11, 21, 12, 23]


def test_views_are_read_only_and_never_change():
    s = Series()
    _extend(s, [5, 6], [1, 2])
    before = s.view()
    _extend(s, [0], [9])  # out of order: reordering builds new arrays
    _extend(s, range(7, 1000), np.ones(993))
    assert before.steps.tolist() == [5, 6] and before.values.tolist() == [1, 2]
    assert s.view().steps[:3].tolist() == [0, 5, 6]
    with pytest.raises(ValueError, match="read-only"):
        before.values[0] = 3.0


def test_capacity_stays_within_one_and_a_half():
    s = Series()
    for start in range(0, 100_000, 1000):
        _extend(s, range(start, start + 1000), np.zeros(1000))
    assert len(s) == 100_000
    assert s.nbytes <= 1.5 * 24 * 100_000


def test_merge_orders_across_parts():
    a, b = Series(), Series()
    _extend(a, [0, 2, 4], [0, 2, 4])
    _extend(b, [1, 2, 3], [1, 20, 3])
    merged = merge([a.view(), b.view()])
    assert merged.steps.tolist() == [0, 1, 2, 2, 3, 4]
    assert merged.values.tolist() == [0, 1, 2, 20, 3, 4]
    assert len(merge([])) == 0
