"""The job view through the API: mean and band over ranks per role, per-rank lines, the job page."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
from kit.apps import build_app

from visualdl import LogWriter


@pytest.fixture
def job_client(tmp_path):
    run = tmp_path / "ps"
    t0 = time.time() - 100
    writers = []
    for rank in range(3):
        w = LogWriter(run, rank=rank, world_size=3, role="trainer", job="ps", attempt=0)
        for step in range(50):
            # rank 2 is slow: it reaches fewer steps in the same time
            if rank == 2 and step >= 25:
                break
            wall = t0 + step * (2.0 if rank == 2 else 1.0)
            w.add_scalar("loss", 10.0 * rank + step, step, walltime=wall)
            w.flush()
        writers.append(w)
    # rank 1 is killed after step 49 (no footer) and restarted from step 40.
    restarted = LogWriter(run, rank=1, world_size=3, role="trainer", job="ps", attempt=1)
    for step in range(40, 60):
        restarted.add_scalar("loss", 1000.0 + step, step, walltime=t0 + 60 + step)
        restarted.flush()
    with LogWriter(run, rank=0, world_size=1, role="pserver", job="ps") as ps:
        for step in range(30):
            ps.add_scalar("loss", -1.0, step, walltime=t0 + step)  # the same tag, another role
            ps.add_scalar("updates", float(step), step, walltime=t0 + step)
    for w in (writers[0], writers[2], restarted):
        w.close()
    app = build_app(str(tmp_path))
    yield app.test_client()
    writers[1].close()


def test_server_job_chart_mean_band_and_extreme_ranks(job_client):
    body = job_client.get("/api/scalars?tag=loss&run=ps&max_points=1000").get_json()
    (entry,) = body["runs"]
    trainer, pserver = entry["job"]
    assert (trainer["role"], trainer["ranks"]) == ("trainer", [0, 1, 2])
    assert (pserver["role"], pserver["ranks"]) == ("pserver", [0])
    steps = np.array(trainer["steps"])
    np.testing.assert_array_equal(steps, np.arange(60))
    rank_values = {
        0: {s: float(s) for s in range(50)},
        1: {**{s: 10.0 + s for s in range(40)}, **{s: 1000.0 + s for s in range(40, 60)}},
        2: {s: 20.0 + s for s in range(25)},
    }
    for i, step in enumerate(steps):
        have = {r: v[step] for r, v in rank_values.items() if step in v}
        assert trainer["count"][i] == len(have)
        assert trainer["values"][i] == pytest.approx(np.mean(list(have.values())))
        assert trainer["min"][i] == min(have.values()) and trainer["max"][i] == max(have.values())
        assert trainer["min_rank"][i] == min(have, key=have.__getitem__)
        assert trainer["max_rank"][i] == max(have, key=have.__getitem__)
    assert entry["values"] == trainer["values"]  # the top-level line is the trainers' mean
    assert pserver["values"] == [-1.0] * 30
    # Per-rank lines: the restarted rank follows its new attempt, no duplicate steps.
    each = job_client.get("/api/scalars?tag=loss&run=ps&ranks=each").get_json()["runs"][0]["per_rank"]
    lines = {(e["role"], e["rank"]): e for e in each}
    assert sorted(lines) == [("pserver", 0), ("trainer", 0), ("trainer", 1), ("trainer", 2)]
    assert lines[("trainer", 1)]["steps"] == list(range(60))
    assert lines[("trainer", 1)]["values"][45] == 1045.0
    assert job_client.get("/api/scalars?tag=loss&run=ps&ranks=all").status_code == 400


def test_server_job_chart_quantiles_over_ranks(tmp_path):
    nan, inf = float("nan"), float("inf")
    # rank x step; step 1: every rank NaN; step 2: two ranks at +Inf; step 3: one rank logged.
    table: list[list[float | None]] = [
        [0.0, nan, 1.0, 5.0],
        [4.0, nan, inf, None],
        [2.0, nan, inf, None],
        [9.0, nan, 3.0, None],
        [1.0, nan, -2.0, None],
    ]
    for rank, row in enumerate(table):
        with LogWriter(tmp_path / "job", rank=rank, world_size=len(table), role="trainer", job="j") as w:
            for step, value in enumerate(row):
                if value is not None:
                    w.add_scalar("loss", value, step)
    client = build_app(str(tmp_path)).test_client()
    (trainer,) = client.get("/api/scalars?tag=loss&run=job").get_json()["runs"][0]["job"]
    assert trainer["steps"] == [0, 1, 2, 3]
    names = ("p5", "p25", "median", "p75", "p95")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the all-NaN step
        expected = [
            np.nanquantile([row[s] for row in table if row[s] is not None], [0.05, 0.25, 0.5, 0.75, 0.95])
            for s in range(4)
        ]
    # Step 2 holds -2, 1, 3, inf, inf: the median, p75 and p95 land on or between values at
    # least one of which is infinite, where numpy's formula says NaN; they are 3, inf and inf.
    expected[2][2:] = [3.0, inf, inf]
    for j, name in enumerate(names):
        want = [float(e[j]) for e in expected]
        got = [nan if v is None else v for v in trainer[name]]
        for bad, what in trainer[f"{name}_nonfinite"]:
            got[bad] = float(what)
        np.testing.assert_array_equal(got, want, err_msg=name)
        assert all(v is None for v, w in zip(trainer[name], want, strict=True) if not np.isfinite(w))
    assert trainer["median"][0] == 2.0 and trainer["median"][3] == 5.0
    # At step 2 the median is 3 (values -2, 2, 3, inf, inf), where numpy's formula says NaN.
    assert trainer["median_nonfinite"] == [[1, "nan"]] and trainer["median"][2] == 3.0
    assert trainer["p5_nonfinite"] == [[1, "nan"]] and trainer["p5"][2] == pytest.approx(-1.4)


def test_server_job_page(job_client):
    body = job_client.get("/api/job?run=ps").get_json()
    assert [r["role"] for r in body["roles"]] == ["trainer", "pserver"]
    states = {(w["role"], w["rank"], w["attempt"]): w["state"] for w in body["writers"]}
    assert states == {
        ("trainer", 0, 0): "closed",
        ("trainer", 1, 0): "killed",
        ("trainer", 1, 1): "closed",
        ("trainer", 2, 0): "closed",
        ("pserver", 0, -1): "closed",
    }
    assert body["restarts"] == [{"role": "trainer", "rank": 1, "files": 2}]
    rates = {e["rank"]: e for e in body["throughput"]["trainer"]}
    assert rates[0]["steps_per_second"] == pytest.approx(1.0)
    assert rates[2]["steps_per_second"] == pytest.approx(0.5)
    assert body["stragglers"]["trainer"] == [2]
    assert max(body["alive"]["trainer"]) >= 3
    skew = body["skew"]["trainer"]
    assert max(v for v in skew["max_step"] if v is not None) == 59
    assert any(s == 2 for s in skew["slowest_rank"])
    assert len(body["times"]) == len(body["alive"]["pserver"])
    assert job_client.get("/api/job?run=nope").status_code == 404


def test_server_job_chart_downsampling_keeps_a_spike_of_one_rank(tmp_path, make_app):
    for rank in range(2):
        with LogWriter(tmp_path / "big", rank=rank, world_size=2, role="trainer") as w:
            for step in range(3000):
                w.add_scalar("x", 1e6 if (rank == 1 and step == 1234) else float(rank), step)
    app = make_app(str(tmp_path))
    (trainers,) = app.test_client().get("/api/scalars?tag=x&run=big&max_points=100").get_json()["runs"][0]["job"]
    assert len(trainers["steps"]) <= 100
    at = trainers["steps"].index(1234)
    assert trainers["max"][at] == 1e6 and trainers["max_rank"][at] == 1
    assert trainers["values"][at] == pytest.approx(5e5)
    assert trainers["steps"][0] == 0 and trainers["steps"][-1] == 2999


def test_server_job_writers_steps_agree_with_their_scalars(tmp_path, make_app):
    """A writer's steps column is the lowest to the highest step it logged, as its chart
    draws them, even when its first record held many steps (it said 9-19 for 0-19)."""
    run = tmp_path / "job"
    with LogWriter(run, rank=0, world_size=2, role="trainer", job="job", attempt=0) as w:
        for step in range(20):
            w.add_scalar("loss", float(step), step)  # one flush at the end: one record of 20 steps
    first = LogWriter(run, rank=1, world_size=2, role="trainer", job="job", attempt=0)
    for step in range(30):
        first.add_scalar("loss", 1.0, step)
    first.flush()
    with LogWriter(run, rank=1, world_size=2, role="trainer", job="job", attempt=1) as again:
        for step in range(15, 40):  # resumed from a checkpoint at step 15
            again.add_scalar("loss", 2.0, step)
    app = make_app(str(tmp_path))
    client = app.test_client()
    writers = client.get("/api/job?run=job").get_json()["writers"]
    steps = {(w["rank"], w["attempt"]): (w["first_step"], w["last_step"]) for w in writers}
    assert steps == {(0, 0): (0, 19), (1, 0): (0, 29), (1, 1): (15, 39)}
    per_rank = client.get("/api/scalars?tag=loss&run=job&ranks=each").get_json()["runs"][0]["per_rank"]
    rank1 = next(r for r in per_rank if r["rank"] == 1)
    assert rank1["steps"][0] == 0 and rank1["steps"][-1] == 39  # the chart: attempt 0 to 14, then attempt 1
    first.close()


RANK_CHILD = """
import sys
from visualdl import LogWriter
rank, how = int(sys.argv[2]), sys.argv[3]
w = LogWriter(sys.argv[1], rank=rank, world_size=3, role="trainer", job="ends")
for step in range(10 * rank, 10 * rank + 5):
    w.add_scalar("loss", 1.0, step)
