"""``visualdl --inspect`` says when a run's directory was written twice (a script run again):
how many times, and how many points the later writer replaced."""

from __future__ import annotations

import subprocess
import sys

import pytest

CHILD = """
import sys
from visualdl import LogWriter
with LogWriter(sys.argv[1]) as w:
    for step in range(int(sys.argv[2])):
        w.add_scalar("loss", float(sys.argv[3]), step)
"""


@pytest.mark.e2e  # writers in child processes, then visualdl --inspect in another: seconds of CPU
def test_cli_inspect_says_a_run_written_twice_and_the_points_replaced(tmp_path, child_env):
    run = str(tmp_path / "logs" / "exp")
    for steps, value in ((8000, 1.0), (6000, 2.0)):  # the script run twice: the second stops earlier
        subprocess.run(
            [sys.executable, "-c", CHILD, run, str(steps), str(value)], env=child_env, timeout=60, check=True
        )
    done = subprocess.run(
        [sys.executable, "-m", "visualdl", "--logdir", str(tmp_path / "logs"), "--inspect"],
        env=child_env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # The second writer started after the first's last point and at step 0: a restart from step 0,
    # so every point of the first is replaced (restarts.py), and the chart shows the second's.
    assert "written 2 times into one directory: 8,000 scalar points of earlier writers replaced" in done.stdout
    assert "scalars    loss: 6000 points" in done.stdout
