"""Images of one tag across runs, in a real browser: a row per tag with a card per run,
ticks on the slider at every logged image, and the runs moving together to one step."""

from __future__ import annotations

import os

import numpy as np
import pytest
from kit.pages import card, open_tab, wait_for
from kit.servers import serve_cli

from visualdl import LogWriter

STEPS = {"first": [0, 10, 20], "second": [0, 5, 15, 20, 25]}
MOVE_JS = "(el, index) => { el.value = index; el.dispatchEvent(new Event('input')); }"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("image_logs")
    for run, steps in STEPS.items():
        with LogWriter(os.path.join(logdir, run)) as w:
            for step in steps:
                w.add_image("samples/digit", np.full((4, 4, 3), step * 5, np.uint8), step)
    with serve_cli(["--logdir", str(logdir)], str(logdir / "server.log")) as base:
        yield base, str(logdir)


def test_runs_of_one_tag_sit_in_one_row_with_ticks_and_move_together(page, server):
    base, _ = server
    open_tab(page, base, "images")
    cards = {run: card(page, "samples/digit", run) for run in STEPS}
    for run, steps in STEPS.items():
        wait_for(lambda c=cards[run], s=steps: c.get_attribute("data-step") == str(s[-1]), f"{run}'s newest image")
    # One group (a row) for the tag, holding a card per run.
    groups = {c.evaluate("(el) => el.closest('details.group').dataset.group") for c in cards.values()}
    assert groups == {"samples/digit"}
    # A tick per logged image on each slider.
    for run, steps in STEPS.items():
        ticks = cards[run].evaluate("(el) => el.querySelector('.step-slider').list.options.length")
        assert ticks == len(steps)
    # Step 10 chosen in the first run: the second shows its image at step 5 (none at 10).
    cards["first"].locator(".step-slider").evaluate(MOVE_JS, "1")
    wait_for(lambda: cards["second"].get_attribute("data-step") == "5", "the second run at step 5")
    assert cards["first"].get_attribute("data-step") == "10"
    # And back: step 25 in the second run puts the first at its last image, step 20.
    cards["second"].locator(".step-slider").evaluate(MOVE_JS, "4")
    wait_for(lambda: cards["first"].get_attribute("data-step") == "20", "the first run at step 20")
    assert not page.errors, page.errors
