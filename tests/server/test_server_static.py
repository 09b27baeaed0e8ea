"""The web UI's files: hashed URLs cached for a year, an import map for the modules, gzip."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import re
import shutil
import time

from flask import Flask, request
from kit.apps import build_app

from visualdl.server._http.api import PLOTLY_JS, STATIC_DIR
from visualdl.server._http.static import StaticFiles


def _client(tmp_path):
    app = build_app(str(tmp_path), poll=False)
    return app.test_client()


def _index(client) -> tuple[str, dict[str, str], str]:
    response = client.get("/")
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-cache"
    page = response.get_data(as_text=True)
    (imports,) = re.findall(r'<script type="importmap">(.*?)</script>', page)
    return page, json.loads(imports)["imports"], response.headers["Content-Security-Policy"]


def test_index_links_every_file_by_the_hash_of_its_bytes(tmp_path):
    client = _client(tmp_path)
    page, modules, csp = _index(client)
    modules_on_disk = sorted(f for f in os.listdir(STATIC_DIR) if f.endswith(".js"))
    assert sorted(modules) == [f"./static/{name}" for name in modules_on_disk]  # app.js's imports too
    for name in modules_on_disk:
        with open(os.path.join(STATIC_DIR, name), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:16]
        assert modules[f"./static/{name}"] == f"./static/{name}?v={digest}"
    assert re.search(r'src="static/app\.js\?v=[0-9a-f]{16}"', page)
    assert re.search(r'href="static/style\.css\?v=[0-9a-f]{16}"', page)
    assert re.search(r'href="vendor/plotly\.min\.js\?v=[0-9a-f]{16}"', page)  # preloaded
    # The page's policy allows that one inline script, by its hash, and no other.
    (imports,) = re.findall(r'<script type="importmap">(.*?)</script>', page)
    allowed = base64.b64encode(hashlib.sha256(imports.encode()).digest()).decode()
    assert f"'sha256-{allowed}'" in csp and "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]


def test_a_hashed_url_is_cached_for_a_year_and_others_revalidate(tmp_path):
    client = _client(tmp_path)
    _, modules, _ = _index(client)
    hashed = modules["./static/api.js"].removeprefix(".")
    fresh = client.get(hashed)
    assert fresh.status_code == 200 and fresh.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    plain = client.get("/static/api.js")
    assert plain.headers["Cache-Control"] == "no-cache" and plain.data == fresh.data
    stale = client.get("/static/api.js?v=0000000000000000")  # an old page's link: never cached for long
    assert stale.headers["Cache-Control"] == "no-cache"
    again = client.get("/static/api.js", headers={"If-None-Match": plain.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    assert client.get("/static/api.js", headers={"If-None-Match": '"other"'}).status_code == 200


def test_files_are_sent_gzipped_to_browsers_that_accept_it(tmp_path):
    client = _client(tmp_path)
    with open(PLOTLY_JS, "rb") as f:
        plotly_js = f.read()
    zipped = client.get("/vendor/plotly.min.js", headers={"Accept-Encoding": "br, gzip, deflate"})
    assert zipped.headers["Content-Encoding"] == "gzip" and zipped.headers["Vary"] == "Accept-Encoding"
    assert gzip.decompress(zipped.data) == plotly_js
    assert len(zipped.data) < 0.4 * len(plotly_js)
    assert zipped.headers["Content-Type"] == "text/javascript; charset=utf-8"
    for accept in ("", "gzip;q=0", "identity"):
        plain = client.get("/vendor/plotly.min.js", headers={"Accept-Encoding": accept})
        assert "Content-Encoding" not in plain.headers and plain.data == plotly_js, accept
    # The two encodings have their own ETags: a cached gzip body never answers a plain request.
    assert zipped.headers["ETag"] != client.get("/vendor/plotly.min.js").headers["ETag"]


def test_only_the_ui_files_are_served(tmp_path):
    client = _client(tmp_path)
    for url in ("/static/__init__.py", "/static/README.md", "/static/../server/_api.py", "/static/nope.js",
                "/static/%2e%2e/setup.py", "/vendor/other.js"):  # fmt: skip
        assert client.get(url).status_code == 404, url


def test_a_file_changed_on_disk_gets_a_new_hash(tmp_path):
    folder = tmp_path / "ui"
    shutil.copytree(STATIC_DIR, folder)
    files = StaticFiles(str(folder), {})
    app = Flask(__name__)

    def index_modules() -> dict[str, str]:
        with app.test_request_context("/"):
            page = files.index(request).get_data(as_text=True)
        return json.loads(re.findall(r'<script type="importmap">(.*?)</script>', page)[0])["imports"]

    before = index_modules()["./static/api.js"]
    time.sleep(0.01)  # not a synchronisation: the change must get a later mtime (its resolution)
    with open(folder / "api.js", "a") as f:
        f.write("\n// changed\n")
    after = index_modules()["./static/api.js"]
    assert before != after and after.startswith("./static/api.js?v=")
    with app.test_request_context(after.removeprefix("."), headers={"Accept-Encoding": "gzip"}):
        served = files.file("static/api.js", request)
        assert gzip.decompress(served.get_data()).endswith(b"// changed\n")
        assert served.headers["Cache-Control"].endswith("immutable")


def test_large_json_answers_are_gzipped_for_clients_that_accept_it(tmp_path, make_app):
    import numpy as np

    from visualdl import LogWriter

    with LogWriter(str(tmp_path / "run")) as writer:
        for step in range(3000):
            writer.add_scalar("loss", float(np.sin(step)), step)
    app = make_app(str(tmp_path))
    client = app.test_client()
    plain = client.get("/api/scalars?tag=loss&run=run")
    zipped = client.get("/api/scalars?tag=loss&run=run", headers={"Accept-Encoding": "gzip, br"})
    assert "Content-Encoding" not in plain.headers and plain.headers["Vary"] == "Accept-Encoding"
    assert zipped.headers["Content-Encoding"] == "gzip" and len(zipped.data) < len(plain.data) / 2
    assert json.loads(gzip.decompress(zipped.data)) == plain.get_json()
    small = client.get("/api/runs", headers={"Accept-Encoding": "gzip"})  # under 8 KiB: as it is
    assert "Content-Encoding" not in small.headers and small.get_json()["runs"]
