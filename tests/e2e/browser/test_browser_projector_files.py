"""torch's ``SummaryWriter.add_embedding`` in the projector of a real browser: the tag of
the projector files listed like our own, every point drawn, its metadata columns offered to
colour and search by, the labels written on the points and on the neighbours listed, and
their label images cut from the sprite."""

from __future__ import annotations

import os

import numpy as np
import pytest
from kit.pages import open_tab, wait_for
from kit.requirements import require_import
from kit.servers import serve_cli

ROWS = 300
POINTS_JS = "(el) => el.data.filter((t) => t.meta.kind === 'points').map((t) => ({n: t.x.length, text: t.text, colors: new Set(t.marker.color).size}))"  # noqa: E501
FIRST_POINT_JS = """(el) => {
    const t = el.data.find((d) => d.meta.kind === 'points');
    const fl = el._fullLayout;
    return [fl.xaxis.l2p(t.x[0]) + fl.margin.l, fl.yaxis.l2p(t.y[0]) + fl.margin.t];
}"""

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    torch = require_import("torch", "pip install -e '.[e2e]'")
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    logdir = tmp_path_factory.mktemp("projector_files")
    w = TorchWriter(os.path.join(logdir, "torch"))
    vectors = torch.from_numpy(np.random.default_rng(2).normal(size=(ROWS, 8)).astype(np.float32))
    table = [[f"word {i}", f"class {i % 3}"] for i in range(ROWS)]
    w.add_embedding(vectors, metadata=table, metadata_header=["word", "class"], label_img=torch.rand(ROWS, 3, 4, 4),
                    global_step=5, tag="words")  # fmt: skip
    w.close()
    with serve_cli(["--logdir", str(logdir)], str(logdir / "server.log")) as base:
        yield base


def test_projector_shows_torch_add_embedding_with_its_labels(page, server):
    open_tab(page, server, "embeddings")
    source = page.locator(".projector-body select[aria-label='Embeddings (run and tag)']")
    wait_for(lambda: source.locator("option").count() == 1, "the torch tag listed")
    assert source.locator("option").inner_text() == "words · torch"
    plot = page.locator(".projector-plot")
    wait_for(lambda: plot.get_attribute("data-points") == str(ROWS), "every point drawn")
    colour = page.locator(".projector-body select[aria-label='Colour by metadata column']")
    assert colour.locator("option").all_inner_texts() == ["word", "class"]
    (points,) = plot.evaluate(POINTS_JS)
    assert points["n"] == ROWS and points["text"][:2] == ["word 0", "word 1"]  # the labels on the points
    colour.select_option(label="class")
    wait_for(lambda: plot.evaluate(POINTS_JS)[0]["colors"] == 3, "a colour per class")
    assert plot.evaluate(POINTS_JS)[0]["text"][:4] == ["class 0", "class 1", "class 2", "class 0"]
    page.locator(".projector-body select[aria-label='Search column']").select_option(label="word")
    page.fill(".projector-body input[type=search]", "^word 1[0-9]$")
    wait_for(lambda: plot.get_attribute("data-hits") == "10", "ten words found")
    xy = plot.evaluate(FIRST_POINT_JS)
    where = plot.bounding_box()
    assert where
    page.mouse.click(where["x"] + xy[0], where["y"] + xy[1])
    side = page.locator(".projector-side")
    wait_for(lambda: side.locator("ol.neighbours li").count() == 10, "ten neighbours listed")
    assert side.locator("h3").inner_text() == "Nearest to row 0"
    assert side.locator("p.muted").first.inner_text() == "word 0 · class 0"
    assert all(
        item.startswith("word ") and " · class " in item for item in side.locator("ol.neighbours li").all_inner_texts()
    )
    # The label images: each listed point's, cut from torch's sprite (18 a row of 4 x 4 px, drawn at 10x).
    thumbs = side.locator(".projector-thumb")
    assert thumbs.count() == 11
    for i in range(11):
        row = int(thumbs.nth(i).get_attribute("data-row") or "-1")
        style = thumbs.nth(i).evaluate(
            "(el) => [el.style.width, el.style.backgroundPosition, el.style.backgroundImage]"
        )
        assert style[:2] == ["40px", f"{-(row % 18) * 40}px {-(row // 18) * 40}px"], (row, style)
    url = style[2].removeprefix('url("').removesuffix('")')
    assert url.startswith("api/projection/sprite?")
    fetched = page.evaluate("(u) => fetch(u).then((r) => [r.status, r.headers.get('content-type')])", url)
    assert fetched == [200, "image/png"]
    assert not page.errors, page.errors
