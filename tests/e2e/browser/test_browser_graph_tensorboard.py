"""The Graphs tab draws a graph that torch's ``SummaryWriter.add_graph`` wrote (a GraphDef in
an event file): its module scopes are groups that open on click, its nodes' details show
their op, attributes and shapes; TensorFlow's control inputs are dashed edges."""

from __future__ import annotations

import os
import shutil
import warnings

import pytest
from kit.pages import open_tab, wait_for
from kit.paths import DATA
from kit.requirements import require_import
from kit.servers import serve_cli


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_import("torch", "pip install -e '.[e2e]'")
    import torch
    from torch.utils.tensorboard import SummaryWriter

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x):
            return torch.relu(self.fc(x)) + x

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = torch.nn.Sequential(Block(), Block())
            self.head = torch.nn.Linear(4, 2)

        def forward(self, x):
            return self.head(self.layers(x))

    logdir = tmp_path_factory.mktemp("tb_graph_logs")
    writer = SummaryWriter(str(logdir / "pytorch"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # add_graph traces with torch.jit
        writer.add_graph(Net(), torch.zeros(3, 4))
    writer.close()
    shutil.copytree(os.path.join(DATA, "tflogs", "tf1graph"), logdir / "tf1graph")  # TensorFlow's graph mode
    with serve_cli(["--logdir", str(logdir)], str(logdir / "server.log")) as base:
        yield base


def test_graph_of_torch_add_graph_draws_its_module_groups(page, server):
    open_tab(page, server, "graphs")
    wait_for(lambda: page.locator("#graph-svg g.node").count() > 0, "the graph drawn")
    assert page.locator("#graph-source option").first.text_content().startswith("pytorch / Default")
    ops = page.locator("#graph-svg g.node.op-node text.op").all_text_contents()
    assert ops.count("aten::linear") == 3 and "prim::GetAttr" not in ops  # the parameters' reads folded
    page.locator("#graph-collapse").click()
    net = page.locator("#graph-svg g.node.group", has_text="Net")
    aten = page.locator("#graph-svg g.node.op-node", has_text="aten::")
    wait_for(lambda: aten.count() == 0 and net.count() == 1, "the model as one module")
    net.click()
    layers = page.locator("#graph-svg g.node.group", has_text="Sequential[layers]")
    wait_for(lambda: layers.count() == 1, "Net opened on its modules")
    layers.click()
    blocks = page.locator("#graph-svg g.node.group", has_text="Block[")
    wait_for(lambda: blocks.count() == 2, "the two blocks")
    assert "aten::linear" in (blocks.first.text_content() or "")  # a group box counts its ops
    blocks.first.click()
    linear = page.locator("#graph-svg g.node.op-node", has_text="aten::linear").first
    wait_for(lambda: page.locator("#graph-svg g.node.group", has_text="Block[").count() == 1, "a block opened")
    linear.click()
    side = page.locator(".graph-side")
    wait_for(lambda: "prim::GetAttr" in (side.text_content() or ""), "the details with the folded reads")
    assert "[3, 4]" in side.text_content()  # the output's shape, from _output_shapes
    page.select_option("#graph-source", label="tf1graph / Default")
    wait_for(lambda: side.is_hidden(), "the details closed with their graph")
    assert not page.errors, page.errors


def test_graph_of_tensorflow_graph_mode_draws_control_inputs_dashed(page, server):
    open_tab(page, server, "graphs")
    wait_for(lambda: page.locator("#graph-svg g.node").count() > 0, "the first graph drawn")
    page.select_option("#graph-source", label="tf1graph / Default")
    matmul = page.locator("#graph-svg g.node.op-node", has_text="MatMul")
    wait_for(lambda: matmul.count() == 1, "TensorFlow's graph drawn")
    dashed = page.locator("#graph-svg path.edge.control")
    assert dashed.count() >= 1  # the init NoOp's ^Assign inputs
    assert dashed.first.evaluate("(p) => getComputedStyle(p).strokeDasharray") not in ("", "none")
    assert "^" in (dashed.first.locator("title").text_content() or "")
    assert not page.errors, page.errors
