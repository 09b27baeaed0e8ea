"""server/_rebin.py: buckets as written re-binned onto an even grid for display, against a
loop that spreads each bucket over the bins it overlaps (TensorBoard's way of drawing them)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from visualdl._kinds.table import HistogramEvent
from visualdl.server._rebin import MAX_BINS, even_grid, prepared, rebin, rebin_events

DBL_MAX = float(np.finfo(np.float64).max)


def _reference(edges, counts, grid) -> np.ndarray:
    """Bucket by bucket, bin by bin: a bucket's count spread over it evenly, a zero-width one
    whole in the bin holding it (bins [a, b), the last [a, b]); beyond the grid, the end bins."""
    out = np.zeros(len(grid) - 1)
    for a, b, c in zip(edges[:-1], edges[1:], counts, strict=True):
        if b > a:
            for i in range(len(out)):
                lo, hi = max(a, grid[i]), min(b, grid[i + 1])
                out[i] += c * max(hi - lo, 0.0) / (b - a)
            out[0] += c * max(min(b, grid[0]) - a, 0.0) / (b - a)
            out[-1] += c * max(b - max(a, grid[-1]), 0.0) / (b - a)
        else:
            i = int(np.searchsorted(grid, a, side="right")) - 1
            out[min(max(i, 0), len(out) - 1)] += c
    return out


def _event(edges, counts, low, high, step=0) -> HistogramEvent:
    edges, counts = np.asarray(edges, np.float64), np.asarray(counts, np.float64)
    return HistogramEvent(step, 0.0, edges, counts, low, high, 0.0, 0.0, int(counts.sum()), 0, 0, 0)


# Buckets: increasing edges (repeats are zero-width buckets) and whole counts, zeros included.
_values = st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False)
_buckets = st.lists(_values, min_size=2, max_size=40).flatmap(
    lambda xs: st.tuples(
        st.just(np.sort(np.asarray(xs))), st.lists(st.integers(0, 10**6), min_size=len(xs) - 1, max_size=len(xs) - 1)
    )
)


@settings(max_examples=300, deadline=None)
@given(_buckets, st.integers(1, 60), st.floats(-2e6, 2e6), st.floats(0, 4e6))
def test_rebin_matches_the_bucket_by_bucket_spread_and_keeps_the_total(buckets, bins, start, span):
    edges, counts = buckets
    grid = even_grid(start, start + span, bins)
    got = rebin(edges, np.asarray(counts, np.float64), grid)
    total = float(sum(counts))
    assert got.shape == (bins,) and (got >= 0).all()
    assert math.isclose(float(got.sum()), total, rel_tol=1e-12, abs_tol=1e-9)
    np.testing.assert_allclose(got, _reference(edges, counts, grid), rtol=1e-7, atol=1e-7 * max(total, 1.0))


@settings(max_examples=200, deadline=None)
@given(_values, st.floats(1e-3, 1e6), st.lists(st.integers(0, 2**40), min_size=1, max_size=100))
def test_rebin_equal_buckets_on_their_own_grid_are_unchanged(low, span, counts):
    edges = even_grid(low, low + span, len(counts))
    got = rebin(edges, np.asarray(counts, np.float64), edges)
    np.testing.assert_array_equal(got, counts)  # whole counts: exactly


@settings(max_examples=200, deadline=None)
@given(st.floats(-DBL_MAX, DBL_MAX), st.floats(-DBL_MAX, DBL_MAX), st.integers(1, MAX_BINS))
def test_even_grid_edges_increase_from_low_to_high(a, b, bins):
    low, high = min(a, b), max(a, b)
    grid = even_grid(low, high, bins)
    assert grid.shape == (bins + 1,) and np.isfinite(grid).all()
    assert (np.diff(grid) >= 0).all()
    if low < high:
        assert (grid[0], grid[-1]) == (low, high)
        widths = np.diff(grid / 2)  # halved: the widths of a range past the largest float
        assert widths.max() - widths.min() <= 1e-9 * (high / 2 - low / 2)
    else:  # one value: a range around it
        assert grid[0] < low < grid[-1] or (abs(low) == DBL_MAX and grid[0] <= low <= grid[-1])


def test_rebin_exponential_buckets_of_uniform_values_come_out_flat():
    # torch's and TensorFlow's default buckets: +-1e-12 * 1.1**k, hundreds of them around 0.
    positive = 1e-12 * 1.1 ** np.arange(0, 400)
    limits = np.concatenate((-positive[::-1], [0.0], positive))
    values = np.random.default_rng(1).uniform(-0.1, 0.1, 100_000)
    counts, edges = np.histogram(values, limits)
    width = np.diff(edges)
    assert width[counts > 0].max() / width[counts > 0].min() > 1e5  # the buckets are uneven indeed
    grid, (got,) = rebin_events([_event(edges, counts, values.min(), values.max())], 30)
    density = got / got.sum() / np.diff(grid)
    assert density.max() / density.min() < 1.15
    assert (grid[0], grid[-1]) == (values.min(), values.max())
    np.testing.assert_allclose(got, np.histogram(values, grid)[0], rtol=0.05)  # the values' own counts


@pytest.mark.parametrize(
    ("edges", "counts", "grid", "expected"),
    [
        ([0.0, 1.0], [10], [0.0, 0.5, 1.0], [5, 5]),  # a single bucket, spread evenly
        ([0.5, 0.5], [7], [0.0, 0.5, 1.0], [0, 7]),  # a point on an inner edge: the bin starting there
        ([1.0, 1.0], [7], [0.0, 0.5, 1.0], [0, 7]),  # on the last edge: the last bin, closed
        ([0.0, 0.0], [7], [0.0, 0.5, 1.0], [7, 0]),
        ([0.0, 0.25, 0.25, 1.0], [1, 4, 3], [0.0, 0.5, 1.0], [6, 2]),  # a zero-width bucket between others
        ([-3.0, -2.0, 0.5, 5.0], [2, 5, 9], [0.0, 0.5, 1.0], [7, 9]),  # beyond the grid: its end bins
        ([0.0, 1.0, 2.0, 3.0], [0, 6, 0], [1.0, 1.5, 2.0], [3, 3]),  # empty buckets at the ends
    ],
)
def test_rebin_cases(edges, counts, grid, expected):
    got = rebin(np.asarray(edges), np.asarray(counts, np.float64), np.asarray(grid))
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_rebin_of_no_values_is_empty_bins():
    grid = even_grid(0.0, 1.0, 4)
    np.testing.assert_array_equal(rebin(np.empty(0), np.empty(0), grid), np.zeros(4))
    np.testing.assert_array_equal(rebin(np.array([0.0, 1.0, 2.0]), np.zeros(2), grid), np.zeros(4))


def test_prepared_outer_edges_of_tensorflow_and_torch_become_the_values_range():
    # TensorFlow's bucket limits run from -DBL_MAX to DBL_MAX; torch's first bucket starts at -inf.
    edges = [-DBL_MAX, -1.0, 0.0, 1.0, DBL_MAX]
    counts = [2.0, 3.0, 4.0, 1.0]
    got, kept = prepared(edges, counts, -1.5, 2.0)  # min and max inside the outer buckets: the ends
    np.testing.assert_array_equal(got, [-1.5, -1.0, 0.0, 1.0, 2.0])
    np.testing.assert_array_equal(kept, counts)
    got, _ = prepared(edges, counts)  # no min and max: the outer buckets are points at their inner edge
    np.testing.assert_array_equal(got, [-1.0, -1.0, 0.0, 1.0, 1.0])
    got, _ = prepared([-np.inf, 0.0, 1.0], [3.0, 0.0], -0.5, 0.0)  # the empty last bucket dropped
    np.testing.assert_array_equal(got, [-0.5, 0.0])
    got, _ = prepared([-np.inf, np.inf], [3.0], 2.0, 2.0)  # one bucket, one value
    np.testing.assert_array_equal(got, [2.0, 2.0])
    got, _ = prepared([0.0, 1.0, 2.0], [1.0, 1.0], 5.0, 6.0)  # a min and max the buckets contradict: unused
    np.testing.assert_array_equal(got, [0.0, 1.0, 2.0])
    np.testing.assert_allclose(rebin(edges, counts, even_grid(-1.0, 1.0, 2)), [5.0, 5.0])


def test_prepared_damaged_buckets_are_drawn_not_refused():
    edges, counts = prepared([0.0, 2.0, 1.0, 3.0], [1.0, -4.0, 2.0])  # decreasing edge, a negative count
    np.testing.assert_array_equal(edges, [0.0, 2.0, 2.0, 3.0])
    np.testing.assert_array_equal(counts, [1.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="finite but for the outermost"):
        prepared([0.0, np.nan, 1.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="no place to be drawn"):
        prepared([-np.inf, np.inf], [1.0])
    with pytest.raises(ValueError, match="3 edges for 1 counts"):
        prepared([0.0, 1.0, 2.0], [1.0])


def test_rebin_events_share_one_grid_over_all_their_values():
    events = [
        _event([0.0, 1.0, 3.0], [4, 4], 0.0, 3.0, step=0),
        _event([2.0, 2.0], [5], 2.0, 2.0, step=1),  # one value
        _event([], [], 0.0, 0.0, step=2),  # no finite value
        _event([-1.0, 0.0, 1.0], [0, 6], 0.5, 1.0, step=3),  # its values from 0.5
    ]
    grid, counts = rebin_events(events, 4)
    np.testing.assert_array_equal(grid, [0.0, 0.75, 1.5, 2.25, 3.0])
    np.testing.assert_allclose(counts[0], [3, 2, 1.5, 1.5])
    np.testing.assert_array_equal(counts[1], [0, 0, 5, 0])
    assert counts[2].size == 0
    np.testing.assert_allclose(counts[3], [3, 3, 0, 0])  # 6 values over [0.5, 1]
    assert rebin_events([events[2]], 4)[0].size == 0
    # All values equal: a range around them, the values in the middle.
    grid, (one,) = rebin_events([events[1]], 30)
    assert grid[0] < 2.0 < grid[-1] and one.sum() == 5 and one[14:16].sum() == 5


def test_rebin_over_the_whole_float_range_stays_finite():
    grid = even_grid(-1e308, 1e308, 4)  # 2e308 wide: past the largest float
    got = rebin(np.array([-1e308, 0.0, 1e308]), np.array([2.0, 6.0]), grid)
    np.testing.assert_allclose(got, [1, 1, 3, 3])


@pytest.mark.parametrize("bad", [0, MAX_BINS + 1])
def test_even_grid_bins_out_of_range_are_refused(bad):
    with pytest.raises(ValueError, match=f"bins must be from 1 to {MAX_BINS}"):
        even_grid(0.0, 1.0, bad)
