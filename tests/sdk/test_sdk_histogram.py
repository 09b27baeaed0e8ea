"""Histogram binning accepts every array the caller's thread accepts, and keeps its statistics exact."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from visualdl import LogReader, LogWriter
from visualdl.sdk._convert import MAX_BUCKETS, bin_histogram, check_histogram

_NARROW = [
    np.array([1.0, 1.0 + 2.2e-16]),
    np.array([1e300, 1e300 * (1 + 1e-15)]),
    np.array([5e-324, 1e-323]),
    np.array([1e300, 1e300]),
    np.array([-1.7976931348623157e308, -1.7976931348623157e308]),
    np.array([1.7976931348623157e308] * 3),
    np.array([2**63 - 1, 2**63 - 2], dtype=np.int64),
    np.array([2**64 - 1, 2**64 - 2], dtype=np.uint64),
    np.array([0.0, 1e-320]),
    np.array([-1.7976931348623157e308, 1.7976931348623157e308, np.nan, -np.inf]),
]


def _check_binning(values: np.ndarray, buckets: int) -> None:
    """The properties every histogram has, whatever its values."""
    data, nbuckets = check_histogram(values, buckets)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even a warning on the writer thread
        edges, counts, stats = bin_histogram(data, nbuckets)
    with np.errstate(over="ignore"):
        as_float = data.astype(np.float64)
    finite = as_float[np.isfinite(as_float)]
    assert stats["count"] == finite.size
    assert stats["nan_count"] == int(np.isnan(as_float).sum())
    assert stats["pos_inf_count"] == int(np.isposinf(as_float).sum())
    assert stats["neg_inf_count"] == int(np.isneginf(as_float).sum())
    if finite.size == 0:
        assert edges.size == counts.size == 0
        return
    assert stats["min"] == finite.min() and stats["max"] == finite.max()
    with np.errstate(over="ignore", invalid="ignore"):
        assert stats["sum"] == pytest.approx(float(finite.sum()), nan_ok=True)
    assert 1 <= counts.size <= nbuckets
    assert edges.size == counts.size + 1
    assert np.isfinite(edges).all()
    assert (edges[1:] > edges[:-1]).all()
    assert edges[0] <= finite.min() and finite.max() <= edges[-1]
    assert counts.sum() == finite.size


@pytest.mark.parametrize("values", _NARROW, ids=repr)
@pytest.mark.parametrize("buckets", [1, 2, 10, MAX_BUCKETS])
def test_bin_histogram_narrow_ranges(values, buckets):
    _check_binning(values, buckets)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    values=hnp.arrays(
        dtype=st.sampled_from([np.float64, np.float32, np.float16, np.int64, np.uint64, np.bool_]),
        shape=hnp.array_shapes(min_dims=1, max_dims=2, max_side=20),
    ),
    buckets=st.integers(1, 64),
)
def test_bin_histogram_any_array(values, buckets):
    _check_binning(values, buckets)


_FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
    st.floats(min_value=-1e-300, max_value=1e-300, allow_subnormal=True),
    st.floats(min_value=1e300, max_value=1.7976931348623157e308),
    st.builds(lambda x, n: math.nextafter(x, math.inf) if n else x,
              st.floats(allow_nan=False, allow_infinity=False), st.booleans()),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(values=st.lists(_FLOATS, min_size=1, max_size=30), buckets=st.sampled_from([1, 2, 3, 10, 30, 1000]))
def test_bin_histogram_any_float64(values, buckets):
    _check_binning(np.array(values, dtype=np.float64), buckets)


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=50), buckets=st.integers(1, 50))
def test_bin_histogram_matches_numpy_where_numpy_can(values, buckets):
    """Where np.histogram bins the range, the buckets are its buckets (files written before stay comparable)."""
    data = np.array(values)
    try:
        want_counts, want_edges = np.histogram(data, bins=buckets, range=(data.min(), data.max()))
    except ValueError:
        return  # numpy cannot: covered by the properties above
    edges, counts, _ = bin_histogram(data, buckets)
    assert edges.tolist() == want_edges.tolist()
    assert counts.tolist() == want_counts.astype(np.float64).tolist()


@pytest.mark.parametrize("values", _NARROW[:3], ids=repr)
def test_add_histogram_narrow_range_is_stored_and_breaks_nothing(logdir, values):
    with LogWriter(logdir) as w:
        w.add_histogram("w", values, 0)
        w.flush()  # raised the binning error of the writer thread before
        w.add_scalar("after", 1.0, 0)
    reader = LogReader(logdir)
    (event,) = reader.histograms(".", "w")
    assert (event.min, event.max, event.count) == (values.min(), values.max(), values.size)
    assert event.sum == values.sum()
    assert event.counts.sum() == values.size
    assert reader.scalars(".", "after").values.tolist() == [1.0]
    assert reader.problems == []
