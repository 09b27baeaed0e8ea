"""The job view in a real browser: the mean line with its min/max band, per-rank lines, the Jobs tab.

Reuses the browser fixtures of ``test_browser.py`` (Debian's chromium driven by Playwright,
screenshots of failures in ``tests/artifacts``); the server runs over a job written here.
"""

from __future__ import annotations

import os
import time

import pytest
from kit.pages import open_tab, scalar_chart, traces, wait_for
from kit.servers import get_json, serve_cli

from visualdl import LogWriter
from visualdl.sdk._sink import Sink

T0 = time.time() - 300
STEPS = 40


def _value(rank: int, step: int, attempt: int = 0) -> float:
    return 100.0 * attempt + 10.0 * rank + step * 0.5


def _write_job(run: str) -> None:
    closing = []
    for rank in range(3):
        w = LogWriter(run, rank=rank, world_size=3, role="trainer", job="ps", attempt=0)
        last = 30 if rank == 1 else (STEPS // 2 if rank == 2 else STEPS)  # rank 2 is slow
        for step in range(last):
            w.add_scalar("loss", _value(rank, step), step, walltime=T0 + step * (2.0 if rank == 2 else 1.0))
            w.flush()
        if rank == 1:
            # the process dies: its file keeps no footer
            sink = w._sink
            assert isinstance(sink, Sink)
            sink._appender = None
            sink._closed = True
        else:
            closing.append(w)
    restarted = LogWriter(run, rank=1, world_size=3, role="trainer", job="ps", attempt=1)
    for step in range(25, STEPS):  # resumed from its checkpoint of step 25
        restarted.add_scalar("loss", _value(1, step, 1), step, walltime=T0 + 40 + step)
        restarted.flush()
    closing.append(restarted)
    with LogWriter(run, rank=0, world_size=1, role="pserver", job="ps") as ps:
        for step in range(STEPS):
            ps.add_scalar("updates", float(step), step, walltime=T0 + step)
    for w in closing:
        w.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("job_logs"))
    _write_job(os.path.join(logdir, "ps"))
    args = ["--logdir", logdir, "--reload-interval", "0.5"]
    with serve_cli(args, os.path.join(logdir, "..", "server.log")) as base:
        yield base


def test_job_chart_draws_the_mean_and_the_band_of_the_api(page, server):
    api = get_json(server + "api/scalars?tag=loss&run=ps")["runs"][0]["job"][0]
    open_tab(page, server, "scalars")
    chart = scalar_chart(page, "loss")
    (raw,) = traces(chart, "raw", "ps")
    assert raw["x"] == api["steps"] == list(range(STEPS))
    assert raw["y"] == api["values"]
    (low,) = traces(chart, "band-min", "ps")
    (high,) = traces(chart, "band-max", "ps")
    assert low["y"] == api["min"] and high["y"] == api["max"]
    # the hover names the rank at each extreme: at step 30 the restarted rank 1 (attempt 1) is the highest
    assert high["text"][30] == f"max {_value(1, 30, 1):g} (rank 1)"
    assert low["text"][30] == f"min {_value(0, 30):g} (rank 0)"
    # the median over ranks between its p25-p75 and p5-p95 bands
    (median,) = traces(chart, "median", "ps")
    assert median["y"] == api["median"]
    for name in ("p5", "p25", "p75", "p95"):
        (edge,) = traces(chart, f"band-{name}", "ps")
        assert edge["y"] == api[name]
    assert not page.errors, page.errors


def test_per_rank_lines_follow_the_restarted_rank(page, server):
    open_tab(page, server, "scalars")
    scalar_chart(page, "loss")
    page.locator("#per-rank").check()
    chart = page.locator('.card[data-tag="loss"]')
    lines = wait_for(lambda: traces(chart, "raw", "ps · trainer 1"), "the per-rank line of rank 1")
    (line,) = lines
    assert line["x"] == list(range(STEPS))
    assert line["y"] == [_value(1, s) for s in range(25)] + [_value(1, s, 1) for s in range(25, STEPS)]
    assert {t["meta"]["run"] for t in traces(chart, "raw")} == {"ps · trainer 0", "ps · trainer 1", "ps · trainer 2"}
    assert not traces(chart, "band-max")
    assert not page.errors, page.errors


def test_jobs_tab_shows_the_killed_attempt_and_the_straggler(page, server):
    open_tab(page, server, "jobs")
    summary = page.locator(".job-summary")
    wait_for(lambda: "log files" in summary.text_content(), "the job summary")
    text = summary.text_content()
    assert "3 trainers" in text and "1 pserver" in text
    assert "1 restarted rank (1 killed)" in text
    assert "stragglers: trainer 2" in text
    killed = page.locator("#job-writers tr.state-killed")
    assert killed.count() == 1
    cells = killed.locator("td").all_text_contents()
    assert cells[:4] == ["trainer", "1", "0", "killed"]
    attempts = page.locator("#job-writers tr td:nth-child(3)").all_text_contents()
    assert "-1" not in attempts  # an unknown attempt shows as a dash
    # Step reached: the trainers drawn last (on top), solid; the pservers dotted beneath.
    skew_js = "(el) => el.data.filter((t) => t.meta).map((t) => [t.meta.role, t.line.dash])"
    roles = page.locator("#job-skew").evaluate(skew_js)
    assert roles == [["pserver", "dot"], ["trainer", "solid"]]
    timeline = page.locator("#job-timeline")
    names = timeline.evaluate("(el) => el.data.map((t) => t.name)")
    assert {"closed", "killed", "killed here"} <= set(names)
    # Rows of their own height, and the legend above the bars, not over the first one.
    layout = timeline.evaluate("(el) => ({h: el._fullLayout.height, rows: el._fullLayout.yaxis.categoryarray.length, "
                               "legendY: el._fullLayout.legend.y, anchor: el._fullLayout.legend.yanchor})")  # fmt: skip
    assert layout["h"] >= 120 + 24 * layout["rows"] - 1 and (layout["legendY"], layout["anchor"]) == (1, "bottom")
    bars = page.locator("#job-throughput").evaluate("(el) => el.data.map((t) => ({x: t.x, colors: t.marker.color}))")
    trainer_bars = next(b for b in bars if "trainer 2" in b["x"])
    red = trainer_bars["colors"][trainer_bars["x"].index("trainer 2")]
    assert red == "#c62828" and trainer_bars["colors"][trainer_bars["x"].index("trainer 0")] != red
    assert not page.errors, page.errors
