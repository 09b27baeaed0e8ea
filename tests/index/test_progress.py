"""A file's progress trace (``LogReader.progress``): where its logging began and how far it got."""

from __future__ import annotations

import numpy as np

from visualdl import LogReader, LogWriter


def test_progress_starts_at_the_first_point_of_a_record_of_many_steps(tmp_path):
    t0 = 1.7e9
    with LogWriter(tmp_path / "run", rank=0, world_size=2, role="trainer") as w:
        for step in range(20):  # one flush: one record of 20 steps, 19 s apart
            w.add_scalar("loss", 1.0, step, walltime=t0 + step)
        w.flush()
        for step in range(20, 25):
            w.add_scalar("loss", 1.0, step, walltime=t0 + step)
    with LogWriter(tmp_path / "run", rank=1, world_size=2, role="trainer") as w:
        for step in range(3):  # a record per step: one entry each, as before
            w.add_scalar("loss", 1.0, step, walltime=t0 + step)
            w.flush()
    traces = {info.rank: (walls, steps) for info, walls, steps, _ in LogReader(tmp_path).progress("run")}
    walls, steps = traces[0]
    np.testing.assert_array_equal(walls, [t0, t0 + 19, t0 + 24])
    np.testing.assert_array_equal(steps, [0, 19, 24])
    walls, steps = traces[1]
    np.testing.assert_array_equal(walls, [t0, t0 + 1, t0 + 2])
    np.testing.assert_array_equal(steps, [0, 1, 2])
