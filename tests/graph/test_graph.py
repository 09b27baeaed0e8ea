"""ONNX graphs: conversion, name-scope groups, layout, subgraphs, bad models (422), the ONNX backend cases."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import urllib.request
import warnings

import numpy as np
import onnx
import pytest
from kit.apps import build_app
from kit.onnx_models import big_model, conv_model, if_loop_model
from kit.waiting import wait_until
from onnx import TensorProto, helper

from visualdl import LogWriter
from visualdl.server._graph.layout import layout
from visualdl.server._graph.model import COLLAPSE_ABOVE, Graph, GraphError, parse_model


@pytest.fixture
def client(tmp_path):
    with LogWriter(tmp_path / "run") as w:
        w.add_graph(conv_model(), name="convnet")
        w.add_graph(if_loop_model(), name="control")
        w.add_graph(big_model(40, 12), name="big")
    model_file = tmp_path / "model.onnx"
    onnx.save(conv_model(3), model_file)
    app = build_app(tmp_path, models=(model_file,))
    return app.test_client()


def test_graph_conversion_reads_everything_but_weights(client):
    body = client.get("/api/graph?run=run&name=convnet").get_json()
    model = body["model"]
    assert model["producer_name"] == "tests" and model["opset_import"] == [{"domain": "ai.onnx", "version": 17}]
    assert model["metadata_props"] == {"author_note": "made in tests"}
    assert body["graph"]["inputs"] == [{"name": "x", "dtype": "float", "shape": ["N", 3, 8, 8]}]
    assert body["graph"]["node_count"] == 9 and body["graph"]["parameter_count"] == 4 * 3 * 9 + 4 * 4 * 9
    ops = {n["name"]: n for n in body["nodes"] if n["kind"] == "op"}
    conv = ops["/layer0/block0/conv/Conv"]
    assert conv["category"] == "conv" and conv["group"] == "layer0/block0/conv"
    assert ops["/layer0/block0/relu/Relu"]["category"] == "activation"
    # inferred shapes on the edges: conv keeps 8x8 with pads 1
    edge = next(e for e in body["edges"] if e["value"] == "/layer0/block0/conv_out")
    assert edge["dtype"] == "float" and edge["shape"] == ["N", 4, 8, 8]
    # a branch and a merge: Mul has two incoming edges
    mul = ops["/layer0/block0/merge/Mul"]["id"]
    assert sum(e["target"] == mul for e in body["edges"]) == 2
    detail = client.get(f"/api/graph/node?run=run&name=convnet&node={conv['id']}").get_json()
    assert {a["name"]: a["value"] for a in detail["attributes"]} == {"pads": [1, 1, 1, 1]}
    (param,) = detail["parameters"]
    assert param == {"tensor": True, "name": "layer0.conv.weight", "dtype": "float", "shape": [4, 3, 3, 3], "size": 108}
    assert "values" not in str(detail["parameters"])
    assert detail["groups"] == ["layer0", "layer0/block0", "layer0/block0/conv"]


def test_graph_layout_is_layered_top_to_bottom(client):
    body = client.get("/api/graph?run=run&name=convnet").get_json()
    pos = {n["id"]: n for n in body["nodes"]}
    for e in body["edges"]:
        assert pos[e["source"]]["y"] < pos[e["target"]]["y"], e
        assert e["points"][0][1] == pytest.approx(pos[e["source"]]["y"] + pos[e["source"]]["h"] / 2)
    boxes = sorted(body["nodes"], key=lambda n: (n["y"], n["x"]))
    for a, b in itertools.pairwise(boxes):
        if a["y"] == b["y"]:
            assert a["x"] + a["w"] / 2 <= b["x"] - b["w"] / 2 + 1e-6  # no overlap within a layer


def test_graph_big_model_collapses_and_expands_group_by_group(client):
    body = client.get("/api/graph?run=run&name=big").get_json()
    assert body["graph"]["node_count"] == 480 > COLLAPSE_ABOVE
    kinds = {n["kind"] for n in body["nodes"]}
    assert "op" not in kinds and "group" in kinds
    stages = [n for n in body["nodes"] if n["kind"] == "group"]
    assert sorted(n["label"] for n in stages) == ["stage0", "stage1", "stage2", "stage3"]
    assert [n["count"] for n in stages] == [120] * 4
    assert len(body["edges"]) == 5  # x -> stage0 -> ... -> stage3 -> output
    opened = client.get("/api/graph?run=run&name=big&expand=stage1/block12").get_json()
    labels = {n["label"] for n in opened["nodes"]}
    assert {"stage0", "stage2", "stage3", "block10", "block11", "block13"} <= labels
    assert sum(n["kind"] == "op" for n in opened["nodes"]) == 12  # block12's nodes, nothing else
    assert set(opened["expanded"]) == {"stage1", "stage1/block12"}


def test_graph_search_finds_a_node_inside_a_collapsed_group(client):
    hits = client.get("/api/graph/search?run=run&name=big&q=block17/op3").get_json()["hits"]
    (hit,) = hits
    assert hit["groups"] == ["stage1", "stage1/block17", "stage1/block17/op3"]
    assert client.get("/api/graph/search?run=run&name=big&q=relu").get_json()["truncated"] is True


def test_graph_if_and_loop_bodies_are_nested_graphs(client):
    body = client.get("/api/graph?run=run&name=control").get_json()
    choose = next(n for n in body["nodes"] if n.get("name") == "choose")
    assert choose["category"] == "control" and sorted(choose["subgraphs"]) == ["else_branch", "then_branch"]
    index = choose["id"][1:]
    then = client.get(f"/api/graph?run=run&name=control&path={index}.then_branch.0").get_json()
    assert [n["name"] for n in then["nodes"] if n["kind"] == "op"] == ["then_add"]  # x comes from the outer scope
    assert then["breadcrumb"] == ["control", "choose: then_branch"]
    loop = next(n for n in body["nodes"] if n.get("name") == "repeat")
    inner = client.get(f"/api/graph?run=run&name=control&path={loop['id'][1:]}.body.0").get_json()
    assert {n["name"] for n in inner["nodes"] if n["kind"] == "op"} == {"loop_add", "loop_cond"}
    assert client.get("/api/graph?run=run&name=control&path=0.body.0").status_code == 404  # no such subgraph
    assert client.get("/api/graph?run=run&name=control&path=../etc").status_code == 400


def test_graph_model_file_and_listing(client):
    graphs = client.get("/api/graphs").get_json()["graphs"]
    assert {"model": "0", "name": "model.onnx", "size": graphs[0]["size"], "source": "file"} == graphs[0]
    assert {(g.get("run"), g["name"]) for g in graphs[1:]} == {("run", "convnet"), ("run", "control"), ("run", "big")}
    body = client.get("/api/graph?model=0").get_json()
    assert body["graph"]["node_count"] == 13
    assert client.get("/api/graph?model=1").status_code == 404
    assert client.get("/api/graph?model=../../etc/passwd").status_code == 400


def _bad_models(tmp_path):
    good = conv_model().SerializeToString()
    no_graph = onnx.ModelProto(ir_version=8)
    no_graph.opset_import.add(version=17)
    cyclic = helper.make_model(
        helper.make_graph(
            [helper.make_node("Relu", ["b"], ["a"], name="r1"), helper.make_node("Relu", ["a"], ["b"], name="r2")],
            "cyclic",
            [],
            [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1])],
        )
    )
    dangling = helper.make_model(
        helper.make_graph(
            [helper.make_node("Relu", ["ghost"], ["a"], name="r1")],
            "dangling",
            [],
            [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1])],
        )
    )
    return {
        "truncated": (good[: len(good) // 2], "cannot be decoded"),
        "random": (np.random.default_rng(0).bytes(4096), "cannot be decoded"),
        "not-a-model": (onnx.TensorProto(name="t", dims=[2], data_type=1).SerializeToString(), "not an ONNX"),
        "no-graph": (no_graph.SerializeToString(), "a model without a graph"),
        "empty": (b"", "empty"),
        "cycle": (cyclic.SerializeToString(), "has a cycle"),
        "dangling": (dangling.SerializeToString(), "dangling input"),
    }


@pytest.mark.parametrize("kind", ["truncated", "random", "not-a-model", "no-graph", "empty", "cycle", "dangling"])
def test_graph_bad_models_get_422_and_the_server_goes_on(tmp_path, kind, make_app):
    data, message = _bad_models(tmp_path)[kind]
    path = tmp_path / f"{kind}.onnx"
    path.write_bytes(data)
    with LogWriter(tmp_path / "run") as w:
        w.add_graph(conv_model(), name="ok")
    app = make_app(tmp_path, models=(path,))
    c = app.test_client()
    response = c.get("/api/graph?model=0")
    assert response.status_code == 422
    assert message in response.get_json()["error"]
    assert c.get("/api/graph?run=run&name=ok").status_code == 200  # still serving


def test_graph_external_data_is_named_when_missing(tmp_path, make_app):
    model = conv_model()
    onnx.save(
        model,
        tmp_path / "ext.onnx",
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="ext.weights",
        size_threshold=0,
    )
    os.remove(tmp_path / "ext.weights")
    app = make_app(models=(str(tmp_path / "ext.onnx"),), poll=False)
    body = app.test_client().get("/api/graph?model=0").get_json()
    assert body["graph"]["node_count"] == 9
    assert any("ext.weights" in w and "missing" in w for w in body["warnings"])


@pytest.mark.parametrize(
    "url",
    [
        "/api/graph?model=²",
        "/api/graph?model=①",
        "/api/graph?model=\u0660",  # an Arabic-Indic zero: int() takes it, the API does not
        "/api/graph?model=-0",
        "/api/graph?model=" + "9" * 5000,
        "/api/graph/node?model=0&node=n²",
        "/api/graph/node?run=run&name=control&node=n\u0663",
        "/api/graph/node?model=0&node=n-1",
        "/api/graph?run=run&name=control&path=².body.0",
        "/api/graph?run=run&name=control&path=0.body.①",
        "/api/graph?run=run&name=control&path=0.body.0|",
        "/api/graph/search?run=run&name=control&q=x&path=0..0",
    ],
)
def test_graph_ids_and_paths_with_unicode_digits_are_bad_requests(client, url):
    response = client.get(url)
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.get_json()["error"]


def tiny_model() -> bytes:
    """A model of about 200 bytes with text in most kinds of string field."""
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w"], ["c"], name="/blk/conv/Conv", pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["y"], name="/blk/relu/Relu", doc_string="act"),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[helper.make_tensor("w", TensorProto.FLOAT, [1, 1, 1, 1], [1.0])],
    )
    model = helper.make_model(graph, producer_name="t", opset_imports=[helper.make_opsetid("", 17)])
    model.metadata_props.add(key="k", value="v")
    model.doc_string = "tiny model"
    return model.SerializeToString()


@pytest.mark.e2e  # a thousand mutated models through the API: seconds
def test_graph_every_one_byte_mutation_gets_a_json_answer_below_500(tmp_path, make_app):
    """Invalid UTF-8 in a string field (protobuf gives bytes for proto2 strings) is shown escaped."""
    data = tiny_model()
    assert 180 <= len(data) <= 260
    paths: list[str] = []
    for i, byte in enumerate(data):
        for value in sorted({0x00, 0x80, 0xC3, 0xFF, byte ^ 0x01, byte ^ 0x80} - {byte}):
            path = tmp_path / f"m{len(paths)}.onnx"
            path.write_bytes(data[:i] + bytes([value]) + data[i + 1 :])
            paths.append(str(path))
    assert len(paths) > 1000
    client = make_app(models=tuple(paths), poll=False).test_client()
    statuses: dict[int, int] = {}
    escaped = 0
    for k in range(len(paths)):
        for url in (f"/api/graph?model={k}", f"/api/graph/node?model={k}&node=n0", f"/api/graph/search?model={k}&q=r"):
            response = client.get(url)
            body = response.get_json()
            assert response.status_code < 500 and isinstance(body, dict), (url, response.get_data(as_text=True))
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            escaped += response.status_code == 200 and "not valid UTF-8" in " ".join(body.get("warnings", []))
    assert set(statuses) == {200, 422}
    assert escaped > 50  # models with bad bytes in their text are shown, not refused


def test_graph_invalid_utf8_is_shown_escaped(tmp_path, make_app):
    path = tmp_path / "bad.onnx"
    path.write_bytes(
        conv_model().SerializeToString().replace(b"/layer0/block0/relu/Relu", b"/layer0/block0/r\xfflu/Relu")
    )
    client = make_app(models=(str(path),), poll=False).test_client()
    body = client.get("/api/graph?model=0").get_json()
    assert "1 text field(s)" in body["warnings"][0]
    names = [n["name"] for n in body["nodes"] if n["kind"] == "op"]
    assert "/layer0/block0/r\\xfflu/Relu" in names
    hits = client.get("/api/graph/search?model=0&q=xff").get_json()["hits"]
    assert [h["name"] for h in hits] == ["/layer0/block0/r\\xfflu/Relu"]


def test_graph_layout_breaks_cycles_and_routes_long_edges():
    placed = layout([(50, 20)] * 4, [(0, 1), (1, 2), (2, 0), (0, 3), (2, 3)])
    assert len(placed["edges"]) == 5 and all(len(p) >= 2 for p in placed["edges"])
    y = placed["y"]
    assert y[0] < y[1] < y[2] and y[3] > y[2]
    assert len(placed["edges"][3]) == 4  # 0 -> 3 spans three layers: two bends between


@pytest.mark.e2e  # the ONNX project's thousand backend cases imported and converted: seconds
def test_graph_onnx_backend_cases_all_convert():
    """Every model that the ONNX project's backend node test cases produced (shipped with onnx) converts."""
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # the case modules compute their test data when imported
        cases = load_model_tests(kind="node")
    converted = 0
    for case in cases:
        if case.model is not None:
            model = case.model
        elif case.model_dir:
            model = onnx.load(os.path.join(case.model_dir, "model.onnx"))
        else:
            continue  # a case that downloads its model
        graph = Graph.build(parse_model(model.SerializeToString()).graph)
        graph.view(graph.default_expanded())
        converted += 1
    assert converted > 1000


