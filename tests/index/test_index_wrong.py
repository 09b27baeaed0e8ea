"""The first rank to go wrong: first non-finite values and divergence of replicated tags,
found by the reader at ingest and checked against numpy over every value written."""

from __future__ import annotations

import math
import multiprocessing

import numpy as np
import pytest

from visualdl import LogReader, LogWriter
from visualdl._index.consensus import Consensus
from visualdl._index.firsts import Firsts

RANKS = 8
STEPS = 120


def values_of(tag: str, rank: int) -> np.ndarray:
    """What rank ``rank`` logs for ``tag`` at steps 0..STEPS-1 (the test's ground truth)."""
    s = np.arange(STEPS, dtype=np.float64)
    if tag == "loss":  # all-reduced, found replicated; rank 5 parts at step 70; rank 1 -inf at 95
        v = 3.0 / (1.0 + s)
        if rank == 5:
            v = np.where(s >= 70, v * 1.01, v)
        if rank == 1:
            v = np.where(s == 95, -np.inf, v)
        return v
    if tag == "grad_norm":  # declared replicated; rank 3 NaN at steps 40-42, rank 6 +inf at 90
        v = 2.0 + np.sin(s)
        if rank == 3:
            v = np.where((s >= 40) & (s < 43), np.nan, v)
        if rank == 6:
            v = np.where(s == 90, np.inf, v)
        return v
    if tag == "lr":  # the same everywhere, never parts
        return 1e-3 * 0.99**s
    if tag == "throughput":  # per rank by design
        return 100.0 + 3.0 * rank + np.cos(s + rank)
    raise AssertionError(tag)


TAGS = ("loss", "grad_norm", "lr", "throughput")


