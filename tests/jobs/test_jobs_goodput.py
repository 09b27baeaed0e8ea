"""Goodput arithmetic (visualdl/_jobs/goodput.py) on progress traces built here, and its JSON."""

from __future__ import annotations

import math

import numpy as np
import pytest

from visualdl._cli.inspect import goodput_line
from visualdl._index.writers import WriterInfo
from visualdl._jobs.goodput import measure_goodput
from visualdl._jobs.overview import job_overview
from visualdl.server._views.goodput import goodput_answer


def _line(files):
    """``--inspect``'s goodput line of ``files``."""
    return goodput_line(measure_goodput(files).totals())


def _file(rank, attempt, walls, steps, *, start=None, end=None, role="trainer", first=None):
    walls = np.asarray(walls, float)
    steps = np.asarray(steps, np.int64)
    info = WriterInfo(
        path=f"/logs/job/{role}{rank}.{attempt}.vdlog",
        writer_id=f"{role}{rank}.{attempt}",
        host="h",
        pid=1000 + rank,
        start_time=float(walls[0] if start is None else start),
        sdk_version="0",
        display_name="",
        rank=rank,
        world_size=2,
        local_rank=rank,
        role=role,
        job="job",
        attempt=attempt,
        launcher="",
        closed=end is not None,
        end_time=end,
    )
    low = (int(steps.min()) if steps.size else None) if first is None else first
    return (info, walls, steps, int(steps.size), low)


def _steady(rank, *, steps=80, start=0.0):
    """A rank that logs one step a second, from ``start``, and closes a second after."""
    t = start + np.arange(steps, dtype=float)
    return _file(rank, 0, t, np.arange(steps), start=start - 2, end=t[-1] + 1)


def test_goodput_restart_gap_and_steps_done_twice():
    # Attempt 0 logs steps 0..50 at t 0..50 and is killed; attempt 1 starts at 60, resumes
    # from its checkpoint of step 40 at t 62 (step 40+k at 62+k): step 51, its first new
    # one, at t 73, and step 80 at t 102; it closes at 103.
    a0 = _file(1, 0, np.arange(51.0), np.arange(51), start=-2.0)
    k = np.arange(41)
    a1 = _file(1, 1, 62.0 + k, 40 + k, start=60.0, end=103.0)
    g = measure_goodput([a1, _steady(0), a0])  # any order
    i = g.index[("trainer", 1)]
    assert g.lost[i] == pytest.approx(73 - 50)
    assert g.twice[i] == 50 - 40 + 1
    assert g.productive[i] == pytest.approx(50 + (102 - 73))
    assert g.wall[i] == pytest.approx(103 - (-2))
    assert g.restarts[i] == 1 and not g.recovering[i]
    # Throughput counts new steps over productive time: one step a second, like rank 0.
    assert g.rate[i] == pytest.approx(1.0) and g.recent[i] == pytest.approx(1.0)
    (gap,) = goodput_answer(g)["gaps"]
    assert gap == {
        "role": "trainer",
        "rank": 1,
        "attempt": 0,
        "next_attempt": 1,
        "killed_at": 50.0,
        "resumed_at": 73.0,
        "lost_seconds": 23.0,
        "steps_done_twice": 11,
    }


def test_goodput_job_totals_are_sums_of_rank_seconds():
    a0 = _file(1, 0, np.arange(51.0), np.arange(51), start=-2.0)
    a1 = _file(1, 1, 62.0 + np.arange(41), 40 + np.arange(41), start=60.0, end=103.0)
    answer = goodput_answer(measure_goodput([_steady(0), a0, a1]))
    steady_wall, steady_productive = 80 + 2, 79
    assert answer["rank_seconds"] == pytest.approx(steady_wall + 105)
    assert answer["productive_seconds"] == pytest.approx(steady_productive + 79)
    assert answer["goodput"] == pytest.approx((steady_productive + 79) / (steady_wall + 105))
    assert answer["wall_seconds"] == pytest.approx(103 + 2)  # the job's span
    assert (answer["restarts"], answer["steps_done_twice"], answer["lost_seconds"]) == (1, 11, 23.0)
    assert answer["roles"]["trainer"]["restarts"] == 1
    ranks = answer["ranks"]["trainer"]
    assert ranks["rank"].tolist() == [0, 1] and ranks["restarts"].tolist() == [0, 1]
    assert ranks["goodput"][0] == pytest.approx(79 / 82, abs=1e-5)  # rounded to 1e-5
    assert ranks["goodput"][1] == pytest.approx(79 / 105, abs=1e-5)


def test_goodput_running_rank_still_redoing_is_recovering():
    # Attempt 1 is still running: it has redone steps 40..45 by t 67, not passed step 50.
    a0 = _file(1, 0, np.arange(51.0), np.arange(51), start=0.0)
    a1 = _file(1, 1, 62.0 + np.arange(6), 40 + np.arange(6), start=60.0)  # no footer
    g = measure_goodput([_steady(0), a0, a1])
    i = g.index[("trainer", 1)]
    assert g.recovering[i] and g.end[i] == 67.0  # a running place ends at its last entry
    assert g.lost[i] == pytest.approx(67 - 50) and g.productive[i] == pytest.approx(50)
    assert g.twice[i] == 6  # 40..45, redone so far
    assert g.rate[i] == pytest.approx(1.0) and g.recent[i] == pytest.approx(1.0)  # its rate before the kill
    (gap,) = goodput_answer(g)["gaps"]
    assert gap["resumed_at"] is None and gap["lost_seconds"] == pytest.approx(17)
    assert "1 rank still recovering" in _line([_steady(0), a0, a1])
    # Nor is it a straggler on the job page: its recent rate is the one it had.
    page = job_overview([_steady(0), a0, a1], now=70.0)
    assert page.stragglers["trainer"] == []
    entry = next(e for e in page.throughput["trainer"] if e.rank == 1)
    assert entry.recovering and entry.recent_steps_per_second == pytest.approx(1.0)


