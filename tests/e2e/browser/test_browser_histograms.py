"""Histograms of one tag across runs, in a real browser: the cards share their value axis,
so that a run's shifted distribution shows as shifted, in every mode, and keep it (or their
own) as filters remove the other cards."""

from __future__ import annotations

import os

import numpy as np
import pytest
from kit.pages import card, open_tab, settle, traces, wait_for
from kit.requirements import require
from kit.servers import serve_cli

from visualdl import LogReader, LogWriter

RUNS = {"narrow": (0.0, 1.0), "shifted": (10.0, 3.0)}  # mean, spread of each run's weights
RANGE_JS = (
    "(el) => { const fl = el.querySelector('.js-plotly-plot')._fullLayout; return [fl.xaxis.range, fl.yaxis.range]; }"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("hist_logs")
    rng = np.random.default_rng(3)
    for run, (mean, spread) in RUNS.items():
        with LogWriter(os.path.join(logdir, run)) as w:
            for step in range(0, 50, 10):
                w.add_histogram("weights", rng.normal(mean, spread, 400), step, buckets=20)
    with LogWriter(os.path.join(logdir, "narrow")) as w:  # a tag only one run has: its own range
        w.add_histogram("alone", rng.normal(0, 1, 100), 0)
    with serve_cli(["--logdir", str(logdir)], str(logdir / "server.log")) as base:
        yield base, str(logdir)


def _extent(logdir: str, run: str) -> tuple[float, float]:
    events = LogReader(logdir).histograms(run, "weights")
    return min(e.edges[0] for e in events), max(e.edges[-1] for e in events)


@pytest.mark.parametrize("mode", ["offset", "overlay", "distribution"])
def test_cards_of_one_tag_share_their_value_axis(page, server, mode):
    base, logdir = server
    open_tab(page, base, "histograms")
    page.check(f'input[name="histogram-mode"][value="{mode}"]')
    axis = 1 if mode == "distribution" else 0
    cards = {run: card(page, "weights", run) for run in RUNS}
    for run in RUNS:
        page.wait_for_selector(f'.card[data-tag="weights"][data-run="{run}"][data-mode="{mode}"][data-state="ready"]')

    def ranges():
        got = {run: c.evaluate(RANGE_JS)[axis] for run, c in cards.items()}
        return got if got["narrow"] == got["shifted"] else None

    shared = wait_for(ranges, f"both cards on one value axis in {mode} mode")["narrow"]
    lo = min(_extent(logdir, run)[0] for run in RUNS)
    hi = max(_extent(logdir, run)[1] for run in RUNS)
    if mode != "distribution":  # bucket edges: the union of both runs', 2 % padding
        assert shared[0] < lo <= shared[0] + 0.03 * (hi - lo) and shared[1] - 0.03 * (hi - lo) <= hi < shared[1]
    else:  # percentiles lie inside the edges
        assert lo - 0.03 * (hi - lo) <= shared[0] and shared[1] <= hi + 0.03 * (hi - lo)
        assert shared[1] - shared[0] > 10  # both runs' medians (0 and 10) inside
    alone = card(page, "alone", "narrow")
    page.wait_for_selector(f'.card[data-tag="alone"][data-mode="{mode}"][data-state="ready"]')
    own = alone.evaluate(RANGE_JS)[axis]
    assert own[1] < 8  # a tag of one run keeps its own range, not the other tag's


LAYERS = ("fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight")
SHOWN_JS = """() => [...document.querySelectorAll('.histogram-card')].filter((el) => el.checkVisibility())
    .map((el) => `${el.dataset.tag} ${el.dataset.run} ${el.dataset.state}`).sort()"""


@pytest.fixture(scope="module")
def layers(tmp_path_factory):
    """Two runs of four layers' histograms: run ``a`` around 0, run ``b`` around 10."""
    logdir = tmp_path_factory.mktemp("layer_logs")
    rng = np.random.default_rng(5)
    for run, mean in (("a", 0.0), ("b", 10.0)):
        with LogWriter(os.path.join(logdir, run)) as w:
            for tag in LAYERS:
                for step in range(0, 30, 10):
                    w.add_histogram(tag, rng.normal(mean, 1.0, 200), step, buckets=20)
    with serve_cli(["--logdir", str(logdir)], str(logdir / "server.log")) as base:
        yield base


def _shown(page, tags, runs=("a", "b")):
    """Wait until the cards in view are those of ``tags`` x ``runs``, each drawn; then settle."""
    want = sorted(f"{tag} {run} ready" for tag in tags for run in runs)
    wait_for(lambda: page.evaluate(SHOWN_JS) == want, f"the cards {want}")
    settle(page)


def test_filtering_tags_removes_whole_tags_without_an_error(page, layers):
    # Two cards of one tag share their range: removing the first relayouts the second, which
    # the same filter removes next; plotly's relayout then ended on a purged div, twice per
    # filter ("e.emit is not a function").
    open_tab(page, layers, "histograms")
    page.check('input[name="histogram-mode"][value="offset"]')
    _shown(page, LAYERS)
    page.locator("#tag-filter").press_sequentially("fc1", delay=30)
    _shown(page, ["fc1.bias", "fc1.weight"])
    assert page.errors == []
    page.fill("#tag-filter", "")
    page.locator("#tag-filter").press_sequentially("fc2.weight$", delay=30)
    _shown(page, ["fc2.weight"])
    assert page.errors == []
    assert card(page, "fc2.weight", "a").evaluate(RANGE_JS)[0][1] > 10  # still both runs' range


def test_a_card_whose_other_runs_are_filtered_out_takes_its_own_range(page, layers):
    open_tab(page, layers, "histograms")
    page.check('input[name="histogram-mode"][value="offset"]')
    _shown(page, LAYERS)
    alone = card(page, "fc2.weight", "a")
    assert alone.evaluate(RANGE_JS)[0][1] > 10  # run b's values inside
    page.fill("#run-filter", "^a$")
    _shown(page, LAYERS, runs=("a",))
    wait_for(lambda: alone.evaluate(RANGE_JS)[0][1] < 8, "run a's card on its own range")
    assert page.errors == []


@pytest.fixture(scope="module")
def torch_uniform(tmp_path_factory):
    """A run of torch's histograms (its default buckets: hundreds, exponential around 0) of
    100k uniform values in (-0.1, 0.1) per step."""
    try:
        import torch
        from torch.utils.tensorboard import SummaryWriter as TorchWriter
    except ImportError:  # pragma: no cover - CI installs it
        require(False, "torch.utils.tensorboard", "pip install -e '.[e2e,bench]'")
    logdir = tmp_path_factory.mktemp("torch_logs")
    rng = np.random.default_rng(13)
    w = TorchWriter(str(logdir / "torch"))
    for step in range(0, 40, 10):
        w.add_histogram("uniform", torch.from_numpy(rng.uniform(-0.1, 0.1, 100_000)), step)
    w.close()
    with serve_cli(["--logdir", str(logdir)], str(logdir / "server.log")) as base:
        yield base


@pytest.mark.parametrize("mode", ["offset", "overlay"])
def test_torch_histogram_of_uniform_values_draws_flat(page, torch_uniform, mode):
    # Drawn as written, these buckets made a V with its tip at 0 (offset: counts of ever
    # narrower buckets) and a spike of density 100 to 2800 at 0 (overlay; the values' is 5).
    open_tab(page, torch_uniform, "histograms")
    page.check(f'input[name="histogram-mode"][value="{mode}"]')
    page.wait_for_selector(f'.card[data-tag="uniform"][data-mode="{mode}"][data-state="ready"]')
    hist = card(page, "uniform", "torch")
    drawn = wait_for(lambda: len(data := traces(hist)) == 4 and data, f"4 steps in {mode} mode")
    for trace in drawn:
        y = np.asarray(trace["y"], np.float64)
        # Offset: hanging from the step, its counts at the bins' centres; overlay: each bin's density.
        heights = y[0] - y[1:-1] if mode == "offset" else y
        assert heights.max() / heights.min() < 1.2, heights
        if mode == "offset":
            assert len(y) == 32 and y[0] == y[-1] == trace["meta"]["step"]
        else:
            assert len(y) == 60 and 4.5 < heights.min() and heights.max() < 5.5  # 1 / 0.2: the values' density
    assert "4 of 4 steps in 30 even bins" in hist.locator(".card-note").inner_text()
    assert page.errors == []
