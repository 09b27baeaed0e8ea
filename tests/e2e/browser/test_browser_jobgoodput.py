"""The job's goodput on the Jobs tab, in a real browser: the job's line and a row per restarted rank.

A job of two trainers written here by real processes: trainer 1 is killed by SIGKILL after
step 29 and restarted from its checkpoint of step 20.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from kit.pages import open_tab, settle, wait_for
from kit.paths import ROOT
from kit.servers import get_json, serve_cli

CHILD = """
import os, sys
from visualdl import LogWriter
logdir, rank, attempt, first, last, t0 = sys.argv[1], *map(int, sys.argv[2:6]), float(sys.argv[6])
w = LogWriter(logdir, rank=rank, world_size=2, role="trainer", job="g", attempt=attempt)
for step in range(first, last):
    w.add_scalar("loss", 1.0, step, walltime=t0 + step + 100 * attempt)
    w.flush()
if rank == 1 and attempt == 0:
    os.kill(os.getpid(), 9)  # killed without a trace
w.close()
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    child_env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    logdir = str(tmp_path_factory.mktemp("goodput_logs"))
    run = os.path.join(logdir, "g")
    for rank, attempt, first, last in ((0, 0, 0, 40), (1, 0, 0, 30), (1, 1, 20, 40)):
        args = [sys.executable, "-c", CHILD, run, str(rank), str(attempt), str(first), str(last), "1.7e9"]
        subprocess.run(args, env=child_env, timeout=60, check=False)
    with serve_cli(["--logdir", logdir, "--reload-interval", "0.5"], os.path.join(logdir, "..", "server.log")) as base:
        yield base


def test_jobs_tab_shows_the_goodput_and_the_restarted_rank(page, server):
    api = get_json(server + "api/job?run=g")["goodput"]
    open_tab(page, server, "jobs")
    summary = page.locator("#job-goodput .goodput-summary")
    wait_for(lambda: "goodput" in summary.text_content(), "the goodput line")
    text = summary.text_content()
    assert text.startswith(f"goodput {100 * api['goodput']:.1f}% · wall ")
    assert "lost 1m41s to 1 restart · 10 steps done twice" in text  # step 29 at +29 s, step 30 at +130 s
    rows = page.locator("#job-goodput-rows tr")
    assert rows.count() == 2
    first = rows.nth(0).locator("td").all_text_contents()
    assert first[:2] == ["trainer", "1"] and first[5:8] == ["1m41s", "1", "10"]  # the restarted rank first
    page.locator("#job-goodput .goodput-find").fill("0")
    wait_for(lambda: rows.count() == 1, "the rank found")
    assert rows.nth(0).locator("td").all_text_contents()[:2] == ["trainer", "0"]
    settle(page)
    assert not page.errors, page.errors
