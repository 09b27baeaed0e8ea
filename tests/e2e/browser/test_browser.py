"""The web UI in a real browser: the real server as a subprocess, Debian's chromium driven by Playwright.

One server for the module serves logs written here with LogWriter; every test gets a
fresh browser context (no shared localStorage) and collects console errors. A failing
test leaves a screenshot in ``tests/artifacts/<test name>.png``.
"""

from __future__ import annotations

import math
import os
import urllib.request

import numpy as np
import pytest
from kit.pages import card, open_tab, scalar_chart, settle, traces, wait_for
from kit.servers import serve_cli

from visualdl import LogReader, LogWriter, notebook
from visualdl.server._settings import DEFAULT_MAX_POINTS

# What the fixture logs, and what the page must show.
LOSS_STEPS = list(range(0, 60, 2))
LOSS_VALUES = [round(1.0 / (1 + 0.1 * s), 6) + (0.05 if s % 6 == 0 else 0.0) for s in LOSS_STEPS]
NAN_STEP = 20
LOSS_VALUES[LOSS_STEPS.index(NAN_STEP)] = math.nan
MARKDOWN = "# Run notes\n\n**bold** and <script>window.pwned = 1</script> [x](javascript:pwned=2)\n\n- one\n- two"
DENSE_POINTS = 12000  # above the server's default of 5,000 points per run
IMAGE_STEPS = [0, 5, 10]
IMAGE_COLORS = [(200, 30, 30), (30, 160, 60), (40, 70, 210)]
IMAGE_WIDTH, IMAGE_HEIGHT = 24, 16
HIST_STEPS = [0, 10, 20, 30, 40]


