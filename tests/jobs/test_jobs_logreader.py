"""A job's values from LogReader in one call each (``job``, ``goodput``, ``end_timeline``,
``stragglers``): the same values the Jobs page and ``--inspect`` are made of."""

from __future__ import annotations

import time

import pytest
from kit.apps import build_app

from visualdl import LogReader, LogWriter
from visualdl._cli.inspect import goodput_line, timeline_lines
from visualdl.types import EndTimeline, Goodput, JobOverview, StragglerReport


@pytest.fixture
def job_logdir(tmp_path):
    """Three trainers, trainer 2 at half the others' pace; trainer 1 is restarted from step
    20 after its step 29, and its first attempt leaves no footer."""
    t0 = time.time() - 300
    run = tmp_path / "job"
    open_writers = []
    for rank in range(3):
        w = LogWriter(run, rank=rank, world_size=3, role="trainer", job="j", attempt=0)
        for step in range(30):
            w.add_scalar("loss", float(step), step, walltime=t0 + step * (2.0 if rank == 2 else 1.0))
            w.flush()
        if rank == 1:
            open_writers.append(w)  # its process "dies": no footer
        else:
            w.close()
    with LogWriter(run, rank=1, world_size=3, role="trainer", job="j", attempt=1) as again:
        for step in range(20, 40):
            again.add_scalar("loss", float(step), step, walltime=t0 + 40 + step)
            again.flush()
    yield tmp_path
    for w in open_writers:
        w.close()


def test_logreader_job_values_are_the_job_pages(job_logdir):
    reader = LogReader(job_logdir)
    page = build_app(str(job_logdir)).test_client().get("/api/job?run=job").get_json()
    overview = reader.job("job")
    assert isinstance(overview, JobOverview)
    assert [(w.rank, w.attempt, w.state) for w in overview.writers] == [
        (w["rank"], w["attempt"], w["state"]) for w in page["writers"]
    ]
    assert overview.stragglers == page["stragglers"] == {"trainer": [2]}
    goodput = reader.goodput("job")
    assert isinstance(goodput, Goodput)
    totals = goodput.totals()
    assert (totals.restarts, totals.rank_seconds) == (page["goodput"]["restarts"], page["goodput"]["rank_seconds"])
    assert totals.restarts == 1 and totals.steps_done_twice == 10  # steps 20..29 again
    assert goodput_line(totals).startswith("goodput ") and "to 1 restart, 10 steps done twice" in goodput_line(totals)


def test_logreader_end_timeline_and_stragglers(job_logdir):
    reader = LogReader(job_logdir)
    timeline = reader.end_timeline("job")
    assert isinstance(timeline, EndTimeline)
    assert (timeline.ended, timeline.running) == (4, 0)  # the first attempt of trainer 1: killed
    assert timeline.first is not None and timeline.first.who == "trainer 1"
    assert timeline.first.end.how == "killed"
    assert timeline_lines(timeline)[0].startswith("trainer 1 was killed without a trace at step 29")
    report = reader.stragglers("job")
    assert isinstance(report, StragglerReport)
    assert [(s.role, s.rank) for s in report.stragglers] == [("trainer", 2)]
    assert report.stragglers[0].text == "trainer 2: nothing in its system metrics sets it apart"
