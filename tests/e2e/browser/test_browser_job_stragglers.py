"""The Jobs tab says why a straggler is slow: its system metric against its role's median."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from kit.pages import open_tab, settle, wait_for
from kit.servers import serve_cli

CHILD = """
import sys
import numpy as np
from visualdl import LogWriter
from visualdl._kinds.table import SystemMetric, encode_system_metrics
rank, t0 = int(sys.argv[2]), 1_700_000_000.0
metrics = (SystemMetric("cpu_user", "process", "percent"),)
w = LogWriter(sys.argv[1], rank=rank, world_size=4, role="trainer", system_metrics=False)
speed = 1.0 if rank == 3 else 2.0
for step in range(200):
    w.add_scalar("loss", 1.0, step, walltime=t0 + step / speed)
    if step % 10 == 9:
        record = encode_system_metrics(
            np.array([t0 + step / speed]), np.array([[100.0 if rank == 3 else 40.0 + rank]]), metrics
        )
        w._sink.put_sample(record, record.ByteSize())
        w.flush()
w.close()
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("straggler_logs"))
    for rank in range(4):
        subprocess.run([sys.executable, "-c", CHILD, os.path.join(logdir, "job"), str(rank)], check=True, timeout=60)
    with serve_cli(["--logdir", logdir], os.path.join(logdir, "..", "server.log")) as base:
        yield base


def test_jobs_tab_says_why_the_straggler_is_slow(page, server):
    open_tab(page, server, "jobs")
    lines = page.locator(".job-stragglers li")
    wait_for(lambda: lines.count() == 1, "the straggler's line")
    assert lines.nth(0).inner_text() == "trainer 3: process CPU (user) 100% where the median is 42%"
    settle(page)
    assert page.errors == []