@pytest.mark.e2e  # visualdl started in a process of its own
def test_graph_model_without_logdir_from_the_cli(tmp_path, free_port):
    path = tmp_path / "m.onnx"
    onnx.save(conv_model(), path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "visualdl", "--model", str(path), "--port", str(free_port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )

    def answers() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{free_port}/api/graph?model=0", timeout=5) as r:
                assert r.status == 200
                return True
        except OSError:
            assert proc.poll() is None, "the server exited"
            return False  # not listening yet

    try:
        wait_until(answers, 30, "the graph of the model", interval=0.1)
    finally:
        proc.terminate()
        proc.wait(15)
        if proc.stdout is not None:
            proc.stdout.close()


def test_graph_error_type_is_a_value_error():
    with pytest.raises(GraphError):
        parse_model(b"\x00")
    assert issubclass(GraphError, ValueError)


def test_graph_warm_requests_do_not_read_the_model_again(client, monkeypatch):
    from visualdl._index.index import Index

    reads = []
    original = Index.read_blob

    def counting(self, event):
        reads.append(event)
        return original(self, event)

    monkeypatch.setattr(Index, "read_blob", counting)
    query = {"run": "run", "name": "big"}
    assert client.get("/api/graph", query_string=query).status_code == 200
    assert len(reads) == 1
    for expand in ("", "stage0", "stage1"):
        response = client.get("/api/graph", query_string={**query, "expand": expand} if expand else query)
        assert response.status_code == 200
    assert client.get("/api/graph/search", query_string={**query, "q": "Conv"}).status_code == 200
    assert len(reads) == 1  # the parsed model is cached by its file and offset


def test_graph_layout_bundles_the_long_edges_of_a_source():
    # A chain of 40 nodes, each feeding every later one (a dense block): 780 edges, most long.
    n = 40
    edges = [(a, b) for a in range(n) for b in range(a + 1, n)]
    placed = layout([(100, 30)] * n, edges)
    assert placed["width"] < 1500  # one bundle per source beside the chain (a fan of edges: 12,000 px)
    assert sorted(placed["y"]) == placed["y"]  # the chain, top to bottom
    for (a, b), route in zip(edges, placed["edges"], strict=True):
        assert route[0][0] == placed["x"][a] and route[-1][0] == placed["x"][b]
        ys = [p[1] for p in route]
        assert ys == sorted(ys) and placed["y"][a] < ys[0] < ys[-1] < placed["y"][b]
