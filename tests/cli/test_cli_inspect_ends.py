"""``visualdl --inspect`` says which process ended first and how, then the others, grouped."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

CHILD = """
import os, signal, sys
from visualdl import LogWriter
rank, how = int(sys.argv[2]), sys.argv[3]
w = LogWriter(sys.argv[1], rank=rank, world_size=3, role="trainer", job="j")
for step in range(1200, 1205):
    w.add_scalar("loss", 1.0 / step, step)
if how == "raise":
    raise RuntimeError("CUDA out of memory")
if how == "sigterm":
    os.kill(os.getpid(), signal.SIGTERM)
    signal.pause()
w.close()
"""


@pytest.mark.e2e  # writers in child processes, then visualdl --inspect in another: seconds of CPU
def test_cli_inspect_ends_first_end_then_the_others_grouped(tmp_path, child_env):
    logdir = str(tmp_path / "job")
    for rank, how in ((0, "close"), (3, "raise"), (1, "sigterm")):
        subprocess.run([sys.executable, "-c", CHILD, logdir, str(rank), how], env=child_env, timeout=60, check=False)
    done = subprocess.run(
        [sys.executable, "-m", "visualdl", "--inspect", "--logdir", str(tmp_path)],
        env=child_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    first = next(i for i, line in enumerate(out) if line.startswith("    trainer"))
    head, *groups = [line.strip() for line in out[first : first + 3]]
    # The first unclean end, then the others grouped by how they ended, in order of time.
    assert head.startswith("trainer 3 raised `RuntimeError: CUDA out of memory` at step 1,204, "), done.stdout
    time.strptime(head.rsplit(", ", 1)[1], "%H:%M:%S")
    assert groups[0].startswith("1 other closed ") and groups[0].endswith(" before"), done.stdout
    assert groups[1].startswith("1 other ended by SIGTERM within "), done.stdout
