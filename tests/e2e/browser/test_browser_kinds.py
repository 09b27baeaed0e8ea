"""The views of the kinds VisualDL 2.5's writer added, in a real browser on a real server:
the audio plays, the PR curve's drawn points are the logged ones, the hyperparameter table
sorts and its selection reaches the scalar charts, the projector draws every logged point,
custom scalar layouts draw their tags and bands."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from kit.logdirs import write_kinds_tour
from kit.pages import TRACES_JS, open_tab, settle, wait_for
from kit.servers import serve_cli

from visualdl import LogReader, LogWriter

PROJECTED_ROWS = 2_000
PLAY_JS = """async (a) => {
    a.muted = true;
    await a.play();
    await new Promise((r) => setTimeout(r, 300));
    return [a.paused, a.currentTime];
}"""
POINTS_JS = "(el) => el.data.map((t) => ({kind: t.meta.kind, n: t.x.length, colors: new Set(t.marker.color).size}))"
# Where the first point is on the page, from plotly's own axes.
FIRST_POINT_JS = """(el) => {
    const t = el.data.find((d) => d.meta.kind === 'points');
    const fl = el._fullLayout;
    return [fl.xaxis.l2p(t.x[0]) + fl.margin.l, fl.yaxis.l2p(t.y[0]) + fl.margin.t];
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("kinds_logs")
    write_kinds_tour(str(logdir))
    rng = np.random.default_rng(1)
    with LogWriter(os.path.join(logdir, "big")) as w:
        w.add_embeddings("points", mat=rng.normal(size=(PROJECTED_ROWS, 16)).astype(np.float32),
                         metadata=[f"{'cat' if i % 4 else 'dog'} {i}" for i in range(PROJECTED_ROWS)])  # fmt: skip
    with serve_cli(["--logdir", str(logdir)], str(logdir / "server.log")) as base:
        yield base, str(logdir)


def _plot_data(locator):
    return locator.evaluate("(el) => (el.querySelector('.js-plotly-plot') || el).data?.map((t) => ({meta: t.meta, "
                            "x: Array.from(t.x || []), y: Array.from(t.y || []), name: t.name}))")  # fmt: skip


def test_audio_player_loads_plays_and_follows_the_slider(page, server):
    base, _ = server
    open_tab(page, base, "audio")
    card = page.locator('.audio-card[data-tag="clip"][data-run="a"]')
    card.scroll_into_view_if_needed()
    wait_for(lambda: card.get_attribute("data-state") == "ready", "the clip listed")
    player = card.locator("audio")
    wait_for(lambda: player.evaluate("(a) => a.readyState >= 1"), "the clip's metadata")
    assert card.get_attribute("data-step") == "7"  # the newest
    assert player.evaluate("(a) => a.duration") == pytest.approx(800 / 16000, abs=0.005)
    card.locator("input.step-slider").evaluate("(el) => { el.value = '0'; el.dispatchEvent(new Event('input')); }")
    wait_for(lambda: player.evaluate("(a) => a.readyState >= 1 && Math.abs(a.duration - 0.5) < 0.005"), "step 3's clip")
    assert card.get_attribute("data-step") == "3" and "8 kHz" in card.locator(".caption").inner_text()
    played = player.evaluate(PLAY_JS)
    assert played[0] is False and played[1] > 0
    assert not page.errors, page.errors


def test_pr_curve_draws_the_logged_points_and_the_slider_picks_the_step(page, server):
    base, logdir = server
    reader = LogReader(logdir)
    open_tab(page, base, "pr_curves")
    card = page.locator('.curve-card[data-tag="pr"]')
    wait_for(lambda: card.get_attribute("data-state") == "ready", "the PR card drawn")
    traces = {t["meta"]["run"]: t for t in _plot_data(card)}
    assert set(traces) == {"a", "b"}
    for run, trace in traces.items():
        logged = reader.pr_curves(run, "pr")[-1]
        assert trace["meta"]["step"] == 10
        assert trace["x"] == [None if math.isnan(v) else v for v in logged.recall.tolist()]
        assert trace["y"] == [None if math.isnan(v) else v for v in logged.precision.tolist()]
        assert f"AUC {trace['meta']['auc']:.4f}" in trace["name"]
    card.locator("input.step-slider").evaluate("(el) => { el.value = '0'; el.dispatchEvent(new Event('change')); }")
    wait_for(lambda: all(t["meta"]["step"] == 0 for t in _plot_data(card)), "step 0 drawn")
    first = reader.pr_curves("a", "pr")[0]
    (a,) = [t for t in _plot_data(card) if t["meta"]["run"] == "a"]
    assert a["y"] == [None if math.isnan(v) else v for v in first.precision.tolist()]
    open_tab(page, base, "roc_curves")
    roc = page.locator('.curve-card[data-tag="roc"]')
    wait_for(lambda: roc.get_attribute("data-state") == "ready", "the ROC card drawn")
    assert {t["meta"]["run"] for t in _plot_data(roc)} == {"a", "b"}
    assert not page.errors, page.errors


def test_hparams_table_sorts_and_its_selection_reaches_the_scalar_charts(page, server):
    base, _ = server
    open_tab(page, base, "hparams")
    table = page.locator(".hparams-table")
    wait_for(lambda: table.locator("tbody tr").count() == 2, "a row per run with hparams")
    runs = lambda: table.locator("tbody tr").evaluate_all("(rows) => rows.map((r) => r.dataset.run)")  # noqa: E731
    header = table.locator("th", has_text="loss")
    header.locator("button").click()
    assert runs() == ["b", "a"] and header.get_attribute("aria-sort") == "ascending"  # last loss 0.21 < 0.3
    header.locator("button").click()
    assert runs() == ["a", "b"] and header.get_attribute("aria-sort") == "descending"
    assert page.locator(".hparams-body .js-plotly-plot").count() == 2  # parallel coordinates and scatter matrix
    dims = page.evaluate("() => document.querySelector('.hparams-body .js-plotly-plot').data[0].dimensions.length")
    assert dims == 4 + 3  # lr, batch, opt, warm; loss, acc, never
    table.locator('tbody tr[data-run="b"] input[type="checkbox"]').check()
    page.get_by_role("button", name="Show in Scalars").click()
    wait_for(lambda: page.locator("#panel-scalars").is_visible(), "the Scalars tab")
    chart = page.locator('.card[data-tag="loss"]')
    wait_for(lambda: chart.get_attribute("data-state") == "ready", "the loss chart")
    wait_for(lambda: {t["meta"].get("run") for t in chart.evaluate(TRACES_JS)} == {"b"}, "only run b drawn")
    assert not page.errors, page.errors


def test_brushing_an_hparams_axis_ticks_the_runs_inside_and_they_reach_the_scalar_charts(page, server):
    base, _ = server
    open_tab(page, base, "hparams")
    table = page.locator(".hparams-table")
    wait_for(lambda: table.locator("tbody tr").count() == 2, "a row per run with hparams")
    plot = page.locator(".hparams-body .js-plotly-plot").first
    wait_for(lambda: plot.evaluate("(el) => !!el.data"), "the parallel coordinates")
    ticked = lambda: table.locator("tbody tr").evaluate_all(  # noqa: E731
        "(rows) => rows.filter((r) => r.querySelector('input').checked).map((r) => r.dataset.run)"
    )
    assert ticked() == []
    # Brush the last loss between 0.1 and 0.25 (as a drag on the axis does): b (0.21), not a (0.3).
    axis = plot.evaluate("(el) => el.data[0].dimensions.findIndex((d) => d.label === 'loss')")
    plot.evaluate(f"(el) => Plotly.restyle(el, {{'dimensions[{axis}].constraintrange': [[0.1, 0.25]]}})")
    wait_for(lambda: ticked() == ["b"], "run b ticked by the brush")
    assert page.locator(".hparams-body .muted").inner_text().startswith("1 of 2 runs ticked")
    plot.evaluate(f"(el) => Plotly.restyle(el, {{'dimensions[{axis}].constraintrange': [[0.0, 1.0]]}})")
    wait_for(lambda: sorted(ticked()) == ["a", "b"], "both runs inside a wider brush")
    # A box selection in the scatter matrix ticks the runs of its points.
    splom = page.locator(".hparams-body .js-plotly-plot").nth(1)
    splom.evaluate("(el) => el.emit('plotly_selected', {points: [{pointIndex: el.data[0].text.indexOf('b')}]})")
    wait_for(lambda: ticked() == ["b"], "run b ticked by the scatter matrix selection")
    plot.evaluate(f"(el) => Plotly.restyle(el, {{'dimensions[{axis}].constraintrange': [[0.25, 1.0]]}})")
    wait_for(lambda: ticked() == ["a"], "run a alone")
    page.get_by_role("button", name="Show in Scalars").click()
    chart = page.locator('.card[data-tag="loss"]')
    wait_for(lambda: chart.get_attribute("data-state") == "ready", "the loss chart")
    wait_for(lambda: {t["meta"].get("run") for t in chart.evaluate(TRACES_JS)} == {"a"}, "only run a drawn")
    assert not page.errors, page.errors


def test_projector_draws_every_logged_point_colours_searches_and_lists_neighbours(page, server):
    base, _ = server
    open_tab(page, base, "embeddings")
    page.select_option(".projector-body select[aria-label='Embeddings (run and tag)']", label="points · big")
    plot = page.locator(".projector-plot")
    wait_for(lambda: plot.get_attribute("data-points") == str(PROJECTED_ROWS), "every point drawn")
    (points,) = [t for t in plot.evaluate(POINTS_JS) if t["kind"] == "points"]
    assert points["n"] == PROJECTED_ROWS
    assert points["colors"] == 20 + 1  # 2,000 distinct labels: the 20 most frequent coloured, the rest grey
    page.fill(".projector-body input[type=search]", "^dog ")
    wait_for(lambda: plot.get_attribute("data-hits") == str(PROJECTED_ROWS // 4), "the dogs found")
    assert "500 matches" in page.locator(".projector-legend").inner_text()
    xy = plot.evaluate(FIRST_POINT_JS)
    where = plot.bounding_box()
    assert where
    page.mouse.click(where["x"] + xy[0], where["y"] + xy[1])
    side = page.locator(".projector-side")
    wait_for(lambda: side.locator("ol.neighbours li").count() == 10, "ten neighbours listed")
    assert side.locator("h3").inner_text().startswith("Nearest to row ")
    assert not page.errors, page.errors


def test_custom_scalars_draw_matched_tags_and_margin_bands(page, server):
    base, logdir = server
    reader = LogReader(logdir)
    open_tab(page, base, "scalar_layouts")
    both = page.locator('.layout-card[data-title="both"]')
    wait_for(lambda: both.get_attribute("data-state") == "ready", "the multiline chart")
    want = {"loss · a", "loss · b", "acc · a", "acc · b"}
    lines = lambda: {t["meta"]["run"] for t in _plot_data(both) or [] if t["meta"].get("kind") == "smoothed"}  # noqa: E731
    wait_for(lambda: lines() == want, "a line per matched tag and run")
    band = page.locator('.layout-card[data-title="band"]')
    wait_for(lambda: band.get_attribute("data-state") == "ready", "the margin chart")
    traces = _plot_data(band)
    value = next(t for t in traces if t["meta"]["kind"] == "value" and t["meta"]["run"] == "a")
    upper = next(t for t in traces if t["meta"]["kind"] == "upper" and t["meta"]["run"] == "a")
    lower = next(t for t in traces if t["meta"]["kind"] == "lower" and t["meta"]["run"] == "a")
    loss = reader.scalars("a", "loss")
    assert value["x"] == loss.steps.tolist() and value["y"] == loss.values.tolist()
    assert upper["y"] == loss.values.tolist()  # the upper tag is loss itself here
    assert lower["y"] == [None, None, None, None, 0.6]  # acc: only at step 4
    broken = page.locator('.layout-card[data-title="bad"]')
    broken.scroll_into_view_if_needed()
    wait_for(lambda: "does not compile" in broken.locator(".layout-problem").inner_text(), "the bad pattern named")
    settle(page)
    assert not page.errors, page.errors


@pytest.mark.parametrize("width", [1440, 1280, 960])
def test_every_tab_fits_in_the_bar_or_folds_into_more(page, server, width):
    base = server[0] if isinstance(server, tuple) else server
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(base + "#scalars")
    page.wait_for_selector("#tab-scalars")
    kinds = page.evaluate("() => fetch('api/kinds').then((r) => r.json())")["kinds"]
    wanted = {
        k["name"]
        for k in kinds
        if (k["tags"] if k["record"] else k["runs"]) and page.locator(f"#panel-{k['name']}").count()
    }
    page.wait_for_function("(n) => document.querySelectorAll('[role=tab]').length >= n", arg=len(wanted))
    nav = page.evaluate("() => { const n = document.querySelector('.tabs'); return [n.scrollWidth, n.clientWidth]; }")
    assert nav[0] <= nav[1], f"the tab bar scrolls: {nav}"
    shown = page.locator("[role='tab']:not([hidden])").evaluate_all("(ts) => ts.map((t) => t.dataset.tab)")
    folded = page.locator("#tab-more option").evaluate_all("(os) => os.map((o) => o.value).filter(Boolean)")
    assert set(shown) | set(folded) >= wanted and not set(shown) & set(folded), (shown, folded)
    if width == 1440:
        assert "scalar_layouts" in shown or "scalar_layouts" in folded
    if folded:  # a folded tab opens from the menu, and is in the bar while open
        page.select_option("#tab-more", folded[-1])
        page.wait_for_selector(f"#tab-{folded[-1]}[aria-selected='true']:not([hidden])")
        assert page.get_attribute(f"#panel-{folded[-1]}", "hidden") is None  # shown (it may still be empty)
    assert not page.errors, page.errors