def _write_logs(logdir: str) -> LogWriter:
    """Logs of run 'alpha' (closed); returns the open writer of run 'live'."""
    with LogWriter(os.path.join(logdir, "alpha")) as w:
        for step, value in zip(LOSS_STEPS, LOSS_VALUES, strict=True):
            w.add_scalar("loss", value, step)
        for step in range(DENSE_POINTS):
            w.add_scalar("dense/sin", math.sin(step / 50.0) + step * 1e-4, step)
        for step, color in zip(IMAGE_STEPS, IMAGE_COLORS, strict=True):
            image = np.zeros((IMAGE_HEIGHT, IMAGE_WIDTH, 3), np.uint8)
            image[:, :] = color
            image[0, 0] = (255, 255, 255)
            w.add_image("sample", image, step)
        rng = np.random.default_rng(0)
        for step in HIST_STEPS:
            w.add_histogram("weights", rng.normal(step / 10.0, 1.0, 500), step, buckets=20)
        w.add_text("notes", "<b>plain</b> text", 3)
        w.add_text("md", MARKDOWN, 1)
    live = LogWriter(os.path.join(logdir, "live"))
    for step in range(5):
        live.add_scalar("live/metric", float(step), step)
    live.flush()
    return live


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The real server on a free port over freshly written logs: (base URL, logdir, live writer)."""
    logdir = str(tmp_path_factory.mktemp("browser_logs"))
    live = _write_logs(logdir)
    try:
        args = ["--logdir", logdir, "--reload-interval", "0.5"]
        with serve_cli(args, os.path.join(logdir, "..", "server.log")) as base:
            yield base, logdir, live
    finally:
        live.close()


def test_scalar_chart_plots_the_logged_values(page, server):
    base, _, _ = server
    open_tab(page, base, "scalars")
    chart = scalar_chart(page, "loss")
    (raw,) = traces(chart, "raw", "alpha")
    assert raw["x"] == LOSS_STEPS
    assert raw["y"] == [None if math.isnan(v) else v for v in LOSS_VALUES]  # NaN: a gap in the line
    (smoothed,) = traces(chart, "smoothed", "alpha")
    assert smoothed["y"][LOSS_STEPS.index(NAN_STEP)] is None
    (marks,) = traces(chart, "nonfinite", "alpha")
    assert marks["x"] == [NAN_STEP] and marks["text"] == ["NaN"]  # a visible marker says which


def test_every_drawn_line_has_a_legend_entry_in_its_colour(page, server):
    base, _, _ = server
    open_tab(page, base, "scalars")
    chart = scalar_chart(page, "loss")
    runs = sorted(t["meta"]["run"] for t in traces(chart, "smoothed"))
    assert runs == ["alpha"]  # (colours of several lines apart: tests/js/colors.test.mjs)
    legend = chart.locator(".legend .traces")
    wait_for(lambda: legend.count() == len(runs), "a legend entry per line")
    assert sorted(legend.locator(".legendtext").all_text_contents()) == runs  # SVG text: no innerText
    # Each entry's swatch is its line's colour.
    colors = chart.evaluate(
        """(el) => Object.fromEntries(el.querySelector('.js-plotly-plot').data
            .filter((t) => t.meta.kind === 'smoothed').map((t) => [t.meta.run, t.line.color]))"""
    )
    for entry in legend.all():
        name = entry.locator(".legendtext").text_content()
        stroke = entry.locator("path.js-line").first.evaluate("(p) => getComputedStyle(p).stroke")
        hex_color = colors[name]
        assert stroke == "rgb({}, {}, {})".format(*(int(hex_color[i : i + 2], 16) for i in (1, 3, 5))), name


def test_smoothing_slider_changes_the_smoothed_line(page, server):
    base, _, _ = server
    open_tab(page, base, "scalars")
    chart = scalar_chart(page, "loss")
    before = traces(chart, "smoothed", "alpha")[0]["y"]
    page.locator("#smoothing").evaluate("(el) => { el.value = '0.95'; el.dispatchEvent(new Event('input')); }")
    after = wait_for(
        lambda: (y := traces(chart, "smoothed", "alpha")[0]["y"]) != before and y, "the smoothed line to change"
    )
    raw = traces(chart, "raw", "alpha")[0]["y"]
    assert after != raw
    # The same EMA as the notebook's (both pinned by tests/data/smoothing.json): gaps at the
    # same places, values equal where there are values.
    weight = notebook._effective_weight(0.95, len(raw))  # TensorBoard's weight, by default in both
    expected = notebook.smooth([math.nan if v is None else v for v in raw], weight)
    assert [v is None for v in after] == [not math.isfinite(v) for v in expected]
    assert [v for v in after if v is not None] == pytest.approx(expected[np.isfinite(expected)].tolist(), rel=1e-12)


def _pixel(page, locator):
    return locator.locator("img").evaluate(
        """(img) => { const c = document.createElement('canvas'); c.width = img.naturalWidth;
        c.height = img.naturalHeight; const g = c.getContext('2d'); g.drawImage(img, 0, 0);
        return Array.from(g.getImageData(5, 5, 1, 1).data.slice(0, 3)); }"""
    )


def _loaded_image(locator, index: int):
    return locator.locator("img").evaluate(
        "(img, i) => img.complete && img.naturalWidth > 0 && new URL(img.src).searchParams.get('index') === String(i)"
        " ? [img.naturalWidth, img.naturalHeight] : null",
        index,
    )


def test_image_card_shows_the_logged_image_and_the_slider_moves_steps(page, server):
    base, logdir, _ = server
    open_tab(page, base, "images")
    image_card = card(page, "sample", "alpha")
    last = len(IMAGE_STEPS) - 1
    size = wait_for(lambda: _loaded_image(image_card, last), "the newest image to load")
    assert size == [IMAGE_WIDTH, IMAGE_HEIGHT]
    assert image_card.get_attribute("data-step") == str(IMAGE_STEPS[last])
    assert _pixel(page, image_card) == list(IMAGE_COLORS[last])
    # The bytes served are the PNG the writer logged.
    src = image_card.locator("img").evaluate("(img) => img.src")
    with urllib.request.urlopen(src, timeout=5) as response:
        served = response.read()
    reader = LogReader(logdir)
    assert served == reader.read_blob(reader.images("alpha", "sample")[last])

    image_card.locator(".step-slider").evaluate("(el) => { el.value = '0'; el.dispatchEvent(new Event('input')); }")
    wait_for(lambda: _loaded_image(image_card, 0), "the first image to load")
    assert image_card.get_attribute("data-step") == str(IMAGE_STEPS[0])
    assert f"step {IMAGE_STEPS[0]}" in image_card.locator(".caption").inner_text()
    assert _pixel(page, image_card) == list(IMAGE_COLORS[0])


def test_histogram_card_draws_in_each_mode(page, server):
    base, _, _ = server
    open_tab(page, base, "histograms")
    hist = card(page, "weights", "alpha")
    expected = {"offset": len(HIST_STEPS), "overlay": len(HIST_STEPS), "distribution": 9}  # 4 bands x 2 + median
    for mode, count in expected.items():
        page.check(f'input[name="histogram-mode"][value="{mode}"]')  # the one mode control, for every card
        page.wait_for_selector(f'.card[data-tag="weights"][data-run="alpha"][data-mode="{mode}"][data-state="ready"]')
        drawn = wait_for(lambda c=count: len(data := traces(hist)) == c and data, f"{count} traces in {mode} mode")
        assert all(len(t["x"]) > 0 for t in drawn)
        if mode == "distribution":
            median = [t for t in drawn if t["meta"].get("median")]
            assert median and median[0]["x"] == HIST_STEPS
        else:
            assert sorted(t["meta"]["step"] for t in drawn) == HIST_STEPS


def test_a_flushed_point_appears_without_a_reload(page, server):
    base, _, live = server
    open_tab(page, base, "scalars")
    chart = scalar_chart(page, "live/metric")
    page.evaluate("() => { window.notReloaded = true; }")
    step = 5  # the writer logged steps 0..4
    assert step not in traces(chart, "raw", "live")[0]["x"]
    live.add_scalar("live/metric", 42.5, step)
    live.flush()
    raw = wait_for(
        lambda: (t := traces(chart, "raw", "live")) and step in t[0]["x"] and t[0], "the new point", timeout=15
    )
    assert raw["y"][raw["x"].index(step)] == 42.5
    assert page.evaluate("() => window.notReloaded === true")


def test_box_zoom_refetches_the_range_at_full_resolution(page, server):
    base, _, _ = server
    open_tab(page, base, "scalars")
    chart = scalar_chart(page, "dense/sin")
    (raw,) = traces(chart, "raw", "alpha")
    assert len(raw["x"]) <= DEFAULT_MAX_POINTS < DENSE_POINTS  # downsampled at first
    # Said once, in the toolbar, not on every card.
    note = page.locator("#panel-scalars .downsampled-note")
    wait_for(lambda: "1 chart downsampled to 5,000 of up to 12,000 points" in (note.text_content() or ""), "the note")
    assert page.locator("#panel-scalars .card-note", has_text="ownsampled").count() == 0
    lo, hi = 1234, 1834
    assert not set(range(lo, hi + 1)) <= set(raw["x"])
    chart.evaluate(f"(el) => Plotly.relayout(el.querySelector('.js-plotly-plot'), {{'xaxis.range': [{lo}, {hi}]}})")
    zoomed = wait_for(
        lambda: (t := traces(chart, "raw", "alpha")) and t[0]["x"] == list(range(lo, hi + 1)) and t[0],
        "every point of the zoomed range",
    )
    assert zoomed["y"] == [math.sin(s / 50.0) + s * 1e-4 for s in range(lo, hi + 1)]
    # Double-click resets the zoom: back to the downsampled whole series.
    chart.evaluate("(el) => Plotly.relayout(el.querySelector('.js-plotly-plot'), {'xaxis.autorange': true})")
    wait_for(lambda: (t := traces(chart, "raw", "alpha")) and t[0]["x"][-1] == DENSE_POINTS - 1, "the whole series")


def test_no_console_errors_on_any_tab(page, server):
    base, _, _ = server
    open_tab(page, base, "scalars")
    scalar_chart(page, "loss")
    assert "VisualDL" in page.title()
    page.check("#log-y")
    page.check("#ignore-outliers")
    page.check('input[name="x-axis"][value="wall"]')
    page.fill("#tag-filter", "[unclosed")
    page.wait_for_selector("#tag-filter-error:not([hidden])")
    assert "Invalid regex" in page.inner_text("#tag-filter-error")
    page.fill("#tag-filter", "")
    for tab in ("images", "histograms", "text"):
        page.click(f"#tab-{tab}")
        page.wait_for_selector(f"#panel-{tab} .card[data-state='ready']")
    text = page.locator('.card[data-tag="notes"] .text-body').inner_text()
    assert text == "<b>plain</b> text"  # shown as text, never as HTML
    page.click("#tab-scalars")
    scalar_chart(page, "loss")
    settle(page)
    assert page.errors == []


def test_every_call_the_page_makes_is_one_the_server_declares(page, server):
    """api.js checks each call against /api/openapi.json: a route or parameter the server
    does not declare is a console error, so the tour above would have failed on one."""
    base, _, _ = server
    open_tab(page, base, "scalars")
    scalar_chart(page, "loss")
    wait_for(lambda: page.evaluate("() => performance.getEntriesByName(new URL('api/openapi.json', location).href)"
                                   ".length > 0"), "the declarations loaded")  # fmt: skip
    settle(page)
    assert page.errors == []
    page.evaluate("""async () => {
        const api = await import('./static/api.js');
        await api.getJSON('runs', { bogus: 1 }).catch(() => null);
        await api.getJSON('no/such/route').catch(() => null);
    }""")
    assert [e for e in page.errors if "Failed to load resource" not in e] == [  # the 404 of the made-up route
        "console.error: the web UI gave api/runs a parameter bogus it does not declare",
        "console.error: the web UI asked for api/no/such/route, which the server does not declare",
    ]


def test_tabs_are_built_from_the_kinds_the_server_lists(page, server):
    base, _, _ = server
    open_tab(page, base, "images")
    page.wait_for_selector("#tab-images[aria-selected='true']")
    kinds = page.evaluate("() => fetch('api/kinds').then((r) => r.json())")["kinds"]
    tabs = page.locator("[role='tab']")
    # A tab for each kind with data this page has a view for, and Scalars and the open tab always.
    counted = {k["name"]: k["tags"] if k["record"] else k["runs"] for k in kinds}
    assert [k["name"] for k in kinds if page.locator(f"#panel-{k['name']}").count()][:7] == [
        "scalars", "runs", "images", "histograms", "text", "jobs", "graphs",
    ]  # fmt: skip
    kinds = [k for k in kinds if page.locator(f"#panel-{k['name']}").count()
             and (counted[k["name"]] or k["name"] in ("scalars", "images"))]  # fmt: skip
    assert "audio" not in [k["name"] for k in kinds]  # no audio in these logs: no tab
    assert [tabs.nth(i).get_attribute("data-tab") for i in range(tabs.count())] == [k["name"] for k in kinds]
    for kind in kinds:
        count = kind["tags"] if kind["record"] else kind["runs"]
        page.wait_for_function(
            "([name, count]) => document.querySelector(`#tab-${name} .tab-count`).textContent === count",
            arg=[kind["name"], str(count) if count else ""],
        )
        assert page.inner_text(f"#tab-{kind['name']}").startswith(kind["title"])
    assert not page.locator("#panel-images").is_hidden() and page.locator("#panel-scalars").is_hidden()
    assert page.errors == []


@pytest.mark.parametrize("fragment", ["constructor", "__proto__", "toString", "hasOwnProperty"])
def test_fragment_naming_an_object_property_shows_the_scalars_tab(page, server, fragment):
    base, _, _ = server
    open_tab(page, base, fragment)
    scalar_chart(page, "loss")
    assert page.get_attribute("#tab-scalars", "aria-selected") == "true"
    assert not page.locator("#panel-scalars").is_hidden()
    assert page.title().startswith("Scalars")
    page.evaluate("(f) => { location.hash = f; }", "__proto__")  # and when the fragment changes later
    page.wait_for_function("() => location.hash === '#scalars'")  # the URL says the tab shown
    page.click("#tab-images")
    page.wait_for_selector("#panel-images:not([hidden])")
    assert page.errors == []


def test_saved_histogram_mode_naming_an_object_property_falls_back_to_offset(page, server):
    base, _, _ = server
    page.add_init_script("localStorage.setItem('visualdl.settings.v1', JSON.stringify({histogramMode: 'constructor'}))")
    open_tab(page, base, "histograms")
    page.wait_for_selector('.card[data-tag="weights"][data-run="alpha"][data-mode="offset"][data-state="ready"]')
    assert page.is_checked('input[name="histogram-mode"][value="offset"]')
    assert page.errors == []


def test_charts_are_drawn_before_plotly_has_run_then_by_plotly(page, server):
    """plotly.js takes the page's thread for about a second: the first charts are drawn
    without it (quickplot.js), in their lines' colours, and plotly replaces them."""
    base, _, _ = server
    held: list = []
    page.route("**/vendor/plotly.min.js*", lambda route: held.append(route))  # answered below
    page.goto(f"{base}#scalars")
    preview = page.locator('.card[data-tag="loss"][data-preview="drawn"] svg.quick-plot')
    preview.wait_for()
    assert page.evaluate("() => window.Plotly === undefined")
    paths = preview.locator("path")
    assert paths.count() >= 1 and "L" in (paths.first.get_attribute("d") or "")
    assert page.locator('.card[data-tag="loss"] .quick-axes text').count() >= 4  # ticks and a title
    wait_for(lambda: held, "the page to ask for plotly.js")
    for route in held:
        route.continue_()
    page.unroute("**/vendor/plotly.min.js*")
    chart = scalar_chart(page, "loss")
    assert chart.locator("svg.quick-plot").count() == 0 and chart.get_attribute("data-preview") is None
    assert page.evaluate("() => performance.getEntriesByName('visualdl:first-chart').length") == 1
    assert page.errors == []


