"""Answers carry an ETag of their bytes: asked again with it while nothing changed, the server
says 304 and sends nothing (the web UI asks for the runs, tags and charts in view every few
seconds; at 30,000 runs the run list alone is megabytes)."""

from __future__ import annotations

from kit.apps import build_app

from visualdl import LogWriter


def test_an_unchanged_answer_is_304_and_a_changed_one_is_sent_with_a_new_tag(tmp_path):
    with LogWriter(str(tmp_path / "a")) as w:
        for step in range(3000):
            w.add_scalar("loss", step * 0.5, step)
    app = build_app(tmp_path)
    client = app.test_client()
    for path in ("/api/runs", "/api/tags", "/api/scalars?tag=loss&run=a"):
        first = client.get(path, headers={"Accept-Encoding": "gzip"})
        assert first.status_code == 200
        tag = first.headers["ETag"]
        assert tag.startswith('W/"') and first.headers["Vary"] == "Accept-Encoding"
        again = client.get(path, headers={"If-None-Match": tag, "Accept-Encoding": "gzip"})
        assert (again.status_code, again.data, again.headers["ETag"]) == (304, b"", tag), path
        assert client.get(path, headers={"If-None-Match": '"other", ' + tag}).status_code == 304
        assert client.get(path, headers={"If-None-Match": "*"}).status_code == 304
        assert client.get(path, headers={"If-None-Match": 'W/"stale"'}).status_code == 200
    big = client.get("/api/scalars?tag=loss&run=a", headers={"Accept-Encoding": "gzip"})
    plain = client.get("/api/scalars?tag=loss&run=a")
    assert big.headers["Content-Encoding"] == "gzip" and "Content-Encoding" not in plain.headers
    assert big.headers["ETag"] == plain.headers["ETag"]  # one tag for the answer, however it is sent
    runs_tag = client.get("/api/runs").headers["ETag"]
    with LogWriter(str(tmp_path / "b")) as w:
        w.add_scalar("loss", 1.0, 0)
    app.extensions["visualdl.provider"].poll()
    changed = client.get("/api/runs", headers={"If-None-Match": runs_tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != runs_tag
    assert [r["name"] for r in changed.get_json()["runs"]] == ["a", "b"]


def test_an_error_has_no_tag_to_come_back_with(tmp_path):
    with LogWriter(str(tmp_path / "a")) as w:
        w.add_scalar("loss", 1.0, 0)
    client = build_app(tmp_path).test_client()
    missing = client.get("/api/scalars?tag=loss&run=nope")
    assert missing.status_code == 404 and "ETag" not in missing.headers
