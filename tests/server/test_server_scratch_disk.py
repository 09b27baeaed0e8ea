"""A full scratch disk: the points that could not be spilled are read again once there is
space, and /api/health says why meanwhile, with the fix."""

from __future__ import annotations

import errno
import math
import os
import subprocess
from collections.abc import Iterator

import numpy as np
import pytest
from kit.foreign import scalar_event, write_tfevents

from visualdl import LogReader, LogWriter
from visualdl._index.series import CACHE_DIR_ENV, SpillFile
from visualdl.proto import tb

pytestmark = pytest.mark.e2e  # a small disk mounted, megabytes spilled and read again: seconds of CPU

RUNS, POINTS = 3, 40_000  # 2.9 MB spilled (24 bytes a point)
DISK, FILLER = 8 << 20, 7_600_000  # a tmpfs of 8 MiB, all but 0.8 MB of it taken


class ScratchDisk:
    """A small disk for the scratch file: a tmpfs filled up and freed (as root), else a
    directory whose spill writes fail with ENOSPC while it is "full"."""

    def __init__(self, path: str, monkeypatch: pytest.MonkeyPatch) -> None:
        self.path = path
        try:
            mount = ["mount", "-t", "tmpfs", "-o", f"size={DISK}", "tmpfs", path]
            self.mounted = subprocess.run(mount, capture_output=True).returncode == 0
        except OSError:  # no mount command
            self.mounted = False
        self._full = False
        if not self.mounted:  # ENOSPC at the spill's write boundary instead
            for name in ("append", "append_arrays"):
                original = getattr(SpillFile, name)

                def failing(spill: SpillFile, data: object, _original: object = original) -> int:
                    if self._full:
                        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                    return _original(spill, data)  # type: ignore[operator]

                monkeypatch.setattr(SpillFile, name, failing)

    def fill(self) -> None:
        self._full = True
        if self.mounted:
            with open(os.path.join(self.path, "filler"), "wb") as f:
                f.write(b"\1" * FILLER)

    def free(self) -> None:
        self._full = False
        if self.mounted:
            os.remove(os.path.join(self.path, "filler"))

    def close(self) -> None:
        if self.mounted:
            subprocess.run(["umount", "-l", self.path], check=True)


@pytest.fixture
def scratch_disk(tmp_path, monkeypatch) -> Iterator[ScratchDisk]:
    path = tmp_path / "scratch"
    path.mkdir()
    disk = ScratchDisk(str(path), monkeypatch)
    monkeypatch.setenv(CACHE_DIR_ENV, str(path))
    try:
        yield disk
    finally:
        disk.close()


def _points(client, run: str) -> int:
    answer = client.get(f"/api/scalars?tag=loss&run={run}").get_json()
    return sum(r["range_points"] for r in answer["runs"])


def test_scratch_disk_full_reads_the_points_again_once_there_is_space(logdir, make_app, scratch_disk):
    for r in range(RUNS):
        with LogWriter(os.path.join(logdir, f"run{r}")) as w:
            for step, value in enumerate(np.linspace(0.0, 1.0, POINTS).tolist()):
                w.add_scalar("loss", value, step)
    scratch_disk.fill()
    app = make_app(logdir, poll=False)
    provider = app.extensions["visualdl.provider"]
    client = app.test_client()
    provider.poll()

    health = client.get("/api/health").get_json()
    assert health["status"] == "degraded"
    (why,) = health["degraded"]
    assert "No space left on device" in why and "free space" in why and CACHE_DIR_ENV in why
    assert scratch_disk.path in why
    assert sum(_points(client, f"run{r}") for r in range(RUNS)) < RUNS * POINTS  # some of it could not be kept...
    provider.poll()
    assert client.get("/api/health").get_json()["status"] == "degraded"  # ...and still cannot

    scratch_disk.free()
    provider.poll()
    health = client.get("/api/health").get_json()
    assert health["status"] == "ok" and health["degraded"] == []
    assert [_points(client, f"run{r}") for r in range(RUNS)] == [POINTS] * RUNS  # every point, once
    run = client.get("/api/scalars?tag=loss&run=run1&max_points=100000").get_json()["runs"][0]
    assert run["steps"] == list(range(POINTS))
    assert health["problems"] == []


def test_scratch_disk_full_counts_a_read_again_rounds_problems_and_unshown_values_once(logdir, scratch_disk):
    """A round read again after a failed spill is decoded again: its problems and the values
    no view shows are counted once, as if it had been read once."""
    mystery = tb.Summary.Value(
        tag="mystery",
        metadata=tb.SummaryMetadata(plugin_data=tb.SummaryMetadata.PluginData(plugin_name="mystery")),
        tensor=tb.TensorProto(dtype="DT_FLOAT", float_val=[1.0]),
    )
    bad = tb.Summary.Value(tag="clip", audio=tb.Summary.Audio(sample_rate=math.inf, encoded_audio_string=b"RIFF"))
    events = [scalar_event("loss", i, float(i)) for i in range(3 * POINTS)]
    events.insert(10, tb.Event(wall_time=1.0, step=10, summary=tb.Summary(value=[mystery, bad])))
    write_tfevents(logdir, events)
    scratch_disk.fill()
    reader = LogReader(logdir)  # reads, cannot store the points, reads again at the next poll
    assert "loss" not in reader.tags(".")["scalars"] or reader.scalars(".", "loss").steps.size < 3 * POINTS
    scratch_disk.free()
    reader.poll()
    assert reader.scalars(".", "loss").steps.tolist() == list(range(3 * POINTS))
    (writer,) = reader.writers(".")
    assert writer.unshown == (("mystery", "mystery", 1),)
    assert [p.message for p in reader.problems].count(reader.problems[0].message) == 1
    assert len(reader.problems) == 1 and "sample rate of inf" in reader.problems[0].message
