"""A sweep of 3,000 runs in a real browser: every chart draws (no card says "given 3000
times"), as one line with bands per group, each band the min and max of its members' values,
and the sidebar's filter selects exactly the runs the same query selects in Python."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
from kit.pages import chart_point, open_tab, scalar_chart, settle, traces, wait_for
from kit.servers import serve_cli
from kit.sweeps import sweep_value, write_sweep

LRS = tuple(round(0.01 * (i + 1), 2) for i in range(10))
SEEDS = 300
STEPS = 20


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("sweep_logs"))
    write_sweep(logdir, lrs=LRS, seeds=SEEDS, steps=STEPS, tags=("train/loss", "eval/loss"))
    with serve_cli(["--logdir", logdir, "--reload-interval", "1"], os.path.join(logdir, "..", "server.log")) as base:
        yield base


def _lines(chart):
    """The runs (or groups) the chart draws: one trace each, or traces merged by colour."""
    out: list[str] = []
    for t in traces(chart, "smoothed"):
        out.extend(t["meta"]["runs"] if "runs" in t["meta"] else [t["meta"]["run"]])
    return out


def _band(chart, kind):
    return {t["meta"]["run"]: t["y"] for t in traces(chart, kind)}


def test_browser_three_thousand_runs_draw_as_groups_with_bands(page, server):
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/api/scalars" in r.url else None)
    open_tab(page, server, "scalars")
    chart = scalar_chart(page, "eval/loss")
    # hparams lr x opt split the runs (the seed gives every run its own value: not a group)
    groups = [t["meta"]["run"] for t in traces(chart, "smoothed")]
    assert groups == [f"lr={lr:g}, opt={o}" for lr in LRS for o in ("adam", "sgd")]
    low, high = _band(chart, "band-min"), _band(chart, "band-max")
    for lr in LRS:
        for opt, parity in (("adam", 1), ("sgd", 0)):
            seeds = [s for s in range(SEEDS) if s % 2 == parity]
            values = np.array([[sweep_value("eval/loss", lr, s, step) for step in range(STEPS)] for s in seeds])
            label = f"lr={lr:g}, opt={opt}"
            np.testing.assert_allclose(low[label], values.min(axis=0), rtol=0, atol=0)
            np.testing.assert_allclose(high[label], values.max(axis=0), rtol=0, atol=0)
    note = chart.locator(".card-note").text_content()
    assert "20 groups of 3000 runs" in note
    assert not page.locator(".card-error:not([hidden])").count(), page.locator(".card-error").all_text_contents()
    assert all(len(url) < 4096 for url in asked), max(asked, key=len)[:200]  # no parameter per run
    settle(page)
    assert not page.errors, page.errors


def test_browser_sidebar_filter_selects_what_the_query_selects(page, server):
    open_tab(page, server, "scalars")
    scalar_chart(page, "train/loss")
    page.fill("#run-filter", r"lr0\.0[12]/seed1\d$")
    expected = [f"lr{lr}/seed{s}" for lr in (0.01, 0.02) for s in range(SEEDS) if re.search(r"seed1\d$", f"seed{s}")]
    assert len(expected) == 20  # under the grouping threshold: one line per run, named in the request
    chart = page.locator('.card[data-tag="train/loss"]')
    drawn = wait_for(
        lambda: (lambda runs: runs if sorted(runs) == sorted(expected) else None)(_lines(chart)),
        "the filtered runs' own lines",
    )
    assert sorted(drawn) == sorted(expected)
    # With grouping by folder the same filter draws the two folders as groups.
    page.select_option("#group-by", "folder")
    groups = wait_for(
        lambda: (lambda runs: runs if runs == ["lr0.01", "lr0.02"] else None)(_lines(chart)),
        "the two folders as groups",
    )
    assert groups == ["lr0.01", "lr0.02"]
    settle(page)
    assert not page.errors, page.errors


def test_browser_runs_table_filters_sorts_and_keeps_few_rows_in_the_dom(page, server):
    open_tab(page, server, "runs")
    page.wait_for_selector(".runs-table tbody tr[data-run]")
    assert page.locator(".runs-count").text_content() == "3,000 runs"
    assert page.locator(".runs-table tbody tr").count() < 80  # a window of rows, not 3,000
    first = page.locator(".runs-table tbody tr[data-run]").first.get_attribute("data-run")
    assert first == "lr0.01/seed0"  # natural order: seed2 before seed10
    page.fill("#runs-query", 'lr >= 0.09 and opt == "adam" and name ~ "seed2\\d$"')
    wait_for(lambda: page.locator(".runs-count").text_content() == "10 of 3,000 runs", "the filtered count")
    shown = page.locator(".runs-table tbody tr[data-run]").evaluate_all("(rows) => rows.map((r) => r.dataset.run)")
    want = [f"lr{lr}/seed{s}" for lr in (0.09, 0.1) for s in range(20, 30) if s % 2 == 1]
    assert shown == want
    # A metric as columns, sorted by its minimum, descending: the order of the values logged.
    page.select_option(".runs-metrics", ["eval/loss"])
    page.wait_for_selector('.runs-table th[data-key="eval/loss.min"]')
    page.click('.runs-table th[data-key="eval/loss.min"] button')
    page.click('.runs-table th[data-key="eval/loss.min"] button')

    def low(run):
        lr, seed = float(run.split("/")[0][2:]), int(run.split("seed")[1])
        return min(sweep_value("eval/loss", lr, seed, s) for s in range(STEPS))

    expected = sorted(want, key=lambda run: -low(run))

    def rows():
        got = page.locator(".runs-table tbody tr[data-run]").evaluate_all("(rows) => rows.map((r) => r.dataset.run)")
        return got if got == expected else None

    assert wait_for(rows, "the rows by eval/loss.min, descending") == expected
    # A query that does not parse says where, and keeps the rows.
    page.fill("#runs-query", "lr <")
    error = wait_for(lambda: page.locator(".filter-error:not([hidden])").first.text_content(), "the query's error")
    assert "expected a value" in error and "at character 5" in error
    assert page.locator("#runs-query").get_attribute("aria-invalid") == "true"
    settle(page)
    assert not [e for e in page.errors if "400" not in e], page.errors


def test_browser_a_copied_url_reopens_the_same_view(page, server, browser):
    open_tab(page, server, "scalars")
    scalar_chart(page, "train/loss")
    page.fill("#run-filter", r"lr0\.0[12]/")
    page.select_option("#group-by", "folder")
    page.fill("#smoothing-value", "0.8")
    page.press("#smoothing-value", "Enter")
    href = lambda p: p.evaluate("location.href")  # noqa: E731  (history.replaceState: page.url lags)
    wait_for(lambda: "group=folder" in href(page) and "smoothing=0.8" in href(page), "the view in the URL")
    copied = href(page)
    assert "runs=lr0%5C.0%5B12%5D%2F" in copied, copied
    other = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()  # nothing saved in it
    other.goto(copied)
    chart = other.locator('.card[data-tag="train/loss"]')
    other.wait_for_selector('.card[data-tag="train/loss"][data-state="ready"] .js-plotly-plot')
    assert other.input_value("#run-filter") == r"lr0\.0[12]/"
    assert other.input_value("#group-by") == "folder"
    assert other.input_value("#smoothing-value") == "0.8"
    groups = wait_for(lambda: (lambda g: g if g == ["lr0.01", "lr0.02"] else None)(_lines(chart)), "the same groups")
    assert groups == ["lr0.01", "lr0.02"]
    # The Runs tab's query and sort are in the URL too.
    other.click("#tab-runs")
    other.fill("#runs-query", "seed < 3")
    other.wait_for_selector('.runs-table th[data-key="hparams.seed"]')
    other.click('.runs-table th[data-key="hparams.seed"] button')
    wait_for(
        lambda: "where=seed+%3C+3" in href(other) and "sort=hparams.seed" in href(other), "the table's view in the URL"
    )
    third = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    third.goto(href(other))
    third.wait_for_selector(".runs-table tbody tr[data-run]")
    assert third.input_value("#runs-query") == "seed < 3"
    assert third.get_attribute('.runs-table th[data-key="hparams.seed"]', "aria-sort") == "ascending"
    wait_for(lambda: third.locator(".runs-count").text_content() == "30 of 3,000 runs", "the query's rows")
    for p in (other, third):
        p.context.close()
    settle(page)
    assert not page.errors, page.errors


def test_browser_runs_compared_side_by_side_show_only_what_differs(page, server):
    open_tab(page, server, "runs")
    page.fill("#runs-query", 'name in ["lr0.01/seed2", "lr0.01/seed3", "lr0.05/seed2"]')
    wait_for(lambda: page.locator(".runs-count").text_content() == "3 of 3,000 runs", "the three runs")
    for name in ("lr0.01/seed2", "lr0.01/seed3"):
        page.click(f'.runs-table tr[data-run="{name}"]')
    diff = page.locator(".run-diff")
    wait_for(lambda: diff.is_visible(), "the comparison")
    fields = diff.locator("tbody th").all_text_contents()
    # lr is equal, and so are status, host, writers and attempts; the times are the writers' own
    assert fields[:2] == ["opt", "seed"] and set(fields[2:]) <= {"started", "duration"}, fields
    assert diff.locator("tbody tr").nth(0).locator("td").all_text_contents() == ["sgd", "adam"]
    page.click('.runs-table tr[data-run="lr0.05/seed2"]')
    wait_for(lambda: diff.locator("thead th").count() == 4, "a third run compared")
    assert diff.locator("tbody th").all_text_contents()[:3] == ["lr", "opt", "seed"]
    page.check(".diff-all")
    assert "status" in diff.locator("tbody th").all_text_contents()
    settle(page)
    assert not page.errors, page.errors


def test_browser_sidebar_lists_three_thousand_runs_in_natural_order_a_window_at_a_time(page, server):
    open_tab(page, server, "scalars")
    page.wait_for_selector("#run-list label.run")
    assert page.locator("#run-list > li").count() < 100  # rows in view and a few beyond, not 3,000
    names = page.locator("#run-list label.run").evaluate_all("(ls) => ls.map((l) => l.dataset.run)")
    assert names[:12] == [f"lr0.01/seed{i}" for i in range(12)]  # seed2 before seed10
    page.eval_on_selector("#run-list", "(el) => { el.scrollTop = el.scrollHeight; }")
    last = wait_for(
        lambda: (lambda n: n if n and n[-1] == f"lr0.1/seed{SEEDS - 1}" else None)(
            page.locator("#run-list label.run").evaluate_all("(ls) => ls.map((l) => l.dataset.run)")
        ),
        "the last run at the bottom",
    )
    assert last[-1] == f"lr0.1/seed{SEEDS - 1}"
    # Ticking a run off reaches the charts' selection (the count says so).
    page.locator(f'#run-list label.run[data-run="{last[-1]}"] input').uncheck()
    wait_for(lambda: page.locator("#run-count").text_content() == "2999 of 3000 selected", "the count")
    settle(page)
    assert not page.errors, page.errors


def test_browser_a_mistyped_logdir_is_said_where_the_user_looks(page, tmp_path):
    typo = str(tmp_path / "runz")
    with serve_cli(["--logdir", typo, "--reload-interval", "0.5"], str(tmp_path / "server.log")) as base:
        open_tab(page, base, "scalars")
        note = page.locator("#panel-scalars .empty")
        text = wait_for(lambda: (lambda t: t if "does not exist" in t else None)(note.text_content() or ""), "the note")
        assert f"the logdir {typo} does not exist (is the path right?)" in text
        settle(page)
        assert not page.errors, page.errors


def test_browser_a_pinned_chart_stays_on_top_across_reloads(page, server):
    open_tab(page, server, "scalars")
    scalar_chart(page, "train/loss")
    groups = lambda: page.locator("#panel-scalars details.group").evaluate_all("(ds) => ds.map((d) => d.dataset.group)")  # noqa: E731
    before = groups()
    assert "Pinned" not in before
    page.locator('.card[data-tag="train/loss"] .pin-chart').first.click()
    wait_for(lambda: groups()[0] == "Pinned", "the pinned group on top")
    pinned = page.locator('details.group[data-group="Pinned"] .card[data-tag="train/loss"]')
    assert pinned.count() == 1
    assert page.locator('.card[data-tag="train/loss"]').count() == 2  # it stays in its own group too
    page.reload()
    page.wait_for_selector('details.group[data-group="Pinned"] .card[data-tag="train/loss"][data-state="ready"]')
    assert groups()[0] == "Pinned"
    pinned.locator(".pin-chart").click()  # unpin
    wait_for(lambda: "Pinned" not in groups(), "the pinned group gone")
    settle(page)
    assert not page.errors, page.errors


def test_browser_the_data_table_gives_each_run_at_the_cursor(page, server):
    open_tab(page, server, "scalars")
    page.fill("#run-filter", r"^lr0\.01/seed[12]$")
    chart = page.locator('.card[data-tag="train/loss"]').first
    wait_for(lambda: sorted(_lines(chart)) == ["lr0.01/seed1", "lr0.01/seed2"], "the two runs' lines")
    x, y = chart_point(page, "train/loss", 10, sweep_value("train/loss", 0.01, 1, 10))
    page.mouse.move(x, y)
    table = chart.locator(".chart-values")
    wait_for(lambda: table.is_visible(), "the data table")
    rows = table.locator("tbody tr").evaluate_all(
        "(rows) => rows.map((r) => [...r.children].map((c) => c.textContent))"
    )
    by_run = {r[0]: r for r in rows}
    assert sorted(by_run) == ["lr0.01/seed1", "lr0.01/seed2"]
    for seed in (1, 2):
        _run, value, _smoothed, step, _relative = by_run[f"lr0.01/seed{seed}"]
        assert step == "10" and float(value) == pytest.approx(sweep_value("train/loss", 0.01, seed, 10), rel=1e-5)
    settle(page)
    assert not page.errors, page.errors


def test_browser_groups_drawn_as_their_median_with_a_sd_band_and_their_members_listed(page, server):
    from urllib.parse import urlencode

    view = urlencode({"runs": r"^lr0\.0[12]/", "group": "lr", "smoothing": "0", "center": "median", "band": "sd"})
    page.goto(f"{server}#scalars?{view}")
    page.wait_for_function("() => window.Plotly !== undefined")
    assert page.locator("#band-center").input_value() == "median"
    assert page.locator("#band-kind").input_value() == "sd"
    chart = scalar_chart(page, "eval/loss")
    wait_for(lambda: sorted(_lines(chart)) == ["lr=0.01", "lr=0.02"], "a line per learning rate")
    for lr in (0.01, 0.02):
        values = np.array([[sweep_value("eval/loss", lr, s, step) for step in range(STEPS)] for s in range(SEEDS)])
        label = f"lr={lr:g}"
        (line,) = traces(chart, "raw", label)
        np.testing.assert_allclose(line["y"], np.median(values, axis=0), rtol=1e-12)
        mean, sd = values.mean(axis=0), values.std(axis=0, ddof=1)
        np.testing.assert_allclose(_band(chart, "band-sd-low")[label], mean - sd, rtol=1e-9)
        np.testing.assert_allclose(_band(chart, "band-sd-high")[label], mean + sd, rtol=1e-9)
    legend = chart.locator(".legendtext").all_text_contents()
    assert legend == [f"lr={lr:g} · median of {SEEDS} runs, band ± 1 sd" for lr in (0.01, 0.02)]
    assert not traces(chart, "band-min") and not traces(chart, "median")
    # A click on a group's line lists its members; the Runs tab opens on the query selecting them.
    median = float(np.median([sweep_value("eval/loss", 0.02, s, 10) for s in range(SEEDS)]))
    x, y = chart_point(page, "eval/loss", 10, median)
    page.mouse.click(x, y)
    members = chart.locator(".group-members")
    wait_for(lambda: members.is_visible(), "the group's members")
    assert "lr=0.02 · 300 runs" in members.locator("header").text_content()
    names = members.locator(".member").all_text_contents()
    assert names == [f"lr0.02/seed{s}" for s in range(SEEDS)]  # natural order
    members.locator(".member", has_text="lr0.02/seed7").first.click()  # that run's own line
    wait_for(lambda: traces(chart, "smoothed", "lr0.02/seed7 (pinned)"), "the member's own line")
    members.locator(".open-runs").click()
    wait_for(lambda: page.locator("#runs-query").is_visible(), "the Runs tab")
    assert page.locator("#runs-query").input_value() == "lr == 0.02"
    wait_for(lambda: page.locator(".runs-count").text_content() == "300 of 3,000 runs", "the group's runs")
    assert "where=lr+%3D%3D+0.02" in page.evaluate("location.href")
    settle(page)
    assert not page.errors, page.errors


def test_browser_runs_table_columns_chosen_show_where_runs_came_from_and_survive_the_url(page, server):
    import json
    import urllib.request

    open_tab(page, server, "runs")
    page.wait_for_selector(".runs-table tbody tr[data-run]")
    headers = lambda: page.locator(".runs-table thead th").all_text_contents()  # noqa: E731
    assert "Commit" not in headers() and "Host" in headers()  # where a run came from: hidden until chosen
    page.click(".runs-columns summary")
    page.check('.runs-column-list input[value="git_commit"]')
    page.check('.runs-column-list input[value="packages.numpy"]')
    page.uncheck('.runs-column-list input[value="host"]')
    wait_for(lambda: "Commit" in headers() and "numpy" in headers() and "Host" not in headers(), "the chosen columns")
    with urllib.request.urlopen(f"{server}/api/runs/table?limit=1") as answer:
        row = json.load(answer)["rows"][0]
    assert row["name"] == "lr0.01/seed0" and row["packages.numpy"] == np.__version__  # written by this process
    first = page.locator(".runs-table tbody tr[data-run]").first
    cells = dict(zip(headers(), first.locator("td").all_text_contents(), strict=True))
    assert cells["numpy"] == np.__version__
    assert cells["Commit"] == (row["git_commit"] or "")[:10]
    url = page.evaluate("location.href")
    assert "cols=" in url
    page.goto("about:blank")
    page.goto(url)  # the copied URL: the same columns
    page.wait_for_selector(".runs-table tbody tr[data-run]")
    wait_for(lambda: "Commit" in headers() and "numpy" in headers() and "Host" not in headers(), "the columns again")
    settle(page)
    assert not page.errors, page.errors


def test_browser_a_run_written_twice_says_so_and_draws_what_was_replaced(page, tmp_path):
    from visualdl import LogWriter

    logdir = tmp_path / "logs"
    for attempt, scale in ((1, 1.0), (2, 10.0)):  # the same script run twice into one directory
        with LogWriter(str(logdir / "exp")) as w:
            for step in range(0, 100, 10) if attempt == 1 else range(50, 80, 10):
                w.add_scalar("loss", scale * step, step)
    with LogWriter(str(logdir / "other")) as w:
        w.add_scalar("loss", 1.0, 0)
    with serve_cli(["--logdir", str(logdir), "--reload-interval", "0.5"], str(tmp_path / "server.log")) as base:
        open_tab(page, base, "scalars")
        badge = page.locator('.run[data-run="exp"] .run-attempts')
        # the first writer's steps 50..90 are replaced by the second's 50..70: five points
        wait_for(lambda: badge.text_content() == "\u00d72 · 5 replaced", "the badge with the replaced count")
        assert "5 scalar points of earlier writers were replaced" in badge.get_attribute("title")
        chart = scalar_chart(page, "loss")
        (line,) = traces(chart, "raw", "exp")
        assert line["y"] == [0, 10, 20, 30, 40, 500, 600, 700]  # the later writer's points from its first step on
        assert not traces(chart, "replaced")
        page.check("#replaced-points")
        wait_for(lambda: traces(chart, "replaced"), "the replaced points")
        (crosses,) = traces(chart, "replaced")
        assert crosses["meta"]["run"] == "exp · replaced"
        assert (crosses["x"], crosses["y"]) == ([50, 60, 70, 80, 90], [50, 60, 70, 80, 90])
        assert "replaced=1" in page.evaluate("location.href")
        settle(page)
        assert not page.errors, page.errors


def test_browser_a_zoomed_chart_reopens_zoomed_from_its_url(page, server, browser):
    from urllib.parse import urlencode

    view = urlencode({"runs": r"^lr0\.01/seed[1-3]$"})
    page.goto(f"{server}#scalars?{view}")
    chart = scalar_chart(page, "eval/loss")
    wait_for(lambda: sorted(_lines(chart)) == [f"lr0.01/seed{s}" for s in (1, 2, 3)], "three runs")
    page.evaluate(
        """() => Plotly.relayout(document.querySelector('.card[data-tag="eval/loss"] .js-plotly-plot'),
        {'xaxis.range[0]': 5, 'xaxis.range[1]': 9})"""
    )
    href = lambda p: p.evaluate("location.href")  # noqa: E731
    wait_for(lambda: "zoom=" in href(page), "the zoom in the URL")
    other = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    other.goto(href(page))
    other.wait_for_selector('.card[data-tag="eval/loss"][data-state="ready"] .js-plotly-plot')
    x_range = "() => document.querySelector('.card[data-tag=\"eval/loss\"] .js-plotly-plot')._fullLayout.xaxis.range"
    wait_for(lambda: other.evaluate(x_range) == [5, 9], "the same x range")
    # ... fetched at full resolution for the zoomed steps, as a zoom by hand is
    (line,) = traces(other.locator('.card[data-tag="eval/loss"]'), "raw", "lr0.01/seed1")
    assert min(line["x"]) >= 4 and max(line["x"]) <= 10
    # the zoom reset (a double click's autorange) leaves the URL
    page.evaluate(
        """() => Plotly.relayout(document.querySelector('.card[data-tag="eval/loss"] .js-plotly-plot'),
        {'xaxis.autorange': true})"""
    )
    wait_for(lambda: "zoom=" not in href(page), "the zoom gone from the URL")
    other.context.close()
    settle(page)
    assert not page.errors, page.errors


def test_browser_the_sidebar_widens_to_read_long_run_names_and_keeps_its_width(page, tmp_path):
    from visualdl import LogWriter

    long = "sweeps/2026-11-26/resnet50_lr0.1_bs256_warmup5_cosine/seed_1234567"
    with LogWriter(str(tmp_path / "logs" / long)) as w:
        w.add_scalar("loss", 1.0, 0)
    with serve_cli(["--logdir", str(tmp_path / "logs")], str(tmp_path / "server.log")) as base:
        open_tab(page, base, "scalars")
        name = page.locator(".run-list .run-name").first
        wait_for(lambda: name.text_content() == long, "the run")
        clipped = "(el) => el.scrollWidth > el.clientWidth"
        assert name.evaluate(clipped)  # the default width cuts it
        handle = page.locator("#sidebar-resizer").bounding_box()
        page.mouse.move(handle["x"] + 4, handle["y"] + 200)
        page.mouse.down()
        page.mouse.move(handle["x"] + 400, handle["y"] + 200, steps=5)
        page.mouse.up()
        wait_for(lambda: not name.evaluate(clipped), "the whole name")
        width = page.locator(".sidebar").evaluate("(el) => el.getBoundingClientRect().width")
        assert 600 < width < 720
        page.reload()
        page.wait_for_selector(".run-list .run-name")
        assert abs(page.locator(".sidebar").evaluate("(el) => el.getBoundingClientRect().width") - width) < 2
        page.locator("#sidebar-resizer").dblclick()
        assert page.locator(".sidebar").evaluate("(el) => el.getBoundingClientRect().width") == 280
        settle(page)
        assert not page.errors, page.errors


def test_browser_live_refresh_of_unchanged_lists_and_charts_is_answered_304(page, server):
    statuses: list[tuple[str, int]] = []
    page.on("response", lambda r: statuses.append((r.url.split("?")[0].rsplit("/api/", 1)[-1], r.status)))
    open_tab(page, server, "scalars")
    scalar_chart(page, "eval/loss")
    for _ in range(2):  # two refreshes of the page's lists (every 2 s), and of the charts in view
        page.wait_for_timeout(2500)
    again = {name: [s for n, s in statuses if n == name] for name in ("runs", "tags", "kinds", "scalars")}
    for name in ("runs", "tags", "kinds"):
        assert again[name][0] == 200 and 304 in again[name][1:], (name, again[name])
    assert not [s for n, s in statuses if n == "runs" and s not in (200, 304)]
    settle(page)
    assert not page.errors, page.errors
