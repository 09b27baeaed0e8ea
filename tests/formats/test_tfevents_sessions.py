"""Session starts in TensorBoard's event files follow TensorBoard's rule: a ``START`` at step
``s`` orphans the points read before it (earlier files in name order, earlier records of its
file) with a step ``>= s``, whatever their wall times; files without one keep every point.
Checked against TensorBoard's own reader (``EventAccumulator``) on logs written by torch's and
tensorboardX's writers."""

from __future__ import annotations

import pytest
from kit.requirements import require
from kit.writers import WRITERS, summary_writer, torch_writer

from visualdl import LogReader

try:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
except ImportError:  # pragma: no cover - the test extras install them
    EventAccumulator = None

require(EventAccumulator is not None, "tensorboard", "pip install -e '.[test,bench]'")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")

OLD = 1_000_000_000.0  # 2001: wall times older than any session start


def _tensorboards(logdir, tag):
    acc = EventAccumulator(str(logdir), size_guidance={"scalars": 0})
    acc.Reload()
    return sorted((e.step, e.value) for e in acc.Scalars(tag))


def _ours(logdir, tag):
    series = LogReader(str(logdir)).scalars(".", tag)
    return sorted(zip(series.steps.tolist(), series.values.tolist(), strict=True))


@pytest.mark.parametrize("writer", WRITERS)
def test_purge_step_with_wall_times_older_than_the_session_keeps_what_follows_it(tmp_path, writer):
    cls = summary_writer(writer)
    first = cls(str(tmp_path), filename_suffix=".a")
    for step in range(150):
        first.add_scalar("x", float(step), step)
    first.close()
    second = cls(str(tmp_path), filename_suffix=".b", purge_step=60)
    for step in range(60, 150):  # resumed from a checkpoint of step 60, replayed with old wall times
        second.add_scalar("x", 1000.0 + step, step, walltime=OLD + step)
    second.close()
    want = _tensorboards(tmp_path, "x")
    assert len(want) == 150 and want[60] == (60, 1060.0)
    assert _ours(tmp_path, "x") == want
    replaced = LogReader(str(tmp_path)).scalars(".", "x", replaced=True)
    assert replaced.steps.tolist() == list(range(60, 150)) and replaced.values.tolist()[0] == 60.0


@pytest.mark.parametrize("writer", WRITERS)
def test_a_first_file_opening_with_purge_step_zero_loses_nothing(tmp_path, writer):
    w = summary_writer(writer)(str(tmp_path), purge_step=0)
    for step in range(150):
        w.add_scalar("x", float(step), step, walltime=OLD + step)
    w.close()
    want = _tensorboards(tmp_path, "x")
    assert len(want) == 150
    assert _ours(tmp_path, "x") == want


@pytest.mark.e2e  # torch's writer (torch: an e2e extra)
def test_two_sessions_without_a_start_keep_both_points_as_tensorboard_shows_them(tmp_path):
    for suffix, offset in ((".a", 0.0), (".b", 100.0)):
        w = torch_writer()(str(tmp_path), filename_suffix=suffix)
        for step in range(5):
            w.add_scalar("x", offset + step, step)
        w.close()
    want = _tensorboards(tmp_path, "x")
    assert len(want) == 10
    assert _ours(tmp_path, "x") == want


@pytest.mark.e2e  # torch's writer (torch: an e2e extra)
def test_a_start_orphans_every_tag_of_earlier_files_even_one_its_file_lacks(tmp_path):
    TorchWriter = torch_writer()
    first = TorchWriter(str(tmp_path), filename_suffix=".a")
    for step in range(10):
        first.add_scalar("x", float(step), step)
        first.add_scalar("y", -float(step), step)
    first.close()
    second = TorchWriter(str(tmp_path), filename_suffix=".b", purge_step=4)
    for step in range(4, 8):
        second.add_scalar("x", 100.0 + step, step, walltime=OLD)  # no "y" in this file
    second.close()
    for tag in ("x", "y"):
        assert _ours(tmp_path, tag) == _tensorboards(tmp_path, tag)
    assert [s for s, _ in _ours(tmp_path, "y")] == [0, 1, 2, 3]
