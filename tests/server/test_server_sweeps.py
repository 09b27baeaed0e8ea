"""Sweeps of many runs over the API: selected by a query instead of one parameter per run,
drawn as groups with bands, listed as a table sorted by any column."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from kit.apps import build_app
from kit.sweeps import sweep_value, write_sweep

from visualdl import LogReader, LogWriter

LRS = tuple(round(0.01 * (i + 1), 2) for i in range(10))
SEEDS = 120  # 1,200 runs: more than a GET takes one by one


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("sweep")
    names = write_sweep(logdir, lrs=LRS, seeds=SEEDS, steps=20)
    app = build_app(logdir)
    return logdir, names, app.test_client()


@pytest.mark.e2e  # the sweep fixture: 1,200 runs written and indexed, 20 CPU seconds
def test_more_runs_than_a_get_takes_are_selected_by_a_query(sweep):
    _, names, client = sweep
    assert len(names) > 1000
    answer = client.get("/api/scalars", query_string={"tag": "eval/loss", "where": 'name ~ "seed1\\d$"'})
    assert answer.status_code == 200, answer.get_json()
    got = [r["run"] for r in answer.get_json()["runs"]]
    assert got == [n for n in names if re.search(r"seed1\d$", n)]
    too_many = client.get("/api/scalars", query_string={"tag": "eval/loss", "where": "lr > 0"})
    assert too_many.status_code == 400
    assert "1200 runs selected" in too_many.get_json()["error"] and "group_by" in too_many.get_json()["error"]


@pytest.mark.e2e  # the sweep fixture's 1,200 runs
def test_every_run_grouped_by_its_lr_draws_ten_bands_equal_to_the_members_extremes(sweep):
    _, names, client = sweep
    answer = client.get("/api/scalars", query_string={"tag": "eval/loss", "group_by": "lr"})
    assert answer.status_code == 200, answer.get_json()
    groups = answer.get_json()["runs"]
    assert [g["run"] for g in groups] == [f"lr={lr:g}" for lr in LRS]
    for lr, group in zip(LRS, groups, strict=True):
        members = group["group"]["members"]
        assert members == [n for n in names if n.startswith(f"lr{lr}/")]
        band = group["job"][0]
        for i, step in enumerate(band["steps"]):
            values = np.array([sweep_value("eval/loss", lr, seed, step) for seed in range(SEEDS)])
            assert band["min"][i] == values.min() and band["max"][i] == values.max()
            assert band["values"][i] == pytest.approx(values.mean())
            assert band["median"][i] == pytest.approx(np.median(values))
            assert members[band["max_rank"][i]] == f"lr{lr}/seed{SEEDS - 1}"  # the largest seed is the highest
            assert band["count"][i] == SEEDS


@pytest.mark.e2e  # the sweep fixture's 1,200 runs
def test_auto_groups_by_the_hparams_that_are_not_seeds(sweep):
    client = sweep[2]
    answer = client.get("/api/scalars", query_string={"tag": "eval/acc", "group_by": ":auto"}).get_json()
    # a seed gives every run its own value: not a group; lr x opt gives 20 groups of 60 runs
    assert [g["run"] for g in answer["runs"]] == [f"lr={lr:g}, opt={o}" for lr in LRS for o in ("adam", "sgd")]
    assert all(len(g["group"]["members"]) == SEEDS // 2 for g in answer["runs"])
    assert answer["runs"][0]["group"]["key"] == {"lr": 0.01, "opt": "adam"}


@pytest.mark.e2e  # the sweep fixture's 1,200 runs
def test_groups_by_a_field_a_regex_and_a_query_together(sweep):
    client = sweep[2]
    answer = client.get(
        "/api/scalars",
        query_string={"tag": "train/loss", "where": "lr <= 0.02 and seed < 4", "group_by": "opt"},
    )
    groups = {g["run"]: g["group"]["members"] for g in answer.get_json()["runs"]}
    assert groups == {
        "opt=adam": ["lr0.01/seed1", "lr0.01/seed3", "lr0.02/seed1", "lr0.02/seed3"],
        "opt=sgd": ["lr0.01/seed0", "lr0.01/seed2", "lr0.02/seed0", "lr0.02/seed2"],
    }
    answer = client.get(
        "/api/scalars", query_string={"tag": "train/loss", "where": "seed == 7", "group_regex": r"^lr0\.0(\d)"}
    )
    labels = [g["run"] for g in answer.get_json()["runs"]]
    assert labels == [str(d) for d in range(1, 10)] + ["no match"]  # lr0.1 has no 0.0 prefix


@pytest.mark.e2e  # the sweep fixture's 1,200 runs
@pytest.mark.parametrize(
    ("query", "says"),
    [
        ({"tag": "eval/loss", "where": "lr <"}, "expected a value"),
        ({"tag": "eval/loss", "where": "momentum > 1"}, "no field 'momentum'"),
        ({"tag": "eval/loss", "group_regex": "("}, "group_regex is not a regular expression"),
        ({"tag": "eval/loss", "group_regex": "(?=x)"}, "group_regex is not a regular expression"),
        ({"tag": "eval/loss", "group_by": [":auto", "lr"]}, "give it alone"),
        ({"tag": "eval/loss"}, "1200 runs selected"),  # no selection: every run
    ],
)
def test_bad_selections_are_400_naming_the_problem(sweep, query, says):
    answer = sweep[2].get("/api/scalars", query_string=query)
    assert answer.status_code == 400, answer.get_json()
    assert says in answer.get_json()["error"]


@pytest.mark.e2e  # the sweep fixture's 1,200 runs
def test_unknown_fields_to_group_or_sort_by_are_404_like_unknown_tags(sweep):
    for path, query in (
        ("/api/scalars", {"tag": "eval/loss", "group_by": "momentum"}),
        ("/api/runs/table", {"sort": "momentum"}),
    ):
        answer = sweep[2].get(path, query_string=query)
        assert answer.status_code == 404, answer.get_json()
        assert "no field 'momentum'" in answer.get_json()["error"]


@pytest.mark.e2e  # the sweep fixture's 1,200 runs
def test_the_runs_table_pages_filters_and_sorts_by_a_metric(sweep):
    logdir, names, client = sweep
    first = client.get("/api/runs/table", query_string={"limit": 5}).get_json()
    assert first["total"] == first["matched"] == len(names)
    assert [r["name"] for r in first["rows"]] == names[:5] == [f"lr0.01/seed{i}" for i in range(5)]  # natural order
    assert first["rows"][0]["hparams"] == {"lr": 0.01, "seed": 0, "opt": "sgd"}
    assert first["rows"][0]["status"] == "finished" and first["rows"][0]["writers"] == 1
    assert {"lr", "opt", "seed"} <= set(first["hparams"])

    query = {"where": "lr >= 0.05 and eval/loss.min < 1.2", "sort": "eval/loss.min", "metric": "eval/loss"}
    answer = client.get("/api/runs/table", query_string={**query, "limit": 5000}).get_json()
    reader = LogReader(logdir)
    expected = []
    for name in names:
        lr = float(name.split("/")[0][2:])
        low = float(reader.scalars(name, "eval/loss").values.min())
        if lr >= 0.05 and low < 1.2:
            expected.append((low, name))
    expected.sort(key=lambda p: p[0])  # stable: ties stay in natural order
    assert answer["matched"] == len(expected) > 0
    assert [r["name"] for r in answer["rows"]] == [name for _, name in expected]
    lows = [r["metrics"]["eval/loss"]["min"] for r in answer["rows"]]
    assert lows == sorted(lows)

    page = client.get("/api/runs/table", query_string={**query, "order": "desc", "offset": 3, "limit": 4}).get_json()
    descending = [name for _, name in sorted(expected, key=lambda p: -p[0])]
    assert [r["name"] for r in page["rows"]] == descending[3:7]


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_a_run_written_twice_counts_two_attempts_and_a_crash_is_its_status(tmp_path):
    logdir = tmp_path / "runs"
    write_sweep(logdir, lrs=(0.1,), seeds=2, steps=3)
    with LogWriter(str(logdir / "lr0.1" / "seed1")) as w:  # the script run again into the same directory
        w.add_scalar("train/loss", 9.0, 1)
    code = f"""