def test_goodput_overlapping_attempts_count_time_once():
    # Attempt 1 starts at t 45, before attempt 0 stops at t 50: step 30 at 45 (step = t - 15),
    # its first new step (51) at 66, its last (85) at 100.
    a0 = _file(1, 0, np.arange(51.0), np.arange(51))
    t = 45.0 + np.arange(56)
    a1 = _file(1, 1, t, (t - 15).astype(np.int64), end=100.0)
    g = measure_goodput([a0, a1, _steady(0)])
    i = g.index[("trainer", 1)]
    assert g.lost[i] == pytest.approx(66 - 50)
    assert g.productive[i] == pytest.approx(50 + (100 - 66))
    assert g.productive[i] + g.lost[i] == pytest.approx(g.wall[i])  # never twice the same second
    assert g.twice[i] == 50 - 30 + 1


def test_goodput_clock_skew_never_gives_a_negative_interval():
    # The new attempt's host clock is 30 s behind: its entries are stamped before the killed
    # attempt's last point.
    a0 = _file(1, 0, np.arange(51.0), np.arange(51))
    a1 = _file(1, 1, 30.0 + np.arange(41), 40 + np.arange(41), start=28.0, end=71.0)
    g = measure_goodput([a0, a1, _steady(0)])
    i = g.index[("trainer", 1)]
    assert g.lost[i] >= 0 and g.productive[i] >= 0
    assert g.productive[i] + g.lost[i] <= g.wall[i] + 1e-9
    assert np.isfinite(g.rate[i]) and g.rate[i] > 0
    gap = goodput_answer(g)["gaps"][0]
    assert gap["lost_seconds"] >= 0


def test_goodput_records_without_a_new_step_are_productive_outside_gaps():
    # Two records per step (two flushes), then steps: 0, 0, 10, 10, 20 at t 0..4.
    f = _file(0, 0, np.arange(5.0), [0, 0, 10, 10, 20], end=4.0)
    g = measure_goodput([f, _steady(1)])
    i = g.index[("trainer", 0)]
    assert g.productive[i] == 4.0 and g.rate[i] == pytest.approx(5.0) and g.lost[i] == 0


def test_goodput_non_finite_times_and_empty_attempts():
    nan = math.nan
    a0 = _file(1, 0, [0.0, 1.0, nan, 3.0], [0, 1, 2, 3])
    empty = _file(1, 1, [], [], start=5.0)  # started, logged nothing, died
    a2 = _file(1, 2, [10.0, 11.0, 12.0], [2, 4, 5], start=9.0, end=12.0, first=2)
    g = measure_goodput([a0, empty, a2, _steady(0)])
    i = g.index[("trainer", 1)]
    assert g.restarts[i] == 2
    assert g.lost[i] == pytest.approx(11 - 3)  # from attempt 0's last point to step 4
    assert g.twice[i] == 2  # steps 2 and 3 again
    assert g.last_step[i] == 5
    answer = goodput_answer(g)
    assert [(x["attempt"], x["killed_at"]) for x in answer["gaps"]] == [(0, 3.0), (1, None)]


def test_goodput_of_10000_ranks_is_columns():
    rng = np.random.default_rng(0)
    files = []
    for rank in range(10_000):
        t = np.arange(20.0) + rng.uniform(0, 1)
        if rank % 10 == 3:  # killed at step 9, resumed from step 5 ten seconds later
            files.append(_file(rank, 0, t[:10], np.arange(10)))
            files.append(_file(rank, 1, t[5:] + 10, np.arange(5, 20), end=t[-1] + 10))
        else:
            files.append(_file(rank, 0, t, np.arange(20), end=t[-1]))
    g = measure_goodput(files)
    answer = goodput_answer(g)
    ranks = answer["ranks"]["trainer"]
    assert all(len(column) == 10_000 for column in ranks.values())
    assert answer["restarts"] == 1000 and answer["steps_done_twice"] == 1000 * 5
    # the gap: from step 9 at t[9] to step 10 at t[10] + 10, 11 s, on each restarted rank
    assert answer["lost_seconds"] == pytest.approx(1000 * 11)
    assert ranks["lost_seconds"][3] == pytest.approx(11) and ranks["lost_seconds"][4] == 0
    assert len(answer["gaps"]) == 1000
    assert np.allclose(g.rate, 1.0)


def test_goodput_line_reads_like_a_sentence():
    a0 = _file(1, 0, np.arange(51.0), np.arange(51), start=-2.0)
    a1 = _file(1, 1, 62.0 + np.arange(41), 40 + np.arange(41), start=60.0, end=3800.0)
    line = _line([_steady(0), a0, a1])
    assert line.startswith("goodput ") and "(wall 1h03m, lost 23s to 1 restart, 11 steps done twice)" in line
    assert _line([_steady(0), _steady(1)]).endswith("(wall 1m22s, no restart)")
    empty = measure_goodput([]).totals()
    assert (empty.goodput, empty.wall_seconds, empty.restarts) == (None, None, 0)


def test_goodput_of_writers_without_scalars():
    files = [_file(0, 0, [], [], start=5.0, end=9.0), _file(1, 0, [], [], start=6.0)]
    g = measure_goodput(files)
    answer = goodput_answer(g)
    assert answer["wall_seconds"] == 4.0 and answer["productive_seconds"] == 0.0 and answer["lost_seconds"] == 0.0
    assert answer["goodput"] == 0.0 and np.isnan(g.rate).all()
    assert _line(files) == "goodput 0.0% (wall 4.0s, no restart)"
