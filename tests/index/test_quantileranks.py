"""The rank at each quantile edge of a job's band, against numpy's ``nearest`` quantile and a
plain Python reading of the contract, on both paths of :func:`aggregate` (equal and ragged
steps) and with the steps taken a few at a time."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import visualdl._index.aggregate as aggregate_module
from visualdl._index.aggregate import QUANTILES, aggregate
from visualdl._index.quantileranks import nearest_order
from visualdl._index.series import ScalarSeries


def _s(steps, values) -> ScalarSeries:
    steps = np.asarray(list(steps), np.int64)
    return ScalarSeries(steps, np.asarray(values, np.float64), steps.astype(np.float64))


def _holders(values: list[float], ranks: list[int]) -> list[int]:
    """Per quantile: the lowest rank whose value is numpy's ``nearest`` quantile (-1: no value)."""
    real = [(r, v) for r, v in zip(ranks, values, strict=True) if not math.isnan(v)]
    if not real:
        return [-1] * len(QUANTILES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # infinities
        want = np.quantile([v for _, v in real], QUANTILES, method="nearest")
    return [min(r for r, v in real if v == q) for q in want.tolist()]


def _odd_values(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Few distinct values (ties), NaN, +-Inf, a step all NaN, a step all equal."""
    values = rng.integers(-3, 4, size=shape).astype(np.float64)
    values[rng.random(shape) < 0.2] = np.nan
    values[rng.random(shape) < 0.05] = np.inf
    values[rng.random(shape) < 0.05] = -np.inf
    values[:, 0] = np.nan
    values[:, 2] = 7.0
    return values


def test_quantileranks_order_is_numpys_nearest():
    for n in range(1, 60):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = np.quantile(np.arange(n, dtype=float), QUANTILES, method="nearest")
        np.testing.assert_array_equal(nearest_order(np.array([n]), QUANTILES)[:, 0], want)
    # 21 values: every quantile's edge is an order statistic (the 2nd lowest is p5, the 2nd highest p95)
    assert nearest_order(np.array([21]), QUANTILES)[:, 0].tolist() == [1, 5, 10, 15, 19]


@pytest.mark.parametrize("chunk_bytes", [aggregate_module.CHUNK_BYTES, 8 * 9 * 3])
def test_quantileranks_equal_steps_name_numpys_nearest_rank(monkeypatch, chunk_bytes):
    monkeypatch.setattr(aggregate_module, "CHUNK_BYTES", chunk_bytes)  # small: steps taken 3 at a time
    rng = np.random.default_rng(7)
    values = _odd_values(rng, (9, 60))
    ranks = [40, 3, 17, 5, 9, 11, 2, 30, 8]  # not in order: the lowest rank wins a tie, not the first series
    job = aggregate([_s(range(60), row) for row in values], ranks)
    expected = [_holders(values[:, i].tolist(), ranks) for i in range(60)]
    np.testing.assert_array_equal(job.quantile_rank, np.array(expected).T)
    assert (job.quantile_rank[:, 0] == -1).all() and (job.quantile_rank[:, 2] == 2).all()


@pytest.mark.parametrize("chunk_bytes", [aggregate_module.CHUNK_BYTES, 8 * 7])
def test_quantileranks_ragged_steps_name_numpys_nearest_rank(monkeypatch, chunk_bytes):
    monkeypatch.setattr(aggregate_module, "CHUNK_BYTES", chunk_bytes)  # small: a few steps per block
    rng = np.random.default_rng(5)
    values = _odd_values(rng, (6, 80))
    present = rng.random(values.shape) < 0.6
    present[:, :3] = True
    ranks = [6, 1, 4, 0, 3, 2]
    series = [_s(np.flatnonzero(keep), row[keep]) for row, keep in zip(values, present, strict=True)]
    job = aggregate(series, ranks)
    steps = np.flatnonzero(present.any(axis=0))
    np.testing.assert_array_equal(job.steps, steps)
    rank_ids = np.array(ranks)
    expected = [_holders(values[present[:, s], s].tolist(), rank_ids[present[:, s]].tolist()) for s in steps]
    np.testing.assert_array_equal(job.quantile_rank, np.array(expected).T)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.integers(0, 12),
            st.one_of(st.integers(-2, 2).map(float), st.just(float("nan")), st.just(float("inf"))),
            max_size=13,
        ),
        min_size=1,
        max_size=7,
    )
)
def test_quantileranks_match_a_plain_python_reading(per_rank):
    ranks = list(range(10, 10 + len(per_rank)))
    job = aggregate([_s(sorted(d), [d[k] for k in sorted(d)]) for d in per_rank], ranks)
    for i, step in enumerate(job.steps.tolist()):
        have = [(r, d[step]) for r, d in zip(ranks, per_rank, strict=True) if step in d]
        want = _holders([v for _, v in have], [r for r, _ in have])
        assert job.quantile_rank[:, i].tolist() == want, step


def test_quantileranks_value_is_the_edge_where_the_order_is_whole():
    """21 ranks: each quantile's edge (the band's own, linear) is the named rank's value."""
    rng = np.random.default_rng(3)
    values = rng.normal(size=(21, 50))
    job = aggregate([_s(range(50), row) for row in values], list(range(21)))
    held = values[job.quantile_rank, np.arange(50)]
    np.testing.assert_array_equal(held, job.quantiles)
    np.testing.assert_array_equal(held, np.quantile(values, QUANTILES, axis=0))
