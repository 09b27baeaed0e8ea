"""The parameter-server demo end to end at a small size, its logs read back and served."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from kit.paths import ROOT

from visualdl import LogReader

DEMO = os.path.join(ROOT, "demo", "ps_train.py")


def _run(logdir, *args):
    done = subprocess.run(
        [sys.executable, DEMO, "--logdir", str(logdir), "--trainers", "3", "--pservers", "2", "--steps", "80", *args],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def demo_logs(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("demo")
    _run(logdir, "--mode", "sync")
    out = _run(logdir, "--mode", "async", "--elastic")
    assert "trainer 1 failed; restarting it" in out
    return logdir


def test_demo_jobs_have_every_role_and_rank(demo_logs):
    reader = LogReader(demo_logs)
    assert reader.runs() == ["ps-async-elastic", "ps-sync"]
    assert reader.problems == []
    sync = sorted((w.role, w.rank, w.world_size, w.job, w.closed) for w in reader.writers("ps-sync"))
    assert sync == [
        ("pserver", 0, 2, "ps-sync", True),
        ("pserver", 1, 2, "ps-sync", True),
        *[("trainer", r, 3, "ps-sync", True) for r in range(3)],
    ]
    elastic = sorted((w.role, w.rank, w.attempt, w.closed) for w in reader.writers("ps-async-elastic"))
    assert ("trainer", 1, 0, True) in elastic and ("trainer", 1, 1, True) in elastic  # failed, then restarted
    ends = {(w.rank, w.attempt): w.ended for w in reader.writers("ps-async-elastic") if w.role == "trainer"}
    failed = ends[(1, 0)]
    assert failed is not None and (failed.how, failed.exception_type, failed.step) == ("exception", "RuntimeError", 45)
    assert failed.message.startswith("CUDA out of memory") and "run_trainer" in failed.traceback
    assert all(e is not None and e.how == "closed" for key, e in ends.items() if key != (1, 0))
    tags = reader.tags("ps-sync")
    wanted = ["train/loss", "train/accuracy", "perf/step_time_ms", "perf/samples_per_second", "val/accuracy"]
    assert set(wanted) | {"pserver/updates"} <= set(tags["scalars"])
    assert "pserver/staleness_mean" in reader.tags("ps-async-elastic")["scalars"]
    assert {"params/fc1.weight", "grads/fc2.bias"} <= set(tags["histograms"])
    assert tags["images"] == ["samples/predictions"]
    image = reader.images("ps-sync", "samples/predictions")[-1]
    assert (image.height, image.width) == (160, 160)


def test_demo_learns_and_exports_a_valid_onnx_graph(demo_logs):
    reader = LogReader(demo_logs)
    (graph,) = reader.graphs("ps-sync")
    model = onnx.load_from_string(reader.read_blob(graph))
    onnx.checker.check_model(model)
    assert [n.op_type for n in model.graph.node] == ["Gemm", "Relu", "Gemm", "Softmax"]
    for rank in range(3):
        loss = reader.scalars("ps-sync", "train/loss", rank=rank, role="trainer")
        np.testing.assert_array_equal(loss.steps, np.arange(80))
        nan_steps = loss.steps[np.isnan(loss.values)].tolist()
        assert nan_steps == ([26, 27, 28] if rank == 0 else [])  # trainer 0's overflowing batches
        assert np.nanmean(loss.values[-20:]) < loss.values[:10].mean() * 0.7
    assert reader.scalars("ps-sync", "val/accuracy").values[-1] > 0.5  # chance is 0.1
    # sync: every pserver applies one averaged update per step of the trainers
    updates = reader.scalars("ps-sync", "pserver/updates", role="pserver", rank=0)
    assert updates.values[-1] == pytest.approx(80, abs=2)


def test_demo_restart_rewinds_and_the_new_attempt_wins(demo_logs):
    reader = LogReader(demo_logs)
    kept = reader.scalars("ps-async-elastic", "train/loss", rank=1, role="trainer")
    np.testing.assert_array_equal(kept.steps, np.arange(80))  # no duplicate, no gap
    replaced = reader.scalars("ps-async-elastic", "train/loss", rank=1, role="trainer", replaced=True)
    assert replaced.steps.tolist() == [40, 41, 42, 43, 44, 45]  # failed at step 45, 5 steps past its checkpoint of 40


def test_demo_logs_served_as_a_job(demo_logs, make_app):
    app = make_app(str(demo_logs))
    client = app.test_client()
    body = client.get("/api/scalars?tag=train/loss&run=ps-async-elastic&run=ps-sync").get_json()
    for entry in body["runs"]:
        (trainers,) = entry["job"]
        assert trainers["role"] == "trainer" and trainers["ranks"] == [0, 1, 2]
        assert set(trainers["count"]) == {3}
    job = client.get("/api/job?run=ps-async-elastic").get_json()
    states = {(w["role"], w["rank"], w["attempt"]): w["state"] for w in job["writers"]}
    assert states[("trainer", 1, 0)] != "running" and states[("trainer", 1, 1)] == "closed"
    assert job["restarts"] == [{"role": "trainer", "rank": 1, "files": 2}]
    # The restarted trainer has a throughput like the others; its restart cost 40..45 again.
    assert all(e["steps_per_second"] is not None for e in job["throughput"]["trainer"])
    (gap,) = job["goodput"]["gaps"]
    assert (gap["rank"], gap["steps_done_twice"]) == (1, 6) and gap["lost_seconds"] > 0
    graphs = client.get("/api/graphs").get_json()["graphs"]
    assert {(g["run"], g["name"]) for g in graphs} == {("ps-async-elastic", "digits_mlp"), ("ps-sync", "digits_mlp")}
