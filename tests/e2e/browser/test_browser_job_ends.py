"""The timeline of process ends in the Jobs tab, in a real browser: the first end (a rank
that raised), the others grouped (three SIGTERMed, one closed), and the traceback one click
away (fetched from /api/job/end)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from kit.pages import open_tab, settle, wait_for
from kit.servers import serve_cli

CHILD = """
import os, signal, sys
from visualdl import LogWriter
rank, how = int(sys.argv[2]), sys.argv[3]
w = LogWriter(sys.argv[1], rank=rank, world_size=5, role="trainer", job="j")
for step in range(1200, 1205):
    w.add_scalar("loss", 1.0 / step, step)
w.flush()
def train():
    raise RuntimeError("CUDA out of memory")
if how == "raise":
    train()
if how == "sigterm":
    os.kill(os.getpid(), signal.SIGTERM)
    signal.pause()
w.close()
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("job_ends"))
    env = dict(os.environ)
    plan = ((4, "close", 0), (0, "raise", 1), (1, "sigterm", -15), (2, "sigterm", -15), (3, "sigterm", -15))
    for rank, how, status in plan:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, os.path.join(logdir, "job"), str(rank), how],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == status, done.stderr
    with serve_cli(["--logdir", logdir], os.path.join(logdir, "..", "server.log")) as base:
        yield base


def test_job_ends_timeline_shows_the_first_end_and_its_traceback(page, server):
    open_tab(page, server, "jobs")
    first = page.locator(".job-ends-first")
    wait_for(lambda: "raised" in first.text_content(), "the first end")
    assert first.text_content().startswith("trainer 0 raised `RuntimeError: CUDA out of memory` at step 1,204, ")
    groups = page.locator(".job-ends-groups > li > details > summary").all_text_contents()
    assert len(groups) == 2, groups
    assert groups[0].startswith("1 other closed ") and groups[0].endswith(" s before")
    assert groups[1].startswith("3 others ended by SIGTERM within ")
    traceback = page.locator(".job-ends-traceback")
    assert traceback.is_hidden()
    first.locator("button.job-ends-open").click()
    wait_for(lambda: "CUDA out of memory" in traceback.text_content(), "the traceback")
    text = traceback.text_content()
    assert "Traceback (most recent call last):" in text and "in train" in text
    # A member of a group opens its own end: a SIGTERM has no traceback.
    page.locator(".job-ends-groups details").nth(1).locator("summary").click()
    page.locator(".job-ends-members button").filter(has_text="trainer 1").click()
    wait_for(lambda: "signal SIGTERM" in traceback.text_content(), "the SIGTERM end")
    assert "no traceback" in traceback.text_content()
    # A refresh (every few seconds while a job runs) leaves what was opened open.
    with page.expect_response(lambda r: "api/job?" in r.url):
        page.locator("#refresh-now").click()
    settle(page)
    assert traceback.is_visible() and "signal SIGTERM" in traceback.text_content()
    assert page.locator(".job-ends-groups details").nth(1).evaluate("(el) => el.open")
    state = page.locator("#job-writers tr.state-raised td:nth-child(4)").all_text_contents()
    assert state == ["raised"]
    assert not page.errors, page.errors
