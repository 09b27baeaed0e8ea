"""The first rank to go wrong in a real browser: listed on the Jobs tab, marked on the job chart.

The job is written by real rank processes (one goes NaN for a few steps, one parts from the
others on an all-reduced loss); the server is the CLI's, with ``--replicated-tags``.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from kit.pages import open_tab, scalar_chart, settle, traces, wait_for
from kit.servers import get_json, serve_cli

RANKS = 4
CHILD = """
import math, sys
from visualdl import LogWriter
rank = int(sys.argv[2])
with LogWriter(sys.argv[1], rank=rank, world_size=4, role="trainer") as w:
    for step in range(60):
        w.add_scalar("loss", math.nan if rank == 3 and 30 <= step < 33 else 1.0 / (1 + step), step)
        w.add_scalar("grad_norm", 2.0 + (0.5 if rank == 1 and step >= 45 else 0.0), step)
        w.add_scalar("throughput", 10.0 * rank + step % 5, step)
        w.add_scalar("checksum", 100.0 + step + (1.0 if rank == 2 and step >= 40 else 0.0), step)
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("wrong_logs"))
    for rank in range(RANKS):
        subprocess.run([sys.executable, "-c", CHILD, os.path.join(logdir, "job"), str(rank)], check=True, timeout=60)
    args = ["--logdir", logdir, "--reload-interval", "0.5", "--replicated-tags", "^grad_"]
    with serve_cli(args, os.path.join(logdir, "..", "server.log")) as base:
        yield base


def test_jobs_tab_lists_the_first_nonfinite_value_and_the_divergence(page, server):
    api = get_json(server + "api/job/wrong?run=job")
    assert [(f["tag"], f["step"], f["rank"]) for f in api["nonfinite"]] == [("loss", 30, 3)]
    open_tab(page, server, "jobs")
    rows = page.locator(".job-wrong tbody tr")
    wait_for(lambda: rows.count() == 3, "the three rows of what went wrong")
    texts = [" | ".join(rows.nth(i).locator("td").all_inner_texts()) for i in range(rows.count())]
    assert texts[0].startswith("loss | first nan | 30 | trainer 3 | ")
    assert "grad_norm | ranks disagree | 45 | trainer 1 of 4 | \u2013 | named by --replicated-tags" in texts
    assert "checksum | ranks disagree | 40 | trainer 2 of 4 | \u2013 | equal on most steps" in texts
    # loss: a NaN on one rank for 3 steps, then agreement; its NaN row says it, no divergence
    settle(page)
    assert page.errors == []


def test_job_chart_marks_the_step_and_names_the_rank(page, server):
    open_tab(page, server, "scalars")
    chart = scalar_chart(page, "grad_norm")
    (mark,) = wait_for(lambda: traces(chart, "wrong-divergence"), "the divergence mark")
    assert mark["meta"]["steps"] == [45] and mark["meta"]["ranks"] == [[1]]
    assert mark["text"] == ["trainer 1"] and mark["x"] == [45]
    chart = scalar_chart(page, "loss")
    (mark,) = wait_for(lambda: traces(chart, "wrong-nonfinite"), "the non-finite mark")
    assert mark["meta"]["steps"] == [30] and mark["text"] == ["trainer 3"]
    assert not traces(scalar_chart(page, "throughput"), "wrong-divergence")
    settle(page)
    assert page.errors == []
