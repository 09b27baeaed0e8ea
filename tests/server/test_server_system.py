"""A job's system metrics through the API: bands over ranks on a time grid equal to numpy's
quantiles of the ranks' values there, the extremes named, one rank's line, the list in /api/job."""

from __future__ import annotations

import numpy as np
import pytest
from kit.apps import build_app

from visualdl import LogWriter
from visualdl._kinds.table import SystemMetric, encode_system_metrics
from visualdl.proto import pb

T0 = 1_700_000_000.0
RANKS = 9
SAMPLES = 40
RSS = SystemMetric("rss", "process", "bytes")
CPU = SystemMetric("cpu", "host", "percent")
UTIL = [SystemMetric("utilization", "gpu", "percent", g, "A100", f"GPU-{g}") for g in (0, 1)]


def _samples(rank: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(rank)
    walls = T0 + rng.uniform(0, 5) + 5.0 * np.arange(SAMPLES) + rng.uniform(-0.5, 0.5, SAMPLES)
    values = 1e9 + 1e8 * rank + 1e7 * rng.standard_normal(SAMPLES)
    return walls, values


def _put(w: LogWriter, record: pb.Record) -> None:
    """A record through the writer's sink, as the sampler puts its samples."""
    w._sink.put_item(lambda: record, record.ByteSize())


@pytest.fixture
def client(tmp_path):
    run = tmp_path / "job"
    for rank in range(RANKS):
        walls, rss = _samples(rank)
        columns = (RSS, CPU, *UTIL) if rank < 2 else (RSS,)
        values = np.column_stack([rss] + [np.full(SAMPLES, 10.0 * rank + j) for j in range(len(columns) - 1)])
        if rank == 4:
            values[10:, 0] = np.nan  # not measured from its 11th sample on
        with LogWriter(run, rank=rank, local_rank=rank % 2, role="trainer", system_metrics=False) as w:
            w.add_scalar("loss", 1.0, 0)
            for i in range(SAMPLES):  # one record per sample, as the sampler writes them
                record = encode_system_metrics(walls[i : i + 1], values[i : i + 1], columns if i == 0 else ())
                _put(w, record)
    with LogWriter(run, rank=0, role="pserver", system_metrics=False) as w:
        record = encode_system_metrics(np.array([T0 + 50]), np.array([[5e8]]), (RSS,))
        _put(w, record)
    return build_app(str(tmp_path)).test_client()


def _value_at(walls: np.ndarray, values: np.ndarray, t: float, stale: float) -> float:
    i = int(np.searchsorted(walls, t, side="right")) - 1
    return float(values[i]) if i >= 0 and t - walls[i] <= stale else float("nan")


def test_server_system_bands_are_numpys_quantiles_of_the_ranks_at_each_grid_time(client):
    body = client.get("/api/job/system?run=job&metric=process/rss&points=60").get_json()
    (metric,) = body["metrics"]
    assert (metric["metric"], metric["unit"], body["points"]) == ("process/rss", "bytes", 60)
    trainer, pserver = metric["roles"]
    assert (trainer["role"], trainer["members"], pserver["role"], pserver["members"]) == (
        "trainer",
        RANKS,
        "pserver",
        1,
    )
    times = np.array(metric["times"])
    assert times.size == 60
    series = {rank: _samples(rank) for rank in range(RANKS)}
    series[4][1][10:] = np.nan
    checked = 0
    for k in range(times.size):
        # stale: three times the median sampling interval (5 s): no rank is ever missing inside
        have = {r: _value_at(w, v, times[k], 15.0) for r, (w, v) in series.items()}
        finite = {r: v for r, v in have.items() if not np.isnan(v)}
        assert trainer["count"][k] == len(finite)
        if not finite:
            assert trainer["median"][k] is None
            continue
        values = np.array(list(finite.values()))
        expected = np.quantile(values, [0.05, 0.25, 0.5, 0.75, 0.95])
        got = [trainer[f] for f in ("p5", "p25", "median", "p75", "p95")]
        np.testing.assert_allclose([g[k] for g in got], expected, rtol=1e-12)
        assert trainer["min"][k] == values.min() and trainer["max"][k] == values.max()
        assert trainer["min_rank"][k] == min(finite, key=finite.__getitem__)
        assert trainer["max_rank"][k] == max(finite, key=finite.__getitem__)
        checked += len(finite) > 1
    assert checked > 50


def test_server_system_gpu_bands_name_rank_and_gpu_and_one_rank_has_its_line(client):
    body = client.get("/api/job/system?run=job&metric=gpu/utilization&rank=1").get_json()
    (metric,) = body["metrics"]
    (trainer,) = metric["roles"]
    assert trainer["members"] == 4  # 2 ranks x 2 GPUs
    k = len(metric["times"]) // 2
    assert (trainer["min"][k], trainer["max"][k]) == (1.0, 12.0)
    assert (trainer["min_rank"][k], trainer["min_gpu"][k], trainer["max_rank"][k], trainer["max_gpu"][k]) == (
        0,
        0,
        1,
        1,
    )
    lines = metric["lines"]
    assert [(x["rank"], x["gpu"]) for x in lines] == [(1, 0), (1, 1)]
    assert lines[1]["values"] == [12.0] * SAMPLES
    np.testing.assert_array_equal(lines[0]["wall_times"], _samples(1)[0])


def test_server_system_listed_in_the_job_apart_from_the_tags(client):
    job = client.get("/api/job?run=job").get_json()
    assert [(m["metric"], m["unit"], m["writers"]) for m in job["system"]] == [
        ("process/rss", "bytes", RANKS + 1),
        ("host/cpu", "percent", 2),
        ("gpu/utilization", "percent", 2),
    ]
    tags = client.get("/api/tags?run=job").get_json()
    assert tags["scalars"] == {"loss": ["job"]}
    everything = client.get("/api/job/system?run=job&role=trainer").get_json()
    assert [m["metric"] for m in everything["metrics"]] == ["process/rss", "host/cpu", "gpu/utilization"]
    assert {r["role"] for m in everything["metrics"] for r in m["roles"]} == {"trainer"}


def test_server_system_unknown_metric_is_named(client):
    answer = client.get("/api/job/system?run=job&metric=host/nothing")
    assert answer.status_code == 404 and "host/nothing" in answer.get_json()["error"]
    assert client.get("/api/job/system?run=job&metric=rack/x").status_code == 400
