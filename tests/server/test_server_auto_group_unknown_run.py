"""A chart grouped automatically over a run that does not exist answers as any chart of an
unknown run does: 404 naming the run, never a 500."""

from __future__ import annotations

import pytest
from kit.apps import build_app
from kit.sweeps import write_sweep


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("sweep")
    names = write_sweep(logdir, lrs=(0.1, 0.3), seeds=3, steps=3)
    return build_app(logdir).test_client(), names


@pytest.mark.parametrize(
    "query",
    [
        {"run": "nope", "tag": "eval/loss", "group_by": ":auto"},
        {"run": ["lr0.1/seed0", "nope"], "tag": "eval/loss", "group_by": ":auto"},
        {"run": "nope", "tag": "eval/loss"},  # the contract: as an unknown run is answered ungrouped
        {"run": "nope", "tag": "eval/loss", "group_by": "lr"},
    ],
)
def test_an_unknown_run_grouped_automatically_is_404_naming_it(client, query):
    answer = client[0].get("/api/scalars", query_string=query)
    assert answer.status_code == 404, answer.get_json()
    assert answer.get_json()["error"] == "unknown run 'nope'"


def test_known_runs_grouped_automatically_still_group(client):
    test_client, names = client
    answer = test_client.get("/api/scalars", query_string={"run": names, "tag": "eval/loss", "group_by": ":auto"})
    assert answer.status_code == 200, answer.get_json()
    groups = answer.get_json()["runs"]
    assert [g["run"] for g in groups] == [f"lr={lr}, opt={opt}" for lr in ("0.1", "0.3") for opt in ("adam", "sgd")]
    assert sorted(m for g in groups for m in g["group"]["members"]) == sorted(names)