def _rank_writer(logdir: str, rank: int, barrier) -> None:
    barrier.wait()
    table = {tag: values_of(tag, rank) for tag in TAGS}
    with LogWriter(logdir, rank=rank, world_size=RANKS, role="trainer", flush_secs=0.05) as w:
        for step in range(STEPS):
            for tag in TAGS:
                w.add_scalar(tag, float(table[tag][step]), step, replicated=True if tag == "grad_norm" else None)


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    root = tmp_path_factory.mktemp("wrong")
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(RANKS)
    procs = [ctx.Process(target=_rank_writer, args=(str(root / "job"), r, barrier)) for r in range(RANKS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    return LogReader(root)


def expected_first_nonfinite(tag: str) -> tuple[int, int, str] | None:
    """numpy over every value written: (step, rank, value) of the lowest step's non-finite value."""
    v = np.array([values_of(tag, r) for r in range(RANKS)])  # ranks x steps
    bad = ~np.isfinite(v)
    if not bad.any():
        return None
    step = int(np.flatnonzero(bad.any(axis=0))[0])
    (rank,) = np.flatnonzero(bad[:, step])  # one rank per step here: no wall-time tie to break
    x = v[rank, step]
    return step, int(rank), "nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")


def expected_divergence(tag: str) -> tuple[int, list[int]] | None:
    """numpy: the first step where not every rank holds the majority value, and the ranks that do not."""
    v = np.array([values_of(tag, r) for r in range(RANKS)])
    for step in range(STEPS):
        col = v[:, step]
        same = np.isclose(col[:, None], col[None, :], rtol=1e-6, atol=0.0, equal_nan=True)
        holders = same.sum(axis=1)
        if holders.min() == RANKS:
            continue
        majority = int(np.argmax(holders))
        return step, [int(r) for r in np.flatnonzero(~same[majority])]
    return None


@pytest.mark.e2e  # the job fixture: ranks written by spawned processes, seconds of CPU
def test_index_wrong_first_nonfinite_is_numpys_over_every_value(job):
    found = {f.tag: f for f in job.first_nonfinite("job")}
    for tag in TAGS:
        expect = expected_first_nonfinite(tag)
        if expect is None:
            assert tag not in found
            continue
        f = found[tag]
        assert (f.step, f.rank, f.value, f.role) == (*expect, "trainer")
        walls = job.scalars("job", tag, rank=f.rank)
        assert f.wall_time == walls.wall_times[np.searchsorted(walls.steps, f.step)]
    assert set(found) == {"loss", "grad_norm"}
    assert [f.tag for f in job.first_nonfinite("job")] == ["grad_norm", "loss"]  # by step


@pytest.mark.e2e  # the job fixture's spawned ranks
def test_index_wrong_divergence_is_numpys_and_per_rank_tags_never_diverge(job):
    found = {d.tag: d for d in job.divergence("job")}
    assert set(found) == {"loss", "grad_norm"}  # lr agrees; throughput differs by design
    for tag in ("loss", "grad_norm"):
        expect = expected_divergence(tag)
        assert expect is not None
        step, ranks = expect
        d = found[tag]
        assert (d.step, list(d.ranks), d.minority, d.points, d.role) == (step, ranks, len(ranks), RANKS, "trainer")
    assert (found["loss"].step, found["loss"].ranks, found["loss"].why) == (70, (5,), "detected")
    assert (found["grad_norm"].step, found["grad_norm"].ranks, found["grad_norm"].why) == (40, (3,), "declared")
    assert found["loss"].majority == pytest.approx(3.0 / 71)


@pytest.mark.e2e  # the job fixture's spawned ranks
def test_index_wrong_replicated_by_name_or_test(job):
    by_name = {d.tag: d for d in job.divergence("job", replicated=["loss", "throughput"])}
    assert by_name["loss"].why == "setting"
    assert by_name["throughput"].step == 0 and by_name["throughput"].minority == RANKS - 1
    by_test = {d.tag: d for d in job.divergence("job", replicated=lambda tag: tag.startswith("through"))}
    assert by_test["throughput"].why == "setting" and by_test["loss"].why == "detected"


def test_index_wrong_restart_replacing_the_nan_forgets_it(tmp_path):
    def attempt(n: int, steps: range, nan_at: int | None, rank: int = 0) -> None:
        with LogWriter(tmp_path / "run", rank=rank, world_size=2, attempt=n, file_name=f"r{rank}a{n}.vdlog") as w:
            for s in steps:
                w.add_scalar("loss", math.nan if s == nan_at else 1.0, s)
                w.add_scalar("kept", math.inf if (n == 0 and s == 30) else 1.0, s)

    attempt(0, range(0, 50), nan_at=45)
    attempt(1, range(40, 100), nan_at=None)  # restarted from step 40: the NaN at 45 is replaced
    reader = LogReader(tmp_path)
    found = {f.tag: f for f in reader.first_nonfinite("run")}
    assert set(found) == {"kept"}  # the inf at 30 came before the restart's first step: kept
    assert (found["kept"].step, found["kept"].value) == (30, "inf")
    assert np.isfinite(reader.scalars("run", "loss").values).all()
    assert np.isnan(reader.scalars("run", "loss", replaced=True).values).any()  # it was read, and replaced


def test_index_wrong_firsts_out_of_order_blocks_keep_the_lowest_step():
    f = Firsts()
    f.add(np.array([10, 11]), np.array([1.0, math.nan]), np.array([5.0, 6.0]))
    f.add(np.array([3, 2]), np.array([-math.inf, 1.0]), np.array([9.0, 8.0]))  # late, lower step
    f.add(np.array([3]), np.array([math.nan]), np.array([7.0]))  # same step, earlier wall time
    assert f.bad is not None and f.bad[:2] == (3, 7.0) and math.isnan(f.bad[2])
    assert (f.first_step, f.last_wall) == (2, 9.0)


def test_index_wrong_consensus_late_rank_and_lone_reference():
    c = Consensus()
    c.add(0, np.arange(10), np.full(10, 9.0))  # rank 0 parts from the others at every step
    for rank in range(1, 4):
        c.add(rank, np.arange(10)[::-1], np.ones(10))  # out of order
    c.add(4, np.arange(-3, 0), np.ones(3))  # earlier steps: merged in before
    compared, agreeing, split = c.summary()
    assert (compared, agreeing) == (10, 10)
    assert split is not None and (split.step, split.lone_rank, split.majority, split.points) == (0, 0, 1.0, 4)
    assert c.steps[: c.n].tolist() == list(range(-3, 10))


def test_index_wrong_agreement_is_relative_and_nan_equals_nan():
    c = Consensus()
    c.add(0, np.arange(4), np.array([1e9, math.nan, math.inf, 0.0]))
    c.add(1, np.arange(4), np.array([1e9 * (1 + 5e-7), math.nan, math.inf, 0.0]))
    assert c.summary()[2] is None
    c.add(2, np.arange(4), np.array([1e9 * (1 + 2e-6), math.nan, math.inf, 0.0]))
    split = c.summary()[2]
    assert split is not None and (split.step, split.lone_rank) == (0, 2)
    c.add(3, np.arange(1, 4), np.array([1.0, 1e300, -math.inf]))  # an infinity is near no number, nor -inf
    assert c.n_alt[: c.n].tolist() == [1, 1, 1, 1] and c.n_other[: c.n].tolist() == [0, 0, 0, 0]


def test_index_wrong_a_removed_file_takes_its_nan_and_its_divergence_away(tmp_path):
    for rank in range(3):
        with LogWriter(tmp_path / "job", rank=rank, world_size=3, file_name=f"r{rank}.vdlog") as w:
            for step in range(10):
                w.add_scalar("loss", math.nan if rank == 2 and step == 7 else 1.0 + step, step)
    reader = LogReader(tmp_path)
    assert [(f.step, f.rank) for f in reader.first_nonfinite("job")] == [(7, 2)]
    assert reader.divergence("job") == []  # one NaN, then agreement: not parted for good
    assert [(d.step, d.ranks) for d in reader.divergence("job", replicated=["loss"])] == [(7, (2,))]
    (tmp_path / "job" / "r2.vdlog").unlink()
    reader.poll()
    assert reader.first_nonfinite("job") == [] and reader.divergence("job") == []
    assert reader.divergence("job", replicated=["loss"]) == []  # the comparison made again: the two left agree
    (consensus,) = reader._index._runs["job"].consensus.values()
    assert consensus.n_ref[: consensus.n].tolist() == [2] * 10


def test_index_wrong_found_replicated_only_when_parted_for_good(tmp_path):
    # Two tags equal on every rank for 30 steps, then rank 1 differs: for good (a checksum
    # gone wrong), or on a few steps only (a count often equal by chance).
    for rank in range(3):
        with LogWriter(tmp_path / "job", rank=rank, world_size=3, file_name=f"r{rank}.vdlog") as w:
            for step in range(60):
                off = rank == 1 and step >= 30
                w.add_scalar("checksum", 7.0 + step + (0.5 if off else 0.0), step)
                w.add_scalar("staleness", 2.0 + (1.0 if off and step % 10 == 0 else 0.0), step)
    found = {(d.tag, d.step, d.ranks, d.why) for d in LogReader(tmp_path).divergence("job")}
    assert found == {("checksum", 30, (1,), "detected")}
