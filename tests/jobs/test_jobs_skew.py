"""The job page's step skew (``visualdl/_jobs/overview.py``): every file's trace interpolated on
the time grid at once, checked against ``np.interp`` of each file alone."""

from __future__ import annotations

import numpy as np
import pytest

from visualdl._index.writers import WriterInfo
from visualdl._jobs.overview import job_overview
from visualdl._kinds.table import ProcessEnd


def _file(role, rank, attempt, walls, steps, *, start, end):
    info = WriterInfo(
        path=f"/logs/job/{role}{rank}.{attempt}.vdlog", writer_id=f"{role}{rank}.{attempt}", host="h",
        pid=rank, start_time=start, sdk_version="0", display_name="", rank=rank, world_size=8, local_rank=rank,
        role=role, job="job", attempt=attempt, launcher="", closed=end is not None, end_time=end,
        ended=ProcessEnd("closed", end) if end is not None else None,
    )  # fmt: skip
    walls, steps = np.asarray(walls, float), np.asarray(steps, np.int64)
    return (info, walls, steps, int(steps.size), int(steps.min()) if steps.size else None)


def _reference(files, times):
    """The skew as each place's rows were built one file at a time (the page before it was vectorised)."""
    out = {}
    for role in sorted({f[0].role for f in files}):
        rows, ranks = [], []
        for rank in sorted({f[0].rank for f in files if f[0].role == role}):
            row = np.full(times.size, np.nan)
            mine = sorted((f for f in files if (f[0].role, f[0].rank) == (role, rank)), key=lambda f: f[0].attempt)
            for info, w, s, _, _ in mine:
                start = min(info.start_time, w[0]) if w.size else info.start_time
                end = info.end_time if info.end_time is not None else (w[-1] if w.size else info.start_time)
                end = max(end, w[-1]) if w.size else end
                inside = (times >= start) & (times <= end)
                row[inside] = np.interp(times[inside], w, s.astype(float), left=np.nan) if w.size else np.nan
            rows.append(row)
            ranks.append(rank)
        m = np.array(rows)
        with np.errstate(all="ignore"):
            some = ~np.isnan(m).all(axis=0)
            lo = np.where(some, np.nanmin(np.where(np.isnan(m), np.inf, m), axis=0), np.nan)
            hi = np.where(some, np.nanmax(np.where(np.isnan(m), -np.inf, m), axis=0), np.nan)
        out[role] = (lo, hi)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_job_skew_equals_each_file_interpolated_alone(seed):
    rng = np.random.default_rng(seed)
    files = []
    for role, count in (("trainer", 7), ("pserver", 3)):
        for rank in range(count):
            t = 1000.0 + rng.uniform(0, 20)
            step = 0
            for attempt in range(int(rng.integers(1, 4))):  # up to two restarts
                n = int(rng.integers(0, 30))
                walls = t + np.cumsum(rng.uniform(0.1, 5.0, n))
                if n > 3 and rng.random() < 0.3:
                    walls[n // 2] = walls[n // 2 - 1]  # two records stamped alike
                steps = step + np.cumsum(rng.integers(0, 20, n))
                last = attempt == 0 or rng.random() < 0.5
                end = (float(walls[-1]) + 1.0 if n else t + 2.0) if last else None
                files.append(_file(role, rank, attempt, walls, steps, start=t, end=end))
                t = (float(walls[-1]) if n else t) + rng.uniform(1, 30)
                step = max(0, int(steps[-1]) - 40) if n else step
    page = job_overview(files, now=1e9)
    times = page.times
    for role, (lo, hi) in _reference(files, times).items():
        got_lo = np.array([np.nan if v is None else v for v in page.skew[role].min_step])
        got_hi = np.array([np.nan if v is None else v for v in page.skew[role].max_step])
        np.testing.assert_allclose(got_lo, lo, rtol=1e-12, atol=1e-9, equal_nan=True)
        np.testing.assert_allclose(got_hi, hi, rtol=1e-12, atol=1e-9, equal_nan=True)
        assert page.alive[role] == [int(sum(1 for f in files if f[0].role == role and w_in(f, t))) for t in times]


def w_in(f, t):
    info, w = f[0], f[1]
    start = min(info.start_time, w[0]) if w.size else info.start_time
    end = info.end_time if info.end_time is not None else (w[-1] if w.size else info.start_time)
    return start <= t <= (max(end, w[-1]) if w.size else end)
