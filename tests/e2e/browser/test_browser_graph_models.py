"""Real models nobody here wrote, in the browser: the ONNX project's ResNet-50 (415 nodes,
no name scopes) and DenseNet-121 (1,746 nodes) open legible, as their blocks."""

from __future__ import annotations

import os
import re

import onnx
import pytest
from kit.pages import open_tab, wait_for
from kit.paths import ARTIFACTS
from kit.servers import serve_cli

LIGHT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")
SHOTS = os.path.join(ARTIFACTS, "graphs")


def _transformer(folder) -> str:
    """A 4-layer Transformer encoder exported by torch's dynamo exporter (module paths in metadata)."""
    import io
    import warnings

    import torch

    encoder = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True), 4)
    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(encoder.eval(), (torch.zeros(2, 10, 64),), out, dynamo=True)  # type: ignore[arg-type]
    path = str(folder / "transformer_encoder.onnx")
    with open(path, "wb") as f:
        f.write(out.getvalue())
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("real_models")
    files = [os.path.join(LIGHT, f"light_{name}.onnx") for name in ("resnet50", "densenet121")]
    args = [arg for path in [*files, _transformer(folder)] for arg in ("--model", path)]
    with serve_cli(args, str(folder / "server.log")) as base:
        yield base


def _scale(pg) -> float:
    transform = pg.locator("#graph-svg > g").first.get_attribute("transform") or ""
    return float(transform.rsplit("scale(", 1)[1].rstrip(")"))


def _screenshot(pg, name: str) -> None:
    os.makedirs(SHOTS, exist_ok=True)
    pg.screenshot(path=os.path.join(SHOTS, f"{name}.png"))


def test_resnet50_first_view_is_legible_with_a_minimap(page, server):
    page.set_viewport_size({"width": 1440, "height": 900})
    open_tab(page, server, "graphs")  # a --model alone opens on the graph
    page.select_option("#graph-source", label="light_resnet50.onnx (model file)")
    groups = page.locator("#graph-svg g.node.group")
    wait_for(lambda: groups.count() >= 8, "ResNet-50 drawn as its blocks (176 nodes found in 12 items)")
    labels = [g.locator("text").first.text_content() or "" for g in groups.all()]
    assert sum(bool(re.fullmatch(r"blocks \d+\u2013\d+", label)) for label in labels) == 4, labels  # 4 stages' runs
    assert _scale(page) >= 0.6  # labels legible, not a fit at 0.05
    # Each box's label (its first line; the op counts below it are smaller) is text a person reads.
    heights = page.locator("#graph-svg g.node").evaluate_all(
        "(nodes) => nodes.map((n) => n.querySelector('text')?.getBoundingClientRect().height).filter((h) => h)"
    )
    assert len(heights) >= 10 and min(heights) >= 8, heights
    # The overview: a minimap of the whole model, unless the whole model is in view already.
    canvas = page.locator(".graph-canvas").bounding_box()
    drawn = page.locator("#graph-svg > g").first.bounding_box()
    assert canvas and drawn
    in_view = drawn["y"] >= canvas["y"] - 1 and drawn["y"] + drawn["height"] <= canvas["y"] + canvas["height"] + 1
    assert page.locator(".graph-minimap").is_visible() or in_view
    _screenshot(page, "resnet50_first_view")
    assert not page.errors, page.errors


def test_densenet121_opens_as_its_four_dense_blocks_and_one_opens(page, server):
    page.set_viewport_size({"width": 1440, "height": 900})
    open_tab(page, server, "graphs")
    page.select_option("#graph-source", label="light_densenet121.onnx (model file)")
    groups = page.locator("#graph-svg g.node.group")
    first_lines = "(gs) => gs.map((g) => g.querySelector('text').textContent)"
    wait_for(lambda: "blocks 2\u20137" in groups.evaluate_all(first_lines), "DenseNet-121's blocks drawn")
    labels = groups.evaluate_all(first_lines)
    runs = [label for label in labels if re.fullmatch(r"blocks \d+\u2013\d+", label)]
    assert len(runs) == 4, labels
    assert "6 blocks alike" in (groups.nth(labels.index(runs[0])).text_content() or "")
    _screenshot(page, "densenet121_first_view")
    before = page.locator("#graph-svg g.node").count()
    groups.nth(labels.index(runs[0])).click()
    wait_for(lambda: page.locator("#graph-svg g.node").count() > before, "the run of blocks opened")
    assert page.locator("#graph-svg g.node.group", has_text="block 2").count() >= 1
    assert not page.errors, page.errors


def test_transformer_encoder_opens_as_its_layers_by_module(page, server):
    page.set_viewport_size({"width": 1440, "height": 900})
    open_tab(page, server, "graphs")
    page.select_option("#graph-source", label="transformer_encoder.onnx (model file)")
    groups = page.locator("#graph-svg g.node.group")
    first_lines = "(gs) => gs.map((g) => g.querySelector('text').textContent)"
    wait_for(lambda: "layers.3" in groups.evaluate_all(first_lines), "the encoder's layers drawn")
    assert [label for label in groups.evaluate_all(first_lines) if label.startswith("layers.")] == [
        f"layers.{k}" for k in range(4)
    ]
    assert "TransformerEncoderLayer" in (groups.first.text_content() or "")
    _screenshot(page, "transformer_encoder_first_view")
    assert not page.errors, page.errors
