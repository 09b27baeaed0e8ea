"""A query past its bounds is a 400 that names the bound and where the query passed it, on
every endpoint that takes ``where``; as many comparisons as allowed are answered."""

from __future__ import annotations

import pytest
from kit.apps import build_app
from kit.sweeps import write_sweep

from visualdl._index.runquery import MAX_DEPTH, MAX_TERMS


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("sweep")
    write_sweep(logdir, lrs=(0.1, 0.3), seeds=3, steps=3)
    return build_app(logdir).test_client()


def _chain(terms: int) -> str:
    return " or ".join(f"seed == {i}" for i in range(terms))


@pytest.mark.parametrize(
    ("path", "extra"),
    [
        ("/api/runs/table", {}),
        ("/api/scalars", {"tag": "eval/loss"}),
        ("/api/scalars", {"tag": "eval/loss", "group_by": ":auto"}),
    ],
)
def test_a_query_past_its_bounds_is_400_naming_the_bound_and_where(client, path, extra):
    text = _chain(MAX_TERMS + 1)
    answer = client.get(path, query_string={"where": text, **extra})
    assert answer.status_code == 400, answer.get_json()
    error = answer.get_json()["error"]
    assert f"more than {MAX_TERMS:,} comparisons" in error
    assert f"at character {text.rindex('seed == ') + 1} of the query" in error
    deep = "not " * (MAX_DEPTH + 1) + "seed == 1"
    answer = client.get(path, query_string={"where": deep, **extra})
    assert answer.status_code == 400 and f"nested deeper than {MAX_DEPTH}" in answer.get_json()["error"]


def test_as_many_comparisons_as_allowed_are_answered(client):
    answer = client.get("/api/runs/table", query_string={"where": _chain(MAX_TERMS)})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["matched"] == 6
    answer = client.get("/api/scalars", query_string={"where": _chain(MAX_TERMS), "tag": "eval/loss"})
    assert answer.status_code == 200 and len(answer.get_json()["runs"]) == 6


def test_a_costly_query_while_others_are_evaluated_is_503_with_retry_after(client, monkeypatch):
    import visualdl._index.runquery as runquery

    monkeypatch.setattr(runquery, "COSTLY_WORK", 0)  # every query with a comparison is costly here
    monkeypatch.setattr(runquery, "COSTLY_WAIT", 0.01)
    for _ in range(runquery.COSTLY_AT_ONCE):  # as if as many costly queries were being evaluated
        assert runquery._COSTLY.acquire(timeout=10)
    try:
        for path, extra in (("/api/runs/table", {}), ("/api/scalars", {"tag": "eval/loss", "group_by": "lr"})):
            answer = client.get(path, query_string={"where": 'name ~ "seed"', **extra})
            assert answer.status_code == 503, answer.get_json()
            assert answer.get_json()["code"] == "busy" and "ask again" in answer.get_json()["error"]
            assert int(answer.headers["Retry-After"]) >= 1
        assert client.get("/api/runs/table").status_code == 200  # no query: nothing to wait for
        assert client.get("/api/health").status_code == 200
    finally:
        for _ in range(runquery.COSTLY_AT_ONCE):
            runquery._COSTLY.release()
    assert client.get("/api/runs/table", query_string={"where": 'name ~ "seed"'}).status_code == 200
