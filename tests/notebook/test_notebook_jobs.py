"""A job's values in one call from a notebook (``visualdl/_notebook/jobs.py``): the same as the
Jobs page's answer."""

from __future__ import annotations

import time

import pytest
from kit.apps import build_app

from visualdl import LogWriter, notebook
from visualdl.errors import NotFound


def _job(run_dir, t0):
    """Two trainers; trainer 1 is restarted from step 20 after its step 29."""
    for rank in range(2):
        w = LogWriter(run_dir, rank=rank, world_size=2, role="trainer", job="j", attempt=0)
        for step in range(30):
            w.add_scalar("loss", float(step), step, walltime=t0 + step)
            w.flush()
        w.close()
    with LogWriter(run_dir, rank=1, world_size=2, role="trainer", job="j", attempt=1) as again:
        for step in range(20, 40):
            again.add_scalar("loss", float(step), step, walltime=t0 + 40 + step)
            again.flush()


def test_notebook_job_is_the_job_pages_values(tmp_path):
    _job(tmp_path / "job", time.time() - 200)
    overview = notebook.job(tmp_path)
    page = build_app(str(tmp_path)).test_client().get("/api/job?run=job").get_json()
    totals = overview.goodput.totals()
    assert totals.restarts == page["goodput"]["restarts"] == 1
    assert totals.goodput == pytest.approx(page["goodput"]["goodput"])
    assert [w.state for w in overview.writers] == [w["state"] for w in page["writers"]]
    assert overview.ends.ended == page["ends"]["ended"] == 3
    assert [r.rank for r in overview.restarts] == [r["rank"] for r in page["restarts"]] == [1]


def test_notebook_job_names_the_run_when_there_are_several(tmp_path):
    t0 = time.time() - 200
    _job(tmp_path / "a", t0)
    _job(tmp_path / "b", t0)
    with pytest.raises(NotFound, match=r"holds 2 job runs \('a', 'b'\); name one"):
        notebook.job(tmp_path)
    assert notebook.job(tmp_path, "b").ends.ended == 3
