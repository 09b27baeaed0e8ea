"""``/api/graph`` answers in proportion to what they draw: a GraphDef of three nodes whose
names, attributes or inputs are huge (a 144 KB name of 1,440 scope levels gave a 70 MB
answer; a 300 KB one 1.8 GB; an input ``a:3000000`` of 12 bytes three million values) gets an
answer of kilobytes: groups at most 32 levels deep and 512 characters long, names cut at 1,000
characters saying their length, lists cut saying theirs."""

from __future__ import annotations

import json

import pytest
from kit.apps import build_app
from kit.foreign import write_tfevents
from tensorboard.compat.proto import graph_pb2, tensor_shape_pb2

from visualdl.proto import tb

#: An answer of a three-node graph, at most (the answers below are a few kilobytes).
MAX_ANSWER = 64 * 1024


def _client(tmp_path, g: graph_pb2.GraphDef):
    write_tfevents(tmp_path / "run", [tb.Event(wall_time=1.0, graph_def=g.SerializeToString())])
    return build_app(tmp_path).test_client()


def _answers(client) -> dict[str, bytes]:
    """The graph's answers: its view (default and all open), each node's details, a search."""
    out = {}
    for query in ("", "&expand_all=1"):
        answer = client.get(f"/api/graph?run=run&name=Default{query}")
        assert answer.status_code == 200, answer.data[:300]
        out[f"graph{query}"] = answer.data
    for item in json.loads(out["graph&expand_all=1"])["nodes"]:
        if item["kind"] == "op":
            answer = client.get(f"/api/graph/node?run=run&name=Default&node={item['id']}")
            assert answer.status_code == 200
            out[item["id"]] = answer.data
    out["search"] = client.get("/api/graph/search?run=run&name=Default&q=s").data
    return out


def _graph(*nodes: tuple[str, str, list[str]]) -> graph_pb2.GraphDef:
    g = graph_pb2.GraphDef()
    g.node.add(name="x", op="Placeholder").attr["dtype"].type = 1
    for name, op, inputs in nodes:
        g.node.add(name=name, op=op, input=inputs)
    return g


def _scoped_graph() -> graph_pb2.GraphDef:
    """Two nodes, one named by a 144 KB path of 1,440 levels."""
    long = "/".join(f"{i:03d}" + "a" * 96 for i in range(1_440))
    assert len(long) > 144_000
    return _graph((long, "Relu", ["x"]), ("b/relu", "Relu", [long]))


def test_huge_names_and_scopes_answer_in_kilobytes(tmp_path):
    """The node of the long name is in 32 groups at most, each path 512 characters at most; its
    name is cut saying its length, in the view, its edge, its details and the search."""
    g = _scoped_graph()
    answers = _answers(_client(tmp_path, g))
    assert max(len(a) for a in answers.values()) < MAX_ANSWER, {k: len(a) for k, a in answers.items()}
    body = json.loads(answers["graph&expand_all=1"])
    groups = [g for g in body["expanded"]]
    assert 0 < len(groups) <= 32 + 1 and all(len(g) <= 512 for g in groups)  # and b's
    (big,) = [n for n in body["nodes"] if n["kind"] == "op" and n["name"].startswith("000")]
    assert big["name"].endswith(f"\u2026 ({len(g.node[1].name):,} characters)") and len(big["name"]) < 1_100
    (edge,) = [e for e in body["edges"] if e["source"] == big["id"]]
    assert edge["value"] == big["name"]  # the value the node gives is named as the node
    detail = json.loads(answers[big["id"]])
    assert detail["name"] == big["name"] and len(detail["groups"]) == len(groups) - 1


def test_an_input_naming_output_three_million_makes_one_value(tmp_path):
    """``a:3000000`` (12 bytes) made a's three million outputs (a 134 MB answer for a's details)."""
    g = _graph(("a", "Relu", ["x"]), ("b", "Relu", ["a:3000000", "a:1"]))
    client = _client(tmp_path, g)
    answers = _answers(client)
    assert max(len(a) for a in answers.values()) < MAX_ANSWER
    body = json.loads(answers["graph&expand_all=1"])
    ids = {n["name"]: n["id"] for n in body["nodes"] if n["kind"] == "op"}
    a = json.loads(answers[ids["a"]])
    assert [v["name"] for v in a["outputs"]] == ["a", "a:1", "a:3000000"]
    b = json.loads(answers[ids["b"]])
    assert [v["name"] for v in b["inputs"]] == ["a:3000000", "a:1"]


@pytest.mark.parametrize("kind", ["string", "strings", "ints", "shape"])
def test_huge_attributes_are_cut_saying_their_size(tmp_path, kind):
    """A 144 KB attribute of a node: shown cut, its true length said."""
    g = _graph(("a", "Relu", ["x"]))
    attr = g.node[1].attr["big"]
    if kind == "string":
        attr.s = b"s" * 144_000
    elif kind == "strings":
        attr.list.s.extend([b"t" * 9] * 14_400)
    elif kind == "ints":
        attr.list.i.extend(range(30_000))
    else:  # a tensor of 70,000 dimensions
        attr.tensor.tensor_shape.dim.extend([tensor_shape_pb2.TensorShapeProto.Dim(size=1)] * 70_000)
    answers = _answers(_client(tmp_path, g))
    assert max(len(a) for a in answers.values()) < MAX_ANSWER, {k: len(a) for k, a in answers.items()}
    body = json.loads(answers["graph"])
    (node,) = [n for n in body["nodes"] if n["kind"] == "op"]
    (big,) = [a for a in json.loads(answers[node["id"]])["attributes"] if a["name"] == "big"]
    if kind == "shape":
        assert big["value"]["rank"] == 70_000 and len(big["value"]["shape"]) == 64
    elif kind == "string":
        assert big["length"] == 1_000 and len(big["value"]) == 200  # of the 1,000 bytes the conversion keeps
        assert big["about"] == "144,000 bytes, the first 1,000 kept"
    else:
        assert big["length"] == 64 and len(big["value"]) == 32
        assert big["about"] == {"strings": "14,400", "ints": "30,000"}[kind] + " items, the first 64 kept"


def test_a_node_of_forty_thousand_inputs_lists_a_thousand_and_counts_them(tmp_path):
    g = _graph(("a", "Relu", ["x"]), ("b", "AddN", ["a"] * 40_000))
    answers = _answers(_client(tmp_path, g))
    assert max(len(a) for a in answers.values()) < MAX_ANSWER
    body = json.loads(answers["graph"])
    (b,) = [n for n in body["nodes"] if n.get("name") == "b"]
    detail = json.loads(answers[b["id"]])
    assert len(detail["inputs"]) == 1_000 and detail["inputs_count"] == 40_000
