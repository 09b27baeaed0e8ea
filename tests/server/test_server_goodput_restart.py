"""Goodput of a real restart: a writer process killed by SIGKILL mid-run and restarted from an
older checkpoint, as the parameter-server demo does, read back through ``/api/job``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

CHILD = """
import sys, time
from visualdl import LogWriter
logdir, rank, attempt, first, last, then = sys.argv[1], *map(int, sys.argv[2:6]), sys.argv[6]
w = LogWriter(logdir, rank=rank, world_size=2, role="trainer", job="g", attempt=attempt)
for step in range(first, last):
    t = time.time()
    w.add_scalar("loss", 1.0 / (step + 1), step, walltime=t)
    w.flush()  # one record per step: its wall time is this step's
    print(step, repr(t), flush=True)
if then == "hang":
    print("ready", flush=True)
    time.sleep(600)  # killed here
w.close()
"""


def _start(child_env, logdir, rank, attempt, first, last, then="close"):
    args = [sys.executable, "-c", CHILD, logdir, str(rank), str(attempt), str(first), str(last), then]
    return subprocess.Popen(args, env=child_env, stdout=subprocess.PIPE, text=True)


def _steps(lines):
    """``{step: wall time}`` of the lines a child printed."""
    return {int(a): float(b) for a, b in (line.split() for line in lines if line.strip() and line[0].isdigit())}


@pytest.mark.e2e  # ranks in child processes, one killed: a CPU second
def test_goodput_of_a_rank_killed_and_restarted_from_an_older_step(tmp_path, make_app, child_env):
    run = str(tmp_path / "g")
    steady = _start(child_env, run, 0, 0, 0, 40)
    victim = _start(child_env, run, 1, 0, 0, 30, then="hang")
    assert victim.stdout is not None
    printed = []
    for line in victim.stdout:  # until the victim has flushed step 29 and waits
        if line.strip() == "ready":
            break
        printed.append(line)
    os.kill(victim.pid, signal.SIGKILL)
    assert victim.wait(timeout=30) == -signal.SIGKILL
    victim.stdout.close()
    before = _steps(printed)
    assert sorted(before) == list(range(30))
    # Restarted from its checkpoint of step 20: steps 20..29 are done twice.
    again = _start(child_env, run, 1, 1, 20, 40)
    out, _ = again.communicate(timeout=60)
    after = _steps(out.splitlines())
    steady.communicate(timeout=60)
    assert again.returncode == 0 and steady.returncode == 0

    job = make_app(str(tmp_path)).test_client().get("/api/job?run=g").get_json()
    goodput = job["goodput"]
    (gap,) = goodput["gaps"]
    lost = after[30] - before[29]  # from the killed attempt's last point to the first new step
    assert (gap["role"], gap["rank"], gap["attempt"], gap["next_attempt"]) == ("trainer", 1, 0, 1)
    assert gap["killed_at"] == pytest.approx(before[29], abs=1e-6)
    assert gap["resumed_at"] == pytest.approx(after[30], abs=1e-6)
    assert gap["lost_seconds"] == pytest.approx(lost, abs=1e-6)
    assert gap["steps_done_twice"] == 10
    assert (goodput["restarts"], goodput["steps_done_twice"]) == (1, 10)
    assert goodput["lost_seconds"] == pytest.approx(lost, abs=1e-6)
    ranks = goodput["ranks"]["trainer"]
    assert ranks["rank"] == [0, 1] and ranks["restarts"] == [0, 1] and ranks["recovering"] == [False, False]
    productive = (before[29] - before[0]) + (after[39] - after[30])
    assert ranks["productive_seconds"][1] == pytest.approx(productive, abs=1e-3)  # to the millisecond
    assert 0 < ranks["goodput"][1] < 1
    # Its throughput: the 39 new steps over the time spent producing them, like any rank's.
    rate = next(e for e in job["throughput"]["trainer"] if e["rank"] == 1)
    assert rate["steps_per_second"] == pytest.approx((29 + 9) / productive, rel=1e-6)
    assert rate["recent_steps_per_second"] is not None and not rate["recovering"]
    assert time.time() > gap["resumed_at"]
