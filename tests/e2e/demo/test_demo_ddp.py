"""The PyTorch DDP example under torchrun: LogWriter finds each rank in torchrun's environment."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
from kit.paths import ROOT

from visualdl import LogReader

TORCHRUN = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2"]
DEMO = os.path.join(ROOT, "demo", "ddp_train.py")


def test_ddp_under_torchrun_logs_every_rank(tmp_path):
    done = subprocess.run(
        [*TORCHRUN, DEMO, "--logdir", str(tmp_path), "--epochs", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    reader = LogReader(tmp_path)
    writers = sorted(reader.writers("ddp"), key=lambda w: w.rank)
    assert [(w.rank, w.world_size, w.local_rank, w.role, w.launcher, w.closed) for w in writers] == [
        (0, 2, 0, "trainer", "torchrun", True),
        (1, 2, 1, "trainer", "torchrun", True),
    ]
    assert writers[0].job and writers[0].job == writers[1].job  # TORCHELASTIC_RUN_ID
    assert {w.attempt for w in writers} == {0}  # TORCHELASTIC_RESTART_COUNT
    steps0 = reader.scalars("ddp", "train/loss", rank=0).steps
    np.testing.assert_array_equal(steps0, reader.scalars("ddp", "train/loss", rank=1).steps)
    ((ranks, job),) = reader.job_scalars("ddp", "train/loss").values()
    assert ranks == [0, 1] and set(job.count.tolist()) == {2}
    assert reader.tags("ddp")["graphs"] == ["digits_mlp"]
    assert reader.scalars("ddp", "val/accuracy").values[-1] > 0.5
    # System metrics, on by default for ranked writers: each process its own, the host's once
    # (by local rank 0), apart from the tags.
    systems = {w.rank: w for w in reader.system_metrics("ddp")}
    assert sorted(systems) == [0, 1]
    for rank, system in systems.items():
        names = {(s.scope, s.name): s for s in system.metrics}
        rss = names[("process", "rss")]
        assert rss.unit == "bytes" and rss.values.size >= 1 and (rss.values > 20e6).all()  # torch is imported
        assert (("host", "memory_total") in names) == (rank == 0)
    assert not any(tag.startswith(("process", "host", "gpu")) for tag in reader.tags("ddp")["scalars"])
