"""The Graphs tab in a real browser: a model renders, a click shows a node's attributes, search opens groups.

Reuses the browser fixtures of ``test_browser.py`` (Debian's chromium driven by
Playwright, screenshots of failures in ``tests/artifacts``).
"""

from __future__ import annotations

import onnx
import pytest
from kit.onnx_models import big_model, branches_model, comb_model, conv_model
from kit.pages import open_tab, wait_for
from kit.servers import serve_cli

from visualdl import LogWriter


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("graph_logs")
    with LogWriter(logdir / "run") as w:
        w.add_graph(big_model(40, 12), name="big")
    model_file = logdir / "convnet.onnx"
    onnx.save(conv_model(), model_file)
    bad_file = logdir / "broken.onnx"
    bad_file.write_bytes(conv_model().SerializeToString()[:100])
    comb_file = logdir / "comb.onnx"
    onnx.save(comb_model(3), comb_file)
    fan_file = logdir / "fan.onnx"
    onnx.save(branches_model(400, scoped=True), fan_file)
    args = ["--logdir", str(logdir), "--model", str(model_file), "--model", str(bad_file), "--model", str(comb_file)]
    long_file = logdir / "long.onnx"
    onnx.save(comb_model(150), long_file)
    args += ["--model", str(fan_file), "--model", str(long_file)]
    with serve_cli(args, str(logdir / "server.log")) as base:
        yield base


def _drawn(pg):
    return pg.locator("#graph-svg g.node")


def test_graph_page_renders_and_a_click_shows_attributes(page, server):
    open_tab(page, server, "graphs")
    wait_for(lambda: _drawn(page).count() > 0, "the first graph drawn")
    assert page.locator("#graph-source option").first.text_content() == "convnet.onnx (model file)"
    labels = page.locator("#graph-svg g.node text").all_text_contents()
    assert "Conv" in labels and "x" in " ".join(labels)
    conv = page.locator("#graph-svg g.node.op-node", has_text="Conv").first
    conv.click()
    side = page.locator(".graph-side")
    wait_for(lambda: "pads" in (side.text_content() or ""), "the attributes of the clicked node")
    assert "[1,1,1,1]" in side.locator("table.attributes").text_content()
    assert "float [N, 4, 8, 8]" in side.text_content()  # the inferred output shape
    assert "108 values" in side.text_content()  # the weight: 4 x 3 x 3 x 3
    # The panel narrowed the canvas: the clicked node is still in view, not under the panel.
    canvas, box = page.locator(".graph-canvas").bounding_box(), conv.bounding_box()
    assert canvas and box and canvas["x"] <= box["x"] and box["x"] + box["width"] <= canvas["x"] + canvas["width"]
    # Names wrap after their separators, never inside a word; "108 values" never breaks.
    size = side.locator("td.muted", has_text="values").first
    assert size.evaluate("(td) => getComputedStyle(td).whiteSpace") == "nowrap"
    names = side.locator("table.kv:not(.attributes) td:first-child")
    assert any(n.locator("wbr").count() for n in names.all() if "." in (n.text_content() or ""))
    page.locator("#graph-props").click()
    assert "made in tests" in side.text_content()
    assert not page.errors, page.errors


def test_graph_search_reveals_a_node_inside_a_collapsed_group(page, server):
    open_tab(page, server, "graphs")
    wait_for(lambda: _drawn(page).count() > 0, "the first graph drawn")
    page.select_option("#graph-source", label="run / big")
    wait_for(lambda: page.locator("#graph-svg g.node.group").count() == 4, "the collapsed stages")
    assert page.locator("#graph-svg g.node.op-node").count() == 0
    page.fill("#graph-search", "block17/op3")
    page.locator("#graph-search-form button").click()
    hit = page.locator("#graph-svg g.node.hit")
    wait_for(lambda: hit.count() == 1, "the hit drawn and highlighted")
    assert "/stage1/block17/op3/Relu" in hit.locator("title").text_content()
    assert page.locator("#graph-svg g.node.group", has_text="stage0").count() == 1  # others stay closed
    assert not page.errors, page.errors


