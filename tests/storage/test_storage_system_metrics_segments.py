"""System metrics written to an object store, over many segments (each starting with the
writer's header again), read back whole: every sample the writer handed to its sink, equal
to what the same sampler wrote to a local log at the same ticks."""

from __future__ import annotations

from typing import Any

import numpy as np
from kit.waiting import wait_until

from visualdl import LogReader, LogWriter
from visualdl._storage.objects import filesystem
from visualdl._storage.segments import split_segment
from visualdl.sdk._sampler import Subscription


def _system(url: str) -> tuple[LogReader, Any]:
    reader = LogReader(url)
    (run,) = reader.runs()
    (system,) = reader.system_metrics(run)
    return reader, system


def _by_name(system: Any) -> dict[tuple[str, str, int], Any]:
    return {(m.scope, m.name, m.gpu): m for m in system.metrics}


def test_storage_system_metrics_come_back_whole_from_a_bucket_of_many_segments(bucket, tmp_path):
    options: dict[str, Any] = dict(system_metrics=True, system_metrics_secs=0.5, rank=0, world_size=1, local_rank=0)
    remote = LogWriter(f"{bucket}/run", upload_secs=0.5, flush_secs=0.2, **options)
    local = LogWriter(str(tmp_path / "run"), flush_secs=0.2, **options)
    assert remote._sampler is not None and local._sampler is not None
    samplers: tuple[Subscription, Subscription] = (remote._sampler, local._sampler)
    try:
        # ten samples of each, spread over segments uploaded every half a second
        wait_until(lambda: min(s.samples for s in samplers) >= 10, timeout=120,
                   what="ten samples of each writer")  # fmt: skip
    finally:
        remote.close()
        local.close()
    fs, root = filesystem(f"{bucket}/run")
    fs.invalidate_cache()
    segments = [p for p in fs.find(root) if split_segment(p.rpartition("/")[2])]
    assert len(segments) >= 4

    reader, got = _system(bucket)
    assert reader.problems == []
    _, want = _system(str(tmp_path))
    columns = _by_name(got)
    assert sorted(columns) == sorted(_by_name(want)) and len(columns) >= 8  # the process's and the host's
    # every sample handed to the remote writer's sink comes back
    assert all(m.values.size == samplers[0].samples for m in got.metrics)
    # equal to the local log's at the ticks the two shared (each took its own last one at close)
    walls = np.intersect1d(got.metrics[0].wall_times, want.metrics[0].wall_times)
    assert walls.size >= 9
    for key, m in _by_name(want).items():
        r = columns[key]
        mine = np.isin(r.wall_times, walls)
        theirs = np.isin(m.wall_times, walls)
        # from the second shared tick on: the rates are over the same interval
        np.testing.assert_array_equal(r.values[mine][1:], m.values[theirs][1:], err_msg=str(key))