PLOTLY_BYTES_JS = "() => performance.getEntriesByType('resource').find((e) => e.name.includes('plotly')).transferSize"


def test_plotly_comes_compressed_once_and_then_from_the_cache(page, server):
    base, _, _ = server
    seen = []
    page.on("response", lambda r: seen.append(r) if "plotly.min.js" in r.url else None)
    open_tab(page, base, "scalars")
    (first,) = seen
    assert first.headers.get("content-encoding") == "gzip"
    assert "immutable" in first.headers.get("cache-control", "")
    size = page.evaluate(PLOTLY_BYTES_JS)
    assert 0 < size < 2_000_000  # 4.8 MB of script, about 1.5 MB on the wire
    page.goto("about:blank")
    open_tab(page, base, "scalars")
    again = page.evaluate(PLOTLY_BYTES_JS)
    assert again == 0  # from the browser's cache: nothing fetched


def test_text_is_rendered_as_markdown_and_html_in_it_stays_inert(page, server):
    base, _, _ = server
    open_tab(page, base, "text")
    body = page.locator('.card[data-tag="md"] .text-body')
    body.wait_for()
    assert body.locator("strong").inner_text() == "bold"
    assert body.locator("h3").inner_text() == "Run notes" and body.locator("li").count() == 2
    assert "<script>window.pwned = 1</script>" in body.inner_text()  # shown as text
    panel, text_card = page.locator("#panel-text").bounding_box(), page.locator('.card[data-tag="md"]').bounding_box()
    assert panel and text_card and text_card["width"] > 0.9 * panel["width"]  # full width, not half
    assert body.locator("script").count() == 0 and body.locator("a").count() == 0  # no javascript: link
    settle(page)
    assert page.evaluate("() => window.pwned") is None and page.errors == []


