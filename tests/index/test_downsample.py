"""Downsampling never returns more than promised and never loses a spike (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from visualdl._index.downsample import PICKS_PER_BUCKET, Downsampler, downsample, select_range

finite_or_not = st.floats(allow_nan=True, allow_infinity=True, width=64)


def _buckets(n: int, max_points: int) -> list[range]:
    nbuckets = max_points // PICKS_PER_BUCKET
    width = -(-n // nbuckets)
    return [range(lo, min(lo + width, n)) for lo in range(0, n, width)]


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 3000), elements=finite_or_not), st.integers(1, 600))
def test_downsample_contract(values, max_points):
    steps = np.arange(values.size) * 3
    keep = downsample(steps, values, max_points)
    assert keep.size <= max_points
    assert np.all(np.diff(keep) > 0)  # sorted, unique
    if values.size <= max_points:
        assert keep.tolist() == list(range(values.size))
        return
    if max_points < PICKS_PER_BUCKET:
        assert keep[0] == 0
        return
    kept = set(keep.tolist())
    assert 0 in kept and values.size - 1 in kept
    for bucket in _buckets(values.size, max_points):
        chunk = values[bucket.start : bucket.stop]
        assert bucket.start in kept and bucket.stop - 1 in kept
        numbers = chunk[~np.isnan(chunk)]
        if numbers.size:
            # Some kept point of the bucket holds its min, and some its max.
            kept_here = [values[i] for i in kept if bucket.start <= i < bucket.stop]
            assert numbers.min() in kept_here and numbers.max() in kept_here
        if np.isnan(chunk).any():
            assert any(np.isnan(values[i]) for i in kept if bucket.start <= i < bucket.stop)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 199_999), st.sampled_from([1e9, -1e9, np.inf, -np.inf, np.nan]), st.integers(5, 2000))
def test_single_spike_among_200000_points_is_always_returned(position, spike, max_points):
    rng = np.random.default_rng(position)
    values = rng.standard_normal(200_000)
    values[position] = spike
    keep = downsample(np.arange(values.size), values, max_points)
    assert position in set(keep.tolist())
    assert keep.size <= max_points


def test_downsample_is_deterministic_and_keeps_ends():
    values = np.sin(np.arange(10_000) / 50.0)
    a = downsample(np.arange(10_000), values, 1000)
    b = downsample(np.arange(10_000), values, 1000)
    assert a.tolist() == b.tolist() and a[0] == 0 and a[-1] == 9999


def test_select_range_is_inclusive():
    steps = np.array([0, 10, 20, 30, 40])
    assert select_range(steps, 10, 30) == (1, 4)
    assert select_range(steps, None, None) == (0, 5)
    assert select_range(steps, 11, 19) == (2, 2)
    assert select_range(steps, 50, None) == (5, 5)


@pytest.mark.e2e  # 300 generated series: seconds
@settings(max_examples=300, deadline=None)
@given(
    hnp.arrays(np.float64, st.integers(1, 2000), elements=finite_or_not),
    st.integers(1, 300),
    st.lists(st.integers(1, 400), min_size=1, max_size=30),
)
def test_downsampler_given_pieces_keeps_what_downsample_keeps(values, max_points, sizes):
    steps = np.arange(values.size) * 2
    walls = np.arange(values.size) / 7.0
    keep = downsample(steps, values, max_points)
    kept = Downsampler(values.size, max_points)
    at = 0
    for size in sizes * (values.size // sum(sizes) + 1):
        kept.add(steps[at : at + size], values[at : at + size], walls[at : at + size])
        at += size
    got_steps, got_values, got_walls = kept.result()
    assert got_steps.tolist() == steps[keep].tolist()
    assert np.array_equal(got_values, values[keep], equal_nan=True)
    assert got_walls.tolist() == walls[keep].tolist()
