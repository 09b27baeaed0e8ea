"""A job's bands that name their outliers: who holds each extreme by range of steps, one rank's
own line, and quantile lines that keep their spikes when downsampled."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

from visualdl import LogWriter
from visualdl._index.index import Index

pytestmark = pytest.mark.e2e  # jobs of ranks written by spawned processes: 9 CPU seconds

RANKS = 6
STEPS = 400


def _values(rank: int) -> np.ndarray:
    """Rank ``rank``'s values: the maximum held by rank 4 for steps 100-239, by rank 1 elsewhere
    (but at step 300, rank 5); the minimum by rank 2, but by rank 0 from step 350 on."""
    rng = np.random.default_rng(rank)
    v = 10.0 + rng.uniform(0, 1, STEPS)
    steps = np.arange(STEPS)
    if rank == 1:
        v += 50 * ((steps < 100) | (steps >= 240))
    if rank == 4:
        v += 50 * ((steps >= 100) & (steps < 240))
    if rank == 5:
        v[300] = 1000.0
    if rank == 2:
        v[:350] -= 20
    if rank == 0:
        v[350:] -= 20
    return v


def _write(logdir: str, rank: int) -> None:
    with LogWriter(logdir, rank=rank, world_size=RANKS, role="trainer", job="j") as w:
        for step, value in enumerate(_values(rank)):
            w.add_scalar("loss", float(value), step)


@pytest.fixture(scope="module")
def job_logdir(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("bands")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write, args=(str(logdir / "job"), rank)) for rank in range(RANKS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    return logdir


def _direct_runs(holder: np.ndarray) -> list[list[int]]:
    """Runs of steps held by one rank, by a plain walk of numpy's per-step argmin/argmax."""
    out: list[list[int]] = []
    for step, rank in enumerate(holder.tolist()):
        if out and out[-1][2] == rank:
            out[-1][1] = step
            out[-1][3] += 1
            out[-1][4] += 1
        else:
            out.append([step, step, rank, 1, 1])
    return out


def test_server_job_extreme_ranges_equal_numpy(job_logdir, make_app):
    client = make_app(str(job_logdir)).test_client()
    (trainer,) = client.get("/api/scalars?tag=loss&run=job&max_points=60").get_json()["runs"][0]["job"]
    assert len(trainer["steps"]) <= 60  # downsampled points, yet the ranges cover every step
    matrix = np.stack([_values(rank) for rank in range(RANKS)])
    for name, holder in (("max", np.argmax(matrix, axis=0)), ("min", np.argmin(matrix, axis=0))):
        assert trainer["extremes"][name]["ranges"] == _direct_runs(holder), name
        ranks, counts = np.unique(holder, return_counts=True)
        order = np.lexsort((ranks, -counts))
        assert trainer["extremes"][name]["top"] == np.column_stack((ranks, counts))[order].tolist()
    assert trainer["extremes"]["max"]["ranges"][:4] == [
        [0, 99, 1, 100, 100],
        [100, 239, 4, 140, 140],
        [240, 299, 1, 60, 60],
        [300, 300, 5, 1, 1],
    ]
    # A zoomed step range: the ranges of that range only.
    zoom = client.get("/api/scalars?tag=loss&run=job&x_min=200&x_max=260").get_json()["runs"][0]["job"][0]
    assert zoom["extremes"]["max"]["ranges"] == [[200, 239, 4, 40, 40], [240, 260, 1, 21, 21]]


def test_server_job_one_rank_line_is_what_it_wrote_without_aggregating(job_logdir, make_app, monkeypatch):
    client = make_app(str(job_logdir)).test_client()

    def refuse(*args, **kwargs):
        raise AssertionError("one rank's line aggregated the job")

    monkeypatch.setattr(Index, "job_scalars", refuse)
    for query in ("rank=trainer/4", "rank=4"):
        (entry,) = client.get(f"/api/scalars?tag=loss&run=job&{query}").get_json()["runs"]
        (line,) = entry["per_rank"]
        assert (line["role"], line["rank"]) == ("trainer", 4)
        assert line["steps"] == entry["steps"] == list(range(STEPS))
        assert line["values"] == entry["values"] == _values(4).tolist()
        assert "job" not in entry
    answer = client.get("/api/scalars?tag=loss&run=job&rank=trainer/9")
    assert answer.status_code == 404 and "rank 9" in answer.get_json()["error"]
    assert client.get("/api/scalars?tag=loss&run=job&rank=pserver/4").status_code == 404
    bad = client.get("/api/scalars?tag=loss&run=job&rank=trainer/x")
    assert bad.status_code == 400 and "ROLE/RANK" in bad.get_json()["error"]


def _write_spiky(logdir: str, rank: int) -> None:
    # Ranks 0 and 4 are noisy far below and above (they make the min, max and mean move);
    # ranks 1-3 are -1, 0 and 1, but rank 2 is 0.9 at step 1234: the median's only spike.
    rng = np.random.default_rng(rank)
    with LogWriter(logdir, rank=rank, world_size=5, role="trainer") as w:
        for step in range(3000):
            if rank in (0, 4):
                value = (-10.0 if rank == 0 else 10.0) + rng.normal(0, 3)
            else:
                value = 0.9 if (rank == 2 and step == 1234) else float(rank - 2)
            w.add_scalar("x", value, step)


def test_server_job_downsampled_quantiles_keep_a_spike_of_one_rank(tmp_path, make_app):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write_spiky, args=(str(tmp_path / "big"), rank)) for rank in range(5)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    client = make_app(str(tmp_path)).test_client()
    (trainers,) = client.get("/api/scalars?tag=x&run=big&max_points=100").get_json()["runs"][0]["job"]
    assert len(trainers["steps"]) <= 100
    assert 1234 in trainers["steps"], "the median's spike was downsampled away"
    at = trainers["steps"].index(1234)
    assert trainers["median"][at] == 0.9
    assert max(trainers["median"]) == 0.9 and trainers["steps"][0] == 0 and trainers["steps"][-1] == 2999