def test_graph_a_broken_model_says_why(page, server):
    open_tab(page, server, "graphs")
    wait_for(lambda: _drawn(page).count() > 0, "the first graph drawn")
    page.select_option("#graph-source", label="broken.onnx (model file)")
    message = page.locator(".graph-message")
    wait_for(lambda: "cannot be shown" in (message.text_content() or ""), "the error message")
    assert "not an ONNX model" in message.text_content()
    assert _drawn(page).count() == 0
    page.errors.clear()  # the failed fetch (422) is logged by the browser; nothing else may be


def test_graph_folded_constants_show_as_a_badge_and_in_details(page, server):
    open_tab(page, server, "graphs")
    wait_for(lambda: _drawn(page).count() > 0, "the first graph drawn")
    page.select_option("#graph-source", label="comb.onnx (model file)")
    reshape = page.locator("#graph-svg g.node.op-node", has_text="reshape0")
    wait_for(lambda: reshape.count() == 1, "the model with constants drawn")
    ops = page.locator("#graph-svg g.node.op-node text.op").all_text_contents()
    assert sorted(set(ops)) == ["Relu", "Reshape"]
    assert reshape.locator("text.folded").text_content() == "+3"
    reshape.click()
    side = page.locator(".graph-side")
    wait_for(lambda: "Folded constants" in (side.text_content() or ""), "the folded nodes in the details")
    assert "ConstantOfShape" in side.locator("table.folded").text_content()
    assert not page.errors, page.errors


def test_graph_siblings_alike_are_a_stack_that_opens(page, server):
    open_tab(page, server, "graphs")
    wait_for(lambda: _drawn(page).count() > 0, "the first graph drawn")
    page.select_option("#graph-source", label="fan.onnx (model file)")
    stack = page.locator("#graph-svg g.node.stack")
    wait_for(lambda: stack.count() == 1, "the 400 branches drawn as one stack")
    assert "\u00d7400" in stack.text_content()
    stack.click()
    wait_for(lambda: page.locator("#graph-svg g.node.group").count() >= 400, "the stack opened")
    assert page.locator("#graph-svg g.node.stack").count() == 0
    assert not page.errors, page.errors


def test_graph_too_tall_to_fit_legibly_opens_legible_on_its_input(page, server):
    open_tab(page, server, "graphs")
    wait_for(lambda: _drawn(page).count() > 0, "the first graph drawn")
    page.select_option("#graph-source", label="long.onnx (model file)")
    wait_for(lambda: page.locator("#graph-svg g.node.op-node", has_text="reshape149").count() == 1, "drawn")
    transform = page.locator("#graph-svg > g").first.get_attribute("transform") or ""
    assert transform.endswith("scale(0.9)"), transform  # not the fit's 0.05: labels are legible
    canvas = page.locator(".graph-canvas").bounding_box()
    box = page.locator("#graph-svg g.node.io", has_text="x").first.bounding_box()
    assert canvas and box and canvas["x"] < box["x"] < canvas["x"] + canvas["width"]
    assert canvas["y"] < box["y"] < canvas["y"] + canvas["height"]  # the input is in view
    # The overview shows the whole graph and where the view is; a click there moves the view.
    minimap = page.locator(".graph-minimap")
    assert minimap.is_visible() and page.locator(".graph-minimap .minimap-boxes rect").count() >= 300
    mini = minimap.bounding_box()
    assert mini
    page.mouse.click(mini["x"] + mini["width"] / 2, mini["y"] + mini["height"] / 2)  # the middle
    after = page.locator("#graph-svg > g").first.get_attribute("transform") or ""
    assert after != transform and after.endswith("scale(0.9)")
    middle = page.locator("#graph-svg g.node.op-node", has_text="relu75").first.bounding_box()
    assert middle and canvas["y"] < middle["y"] < canvas["y"] + canvas["height"]  # the middle of the chain
    page.locator("#graph-fit").click()
    transform = page.locator("#graph-svg > g").first.get_attribute("transform") or ""
    assert float(transform.rsplit("scale(", 1)[1].rstrip(")")) < 0.1  # fit fits, however tall
    assert not minimap.is_visible()  # all of it in view
    assert not page.errors, page.errors
