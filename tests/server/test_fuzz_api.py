"""Random and adversarial requests to every endpoint of the OpenAPI document: never a 5xx, every error JSON,
every answer one the document states (status, content type, JSON Schema).

Seeded and reproducible: ``VISUALDL_FUZZ_SEED=N pytest tests/server/test_fuzz_api.py`` replays a
run (a failure names its seed and request). Bounded by a request count and by time
(``VISUALDL_FUZZ_SECONDS``, 25 by default), so a loaded machine runs fewer requests of
the same sequence, never a longer test.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from typing import Any
from urllib.parse import quote, unquote

import numpy as np
import onnx
import pytest
from api_contract import check_answer
from kit.apps import build_app
from kit.onnx_models import conv_model, if_loop_model
from werkzeug.datastructures import Headers
from werkzeug.test import EnvironBuilder, run_wsgi_app

from visualdl import LogWriter

SEED = int(os.environ.get("VISUALDL_FUZZ_SEED", "20261123"))
SECONDS = float(os.environ.get("VISUALDL_FUZZ_SECONDS", "25"))
REQUESTS = 20_000

# Values that broke parsers elsewhere: unicode digits, NUL, huge and negative numbers,
# non-finite spellings, whitespace, path traversal, ids and paths almost right.
ADVERSARIAL = [
    "", " ", "\x00", "a\x00b", "%00", "²", "①", "٣", "n²", "n①", "-1", "-0", "+5", "0", "00", "1e309", "-1e309",
    "1e-400", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1_000", "0x10", " 5", "5 ", "5\n", "1.5", ".",
    "9" * 19, "9" * 20, "9" * 60, "9" * 5000, str(2**62), str(2**62 + 1), str(2**63 - 1), str(2**63), str(-(2**63)),
    "../../etc/passwd", "..\\..\\boot.ini", "/etc/passwd", "....//....//", "%2e%2e%2f", "a" * 1024, "a" * 1025,
    "a" * 4096, "a" * 4097, "0.body.0", "1.then_branch.0", "0.body.0|" * 40, "0..0", "|", "n" + "9" * 30,
    "n0", "n-1", "mean", "each", "1", "0", "2", "true", "\u202e", "\ufeff", "\U0001f600", "\r\nX-Injected: 1",
    "<script>", "' OR 1=1 --", "{}", "[]", "%", "%zz", "%ED%A0%80", "%FF%FE",
]  # fmt: skip
# Names a rebinding page could have (all refused), and odd spellings of loopback ones (answered).
UNTRUSTED_HOSTS = [
    "evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.1.evil.example", "0.0.0.0", "",
    "[::1", "a" * 300, "2130706433", "xn--nxa.example", "localhost:8080@evil.example", "[::ffff:127.0.0.1]",
]  # fmt: skip
GOOD_HOSTS = [
    "localhost",
    "localhost:8080",
    "127.0.0.1:6006",
    "[::1]:8080",
    "LocalHost",
    "localhost.",
    "localhost:99999",
]
EXTRA_PATHS = ["/", "/static/app.js", "/static/../../setup.py", "/static/%2e%2e/server/_api.py",
               "/vendor/plotly.min.js", "/api/nothing", "/api//runs", "/api/runs/", "/api/openapi.json"]  # fmt: skip
METHODS = ["GET"] * 12 + ["HEAD", "POST", "OPTIONS", "DELETE", "PUT"]


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """A few runs with every record kind, a job of two ranks, a logged graph and a --model file."""
    logdir = tmp_path_factory.mktemp("fuzz")
    rng = np.random.default_rng(0)
    with LogWriter(os.path.join(logdir, "train")) as w:
        for step in range(50):
            w.add_scalar("loss", float(rng.normal()), step)
        w.add_scalar("loss", math.nan, 50)
        w.add_scalar("loss", math.inf, 51)
        for step in (0, 5):
            w.add_image("sample", rng.integers(0, 255, (4, 6, 3), dtype=np.uint8), step)
        for step in range(3):
            w.add_histogram("weights", rng.normal(size=100), step)
        w.add_text("notes", "hello ²", 0)
        w.add_graph(conv_model(), name="convnet")
        w.add_graph(if_loop_model(), name="control")
    with LogWriter(os.path.join(logdir, "eval", "deep")) as w:
        w.add_scalar("loss", 1.0, 0)
        w.add_scalar("acc", 0.5, 0)
    for rank in range(2):
        with LogWriter(os.path.join(logdir, "job"), rank=rank, world_size=2, role="trainer") as w:
            for step in range(20):
                w.add_scalar("loss", float(step + rank), step)
    model = logdir / "model.onnx"
    onnx.save(conv_model(), model)
    app = build_app(logdir, models=(model,))
    return app


def _valid_values(client) -> dict[str, list[str]]:
    """Values each parameter name takes, read from the server itself."""
    tags = client.get("/api/tags").get_json()
    runs = [r["name"] for r in client.get("/api/runs").get_json()["runs"]]
    graphs = client.get("/api/graphs").get_json()["graphs"]
    return {
        "run": runs,
        "tag": sorted({tag for kind in tags.values() for tag in kind}),
        "name": [g["name"] for g in graphs],
        "model": [g["model"] for g in graphs if "model" in g],
        "node": ["n0", "n1", "n3"],
        "q": ["conv", "Relu", "/layer0"],
        "path": ["", "3.then_branch.0", "4.body.0"],
        "expand": ["layer0", "layer0/block0"],
        "max_points": ["5", "50", "100000"],
        "max_entries": ["1", "2", "10000"],
        "index": ["0", "1"],
        "step": ["0", "5"],
        "x_min": ["0", "10.5", "-1e3"],
        "x_max": ["20", "1e3"],
        "ranks": ["mean", "each"],
        "collapsed": ["0", "1"],
        "expand_all": ["0", "1"],
    }


def _value(rng: random.Random, name: str, valid: dict[str, list[str]]) -> str:
    roll = rng.random()
    if roll < 0.45 and valid.get(name):
        return rng.choice(valid[name])
    if roll < 0.55 and valid.get(name):  # almost right: cut, doubled, with a suffix
        text = rng.choice(valid[name])
        return rng.choice([text[:-1], text + text, text + rng.choice(["²", "\x00", "/..", " "]), text.upper()])
    if roll < 0.6:
        return "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(1, 30)))
    return rng.choice(ADVERSARIAL)


def _encode(rng: random.Random, name: str, value: str) -> str:
    # Percent-encoded as a browser would, or passed raw when it is already an escape (invalid UTF-8, %zz).
    if value.startswith("%") and rng.random() < 0.7:
        return f"{quote(name)}={value}"
    return f"{quote(name)}={quote(value, safe='')}"


def _request(rng: random.Random, paths: dict[str, list[str]], valid: dict[str, list[str]]) -> dict[str, Any]:
    path = rng.choice(list(paths)) if rng.random() < 0.93 else rng.choice(EXTRA_PATHS)
    names = list(paths.get(path, []))
    chosen = [n for n in names if rng.random() < 0.7] + [n for n in ("t", "x", "run[]", "") if rng.random() < 0.05]
    parts = []
    for name in chosen:
        repeats = 1 if rng.random() < 0.85 else rng.choice([2, 3, 1001, 10_001 if name == "expand" else 2])
        same = rng.random() < 0.5
        first = _value(rng, name, valid)
        for _ in range(repeats):
            parts.append(_encode(rng, name, first if same else _value(rng, name, valid)))
    roll = rng.random()
    host = rng.choice(UNTRUSTED_HOSTS) if roll < 0.08 else rng.choice(GOOD_HOSTS)
    return {"method": rng.choice(METHODS), "url": path + ("?" + "&".join(parts) if parts else ""), "host": host}


def _send(app, request: dict[str, Any]) -> tuple[int, Headers, bytes]:
    """The app's answer, straight through WSGI (Flask's test client parses the Host itself after the call)."""
    path, _, query = request["url"].partition("?")
    builder = EnvironBuilder(
        path=path, query_string=query, method=request["method"], headers=[("Host", request["host"])]
    )
    try:
        chunks, status, headers = run_wsgi_app(app, builder.get_environ(), buffered=True)
        return int(status.split()[0]), headers, b"".join(chunks)
    finally:
        builder.close()


@pytest.mark.e2e  # thousands of generated requests: tens of seconds
def test_fuzz_api_never_answers_5xx_and_every_error_is_json(app):
    client = app.test_client()
    document = client.get("/api/openapi.json").get_json()
    paths = {path: [p["name"] for p in item["get"]["parameters"]] for path, item in document["paths"].items()}
    valid = _valid_values(client)
    rng = random.Random(SEED)
    statuses: dict[int, int] = {}
    deadline = time.monotonic() + SECONDS
    sent = 0
    while sent < REQUESTS and time.monotonic() < deadline:
        request = _request(rng, paths, valid)
        status, headers, data = _send(app, request)
        sent += 1
        where = f"seed {SEED}, request {sent}: {request['method']} {request['url'][:300]!r} Host {request['host']!r}"
        statuses[status] = statuses.get(status, 0) + 1
        assert status < 500, f"{where} -> {status} {data[:300]!r}"
        if request["host"] in UNTRUSTED_HOSTS:
            assert status == 403, where
        if status >= 400 and request["method"] != "HEAD":
            assert headers["Content-Type"] == "application/json", where
            body = json.loads(data)
            assert isinstance(body, dict) and isinstance(body.get("error"), str) and body["error"], where
        if status == 405:
            assert "GET" in headers["Allow"], where
        path = unquote(request["url"].partition("?")[0])
        try:
            check_answer(document, request["method"], path, status, headers.get("Content-Type", ""), data)
        except AssertionError as e:
            raise AssertionError(f"{where}: {e}") from e
        location = headers.get("Location")
        assert location is None or (location.startswith("/") and not location.startswith("//")), where
    assert sent >= 300, f"only {sent} requests in {SECONDS} s"
    assert statuses.get(200, 0) > sent // 20 and statuses.get(400, 0) > sent // 20, statuses
