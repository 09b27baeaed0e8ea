"""The first rank to go wrong through the API: /api/job/wrong, a job chart's marks, --replicated-tags."""

from __future__ import annotations

import math

import pytest
from kit.apps import build_app

from visualdl import LogWriter
from visualdl.server.app import Settings

RANKS = 4


@pytest.fixture
def logdir(tmp_path):
    for rank in range(RANKS):
        with LogWriter(tmp_path / "job", rank=rank, world_size=RANKS, role="trainer") as w:
            for step in range(30):
                loss = 1.0 / (1 + step) + (0.25 if rank == 2 and step >= 20 else 0.0)
                w.add_scalar("loss", loss, step)
                w.add_scalar("grad_norm", math.inf if rank == 1 and step == 12 else 2.0, step, replicated=True)
                w.add_scalar("throughput", 10.0 * rank + step % 3, step)
    return tmp_path


def test_server_job_wrong_lists_first_nonfinite_and_divergence(logdir):
    body = build_app(logdir).test_client().get("/api/job/wrong?run=job").get_json()
    (first,) = body["nonfinite"]
    assert {k: first[k] for k in ("tag", "step", "value", "role", "rank")} == {
        "tag": "grad_norm",
        "step": 12,
        "value": "inf",
        "role": "trainer",
        "rank": 1,
    }
    assert first["wall_time"] > 1e9 and first["file"].endswith(".vdlog")
    parted = {d["tag"]: d for d in body["divergence"]}
    assert set(parted) == {"loss", "grad_norm"}  # throughput differs by design
    assert {k: parted["loss"][k] for k in ("step", "ranks", "minority", "points", "why")} == {
        "step": 20,
        "ranks": [2],
        "minority": 1,
        "points": RANKS,
        "why": "detected",
    }
    assert (parted["grad_norm"]["step"], parted["grad_norm"]["ranks"], parted["grad_norm"]["why"]) == (
        12,
        [1],
        "declared",
    )


def test_server_job_wrong_marks_the_job_chart_of_its_tag(logdir):
    client = build_app(logdir).test_client()
    (entry,) = client.get("/api/scalars?tag=grad_norm&run=job").get_json()["runs"]
    assert sorted((m["kind"], m["step"], m["ranks"]) for m in entry["wrong"]) == [
        ("divergence", 12, [1]),
        ("nonfinite", 12, [1]),
    ]
    assert "first inf on trainer 1" in [m["text"] for m in entry["wrong"]]
    (entry,) = client.get("/api/scalars?tag=throughput&run=job").get_json()["runs"]
    assert entry["wrong"] == []


def test_server_job_wrong_replicated_tags_setting(logdir):
    client = build_app(logdir, replicated_tags="^through").test_client()
    parted = {d["tag"]: d for d in client.get("/api/job/wrong?run=job").get_json()["divergence"]}
    assert parted["throughput"]["why"] == "setting" and parted["throughput"]["step"] == 0
    assert parted["loss"]["why"] == "detected"


def test_server_job_wrong_replicated_tags_bad_pattern_is_refused():
    with pytest.raises(ValueError, match="replicated_tags must be a regular expression RE2 compiles"):
        Settings(replicated_tags="(a")
    with pytest.raises(ValueError, match="RE2"):
        Settings(replicated_tags="(?=x)")


def test_server_job_wrong_unknown_run_is_404(logdir):
    response = build_app(logdir).test_client().get("/api/job/wrong?run=nope")
    assert response.status_code == 404
