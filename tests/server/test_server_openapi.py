"""The OpenAPI document says what the server does: each bound it states is probed on both sides."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlencode

import jsonschema
import numpy as np
import onnx
import pytest
from api_contract import ContractClient, check_answer, schema_at
from kit.apps import build_app
from kit.onnx_models import conv_model

from visualdl import LogWriter
from visualdl.server._http.routes import ROUTES

# A value each parameter takes (the endpoint then answers 200 or 404, never 400).
TAGS = {
    **{"scalars": "loss", "image": "img", "images": "img", "histograms": "h", "distribution": "h", "text": "t"},
    **{"audio": "clip", "clip": "clip", "curves": "pr", "embeddings": "emb", "projection": "emb", "neighbors": "emb"},
    "sprite": "emb",  # /api/projection/sprite: 404, our records have no label images
}
GOOD = {"run": "train", "model": "0", "node": "n0", "q": "conv", "name": "convnet", "index": "0", "point": "0"}
GOOD["file"] = "x.vdlog"  # /api/job/end: a file the run does not hold (404)
#: Texts of a grammar, not any text: the longest value the probes send must still parse.
LONGEST = {"where": lambda n: 'name ~ "' + "a" * (n - 9) + '"'}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("openapi")
    with LogWriter(os.path.join(logdir, "train")) as w:
        w.add_scalar("loss", 0.5, 0)
        w.add_image("img", np.zeros((2, 2, 3), np.uint8), 0)
        w.add_histogram("h", np.arange(10.0), 0)
        w.add_text("t", "hello", 0)
        w.add_graph(conv_model(), name="convnet")
        w.add_audio("clip", np.zeros(80), 0)
        w.add_pr_curve("pr", [0, 1, 1, 0], [0.1, 0.9, 0.6, 0.4], 0)
        w.add_embeddings("emb", mat=np.eye(4), metadata=["a", "b", "c", "d"])
        w.add_hparams({"lr": 0.1}, ["loss"])
    model = logdir / "model.onnx"
    onnx.save(conv_model(), model)
    app = build_app(logdir, models=(model,))
    return app.test_client()


@pytest.fixture(scope="module")
def document(client) -> dict[str, Any]:
    return client.get("/api/openapi.json").get_json()


def _operations(document):
    for path, item in document["paths"].items():
        yield path, item["get"]


def _base(path: str, operation) -> dict[str, list[str]]:
    """Every required parameter, with a value the endpoint takes."""
    kind = path.rsplit("/", 1)[-1]
    return {
        p["name"]: [TAGS[kind] if p["name"] == "tag" else GOOD[p["name"]]]
        for p in operation["parameters"]
        if p["required"]
    }


def _get(client, document, path: str, operation, query: dict[str, list[str]]):
    response = client.get(path + "?" + urlencode(query, doseq=True))
    documented = set(operation["responses"])
    assert str(response.status_code) in documented, (path, query, response.status_code, response.get_data()[:300])
    if response.status_code >= 400:
        body = response.get_json()
        assert isinstance(body, dict) and body["error"], (path, query)
    return response.status_code


def _probes(param) -> list[tuple[list[str], bool]]:
    """(values, whether the server must refuse them with 400) just inside and just outside each bound."""
    schema = param["schema"]
    many = schema["type"] == "array"
    item = schema["items"] if many else schema
    good = [param["example"]] if "example" in param else [GOOD.get(param["name"], "1")]
    probes: list[tuple[list[str], bool]] = []
    if item["type"] == "integer":
        low, high = item["minimum"], item["maximum"]
        probes += [([str(low - 1)], True), ([str(low)], False), ([str(high)], False), ([str(high + 1)], True)]
        probes += [(["1.5"], True), (["x"], True), ([""], True)]
    elif item["type"] == "number":
        probes += [(["1.5"], False), (["-2e3"], False), (["x"], True), (["nan"], True), ([""], True)]
    elif "enum" in item:
        probes += [([value], False) for value in item["enum"]] + [(["bogus"], True), ([""], True)]
    else:
        assert item["minLength"] == 1 and "maxLength" in item and "pattern" in item, param["name"]
        longest = item["maxLength"]
        probes += [([""], True), (["\x00"], True)]
        if item["pattern"] == "^[^\\u0000]*$":
            filler = LONGEST.get(param["name"], lambda n: "a" * n)
            probes += [([filler(longest)], False), ([filler(longest + 1)], True)]
        else:  # an id or a path: its example matches, other text does not
            probes += [(good, False), (["x"], True), ([good[0] + "0" * (longest + 1 - len(good[0]))], True)]
    if many:
        most = schema["maxItems"]
        probes += [(good * most, False), (good * (most + 1), True)]
    return probes


def test_openapi_states_a_bound_for_every_parameter(document):
    for path, operation in _operations(document):
        for param in operation["parameters"]:
            schema = param["schema"]
            item = schema["items"] if schema["type"] == "array" else schema
            if item["type"] == "string" and "enum" not in item:
                assert item["minLength"] == 1 and item["maxLength"] >= 1024, (path, param["name"])
            if item["type"] == "integer":
                assert "minimum" in item and "maximum" in item, (path, param["name"])
            if schema["type"] == "array":
                assert schema["maxItems"] >= 1, (path, param["name"])
        for code in ("403", "405"):
            assert code in operation["responses"], (path, code)
    scalars = {p["name"]: p["schema"] for p in document["paths"]["/api/scalars"]["get"]["parameters"]}
    assert scalars["max_points"] == {"type": "integer", "minimum": 5, "maximum": 100_000}
    assert scalars["tag"]["maxLength"] == 1024 and scalars["run"]["items"]["maxLength"] == 4096
    assert scalars["ranks"]["enum"] == ["mean", "each"]
    assert document["components"]["responses"]["405"]["headers"]["Allow"]
    assert document["components"]["responses"]["503"]["headers"]["Retry-After"]["schema"] == {"type": "integer"}


@pytest.mark.e2e  # every bound of every route probed on both sides: seconds
def test_openapi_bounds_hold_on_both_sides(client, document):
    """Just outside a stated bound: 400. Just inside: anything documented but 400 (and never a 5xx)."""
    probed = 0
    for path, operation in _operations(document):
        base = _base(path, operation)
        assert _get(client, document, path, operation, base) in (200, 404), path
        for param in operation["parameters"]:
            if param["required"]:
                without = {k: v for k, v in base.items() if k != param["name"]}
                assert _get(client, document, path, operation, without) == 400, (path, param["name"])
            for values, refused in _probes(param):
                status = _get(client, document, path, operation, {**base, param["name"]: values})
                assert (status == 400) == refused, (path, param["name"], values[:2], len(values), status)
                probed += 1
    assert probed > 150


def test_openapi_max_points_bound_follows_the_settings(tmp_path, make_app):
    app = make_app(max_points=50, max_points_limit=500, poll=False, path_prefix="/viz")
    document = app.test_client().get("/viz/api/openapi.json").get_json()
    (max_points,) = [p for p in document["paths"]["/api/scalars"]["get"]["parameters"] if p["name"] == "max_points"]
    assert max_points["schema"]["maximum"] == 500
    assert document["servers"] == [{"url": "/viz"}]


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "TRACE"])
def test_other_methods_get_405_with_allow_and_json(client, method):
    response = client.open("/api/runs", method=method)
    assert response.status_code == 405
    assert set(response.headers["Allow"].replace(" ", "").split(",")) == {"GET", "HEAD", "OPTIONS"}
    assert response.get_json()["error"]


def test_openapi_is_generated_from_the_route_table(document):
    assert document["openapi"] == "3.1.0"
    assert list(document["paths"]) == [route.path for route in ROUTES]
    for route in ROUTES:
        operation = document["paths"][route.path]["get"]
        assert [p["name"] for p in operation["parameters"]] == [p.name for p in route.params]
        assert set(operation["responses"]) == {str(s) for s in route.statuses}
        for content_type in route.content_types:
            jsonschema.Draft202012Validator.check_schema(schema_at(document, route.path, 200, content_type))
        for status in route.statuses:
            if status == 304:  # Not Modified: no body, the ETag sent again
                assert "content" not in operation["responses"]["304"]
                assert "ETag" in operation["responses"]["304"]["headers"]
            elif status != 200:
                assert schema_at(document, route.path, status)["required"] == ["error", "code"]
        assert (304 in route.statuses) == (route.content_types == ("application/json",))
    assert "422" in document["paths"]["/api/graph"]["get"]["responses"]
    assert "400" not in document["paths"]["/api/runs"]["get"]["responses"]  # no parameter to get wrong


def test_every_answer_is_checked_against_the_document(client, document):
    """The tests' client checks each answer: an answer the document does not state fails."""
    assert isinstance(client, ContractClient)
    json = "application/json"
    check_answer(document, "GET", "/api/runs", 200, json, lambda: b'{"runs": []}')
    with pytest.raises(jsonschema.ValidationError):
        check_answer(document, "GET", "/api/runs", 200, json, lambda: b'{"runs": [{"name": 1}]}')
    with pytest.raises(jsonschema.ValidationError):  # an error answer without its code
        check_answer(document, "GET", "/api/tags", 404, json, lambda: b'{"error": "unknown run"}')
    with pytest.raises(AssertionError, match="not documented"):
        check_answer(document, "GET", "/api/runs", 422, json, lambda: b"{}")
    with pytest.raises(AssertionError, match="as 'text/html'"):
        check_answer(document, "GET", "/api/runs", 200, "text/html", lambda: b"")
