"""The Jobs tab of a job of 300 ranks in a real browser: a bounded DOM, the virtual table, the stragglers.

The job is written by real writers in a child process (``system_metrics=False``): 300
trainers of 40 steps, every 97th one a straggler (half the speed), ranks 7, 107 and 207
killed (their first attempt's process exits without closing) and restarted.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from kit.pages import open_tab, settle
from kit.servers import get_json, serve_cli

RANKS = 300
KILLED = (7, 107, 207)
SLOW = tuple(r for r in range(RANKS) if r % 97 == 96)

CHILD = """
import os, sys
from visualdl import LogWriter
run, ranks, killed, t0 = sys.argv[1], int(sys.argv[2]), {7, 107, 207}, 1_700_000_000.0

def attempt(rank, number, first, last):
    w = LogWriter(run, rank=rank, world_size=ranks, role="trainer", job="big", attempt=number, system_metrics=False)
    speed = 0.5 if rank % 97 == 96 else 1.0
    for step in range(first, last):
        w.add_scalar("loss", 1.0 / (1 + step), step, walltime=t0 + step / speed + 10 * number)
        if step % 5 == 4:
            w.flush()
    return w

for rank in range(ranks):
    if rank in killed:
        pid = os.fork()
        if pid == 0:
            attempt(rank, 0, 0, 20).flush()
            os._exit(0)  # killed: no footer
        os.waitpid(pid, 0)
        attempt(rank, 1, 15, 40).close()
    else:
        attempt(rank, 0, 0, 40).close()
"""

# True once the Jobs tab is drawn: its four plots by plotly, a row in the writers table.
DRAWN_JS = """() => ['#job-alive', '#job-throughput', '#job-timeline', '#job-skew']
    .every((s) => document.querySelector(s)?._fullLayout) && document.querySelector('#job-writers tr') !== null"""
ROWS_JS = """() => [...document.querySelectorAll('#job-writers tr:not(.job-writers-pad)')]
    .map((tr) => [...tr.children].map((td) => td.textContent))"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("big_job_logs"))
    subprocess.run([sys.executable, "-c", CHILD, os.path.join(logdir, "big"), str(RANKS)], check=True, timeout=300)
    with serve_cli(["--logdir", logdir], os.path.join(logdir, "..", "server.log"), timeout=120) as base:
        yield base


@pytest.fixture
def jobs(page, server):
    """The page with the Jobs tab drawn, and the API's answer it drew."""
    job = get_json(server + "api/job?run=big", timeout=120)
    open_tab(page, server, "jobs")
    page.wait_for_function(DRAWN_JS, timeout=120_000)
    return page, job


def test_jobs_panel_elements_bounded_at_300_ranks(jobs):
    page, job = jobs
    assert len(job["writers"]) == RANKS + len(KILLED)
    # One element per rank in the table, the bars or the timeline would make thousands.
    counts = page.evaluate("""() => ({
        panel: document.querySelectorAll('#panel-jobs *').length,
        table: document.querySelectorAll('#job-writers tr').length,
        timelineRows: document.querySelector('#job-timeline')._fullLayout.yaxis.categoryarray.length,
        throughputPaths: document.querySelectorAll('#job-throughput .trace path, #job-throughput .point').length,
    })""")
    assert counts["panel"] < 2_000, counts
    assert counts["table"] <= 40, counts
    assert counts["timelineRows"] == len(KILLED), counts
    assert counts["throughputPaths"] < 20, counts
    note = page.locator(".job-timeline-note").text_content()
    assert note == (
        "3 of 300 places drawn, those that restarted or did not end cleanly; 297 left out (closed cleanly or running)."
    )
    settle(page)
    assert not page.errors, page.errors


def test_virtual_table_shows_the_rows_scrolled_to(jobs):
    page, job = jobs
    # By default the files that did not end cleanly come first: the killed attempts.
    first = page.evaluate(ROWS_JS)[:3]
    assert [(r[1], r[2], r[3]) for r in first] == [(str(k), "0", "killed") for k in KILLED]
    page.locator('.job-writers th[data-key="rank"] button').click()  # by rank, ascending
    box = page.locator(".job-writers-scroll")
    box.evaluate("(el) => { el.scrollTop = el.scrollHeight; }")
    page.wait_for_function(f"() => ({ROWS_JS})().some((r) => r[1] === '{RANKS - 1}')")
    rows = page.evaluate(ROWS_JS)
    assert rows[-1][:4] == ["trainer", str(RANKS - 1), "0", "closed"]
    assert len(rows) < 40
    # Halfway: the rows there are the ranks there, in order (ranks 7, 107 have two files each).
    box.evaluate("(el) => { el.scrollTop = 150 * 24; }")
    page.wait_for_function(f"() => ({ROWS_JS})().some((r) => r[1] === '150')")
    ranks = [int(r[1]) for r in page.evaluate(ROWS_JS)]
    assert ranks == sorted(ranks) and ranks[0] <= 148 <= 152 <= ranks[-1], ranks
    wanted = sorted((w["rank"], w["attempt"]) for w in job["writers"])
    shown = [(int(r[1]), int(r[2])) for r in page.evaluate(ROWS_JS)]
    start = wanted.index(shown[0])
    assert shown == wanted[start : start + len(shown)]
    # A filter by state, and a search for a rank.
    page.locator(".job-writers-state").select_option("killed")
    page.wait_for_function(f"() => ({ROWS_JS})().length === {len(KILLED)}")
    assert [r[1] for r in page.evaluate(ROWS_JS)] == [str(k) for k in KILLED]
    page.locator(".job-writers-state").select_option("all")
    page.locator(".job-writers-find").fill("trainer 107")
    page.wait_for_function(f"() => ({ROWS_JS})().length === 2")
    assert [(r[1], r[2], r[3]) for r in page.evaluate(ROWS_JS)] == [("107", "0", "killed"), ("107", "1", "closed")]
    assert page.locator(".job-writers-count").text_content() == f"2 of {RANKS + len(KILLED)} log files"
    settle(page)
    assert not page.errors, page.errors


def test_throughput_line_marks_the_stragglers(jobs):
    page, job = jobs
    assert sorted(job["stragglers"]["trainer"]) == list(SLOW)
    traces = page.locator("#job-throughput").evaluate(
        "(el) => el.data.map((t) => ({kind: t.meta && t.meta.kind, x: t.x, color: t.line && t.line.color, "
        "name: t.name}))"
    )
    assert [t["kind"] for t in traces] == ["rate", "threshold", "stragglers"]
    rate, _threshold, spikes = traces
    assert rate["x"] == list(range(RANKS))
    assert [x for x in spikes["x"] if x is not None][::2] == list(SLOW)
    assert spikes["color"] == "#c62828" and spikes["name"] == f"stragglers ({len(SLOW)})"
    assert "stragglers: trainer " in page.locator(".job-summary").text_content()
    settle(page)
    assert not page.errors, page.errors
