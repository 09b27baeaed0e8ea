"""``visualdl --inspect`` says how each writer's process ended when it was not a clean close."""

from __future__ import annotations

import subprocess
import sys
import time

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


def test_cli_inspect_ends_one_line_per_writer_that_raised_or_was_signalled(tmp_path, child_env):
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
    lines = [line.strip() for line in done.stdout.splitlines() if line.startswith("    trainer")]
    assert len(lines) == 2, done.stdout
    raised = next(line for line in lines if "raised" in line)
    signalled = next(line for line in lines if "SIGTERM" in line)
    assert raised.startswith("trainer 3 raised RuntimeError: CUDA out of memory at step 1,204, ")
    assert signalled.startswith("trainer 1 ended by SIGTERM at step 1,204, ")
    for line in lines:
        time.strptime(line.rsplit(", ", 1)[1], "%H:%M:%S")