import sys
from visualdl import LogWriter
w = LogWriter({str(logdir / "crashed")!r})
w.add_scalar("train/loss", 1.0, 0)
w.flush()
raise RuntimeError("CUDA out of memory")
"""
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60).returncode == 1
    client = build_app(logdir).test_client()
    rows = {r["name"]: r for r in client.get("/api/runs/table").get_json()["rows"]}
    assert (rows["lr0.1/seed0"]["attempts"], rows["lr0.1/seed0"]["writers"]) == (1, 1)
    assert (rows["lr0.1/seed1"]["attempts"], rows["lr0.1/seed1"]["writers"]) == (2, 2)
    assert rows["crashed"]["status"] == "crashed" and rows["lr0.1/seed0"]["status"] == "finished"
    crashed = client.get("/api/runs/table", query_string={"where": 'status == "crashed" or attempts > 1'}).get_json()
    assert [r["name"] for r in crashed["rows"]] == ["crashed", "lr0.1/seed1"]
    # What the second writer replaced is counted and drawn apart, never merged into the line.
    again = client.get("/api/runs/replaced", query_string={"run": "lr0.1/seed1"}).get_json()
    # a later writer replaces from its first step on, as a process restarted from a checkpoint does
    assert again == {"run": "lr0.1/seed1", "attempts": 2, "replaced": 2, "tags": {"train/loss": 2}}
    once = client.get("/api/runs/replaced", query_string={"run": "lr0.1/seed0"}).get_json()
    assert (once["attempts"], once["replaced"], once["tags"]) == (1, 0, {})
    kept = client.get("/api/scalars", query_string={"tag": "train/loss", "run": "lr0.1/seed1"}).get_json()
    (line,) = kept["runs"]
    assert line["steps"] == [0, 1] and line["values"][1] == 9.0  # the later writer's point at step 1
    replaced = client.get(
        "/api/scalars", query_string={"tag": "train/loss", "run": ["lr0.1/seed1", "lr0.1/seed0"], "points": "replaced"}
    ).get_json()
    by_run = {r["run"]: r for r in replaced["runs"]}
    assert by_run["lr0.1/seed1"]["steps"] == [1, 2]
    assert by_run["lr0.1/seed1"]["values"] == [sweep_value("train/loss", 0.1, 1, s) for s in (1, 2)]  # the first's
    assert by_run["lr0.1/seed0"]["steps"] == []
    grouped = client.get("/api/scalars", query_string={"tag": "train/loss", "group_by": "lr", "points": "replaced"})
    assert grouped.status_code == 400 and "not with group_by" in grouped.get_json()["error"]
    assert client.get("/api/runs/replaced", query_string={"run": "nope"}).status_code == 404