def test_groups_of_one_chart_share_a_row(page, server):
    """One-chart groups take one column each, side by side, not a whole row each."""
    base, _, _ = server
    page.set_viewport_size({"width": 1440, "height": 900})
    open_tab(page, base, "scalars")
    scalar_chart(page, "loss")
    groups = page.locator("#panel-scalars .group")
    assert groups.count() >= 2 and all("single" in (g.get_attribute("class") or "") for g in groups.all()[:2])
    first, second = (g.bounding_box() for g in groups.all()[:2])  # "dense" and the next: one chart each
    assert first and second
    assert abs(first["y"] - second["y"]) < 2 and second["x"] > first["x"] + first["width"] - 1
    assert first["width"] < 900  # a column, not the page's width


def test_tab_labels_and_counts_stay_on_one_line_in_a_narrow_window(page, server):
    base, _, _ = server
    page.set_viewport_size({"width": 960, "height": 800})
    open_tab(page, base, "scalars")
    scalar_chart(page, "loss")
    for tab in page.locator("[role='tab']").all():
        box = tab.bounding_box()
        assert box and box["height"] <= 48, tab.text_content()  # one line: the count beside its label
    refresh = page.locator("#refresh-now").bounding_box()
    assert refresh and refresh["y"] < 48  # the controls stay in the bar
