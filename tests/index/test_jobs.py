"""Jobs: many ranks writing one run, restarts that neither lose nor duplicate, aggregation over ranks."""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import textwrap
import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from visualdl import LogReader, LogWriter
from visualdl._index import aggregate as aggregate_module
from visualdl._index.aggregate import QUANTILES, aggregate, aggregate_points
from visualdl._index.restarts import Attempt, resolve
from visualdl._index.series import ScalarSeries

RANKS = 8
STEPS = 3000


def _rank_writer(logdir: str, rank: int, barrier) -> None:
    barrier.wait()
    with LogWriter(logdir, rank=rank, world_size=RANKS, role="trainer", job="j") as w:
        for step in range(STEPS):
            w.add_scalar("loss", rank * 1e6 + step, step)
            if step % 3 == rank % 3:
                w.add_scalar("sparse", float(rank), step)


@pytest.mark.e2e  # eight ranks in spawned processes: seconds of CPU
def test_jobs_eight_ranks_write_one_run_every_point_exactly_once(tmp_path):
    logdir = str(tmp_path / "job")
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(RANKS)
    procs = [ctx.Process(target=_rank_writer, args=(logdir, r, barrier)) for r in range(RANKS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    reader = LogReader(tmp_path)
    infos = reader.writers("job")
    assert sorted(i.rank for i in infos) == list(range(RANKS))
    assert len({i.path for i in infos}) == RANKS
    assert reader.streams("job") == [("trainer", r) for r in range(RANKS)]
    for rank in range(RANKS):
        s = reader.scalars("job", "loss", rank=rank)
        np.testing.assert_array_equal(s.steps, np.arange(STEPS))
        np.testing.assert_array_equal(s.values, rank * 1e6 + np.arange(STEPS))
    assert len(reader.scalars("job", "loss")) == RANKS * STEPS
    ((ranks, job),) = reader.job_scalars("job", "loss").values()
    assert ranks == list(range(RANKS))
    np.testing.assert_array_equal(job.count, np.full(STEPS, RANKS))
    np.testing.assert_allclose(job.mean, np.mean([r * 1e6 + np.arange(STEPS) for r in range(RANKS)], axis=0))
    np.testing.assert_array_equal(job.min_rank, np.zeros(STEPS))
    np.testing.assert_array_equal(job.max_rank, np.full(STEPS, RANKS - 1))
    # Ranks missing steps: each step has the ranks r with step % 3 == r % 3.
    ((_, sparse),) = reader.job_scalars("job", "sparse").values()
    expect = [[r for r in range(RANKS) if s % 3 == r % 3] for s in range(STEPS)]
    np.testing.assert_array_equal(sparse.count, [len(e) for e in expect])
    np.testing.assert_array_equal(sparse.min, [min(e) for e in expect])
    np.testing.assert_array_equal(sparse.max_rank, [max(e) for e in expect])


_CHILD = textwrap.dedent(
    """
    import sys, time
    from visualdl import LogWriter
    logdir = sys.argv[1]
    attempt, start, stop = (int(a) for a in sys.argv[2:5])
    offset = float(sys.argv[5])
    w = LogWriter(logdir, rank=1, world_size=2, role="trainer", attempt=attempt, flush_secs=0.05)
    for step in range(start, stop):
        w.add_scalar("loss", offset + step, step)
        if step == stop - 1:
            w.flush()
            print("flushed", flush=True)
    if attempt == 0:
        time.sleep(60)  # killed here: the test kills it long before (no synchronisation)
    w.close()
    """
)


@pytest.mark.e2e  # ranks in processes of their own, one killed: a CPU second
def test_jobs_killed_rank_restarted_from_a_checkpoint_replaces_its_rewound_steps(tmp_path):
    logdir = str(tmp_path / "job")
    with subprocess.Popen(
        [sys.executable, "-c", _CHILD, logdir, "0", "0", "100", "0"], stdout=subprocess.PIPE, text=True
    ) as first:
        assert first.stdout is not None and first.stdout.readline().strip() == "flushed"
        os.kill(first.pid, signal.SIGKILL)
        first.wait(10)
    # Resumed from the checkpoint of step 80: steps 80..99 are logged again, with other values.
    subprocess.run([sys.executable, "-c", _CHILD, logdir, "1", "80", "150", "1000"], check=True, timeout=60)
    with LogWriter(logdir, rank=0, world_size=2, role="trainer") as w:
        for step in range(150):
            w.add_scalar("loss", -1.0, step)
    reader = LogReader(tmp_path)
    infos = sorted(reader.writers("job"), key=lambda i: (i.rank, i.attempt))
    assert [(i.rank, i.attempt, i.closed) for i in infos] == [(0, -1, True), (1, 0, False), (1, 1, True)]
    kept = reader.scalars("job", "loss", rank=1)
    np.testing.assert_array_equal(kept.steps, np.arange(150))  # no duplicate step, no gap
    np.testing.assert_array_equal(kept.values, np.r_[np.arange(80), 1000 + np.arange(80, 150)])
    gone = reader.scalars("job", "loss", rank=1, replaced=True)
    np.testing.assert_array_equal(gone.steps, np.arange(80, 100))
    np.testing.assert_array_equal(gone.values, np.arange(80, 100))
    ((ranks, job),) = reader.job_scalars("job", "loss").values()
    assert ranks == [0, 1]
    np.testing.assert_array_equal(job.count, np.full(150, 2))
    assert len(reader.scalars("job", "loss")) == 300


def _s(steps, values, walls=None):
    steps = np.asarray(steps, np.int64)
    walls = np.arange(steps.size, dtype=float) if walls is None else np.asarray(walls, float)
    return ScalarSeries(steps, np.asarray(values, float), walls)


def test_restarts_concurrent_files_are_merged_not_replaced():
    a = Attempt(_s([0, 1, 2], [1, 2, 3], [10, 11, 12]), start_time=9.0, attempt=-1)
    b = Attempt(_s([1, 2, 3], [5, 6, 7], [10.5, 11.5, 12.5]), start_time=10.2, attempt=-1)
    r = resolve([a, b])
    np.testing.assert_array_equal(r.kept.steps, [0, 1, 1, 2, 2, 3])
    assert len(r.replaced) == 0 and r.restarts == 0


def test_restarts_later_attempt_wins_even_when_clocks_overlap():
    a = Attempt(_s([0, 1, 2, 3], [0, 1, 2, 3], [10, 11, 12, 13]), start_time=9.0, attempt=0)
    b = Attempt(_s([2, 3, 4], [20, 30, 40], [12, 13, 14]), start_time=11.0, attempt=1)
    r = resolve([b, a])
    np.testing.assert_array_equal(r.kept.values, [0, 1, 20, 30, 40])
    np.testing.assert_array_equal(r.replaced.values, [2, 3])
    assert r.restarts == 1


def test_aggregate_nan_and_inf_are_data():
    nan, inf = np.nan, np.inf
    job = aggregate([_s([0, 1, 2], [nan, 1.0, inf]), _s([0, 1, 2], [nan, nan, 2.0])], [3, 5])
    np.testing.assert_array_equal(job.mean, [nan, 1.0, inf])
    np.testing.assert_array_equal(job.min, [nan, 1.0, 2.0])
    np.testing.assert_array_equal(job.max, [nan, 1.0, inf])
    np.testing.assert_array_equal(job.min_rank, [-1, 3, 5])
    np.testing.assert_array_equal(job.max_rank, [-1, 3, 3])
    np.testing.assert_array_equal(job.std, [nan, 0.0, nan])  # none; one value; an infinity among them


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.integers(0, 30), st.one_of(st.floats(-5, 5), st.just(float("nan"))), min_size=0, max_size=25
        ),
        min_size=1,
        max_size=6,
    )
)
def test_aggregate_matches_a_plain_python_reduction(per_rank):
    ranks = list(range(10, 10 + len(per_rank)))
    series = [_s(sorted(d), [d[k] for k in sorted(d)]) for d in per_rank]
    job = aggregate(series, ranks)
    all_steps = sorted(set().union(*per_rank))
    np.testing.assert_array_equal(job.steps, all_steps)
    for i, step in enumerate(all_steps):
        have = [(r, d[step]) for r, d in zip(ranks, per_rank, strict=True) if step in d]
        real = [(r, v) for r, v in have if not np.isnan(v)]
        assert job.count[i] == len(have)
        assert job.wall_times[i] == max(sorted(d).index(step) for d in per_rank if step in d)  # walls: 0, 1, ...
        if not real:
            assert np.isnan(job.mean[i]) and job.min_rank[i] == -1
            continue
        lo = min(v for _, v in real)
        hi = max(v for _, v in real)
        assert job.min[i] == lo and job.max[i] == hi
        assert job.min_rank[i] == min(r for r, v in real if v == lo)
        assert job.max_rank[i] == min(r for r, v in real if v == hi)
        assert job.mean[i] == pytest.approx(sum(v for _, v in real) / len(real))
        np.testing.assert_array_equal(job.quantiles[:, i], _nanquantiles([v for _, v in real]))
        want_std = statistics.stdev(v for _, v in real) if len(real) > 1 else 0.0
        assert job.std[i] == pytest.approx(want_std, rel=1e-9, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(st.integers(0, 12), st.one_of(st.floats(-5, 5), st.just(float("nan")))), max_size=12),
        min_size=1,
        max_size=7,
    ),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_aggregate_points_laid_end_to_end_equals_aggregate(per_rank, aligned, rnd):
    """The index's path (every rank's points in one array, ranks in any order, a step logged
    twice, a rank without points) gives exactly what the per-rank path gives."""
    if aligned:  # every rank at the same steps: the matrix path
        steps = sorted({s for points in per_rank for s, _ in points})
        per_rank = [[(s, rnd.choice([1.0, -2.5, float("nan"), float(s)])) for s in steps] for _ in per_rank]
    series = []
    for points in per_rank:
        points = sorted(points, key=lambda p: p[0])  # step order; a repeated step keeps its order
        series.append(_s([s for s, _ in points], [v for _, v in points]))
    ranks = rnd.sample(range(100), len(series))
    want = aggregate(series, ranks)
    got = aggregate_points(
        np.concatenate([s.steps for s in series]).astype(np.int64),
        np.concatenate([s.values for s in series]),
        np.concatenate([s.wall_times for s in series]),
        np.array([len(s) for s in series], np.int64),
        np.array(ranks, np.int64),
    )
    for field in want.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(got, field), getattr(want, field), err_msg=field)


