"""The p5, p25, median, p75 and p95 edges of a job's band name their rank: on jobs written by real
processes, each named rank's value at a step is numpy's quantile of the ranks' values there
(the band's own linear edge where that is an order statistic, numpy's ``nearest`` otherwise),
and the ranges of steps each rank holds an edge are those of a plain walk over the steps."""

from __future__ import annotations

import multiprocessing
import os

import numpy as np
import pytest

from visualdl import LogWriter

pytestmark = pytest.mark.e2e  # jobs of 21 and 23 ranks written by spawned processes: seconds of CPU

STEPS = 120
EDGES = {"p5": 0.05, "p25": 0.25, "median": 0.5, "p75": 0.75, "p95": 0.95}
#: 21 ranks: (21 - 1) q is whole for every quantile, so each edge is one rank's value.
WHOLE = 21
#: 23 ranks, each missing every 5th step (shifted by rank): 18 to 19 values per step.
RAGGED = 23


def _value(rank: int, step: int) -> float:
    rng = np.random.default_rng(1000 * rank + step)
    return float(rng.normal(10.0 + 0.1 * rank, 1.0))


def _present(run: str, rank: int, step: int) -> bool:
    return run == "whole" or (step + rank) % 5 != 0


def _write(logdir: str, run: str, ranks: range, world: int) -> None:
    for rank in ranks:
        with LogWriter(os.path.join(logdir, run), rank=rank, world_size=world, role="trainer", job=run) as w:
            for step in range(STEPS):
                if _present(run, rank, step):
                    w.add_scalar("loss", _value(rank, step), step)


@pytest.fixture(scope="module")
def edges_logdir(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("edges"))
    ctx = multiprocessing.get_context("spawn")
    procs = [
        ctx.Process(target=_write, args=(logdir, "whole", range(0, 11), WHOLE)),
        ctx.Process(target=_write, args=(logdir, "whole", range(11, WHOLE), WHOLE)),
        ctx.Process(target=_write, args=(logdir, "ragged", range(RAGGED), RAGGED)),
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    return logdir


def _matrix(run: str, ranks: int) -> np.ndarray:
    """Ranks x steps of what each rank wrote, NaN where it wrote nothing."""
    out = np.full((ranks, STEPS), np.nan)
    for rank in range(ranks):
        for step in range(STEPS):
            if _present(run, rank, step):
                out[rank, step] = _value(rank, step)
    return out


def _runs(holder: list[int]) -> list[list[int]]:
    """Runs of steps held by one rank, by a plain walk over the steps."""
    out: list[list[int]] = []
    for step, rank in enumerate(holder):
        if out and out[-1][2] == rank:
            out[-1][1] = step
            out[-1][3] += 1
            out[-1][4] += 1
        else:
            out.append([step, step, rank, 1, 1])
    return out


def test_server_job_edge_rank_holds_numpys_quantile_edge(edges_logdir, make_app):
    client = make_app(edges_logdir).test_client()
    (trainer,) = client.get("/api/scalars?tag=loss&run=whole&max_points=1000").get_json()["runs"][0]["job"]
    assert trainer["steps"] == list(range(STEPS))
    matrix = _matrix("whole", WHOLE)
    at = np.arange(STEPS)
    for name, q in EDGES.items():
        rank = np.array(trainer[f"{name}_rank"])
        held = matrix[rank, at]
        # the band's own method: numpy's linear interpolation, here exactly an order statistic
        np.testing.assert_array_equal(held, np.quantile(matrix, q, axis=0), err_msg=name)
        np.testing.assert_array_equal(held, trainer[name], err_msg=name)
        assert trainer["extremes"][name]["ranges"] == _runs(rank.tolist()), name
    assert len(set(trainer["p95_rank"])) > 1  # the edge changes hands: a real test of who holds it


def test_server_job_edge_rank_is_the_nearest_order_statistic_on_ragged_steps(edges_logdir, make_app):
    client = make_app(edges_logdir).test_client()
    (trainer,) = client.get("/api/scalars?tag=loss&run=ragged&max_points=1000").get_json()["runs"][0]["job"]
    assert trainer["steps"] == list(range(STEPS))
    matrix = _matrix("ragged", RAGGED)
    at = np.arange(STEPS)
    for name, q in EDGES.items():
        rank = np.array(trainer[f"{name}_rank"])
        held = matrix[rank, at]
        np.testing.assert_array_equal(held, np.nanquantile(matrix, q, axis=0, method="nearest"), err_msg=name)
        # the nearer of the two values the band's edge lies between
        low = np.nanquantile(matrix, q, axis=0, method="lower")
        high = np.nanquantile(matrix, q, axis=0, method="higher")
        edge = np.array(trainer[name])
        np.testing.assert_array_equal(edge, np.nanquantile(matrix, q, axis=0))
        assert ((low <= held) & (held <= high)).all(), name
        assert (np.abs(held - edge) <= np.minimum(edge - low, high - edge) + 1e-12).all(), name
        assert trainer["extremes"][name]["ranges"] == _runs(rank.tolist()), name


def test_server_job_edge_ranks_follow_the_points_kept(edges_logdir, make_app):
    """Downsampled: each point kept names the rank at its own step; the ranges cover every step."""
    client = make_app(edges_logdir).test_client()
    (full,) = client.get("/api/scalars?tag=loss&run=whole&max_points=1000").get_json()["runs"][0]["job"]
    (few,) = client.get("/api/scalars?tag=loss&run=whole&max_points=30").get_json()["runs"][0]["job"]
    assert len(few["steps"]) <= 30
    for name in EDGES:
        assert few[f"{name}_rank"] == [full[f"{name}_rank"][s] for s in few["steps"]], name
        assert few["extremes"][name] == full["extremes"][name], name