if how == "raise":
    raise RuntimeError("CUDA out of memory")
if how == "close":
    w.close()
if how == "kill":
    import os
    w.flush()
    os.kill(os.getpid(), 9)
"""


@pytest.mark.e2e  # ranks in child processes: a CPU second
def test_server_job_writers_say_how_each_process_ended(tmp_path, make_app, child_env):
    import subprocess
    import sys

    for rank, how in ((0, "close"), (1, "raise"), (2, "kill")):
        subprocess.run([sys.executable, "-c", RANK_CHILD, str(tmp_path / "ends"), str(rank), how], env=child_env)
    writers = make_app(str(tmp_path)).test_client().get("/api/job?run=ends").get_json()["writers"]
    ended = {w["rank"]: w["ended"] for w in writers}
    assert ended[2] is None  # killed without a trace: unknown
    assert ended[0]["how"] == "closed" and ended[0]["step"] == 4
    raised = ended[1]
    assert {k: raised[k] for k in ("how", "exception_type", "message", "step", "thread", "signal")} == {
        "how": "exception",
        "exception_type": "RuntimeError",
        "message": "CUDA out of memory",
        "step": 14,
        "thread": "MainThread",
        "signal": "",
    }
    assert isinstance(raised["wall_time"], float) and "traceback" not in raised