def test_aggregate_points_names_a_wrong_layout():
    with pytest.raises(ValueError, match="2 lengths summing to 3 for 2 ranks and 4 points"):
        aggregate_points(np.arange(4), np.zeros(4), np.zeros(4), np.array([1, 2]), np.array([0, 1]))


def _nanquantiles(values: list[float]) -> np.ndarray:
    """``np.nanquantile``, but where its interpolation meets an infinity (NaN there even with
    a zero weight): the order statistic at a zero weight or between equal values, the
    infinity between a finite and an infinite value, NaN between -inf and +inf."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN steps and infinities
        if not values:
            return np.full(len(QUANTILES), np.nan)
        out = np.nanquantile(np.asarray(values, float), QUANTILES)
    real = sorted(v for v in values if not math.isnan(v))
    for j, q in enumerate(QUANTILES):
        if not real:
            continue
        virtual = (len(real) - 1) * q
        low = math.floor(virtual)
        a, b = real[low], real[min(low + 1, len(real) - 1)]
        if math.isinf(a) or math.isinf(b):
            if virtual == low or a == b:
                out[j] = a
            elif math.isinf(a) and math.isinf(b):
                out[j] = math.nan
            else:
                out[j] = a if math.isinf(a) else b
    return out


def _odd_values(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    values = rng.normal(size=shape)
    values[rng.random(shape) < 0.2] = np.nan
    values[rng.random(shape) < 0.05] = np.inf
    values[rng.random(shape) < 0.05] = -np.inf
    values[:, 0] = np.nan  # a step where every rank is NaN
    values[:2, 1] = np.inf  # two equal infinities to interpolate between
    values[:, 2] = 7.0  # all equal
    return values


@pytest.mark.parametrize("chunk_bytes", [aggregate_module.CHUNK_BYTES, 8 * 9 * 3])
def test_aggregate_quantiles_are_numpys_on_equal_steps(monkeypatch, chunk_bytes):
    monkeypatch.setattr(aggregate_module, "CHUNK_BYTES", chunk_bytes)  # small: steps taken 3 at a time
    rng = np.random.default_rng(24)
    values = _odd_values(rng, (9, 40))
    job = aggregate([_s(range(40), row) for row in values], list(range(9)))
    expected = np.stack([_nanquantiles(values[:, i].tolist()) for i in range(40)], axis=1)
    np.testing.assert_array_equal(job.quantiles, expected)
    assert np.isnan(job.quantiles[:, 0]).all() and (job.quantiles[:, 2] == 7.0).all()
    for i in range(40):  # the matrix path's standard deviation, a chunk of steps at a time
        real = [v for v in values[:, i].tolist() if not np.isnan(v)]
        if any(np.isinf(real)):
            assert np.isnan(job.std[i])
        elif real:
            assert job.std[i] == pytest.approx(statistics.stdev(real) if len(real) > 1 else 0.0, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("chunk_bytes", [aggregate_module.CHUNK_BYTES, 8 * 7])
def test_aggregate_quantiles_are_numpys_on_ragged_steps(monkeypatch, chunk_bytes):
    monkeypatch.setattr(aggregate_module, "CHUNK_BYTES", chunk_bytes)  # small: a few steps per block
    rng = np.random.default_rng(5)
    values = _odd_values(rng, (6, 50))
    present = rng.random(values.shape) < 0.6
    present[:, :3] = True
    present[:, 3] = False
    present[4, 3] = True  # a step only rank 4 logged
    values[4, 3] = 2.5
    series = [_s(np.flatnonzero(keep), row[keep]) for row, keep in zip(values, present, strict=True)]
    job = aggregate(series, [0, 1, 2, 3, 4, 5])
    steps = np.flatnonzero(present.any(axis=0))
    np.testing.assert_array_equal(job.steps, steps)
    expected = np.stack([_nanquantiles(values[present[:, s], s].tolist()) for s in steps.tolist()], axis=1)
    np.testing.assert_array_equal(job.quantiles, expected)
    at = steps.tolist().index(3)
    np.testing.assert_array_equal(job.quantiles[:, at], np.full(len(QUANTILES), 2.5))


def test_aggregate_memory_stays_bounded_for_many_ranks():
    ranks, steps = 2000, 2000
    rng = np.random.default_rng(0)
    series = [_s(np.arange(steps), rng.normal(size=steps)) for _ in range(ranks)]
    tracemalloc.start()
    try:
        job = aggregate(series, list(range(ranks)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(job) == steps
    matrix = ranks * steps * 8
    assert peak < matrix / 2.5, f"peak {peak / 2**20:.1f} MiB for a {matrix / 2**20:.1f} MiB matrix"


def test_aggregate_rank_logging_a_step_twice_counts_once():
    job = aggregate([_s([0, 0, 1], [1.0, 5.0, 2.0]), _s([0, 1], [3.0, 4.0])], [0, 1])
    np.testing.assert_array_equal(job.count, [2, 2])
    np.testing.assert_array_equal(job.mean, [4.0, 3.0])


def test_jobs_unranked_writers_have_no_job_view(tmp_path):
    with LogWriter(tmp_path / "r") as w:
        w.add_scalar("x", 1.0, 0)
    reader = LogReader(tmp_path)
    assert reader.streams("r") == [("", -1)]
    assert reader.job_scalars("r", "x") == {}


def test_job_scalars_read_in_one_gather_equal_each_streams_resolved_points(tmp_path):
    """The job path (files gathered at once, only restarted ranks resolved one by one) gives
    what aggregating each stream's resolved points gives: two roles, a rank restarted from
    an earlier step, a rank writing two files at once, an unranked writer left out."""
    logdir = tmp_path / "job"
    for role, places in (("trainer", range(5)), ("pserver", range(2))):
        for rank in places:
            with LogWriter(logdir, rank=rank, world_size=5, role=role, attempt=0) as w:
                for step in range(30):
                    w.add_scalar("loss", rank + step / 10 + (role == "pserver"), step)
    with LogWriter(logdir, rank=3, world_size=5, role="trainer", attempt=1) as w:  # restarted from step 20
        for step in range(20, 40):
            w.add_scalar("loss", -float(step), step)
    with LogWriter(logdir, rank=1, world_size=5, role="trainer", attempt=0) as w:  # a second file of rank 1
        w.add_scalar("loss", 100.0, 31)
    with LogWriter(logdir) as w:
        w.add_scalar("loss", 1e9, 0)
    reader = LogReader(logdir)
    jobs = reader.job_scalars(".", "loss")
    assert sorted(jobs) == ["pserver", "trainer"]
    for role, (ranks, job) in jobs.items():
        kept = {rank: reader.scalars(".", "loss", role=role, rank=rank) for rank in ranks}
        assert ranks == sorted(kept) == (list(range(5)) if role == "trainer" else [0, 1])
        want = aggregate(list(kept.values()), list(kept))
        for field in want.__dataclass_fields__:
            np.testing.assert_array_equal(getattr(job, field), getattr(want, field), err_msg=field)
    trainer = jobs["trainer"][1]
    assert trainer.steps[-1] == 39 and trainer.min[trainer.steps == 35] == -35.0
    assert trainer.max[trainer.steps == 31] == 100.0
