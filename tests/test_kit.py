"""The shared kit itself: a logdir of given kinds reads back through the API, over a real server."""

from __future__ import annotations

import pytest
from kit.logdirs import WRITERS
from kit.servers import get_json


def test_make_logdir_writes_every_kind_the_api_then_lists(make_logdir, make_app):
    logdir = make_logdir(kinds=list(WRITERS))
    tags = make_app(logdir).test_client().get("/api/tags").get_json()
    listed = {kind for kind, by_tag in tags.items() if any("run" in runs for runs in by_tag.values())}
    assert listed == set(WRITERS), tags
    with pytest.raises(ValueError, match="knows no kind 'nope'"):
        make_logdir(kinds=["nope"])


def test_serve_answers_over_http_on_loopback(make_logdir, make_app, serve):
    base = serve(make_app(make_logdir(kinds=["scalars"])))
    assert base.startswith("http://127.0.0.1:")
    body = get_json(base + "api/scalars?tag=loss&run=run")
    assert body["runs"][0]["steps"] == [0, 1, 2, 3, 4]
