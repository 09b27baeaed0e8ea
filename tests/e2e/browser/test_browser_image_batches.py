"""Several images at one step (a batch, as ``tf.summary.image`` with ``max_outputs`` above 1
writes it) in a real browser: one card with the step's images side by side, each labelled
with its index, and a slider over the steps, not the images."""

from __future__ import annotations

import io

import numpy as np
import pytest
from kit.foreign import WALL, write_tfevents
from kit.pages import card, open_tab, wait_for
from kit.servers import serve_cli
from PIL import Image

from visualdl.proto import tb

#: Images per step; the slider has a position per step.
COUNTS = {0: 4, 1: 4, 2: 4, 3: 2}
MOVE_JS = "(el, index) => { el.value = index; el.dispatchEvent(new Event('input')); }"
#: Per image shown: [sample label, its index= in the URL, loaded, red of its pixels, visible].
CELLS_JS = """(el) => Array.from(el.querySelectorAll('.shot-cell')).map((c) => {
  const img = c.querySelector('img');
  let red = null;
  if (img.complete && img.naturalWidth > 0) {
    const g = document.createElement('canvas').getContext('2d');
    g.drawImage(img, 0, 0);
    red = g.getImageData(1, 1, 1, 1).data[0];
  }
  return [c.querySelector('.shot-index').textContent, new URL(img.src).searchParams.get('index'), red,
          c.offsetParent !== null];
})"""


def _png(red: int) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(np.full((6, 8, 3), (red, 0, 0), np.uint8)).save(buf, format="PNG")
    return buf.getvalue()


def _red(step: int, k: int) -> int:
    return 10 * step + k


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("image_batch_logs")
    meta = tb.SummaryMetadata(plugin_data=tb.SummaryMetadata.PluginData(plugin_name="images"))
    events = []
    for step, n in COUNTS.items():
        strings = [b"8", b"6", *(_png(_red(step, k)) for k in range(n))]
        tensor = tb.TensorProto(dtype=tb.DataType.DT_STRING, string_val=strings)
        tensor.tensor_shape.dim.add(size=len(strings))
        value = tb.Summary.Value(tag="inputs", tensor=tensor, metadata=meta)
        events.append(tb.Event(wall_time=WALL + step, step=step, summary=tb.Summary(value=[value])))
    write_tfevents(logdir / "train", events)
    with serve_cli(["--logdir", str(logdir)], str(logdir / "server.log")) as base:
        yield base


def _cells_at(image_card, step: int):
    """The cells once the card shows ``step`` with every image loaded; None before."""
    if image_card.get_attribute("data-step") != str(step):
        return None
    cells = image_card.evaluate(CELLS_JS)
    return cells if len(cells) == COUNTS[step] and all(c[2] is not None for c in cells) else None


def test_image_batch_card_shows_the_steps_images_side_by_side(page, server):
    open_tab(page, server, "images")
    image_card = card(page, "inputs", "train")
    # The newest step first: its 2 images, labelled 0 and 1, in the order written.
    cells = wait_for(lambda: _cells_at(image_card, 3), "the images of step 3")
    assert image_card.get_attribute("data-images") == "2"
    assert [(c[0], c[2]) for c in cells] == [("0", _red(3, 0)), ("1", _red(3, 1))]
    # A position per step on the slider, not per image (4 + 4 + 4 + 2 images).
    slider = image_card.locator(".step-slider")
    assert slider.get_attribute("max") == str(len(COUNTS) - 1)
    assert image_card.evaluate("(el) => el.querySelector('.step-slider').list.options.length") == len(COUNTS)
    # Step 1: four images side by side (one row), their indexes in the list 4 to 7.
    slider.evaluate(MOVE_JS, "1")
    cells = wait_for(lambda: _cells_at(image_card, 1), "the images of step 1")
    assert image_card.get_attribute("data-images") == "4"
    assert cells == [[str(k), str(4 + k), _red(1, k), True] for k in range(4)]
    tops = image_card.evaluate("(el) => Array.from(el.querySelectorAll('.shot-cell')).map((c) => c.offsetTop)")
    lefts = image_card.evaluate("(el) => Array.from(el.querySelectorAll('.shot-cell')).map((c) => c.offsetLeft)")
    assert len(set(tops)) == 1 and lefts == sorted(lefts) and len(set(lefts)) == 4
    assert "step 1" in image_card.locator(".caption").inner_text()
    # A click shows one image alone; a second click all four again.
    image_card.locator(".shot-cell").nth(2).click()
    wait_for(lambda: [c[3] for c in image_card.evaluate(CELLS_JS)] == [False, False, True, False], "image 2 alone")
    image_card.locator(".shot-cell").nth(2).click()
    wait_for(lambda: all(c[3] for c in image_card.evaluate(CELLS_JS)), "all four again")
    assert not page.errors, page.errors
