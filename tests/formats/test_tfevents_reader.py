"""TensorBoard event files written by the real tensorboardX and torch.utils.tensorboard
writers, read by LogReader value for value."""

from __future__ import annotations

import io
import math
import os
import struct

import numpy as np
import pytest
from kit.requirements import require
from kit.writers import WRITERS, summary_writer, torch_writer
from PIL import Image

from visualdl import LogReader

try:
    from tensorboardX import SummaryWriter as XWriter
except ImportError:  # pragma: no cover - CI installs it
    XWriter = None

require(XWriter is not None, "tensorboardX", "pip install -e '.[bench]'")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


def _f32(x: float) -> float:
    """The float64 of the float32 nearest to ``x``: what simple_value stores."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _same(got: list[float], want: list[float]) -> bool:
    return len(got) == len(want) and all(
        (math.isnan(a) and math.isnan(b)) or a == b for a, b in zip(got, want, strict=True)
    )


@pytest.mark.parametrize("writer", WRITERS)
def test_tfevents_scalars_value_for_value(logdir, writer):
    cls = summary_writer(writer)
    run = os.path.join(logdir, "train")
    w = cls(run)
    steps = [0, 1, 2, 5, 9, 100, 101, 10**12]  # gapped, and past 2^32
    values = [0.1, -2.5, 1e-30, 3.4e38, float("nan"), float("inf"), float("-inf"), 1 / 3]
    for step, value in zip(steps, values, strict=True):
        w.add_scalar("loss/λ", value, step)
        w.add_scalar("ünïcode/ταγ", float(step) * 0.5, step)
    w.close()
    reader = LogReader(logdir)
    assert reader.runs() == ["train"]
    assert reader.tags("train")["scalars"] == ["loss/λ", "ünïcode/ταγ"]
    series = reader.scalars("train", "loss/λ")
    assert series.steps.tolist() == steps
    assert _same(series.values.tolist(), [_f32(v) for v in values])
    assert reader.scalars("train", "ünïcode/ταγ").values.tolist() == [_f32(s * 0.5) for s in steps]
    assert np.all(series.wall_times > 1e9)
    (info,) = reader.writers("train")
    assert info.format == "tfevents" and not info.closed and info.rank == -1
    assert reader.problems == []


@pytest.mark.e2e  # torch's writer (torch: an e2e extra)
def test_tfevents_torch_new_style_rank0_tensors(logdir):
    w = torch_writer()(logdir)
    for step, value in enumerate([0.25, float("nan"), float("inf"), 1.1]):
        w.add_scalar("acc", value, step, new_style=True)
        w.add_scalar("dbl", value, step, new_style=True, double_precision=True)
    w.close()
    reader = LogReader(logdir)
    assert _same(reader.scalars(".", "acc").values.tolist(), [0.25, math.nan, math.inf, _f32(1.1)])
    assert _same(reader.scalars(".", "dbl").values.tolist(), [0.25, math.nan, math.inf, 1.1])
    assert reader.scalars(".", "acc").steps.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("writer", WRITERS)
def test_tfevents_add_scalars_subdirectories_are_runs(logdir, writer):
    """Each sub-tag is a run in a subdirectory: tensorboardX's ``loss/train``, torch's ``loss_train``."""
    sep = "/" if writer == "tensorboardX" else "_"
    w = summary_writer(writer)(os.path.join(logdir, "exp"))
    for step in range(3):
        w.add_scalars("loss", {"train": 1.0 + step, "eval": 2.0 + step}, step)
    w.add_scalar("lr", 0.5, 0)
    w.close()
    reader = LogReader(logdir)
    train, evaluation = f"exp/loss{sep}train", f"exp/loss{sep}eval"
    assert reader.runs() == sorted(["exp", evaluation, train])
    assert reader.tags(train)["scalars"] == ["loss"]
    assert reader.scalars(train, "loss").values.tolist() == [1.0, 2.0, 3.0]
    assert reader.scalars(evaluation, "loss").values.tolist() == [2.0, 3.0, 4.0]
    assert reader.scalars("exp", "lr").values.tolist() == [0.5]


def test_tfevents_writer_closed_and_reopened_files_merge(logdir):
    first = XWriter(logdir, filename_suffix=".a")
    for step in range(5):
        first.add_scalar("x", float(step), step)
    first.close()
    second = XWriter(logdir, filename_suffix=".b")
    for step in range(5, 10):
        second.add_scalar("x", float(step), step)
    second.close()
    reader = LogReader(logdir)
    assert len(reader.writers(".")) == 2
    series = reader.scalars(".", "x")
    assert series.steps.tolist() == list(range(10)) and series.values.tolist() == [float(s) for s in range(10)]


@pytest.mark.e2e  # torch's writer (torch: an e2e extra)
def test_tfevents_live_file_is_followed(logdir):
    w = torch_writer()(logdir, flush_secs=3600)  # its flush() drains its queue; tensorboardX's does not
    w.add_scalar("x", 1.0, 0)
    w.flush()
    reader = LogReader(logdir)
    assert reader.scalars(".", "x").values.tolist() == [1.0]
    w.add_scalar("x", 2.0, 1)
    w.add_scalar("y", 3.0, 1)
    w.flush()
    reader.poll()
    assert reader.scalars(".", "x").values.tolist() == [1.0, 2.0]
    assert reader.scalars(".", "y").steps.tolist() == [1]
    w.close()


def test_tfevents_torn_tail_is_waited_for_then_read(logdir):
    w = XWriter(logdir)
    for step in range(3):
        w.add_scalar("x", float(step), step)
    w.close()
    (name,) = os.listdir(logdir)
    path = os.path.join(logdir, name)
    with open(path, "rb") as f:
        data = f.read()
    cut = len(data) - 7  # inside the last record
    with open(path, "wb") as f:
        f.write(data[:cut])
    reader = LogReader(logdir)
    assert reader.scalars(".", "x").steps.tolist() == [0, 1]
    assert reader.problems == []  # not yet written, not corrupt
    with open(path, "ab") as f:
        f.write(data[cut:])
    reader.poll()
    assert reader.scalars(".", "x").steps.tolist() == [0, 1, 2]


@pytest.mark.parametrize("writer", WRITERS)
def test_tfevents_images_histograms_text(logdir, writer):
    w = summary_writer(writer)(logdir)
    pixels = np.zeros((3, 4, 5), np.uint8)
    pixels[0] = 255
    w.add_image("img", pixels, 2)
    values = np.array([-3.0, -1.0, 0.0, 0.5, 2.0, 7.0])
    w.add_histogram("h", values, 3)
    w.add_text("notes", "héllo <b>", 4)
    w.close()
    reader = LogReader(logdir)
    (image,) = reader.images(".", "img")
    assert (image.step, image.height, image.width, image.channels) == (2, 4, 5, 3)
    png = np.asarray(Image.open(io.BytesIO(reader.read_blob(image))))
    assert png.shape == (4, 5, 3) and png[0, 0].tolist() == [255, 0, 0]
    (hist,) = reader.histograms(".", "h")
    assert hist.step == 3 and hist.count == 6 and hist.counts.sum() == 6
    assert (hist.min, hist.max) == (-3.0, 7.0) and hist.edges[0] == -3.0 and hist.edges[-1] == 7.0
    assert np.all(np.diff(hist.edges) > 0) and hist.sum == pytest.approx(values.sum())
    (text,) = reader.texts(".", reader.tags(".")["text"][0])
    assert text.step == 4 and text.text == "héllo <b>"
    assert reader.problems == []


def test_tfevents_other_plugins_are_counted_not_shown(logdir):
    w = XWriter(logdir)
    w.add_scalar("x", 1.0, 0)
    w.add_mesh("mesh", np.zeros((1, 3, 3), np.float32))  # its vertices: a tensor of plugin "mesh"
    w.close()
    reader = LogReader(logdir)
    assert reader.tags(".")["scalars"] == ["x"]
    (info,) = reader.writers(".")
    assert info.unshown == (("mesh_1", "mesh", 1),)


def test_tfevents_next_to_our_files_in_one_run(logdir):
    from visualdl import LogWriter

    with LogWriter(logdir) as ours:
        ours.add_scalar("ours", 1.0, 0)
    w = XWriter(logdir)
    w.add_scalar("theirs", 2.0, 0)
    w.close()
    reader = LogReader(logdir)
    assert reader.runs() == ["."]
    assert reader.tags(".")["scalars"] == ["ours", "theirs"]
    assert sorted(info.format for info in reader.writers(".")) == ["tfevents", "visualdl"]


@pytest.mark.parametrize("writer", WRITERS)
def test_tfevents_purge_step_replaces_orphaned_points(logdir, writer):
    """A writer reopened with ``purge_step=5`` supersedes the points from step 5 on, as
    TensorBoard drops them; they stay readable as replaced points."""
    cls = summary_writer(writer)
    first = cls(logdir, filename_suffix=".first")
    for step in range(10):
        first.add_scalar("x", float(step), step)
    first.close()
    second = cls(logdir, filename_suffix=".second", purge_step=5)
    for step in range(7, 12):
        second.add_scalar("x", 100.0 + step, step)
    second.close()
    reader = LogReader(logdir)
    kept = reader.scalars(".", "x")
    assert kept.steps.tolist() == [0, 1, 2, 3, 4, 7, 8, 9, 10, 11]
    assert kept.values.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 107.0, 108.0, 109.0, 110.0, 111.0]
    assert reader.scalars(".", "x", replaced=True).steps.tolist() == [5, 6, 7, 8, 9]


@pytest.mark.e2e  # torch's writer (torch: an e2e extra)
def test_tfevents_session_start_within_a_file(logdir):
    from tensorboard.compat.proto.event_pb2 import Event, SessionLog

    w = torch_writer()(logdir)
    for step in range(6):
        w.add_scalar("x", float(step), step)
        w.add_scalar("y", -float(step), step)
    w.flush()
    reader = LogReader(logdir)
    assert reader.scalars(".", "y").steps.tolist() == list(range(6))
    w._get_file_writer().add_event(Event(step=3, session_log=SessionLog(status=SessionLog.START)))
    w.add_scalar("x", 30.0, 3)
    w.close()
    reader.poll()
    assert reader.scalars(".", "x").steps.tolist() == [0, 1, 2, 3]
    assert reader.scalars(".", "x").values.tolist() == [0.0, 1.0, 2.0, 30.0]
    assert reader.scalars(".", "y").steps.tolist() == [0, 1, 2]  # every tag of the run
    assert reader.scalars(".", "y", replaced=True).steps.tolist() == [3, 4, 5]
