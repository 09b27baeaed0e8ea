"""A job's p95 edge names its rank, and a click on it draws that rank's own line, in a real
browser over a job of 21 ranks written by real processes."""

from __future__ import annotations

import multiprocessing
import os

import numpy as np
import pytest
from kit.pages import chart_point, open_tab, scalar_chart, settle, traces, wait_for
from kit.servers import get_json, serve_cli

from visualdl import LogWriter

RANKS = 21  # (21 - 1) * 0.95 is whole: the p95 edge is the second highest rank's value
STEPS = 200


def _value(rank: int, step: int) -> float:
    """Rank 20 always the highest (40); the second highest, at p95, rank 19 (30), but rank 5
    (35) over steps 100-199; the others low (their rank)."""
    if rank == 20:
        return 40.0 + 0.01 * step
    if rank == 19:
        return 30.0 + 0.01 * step
    if rank == 5 and step >= 100:
        return 35.0 + 0.01 * step
    return float(rank) + 0.01 * step


def _write(logdir: str, ranks: range) -> None:
    for rank in ranks:
        with LogWriter(logdir, rank=rank, world_size=RANKS, role="trainer", job="edges", system_metrics=False) as w:
            for step in range(STEPS):
                w.add_scalar("loss", _value(rank, step), step)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("edges_logs"))
    ctx = multiprocessing.get_context("spawn")
    run = os.path.join(logdir, "edges")
    procs = [ctx.Process(target=_write, args=(run, range(k, min(RANKS, k + 7)))) for k in range(0, RANKS, 7)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    with serve_cli(["--logdir", logdir, "--reload-interval", "0.5"], os.path.join(logdir, "..", "server.log")) as base:
        yield base


def test_browser_p95_edge_names_its_rank_and_a_click_draws_its_line(page, server):
    api = get_json(server + "api/scalars?tag=loss&run=edges")["runs"][0]["job"][0]
    assert api["p95_rank"] == [19] * 100 + [5] * 100
    assert api["extremes"]["p95"]["ranges"] == [[0, 99, 19, 100, 100], [100, 199, 5, 100, 100]]
    open_tab(page, server, "scalars")
    chart = scalar_chart(page, "loss")
    # The hover on the p95 edge at step 150 names rank 5 and the steps it holds the edge over.
    x, y = chart_point(page, "loss", 150, _value(5, 150))
    page.mouse.move(x, y)
    hover = wait_for(lambda: chart.locator(".hoverlayer").text_content(), "the hover label")
    assert f"p95 {_value(5, 150):g} (rank 5)" in hover and "rank 5 over steps 100\u2013199" in hover, hover
    # A click on it pins rank 5's own line, as it wrote it; not the max's rank 20 just above.
    page.mouse.click(x, y)
    pinned = "edges · trainer 5 (pinned)"
    (line,) = wait_for(lambda: traces(chart, "raw", pinned), "rank 5's pinned line")
    assert line["x"] == list(range(STEPS))
    np.testing.assert_array_equal(line["y"], [_value(5, s) for s in range(STEPS)])
    assert not traces(chart, "raw", "edges · trainer 20 (pinned)")
    # A second click on the same edge removes it.
    page.mouse.click(x, y)
    wait_for(lambda: not traces(chart, "raw", pinned), "the pinned line to go")
    settle(page)
    assert not page.errors, page.errors
