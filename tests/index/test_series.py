"""In-memory series: step order, stable ties, views that never change."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import visualdl._index.series as series_module
from visualdl._index.series import ScalarSeries, Series, SpillFile, gather, merge


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


def _spilled_points(n_chunks: int, size: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    chunks = []
    step = 0
    for _ in range(n_chunks):
        k = int(rng.integers(1, size + 1))
        steps = np.arange(step, step + k, dtype=np.int64)
        step += k
        chunks.append((steps, rng.normal(size=k), rng.uniform(1e9, 2e9, size=k)))
    return chunks


def test_a_spilled_series_views_exactly_what_was_appended_in_few_chunks():
    spill = SpillFile()
    series = Series(spill)
    memory = Series()
    chunks = _spilled_points(500, 50)
    for steps, values, walls in chunks:
        series.extend(steps, values, walls)
        memory.extend(steps, values, walls)
    a, b = series.view(), memory.view()
    np.testing.assert_array_equal(a.steps, b.steps)
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.wall_times, b.wall_times)
    # Chunks halve from the oldest to the newest: O(log n) of them, each point rewritten O(log n) times.
    assert len(series._chunks) <= 2 * int(np.log2(len(series))) + 2
    assert spill.size <= 24 * len(series) * (np.log2(len(series)) + 2)
    assert series.nbytes < 1024  # nothing but the chunks' places in memory


def test_a_spilled_series_out_of_order_is_sorted_stably_and_nan_kept():
    series = Series(SpillFile())
    series.extend(np.array([5, 1, 3]), np.array([0.5, np.nan, 0.3]), np.array([1.0, 2.0, 3.0]))
    series.extend(np.array([1, 9]), np.array([np.inf, 0.9]), np.array([4.0, 5.0]))
    v = series.view()
    assert v.steps.tolist() == [1, 1, 3, 5, 9]
    assert np.isnan(v.values[0]) and v.values[1] == np.inf and v.wall_times.tolist() == [2.0, 4.0, 3.0, 1.0, 5.0]
    assert not v.values.flags.writeable
    series.extend(np.array([10]), np.array([1.0]), np.array([6.0]))
    assert series.view().steps.tolist() == [1, 1, 3, 5, 9, 10]


def test_a_spilled_series_moves_to_a_fresh_file_without_the_garbage():
    old, fresh = SpillFile(), SpillFile()
    series = Series(old)
    for steps, values, walls in _spilled_points(200, 20, seed=1):
        series.extend(steps, values, walls)
    before = series.view()
    assert old.garbage > 0
    series.moved(fresh, series.copy_to(fresh))
    assert fresh.size == 24 * len(series) and fresh.garbage == 0
    after = series.view()
    np.testing.assert_array_equal(before.values, after.values)
    np.testing.assert_array_equal(before.steps, after.steps)


def test_a_spilled_series_restored_after_a_failed_append_is_as_it_was():
    """What a failed write (a full disk) leaves: the series as at its checkpoint, merges undone,
    and the bytes written since counted as garbage, not as points."""
    spill = SpillFile()
    series = Series(spill)
    chunks = _spilled_points(300, 30, seed=4)
    for steps, values, walls in chunks[:-3]:
        series.extend(steps, values, walls)
    before = series.view()
    mark = series.checkpoint()
    for steps, values, walls in chunks[-3:]:  # merged with the newest chunks as they go
        series.extend(steps, values, walls)
    series.restore(mark)
    after = series.view()
    assert len(series) == len(before)
    np.testing.assert_array_equal(after.steps, before.steps)
    np.testing.assert_array_equal(after.values, before.values)
    assert spill.size - spill.garbage == 24 * sum(k for _, k in series._chunks) == 24 * len(series)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.integers(1, 300), max_size=5), min_size=0, max_size=12),
    st.integers(0, 3),
    st.sampled_from([3, 64, 1 << 20]),
)
def test_gather_lays_every_series_end_to_end_as_its_view(chunking, n_after, round_points):
    """One gather over the scratch file (chunks merged or not, any number per series, rounds of
    a few points or all of them) gives each series' view, in order, then the views after."""
    old = series_module.GATHER_POINTS
    series_module.GATHER_POINTS = round_points
    try:
        spill = SpillFile()
        rng = np.random.default_rng(len(chunking))
        all_series = []
        for chunks in chunking:
            s = Series(spill)
            step = 0
            for k in chunks:
                s.extend(np.arange(step, step + k), rng.normal(size=k), rng.normal(size=k))
                step += k
            all_series.append(s)
        after = [ScalarSeries(np.arange(i + 1), np.full(i + 1, float(i)), np.zeros(i + 1)) for i in range(n_after)]
        points, lengths = gather(all_series, after)
        views = [s.view() for s in all_series] + after
        np.testing.assert_array_equal(lengths, [len(v) for v in views])
        for field in ("steps", "values", "wall_times"):
            want = np.concatenate([getattr(v, field) for v in views]) if views else np.empty(0)
            np.testing.assert_array_equal(getattr(points, field), want)
    finally:
        series_module.GATHER_POINTS = old


@pytest.mark.parametrize("round_points", [17, 5 * 17, 1 << 20])
def test_gather_of_series_of_one_size_in_any_order_takes_rows(round_points, monkeypatch):
    """A sweep's runs (one chunk each, all of 17 points, other tags' chunks between them),
    gathered in a shuffled order: each series' points, as its view."""
    monkeypatch.setattr(series_module, "GATHER_POINTS", round_points)
    spill = SpillFile()
    rng = np.random.default_rng(3)
    runs: list[Series] = []
    others: list[Series] = []
    for i in range(40):
        for target in (runs, others):  # interleaved in the scratch file, as tags of one run are
            s = Series(spill)
            s.extend(np.arange(17) * 10 + i, rng.normal(size=17), rng.normal(size=17) + i)
            target.append(s)
    for s in runs + others:
        s.view()  # spilled, one chunk each
    spilled = [s.spilled_chunks() for s in runs]
    assert all(found is not None and len(found[1]) == 1 for found in spilled)
    order = rng.permutation(40)
    picked = [runs[i] for i in order]
    points, lengths = gather(picked)
    assert lengths.tolist() == [17] * 40
    for field in ("steps", "values", "wall_times"):
        want = np.concatenate([getattr(s.view(), field) for s in picked])
        np.testing.assert_array_equal(getattr(points, field), want)


def test_gather_reads_series_in_memory_or_out_of_order_as_views():
    spill = SpillFile()
    spilled, backwards, in_memory = Series(spill), Series(spill), Series()
    spilled.extend(np.arange(3), np.ones(3), np.zeros(3))
    backwards.extend(np.array([5, 1, 3]), np.array([5.0, 1.0, 3.0]), np.zeros(3))
    in_memory.extend(np.array([2, 0]), np.array([2.0, 0.0]), np.zeros(2))
    points, lengths = gather([spilled, backwards, in_memory])
    np.testing.assert_array_equal(lengths, [3, 3, 2])
    np.testing.assert_array_equal(points.steps, [0, 1, 2, 1, 3, 5, 0, 2])
    np.testing.assert_array_equal(points.values, [1, 1, 1, 1, 3, 5, 0, 2])
