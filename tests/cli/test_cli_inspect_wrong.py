"""``visualdl --inspect`` names each tag's first non-finite value and where replicated tags part."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

CHILD = """
import math, sys
from visualdl import LogWriter
rank = int(sys.argv[2])
with LogWriter(sys.argv[1], rank=rank, world_size=4, role="trainer") as w:
    for step in range(1195, 1215):
        w.add_scalar("loss", math.nan if rank == 3 and step == 1204 else 1.0 / step, step)
        w.add_scalar("grad_norm", 2.0 + (rank == 2 and step >= 1200), step, replicated=True)
"""


@pytest.mark.e2e  # writers in child processes, then visualdl --inspect in another: seconds of CPU
def test_cli_inspect_wrong_lines(tmp_path, child_env):
    for rank in range(4):
        subprocess.run(
            [sys.executable, "-c", CHILD, str(tmp_path / "job"), str(rank)], env=child_env, timeout=60, check=True
        )
    done = subprocess.run(
        [sys.executable, "-m", "visualdl", "--inspect", "--logdir", str(tmp_path)],
        env=child_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.splitlines()]
    nan = next(line for line in lines if line.startswith("loss: first non-finite"))
    assert nan.startswith("loss: first non-finite nan at step 1,204 on trainer 3 (")
    time.strptime(nan[-9:-1], "%H:%M:%S")
    assert "grad_norm: ranks disagree from step 1,200 (trainer 2 of 4)" in lines
    # A NaN on one rank for a while, then agreement again: the first non-finite line says it;
    # a tag found replicated (not declared) parts only when its ranks stay parted.
    assert not any(line.startswith("loss: ranks disagree") for line in lines)


@pytest.mark.e2e  # visualdl in a process of its own
def test_cli_replicated_tags_bad_pattern_is_an_error(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "visualdl", "--logdir", str(tmp_path), "--replicated-tags", "(a"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "RE2" in done.stderr
