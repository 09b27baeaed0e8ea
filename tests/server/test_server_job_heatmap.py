"""Rank x time heatmaps of a job: throughput per rank and cell, its bytes, rows and markers."""

from __future__ import annotations

import base64
import time

import numpy as np
import pytest

from visualdl import LogWriter
from visualdl._index.index import WriterInfo
from visualdl._jobs.heatmap import job_grid, throughput_matrix
from visualdl.sdk._sink import Sink
from visualdl.server._views.heatmap import MISSING, quantised


def _info(rank: int, attempt: int = 0, start: float = 0.0, role: str = "trainer") -> WriterInfo:
    return WriterInfo(
        path=f"/logs/{role}{rank}.{attempt}",
        writer_id="w",
        host="h",
        pid=rank,
        start_time=start,
        sdk_version="x",
        display_name="",
        rank=rank,
        world_size=4,
        local_rank=rank,
        role=role,
        job="j",
        attempt=attempt,
        launcher="",
        closed=True,
        end_time=None,
    )


def _direct(files, members, edges):
    """Per rank and cell: the steps along each file's trace (np.interp at the cell's edges
    clipped to the trace) over the seconds inside the trace, summed over the rank's files."""
    ranks = sorted({files[i][0].rank for i in members})
    out = np.full((len(ranks), edges.size - 1), np.nan)
    for r, rank in enumerate(ranks):
        for j in range(edges.size - 1):
            steps = seconds = 0.0
            for i in members:
                info, walls, trace = files[i][0], files[i][1], files[i][2]
                if info.rank != rank or walls.size < 2:
                    continue
                a, b = np.clip([edges[j], edges[j + 1]], walls[0], walls[-1])
                steps += np.interp(b, walls, trace) - np.interp(a, walls, trace)
                seconds += b - a
            if seconds > 0:
                out[r, j] = steps / seconds
    return ranks, out


def test_server_heatmap_throughput_equals_a_direct_computation():
    rng = np.random.default_rng(3)
    progress = []
    for rank in range(4):
        # rank 2 is slow; rank 1 is killed at t=50 and restarted at t=60 from step 40
        speed = 0.5 if rank == 2 else 2.0
        end = 50.0 if rank == 1 else 100.0
        walls = np.sort(rng.uniform(1.0, end, 30))
        steps = np.floor(walls * speed).astype(np.int64)
        progress.append((_info(rank), walls, steps, int(steps[-1]), 0))
    walls = np.sort(rng.uniform(60.0, 100.0, 20))
    progress.append((_info(1, attempt=1, start=60.0), walls, (40 + (walls - 60) * 3).astype(np.int64), 40, 40))
    progress.append((_info(3, role="pserver"), np.array([5.0]), np.array([7]), 1, 7))  # one entry: no rate
    grid = job_grid(progress, now=200.0, grid=41)
    members = grid.members("trainer")
    ranks, matrix = throughput_matrix(grid.files, members, grid.times)
    want_ranks, want = _direct(grid.files, members, grid.times)
    assert ranks == want_ranks == [0, 1, 2, 3]
    np.testing.assert_allclose(matrix, want, rtol=1e-9, equal_nan=True)
    # the slow rank is slow everywhere it is traced; the killed one has no value between its attempts
    assert np.nanmax(matrix[2]) < np.nanmin(matrix[0])
    gap = (grid.times[:-1] > 51) & (grid.times[1:] < 59)
    assert gap.any() and np.isnan(matrix[1, gap]).all()
    # the pserver's single-entry trace gives a row without any value
    ps_ranks, ps = throughput_matrix(grid.files, grid.members("pserver"), grid.times)
    assert ps_ranks == [3] and np.isnan(ps).all()


def test_server_heatmap_bytes_quantise_over_min_max():
    m = np.array([[1.0, np.nan, 3.0], [2.0, np.inf, 5.0]])
    levels, low, high = quantised(m)
    assert (low, high) == (1.0, 5.0)
    assert levels.tolist() == [[0, MISSING, 127], [64, MISSING, 254]]
    assert quantised(np.full((2, 2), np.nan))[1:] == (None, None)
    assert quantised(np.full((1, 2), 4.0))[0].tolist() == [[0, 0]]


@pytest.fixture
def job_logdir(tmp_path):
    t0 = time.time() - 1000
    killed = []
    for rank in range(5):
        slow = rank == 3
        attempts = ((0, 0, 120), (1, 100, 200)) if rank == 1 else ((0, 0, 200),)
        for attempt, first, last in attempts:
            w = LogWriter(tmp_path / "job", rank=rank, world_size=5, role="trainer", attempt=attempt)
            for step in range(first, last):
                wall = t0 + (step * (4.0 if slow else 1.0) if not attempt else 130 + step - 100)
                w.add_scalar("loss", 1.0, step, walltime=wall)
                if step % 5 == 4:
                    w.flush()
            if rank == 1 and attempt == 0:
                sink = w._sink  # killed: no footer
                assert isinstance(sink, Sink)
                sink._appender = None
                sink._closed = True
                killed.append(w)
            else:
                w.close()
    yield tmp_path
    for w in killed:
        w.close()


def test_server_heatmap_answer_rows_are_ranks_and_the_slow_row_is_dim(job_logdir, make_app):
    client = make_app(str(job_logdir)).test_client()
    body = client.get("/api/job/heatmap?run=job").get_json()
    assert (body["role"], body["metric"], body["unit"]) == ("trainer", "steps_per_second", "steps/s")
    assert body["rows"] == [0, 1, 2, 3, 4]
    columns = body["columns"]
    assert len(body["times"]) == columns + 1
    levels = np.frombuffer(base64.b64decode(body["values"]), np.uint8).reshape(len(body["rows"]), columns)
    values = np.where(levels == MISSING, np.nan, body["min"] + levels / 254 * (body["max"] - body["min"]))
    # the API's bytes are the matrix of the job's traces, row i being rank rows[i]
    job = client.get("/api/job?run=job").get_json()
    assert body["times"][0] == job["times"][0] and body["times"][-1] == job["times"][-1]
    slow = body["rows"].index(3)
    assert np.nanmedian(values[slow]) == pytest.approx(0.25, rel=0.1)
    for row in (0, 2, 4):
        assert np.nanmedian(values[body["rows"].index(row)]) == pytest.approx(1.0, rel=0.1)
    marks = body["overlays"]
    restarts = [(marks["row"][i], marks["text"][i]) for i, k in enumerate(marks["kind"]) if k == "restart"]
    assert restarts == [(1, "attempt 1 started")]
    ends = [marks["text"][i] for i, k in enumerate(marks["kind"]) if k == "end" and marks["row"][i] == 1]
    assert ends == ["attempt 0 killed without a trace", "attempt 1 closed"]
    assert client.get("/api/job/heatmap?run=job&role=pserver").status_code == 404
    assert client.get("/api/job/heatmap?run=job&metric=gpu").status_code == 400
    assert client.get("/api/job/heatmap?run=nope").status_code == 404
