"""Why each straggler is slow (``visualdl/_jobs/stragglers.py``, its answer and ``--inspect``):
its most deviating system metric against its role's median at the same time, and its host's."""

from __future__ import annotations

import time

import numpy as np
import pytest

from visualdl import LogWriter
from visualdl._index.systembands import Member
from visualdl._jobs.stragglers import explain, role_windows
from visualdl._kinds.table import SystemMetric, encode_system_metrics

T0 = 1_700_000_000.0


def _members(scope: str, values: dict[tuple[int, str], float], role: str = "trainer") -> list[Member]:
    walls = T0 + np.arange(0.0, 100.0, 5.0)
    return [
        Member(role, rank, -1 if scope != "gpu" else 0, host, walls, np.full(walls.size, v))
        for (rank, host), v in values.items()
    ]


def test_stragglers_the_most_deviating_metric_and_the_hosts():
    hosts = {("trainer", r): "abcd"[r // 2] for r in range(8)}
    gpu = {(r, hosts[("trainer", r)]): (35.0 if r == 7 else 90.0 + r % 3) for r in range(8)}
    rss = {(r, hosts[("trainer", r)]): 2e9 + r * 1e6 for r in range(8)}  # alike: never a cause
    host_cpu = {(0, "a"): 40.0, (2, "b"): 42.0, (4, "c"): 41.0, (6, "d"): 100.0}
    metrics = {
        ("gpu", "utilization", "percent"): _members("gpu", gpu),
        ("process", "rss", "bytes"): _members("process", rss),
        ("host", "cpu", "percent"): _members("host", host_cpu),
    }
    (found,) = explain({"trainer": [7]}, hosts, metrics, {"trainer": (T0, T0 + 100)})
    assert found.text == (
        "trainer 7: GPU utilisation 35% where the median is 90%; its host's CPU 100% where the median is 42%"
    )
    assert [c.name for c in found.causes] == ["utilization", "cpu"]
    assert found.causes[0].value == pytest.approx(35.0) and found.causes[0].deviation < 0


def test_stragglers_nothing_apart_and_only_the_window_counts():
    hosts = {("trainer", r): "a" for r in range(4)}
    walls = T0 + np.arange(0.0, 100.0, 5.0)
    members = [
        Member("trainer", r, -1, "a", walls, np.where(walls < T0 + 50, 50.0, 99.0 if r == 3 else 50.0))
        for r in range(4)
    ]
    metrics = {("process", "cpu_user", "percent"): members}
    (early,) = explain({"trainer": [3]}, hosts, metrics, {"trainer": (T0, T0 + 45)})
    assert early.causes == () and early.text == "trainer 3: nothing in its system metrics sets it apart"
    (late,) = explain({"trainer": [3]}, hosts, metrics, {"trainer": (T0 + 50, T0 + 100)})
    assert late.text == "trainer 3: process CPU (user) 99% where the median is 50%"


def test_stragglers_window_is_while_half_the_role_was_alive():
    times = [float(t) for t in range(10)]
    alive = {"trainer": [1, 4, 4, 3, 2, 1, 1, 1, 1, 1], "pserver": [2] * 10}
    windows = role_windows({"trainer": [3], "pserver": []}, alive, times)
    assert windows == {"trainer": (1.0, 4.0)}


def _write_job(tmp_path) -> None:
    # Four trainers, their walltimes given: rank 3 at half speed, its process CPU at 100%.
    metrics = (SystemMetric("cpu_user", "process", "percent"),)
    t0 = time.time() - 300  # the writers' own start (now) is within the job's span
    for rank in range(4):
        w = LogWriter(str(tmp_path / "job"), rank=rank, world_size=4, role="trainer", system_metrics=False)
        speed = 1.0 if rank == 3 else 2.0  # steps per second
        for step in range(200):
            w.add_scalar("loss", 1.0, step, walltime=t0 + step / speed)
            if step % 10 == 9:
                wall = t0 + step / speed
                value = 100.0 if rank == 3 else 40.0 + rank
                record = encode_system_metrics(np.array([wall]), np.array([[value]]), metrics)
                w._sink.put_sample(record, record.ByteSize())
                w.flush()  # an entry of the progress trace per flush
        w.close()


def test_stragglers_api_names_the_slow_ranks_cpu(tmp_path, make_app):
    _write_job(tmp_path)
    client = make_app(str(tmp_path)).test_client()
    job = client.get("/api/job?run=job").get_json()
    assert job["stragglers"]["trainer"] == [3]
    body = client.get("/api/job/stragglers?run=job").get_json()
    (found,) = body["stragglers"]
    assert (found["role"], found["rank"]) == ("trainer", 3)
    assert found["text"] == "trainer 3: process CPU (user) 100% where the median is 42%"


def test_stragglers_system_metric_heatmap_rows_are_the_ranks_samples(tmp_path, make_app):
    import base64

    _write_job(tmp_path)
    client = make_app(str(tmp_path)).test_client()
    job = client.get("/api/job?run=job").get_json()
    assert "process/cpu_user" in [m["metric"] for m in job["system"]]
    body = client.get("/api/job/heatmap?run=job&metric=process/cpu_user").get_json()
    assert (body["rows"], body["unit"], body["metric"]) == ([0, 1, 2, 3], "percent", "process/cpu_user")
    levels = np.frombuffer(base64.b64decode(body["values"]), np.uint8).reshape(4, body["columns"])
    values = np.where(levels == 255, np.nan, body["min"] + levels / 254 * (body["max"] - body["min"]))
    for rank, want in ((0, 40.0), (1, 41.0), (2, 42.0), (3, 100.0)):
        row = values[rank][np.isfinite(values[rank])]
        assert row.size >= 5 and np.allclose(row, want, atol=(100 - 40) / 254)
    # ranks 0-2 ran 100 s, rank 3 200 s: no samples of theirs in the job's second half
    assert np.isnan(values[:3, -body["columns"] // 3 :]).all()
    missing = client.get("/api/job/heatmap?run=job&metric=gpu/utilization")
    assert missing.status_code == 404 and "gpu/utilization" in missing.get_json()["error"]


def test_stragglers_inspect_says_why(tmp_path):
    from visualdl._cli import summarise

    _write_job(tmp_path)
    lines = [line.strip() for line in summarise(str(tmp_path)).splitlines()]
    assert "straggler trainer 3: process CPU (user) 100% where the median is 42%" in lines
