"""A run that logs a scalar every few minutes is alive between them while its writer's
system-metrics sampler goes on: a sample is a sign of life as a scalar record is, so the
run reads "live", not "killed" by the idle rule (``SILENT_AFTER``)."""

from __future__ import annotations

import time

from kit.waiting import wait_until

from visualdl import LogReader, LogWriter
from visualdl._index.ends import SILENT_AFTER


def test_status_between_sparse_scalars_is_live_while_the_sampler_samples(tmp_path, monkeypatch):
    real = time.time
    behind = 2 * SILENT_AFTER
    monkeypatch.setattr(time, "time", lambda: real() - behind)  # the run began, and logged, 2 min ago
    writer = LogWriter(str(tmp_path / "run"), system_metrics=True, system_metrics_secs=0.5, provenance=False)
    try:
        writer.add_scalar("loss", 1.0, 0, walltime=real() - behind)
        writer.flush()
        monkeypatch.setattr(time, "time", real)  # now: no scalar since, the sampler samples
        reader = LogReader(str(tmp_path))

        def sampled() -> bool:
            writer.flush()
            reader.poll()
            (info,) = reader.writers("run")
            return info.last_seen > real() - SILENT_AFTER / 2

        wait_until(sampled, timeout=60, what="a system-metrics sample of now")
        (info,) = reader.writers("run")
        assert info.ended is None
        assert reader.runs(where='status == "live"') == ["run"]
    finally:
        writer.close()
