"""``visualdl --inspect`` prints a job's goodput: wall time, time lost to restarts, steps done twice."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

CHILD = """
import os, sys
from visualdl import LogWriter
logdir, rank, attempt, first, last, t0 = sys.argv[1], *map(int, sys.argv[2:6]), float(sys.argv[6])
w = LogWriter(logdir, rank=rank, world_size=2, role="trainer", job="j", attempt=attempt)
for step in range(first, last):
    w.add_scalar("loss", 1.0, step, walltime=t0 + step + 100 * attempt)
    w.flush()
if rank == 1 and attempt == 0:
    os.kill(os.getpid(), 9)  # killed without a trace
w.close()
"""


@pytest.mark.e2e  # writers in child processes, then visualdl --inspect in another: seconds of CPU
def test_cli_inspect_prints_the_goodput_of_a_job(tmp_path, child_env):
    logdir = str(tmp_path / "job")
    t0 = 1.7e9
    # rank 1: steps 0..29 at t0 + step, killed; restarted from step 20 at t0 + 100 + step
    for rank, attempt, first, last in ((0, 0, 0, 40), (1, 0, 0, 30), (1, 1, 20, 40)):
        args = [sys.executable, "-c", CHILD, logdir, str(rank), str(attempt), str(first), str(last), str(t0)]
        subprocess.run(args, env=child_env, timeout=60, check=False)
    done = subprocess.run(
        [sys.executable, "-m", "visualdl", "--inspect", "--logdir", str(tmp_path)],
        env=child_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    (line,) = [line.strip() for line in done.stdout.splitlines() if "goodput" in line]
    # lost: from step 29 at t0 + 29 to step 30, the first new one, at t0 + 130
    assert re.fullmatch(r"goodput \d+\.\d% \(wall \S+, lost 1m41s to 1 restart, 10 steps done twice\)", line), line
