"""Who holds a job's extremes, by range of steps: against a plain Python reading of the contract."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from visualdl._index.outliers import extreme_runs


def _runs(steps: list[int], ranks: list[int]) -> list[list[int]]:
    """Runs of equal ranks, -1 left out: [first, last, rank, held, points]."""
    out: list[list[int]] = []
    for i, (step, rank) in enumerate(zip(steps, ranks, strict=True)):
        if i and rank == ranks[i - 1]:
            out[-1][1] = step
            out[-1][3] += 1
            out[-1][4] += 1
        else:
            out.append([step, step, rank, 1, 1])
    return [r for r in out if r[2] >= 0]


def _windows(steps: list[int], ranks: list[int], max_ranges: int) -> list[list[int]]:
    """Windows of equal numbers of points, each its most frequent holder, neighbours merged."""
    n = len(ranks)
    width = -(-n // max_ranges)
    out: list[list[int]] = []
    for w, lo in enumerate(range(0, n, width)):
        part = [r for r in ranks[lo : lo + width] if r >= 0]
        if not part:
            continue
        best = min(set(part), key=lambda r: (-part.count(r), r))
        row = [steps[lo], steps[min(lo + width, n) - 1], best, part.count(best), len(ranks[lo : lo + width]), w]
        if out and out[-1][2] == best and out[-1][5] == w - 1:
            out[-1][1], out[-1][3], out[-1][4], out[-1][5] = row[1], out[-1][3] + row[3], out[-1][4] + row[4], w
        else:
            out.append(row)
    return [r[:5] for r in out]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-1, 4), max_size=60), st.integers(1, 12))
def test_outliers_ranges_are_the_runs_or_the_windows_of_the_contract(ranks, max_ranges):
    steps = [3 * i + 1 for i in range(len(ranks))]
    got = extreme_runs(np.array(steps, np.int64), np.array(ranks, np.int64), max_ranges=max_ranges, top=3)
    runs = _runs(steps, ranks)
    want = runs if len(runs) <= max_ranges else _windows(steps, ranks, max_ranges)
    assert got.table().tolist() == want
    held = [r for r in ranks if r >= 0]
    top = sorted(set(held), key=lambda r: (-held.count(r), r))[:3]
    assert got.top_rank.tolist() == top
    assert got.top_held.tolist() == [held.count(r) for r in top]


def test_outliers_refuse_a_bad_budget_and_mismatched_arrays():
    with pytest.raises(ValueError, match="max_ranges"):
        extreme_runs(np.arange(3), np.zeros(3, np.int64), max_ranges=0)
    with pytest.raises(ValueError, match="3 steps for 2 ranks"):
        extreme_runs(np.arange(3), np.zeros(2, np.int64))
    assert len(extreme_runs(np.empty(0, np.int64), np.empty(0, np.int64))) == 0
