"""A job's bands name their outliers, a click pins a rank's own line, and the rank x time
heatmap draws one row per rank, in a real browser over a job written by real processes."""

from __future__ import annotations

import base64
import multiprocessing
import os
import time

import numpy as np
import pytest
from kit.pages import chart_point, open_tab, scalar_chart, settle, traces, wait_for
from kit.servers import get_json, serve_cli

from visualdl import LogWriter

RANKS = 4
STEPS = 200
SLOW = 2
T0 = time.time() - 2000


def _value(rank: int, step: int) -> float:
    """Rank 3 holds the maximum over steps 50-149, rank 1 elsewhere; rank 0 always the minimum."""
    bump = 50.0 if (rank == 3 and 50 <= step < 150) or (rank == 1 and not 50 <= step < 150) else 0.0
    return 10.0 * rank + 0.01 * step + bump


def _write(logdir: str, rank: int) -> None:
    with LogWriter(logdir, rank=rank, world_size=RANKS, role="trainer", job="bands") as w:
        for step in range(STEPS):
            # the slow rank makes a step every 4 s, the others every second
            w.add_scalar("loss", _value(rank, step), step, walltime=T0 + step * (4.0 if rank == SLOW else 1.0))
            if step % 5 == 4:
                w.flush()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("bands_logs"))
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write, args=(os.path.join(logdir, "bands"), rank)) for rank in range(RANKS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    with serve_cli(["--logdir", logdir, "--reload-interval", "0.5"], os.path.join(logdir, "..", "server.log")) as base:
        yield base


def test_browser_band_names_its_outliers_and_a_click_pins_the_rank(page, server):
    api = get_json(server + "api/scalars?tag=loss&run=bands")["runs"][0]["job"][0]
    assert api["extremes"]["max"]["ranges"] == [[0, 49, 1, 50, 50], [50, 149, 3, 100, 100], [150, 199, 1, 50, 50]]
    open_tab(page, server, "scalars")
    chart = scalar_chart(page, "loss")
    notes = chart.evaluate("(el) => el.querySelector('.js-plotly-plot').layout.annotations.map((a) => a.text)")
    assert notes == ["most often at max: trainer 1 (50%), 3 (50%) · min: trainer 0 (100%)"]
    assert "most often at max: trainer 1 (50%), 3 (50%)" in chart.locator(".annotation-text").first.text_content()
    # The hover on the band at step 100 says who holds the maximum over which steps.
    x, y = chart_point(page, "loss", 100, _value(3, 100))
    page.mouse.move(x, y)
    hover = wait_for(lambda: chart.locator(".hoverlayer").text_content(), "the hover label")
    assert f"max {_value(3, 100):g} (rank 3)" in hover and "rank 3 over steps 50\u2013149" in hover
    # A click on the band's upper edge pins rank 3's own line, as it wrote it.
    page.mouse.click(x, y)
    pinned = "bands · trainer 3 (pinned)"
    (line,) = wait_for(lambda: traces(chart, "raw", pinned), "rank 3's pinned line")
    assert line["x"] == list(range(STEPS))
    np.testing.assert_array_equal(line["y"], [_value(3, s) for s in range(STEPS)])
    # Its legend entry removes it.
    chart.locator(".legend .traces", has_text=pinned).locator(".legendtoggle").click()
    wait_for(lambda: not traces(chart, "raw", pinned), "the pinned line to go")
    # So does a second click on an edge the same rank holds.
    page.mouse.click(x, y)
    wait_for(lambda: traces(chart, "raw", pinned), "rank 3's line pinned again")
    page.mouse.click(x, y)
    wait_for(lambda: not traces(chart, "raw", pinned), "the pinned line to go again")
    settle(page)
    assert not page.errors, page.errors


PIXEL_JS = """([row, col]) => {
    const c = document.querySelector('#job-heatmap canvas.job-heatmap-canvas');
    const rowPx = Number(c.dataset.rowPx), w = Number(c.dataset.cellWidth);
    return Array.from(c.getContext('2d').getImageData(col * w + 1, row * rowPx + Math.floor(rowPx / 2), 1, 1).data);
}"""


def test_browser_heatmap_draws_one_row_per_rank_and_names_the_slow_one(page, server):
    open_tab(page, server, "jobs")
    canvas = page.locator("#job-heatmap canvas.job-heatmap-canvas")
    wait_for(lambda: canvas.get_attribute("data-rows") == str(RANKS), "the heatmap")
    body = get_json(server + "api/job/heatmap?run=bands")
    levels = np.frombuffer(base64.b64decode(body["values"]), np.uint8).reshape(RANKS, body["columns"])
    col = int(np.flatnonzero((levels[SLOW] != 255) & (levels[0] != 255))[0])  # both ranks running
    slow = page.evaluate(PIXEL_JS, [SLOW, col])
    fast = page.evaluate(PIXEL_JS, [0, col])
    assert slow[:3] == [68, 1, 84] or sum(slow[:3]) < 250, slow  # the dark end of the scale
    assert sum(fast[:3]) > 400, fast  # the bright end
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    row_px = int(canvas.get_attribute("data-row-px"))
    page.mouse.move(box["x"] + col * 3 + 1, box["y"] + SLOW * row_px + row_px / 2)
    tip = page.locator(".job-heatmap-tip")
    wait_for(lambda: tip.is_visible(), "the heatmap's hover")
    assert tip.text_content().startswith(f"trainer {SLOW} · ") and "steps/s" in tip.text_content()
    settle(page)
    assert not page.errors, page.errors


def _write_many(logdir: str, first: int, last: int, world: int) -> None:
    for rank in range(first, last):
        with LogWriter(logdir, rank=rank, world_size=world, role="trainer", job="big", system_metrics=False) as w:
            for step in range(6):
                w.add_scalar("loss", float(rank), step, walltime=T0 + step * (3.0 if rank == 1234 else 1.0))
                w.flush()


PARTS_JS = """() => Object.fromEntries(['#job-writers', '#job-throughput', '#job-timeline', '#job-alive', '#job-skew']
    .map((id) => [id, document.querySelectorAll(`${id} *`).length]))"""


def test_browser_heatmap_of_2000_ranks_is_one_canvas(page, tmp_path):
    world = 2000
    ctx = multiprocessing.get_context("spawn")
    logdir = str(tmp_path / "big")
    procs = [ctx.Process(target=_write_many, args=(logdir, k, min(world, k + 1000), world)) for k in (0, 1000)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
        assert p.exitcode == 0
    with serve_cli(["--logdir", str(tmp_path)], str(tmp_path / "server.log"), timeout=120) as base:
        open_tab(page, base, "jobs")
        canvas = page.locator("#job-heatmap canvas.job-heatmap-canvas")
        wait_for(lambda: canvas.get_attribute("data-rows") == str(world), "the heatmap of 2,000 ranks", timeout=60)
        settle(page, timeout=60)
        heatmap_nodes = page.evaluate("() => document.querySelectorAll('#job-heatmap *').length")
        page_nodes = page.evaluate("() => document.getElementsByTagName('*').length")
        parts = page.evaluate(PARTS_JS)
        print(f"DOM nodes: heatmap {heatmap_nodes}, page {page_nodes} ({parts}), ranks {world}")
        assert heatmap_nodes < 50  # one canvas, however many ranks
        body = get_json(base + "api/job/heatmap?run=big", timeout=30)
        assert body["rows"] == list(range(world))
        levels = np.frombuffer(base64.b64decode(body["values"]), np.uint8).reshape(world, body["columns"])
        col = int(np.flatnonzero((levels[1234] != 255) & (levels[1233] != 255))[0])
        slow = page.evaluate(PIXEL_JS, [1234, col])
        other = page.evaluate(PIXEL_JS, [1233, col])
        assert sum(slow[:3]) < sum(other[:3]), (slow, other)
        assert not page.errors, page.errors
