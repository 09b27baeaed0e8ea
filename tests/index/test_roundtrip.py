"""LogWriter -> files -> LogReader, every kind, exact values."""

from __future__ import annotations

import io
import math
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from PIL import Image

from visualdl import LogReader, LogWriter
from visualdl._formats.vdlog.logformat import FILE_MARKER


def _png_pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)))


def test_scalars_roundtrip_exact_with_nan_and_inf(logdir):
    values = [0.1, -2.5, float("nan"), float("inf"), float("-inf"), 1e308, 5e-324, 0.0]
    with LogWriter(logdir) as w:
        for step, value in enumerate(values):
            w.add_scalar("train/loss", value, step * 10, walltime=1_700_000_000.0 + step)
    series = LogReader(logdir).scalars(".", "train/loss")
    assert series.steps.tolist() == [0, 10, 20, 30, 40, 50, 60, 70]
    got = series.values.tolist()
    assert got[:2] == values[:2] and math.isnan(got[2]) and got[3:] == values[3:]
    assert series.wall_times.tolist() == [1_700_000_000.0 + i for i in range(8)]


def test_scalars_accept_numpy_and_tensor_like(logdir):
    class TensorLike:  # like torch/paddle: .item() and __array__, no import of those libraries
        def __init__(self, v):
            self.v = v

        def item(self):
            return self.v

        def __array__(self, dtype=None, copy=None):
            return np.asarray(self.v, dtype=dtype)

    with LogWriter(logdir) as w:
        w.add_scalar("a", np.float32(0.5), np.int64(0))  # type: ignore[arg-type]  # accepted at run time
        w.add_scalar("a", np.array(1.5), 1)
        w.add_scalar("a", TensorLike(2.5), 2)
        w.add_scalar("a", 3, 3)
        w.add_scalar("a", True, 4)
        w.add_scalar("a", np.array([4.25]), 5.0)  # type: ignore[arg-type]  # an integral float step
    series = LogReader(logdir).scalars(".", "a")
    assert series.values.tolist() == [0.5, 1.5, 2.5, 3.0, 1.0, 4.25]
    assert series.steps.tolist() == [0, 1, 2, 3, 4, 5]


def test_walltime_milliseconds_and_seconds(logdir):
    with LogWriter(logdir) as w:
        w.add_scalar("t", 1.0, 0, walltime=1_700_000_000_123)  # VisualDL 2: milliseconds
        w.add_scalar("t", 1.0, 1, walltime=1_700_000_001.5)  # seconds
    walls = LogReader(logdir).scalars(".", "t").wall_times.tolist()
    assert walls == [1_700_000_000.123, 1_700_000_001.5]


def test_add_scalars_makes_one_tag_per_key(logdir):
    with LogWriter(logdir) as w:
        for step in range(3):
            w.add_scalars("loss", {"train": step * 1.0, "val": step * 2.0}, step)
    reader = LogReader(logdir)
    assert reader.tags(".")["scalars"] == ["loss/train", "loss/val"]
    assert reader.scalars(".", "loss/val").values.tolist() == [0.0, 2.0, 4.0]


def test_many_points_across_batches_in_step_order(logdir):
    rng = np.random.default_rng(0)
    values = rng.standard_normal(250_000)
    with LogWriter(logdir, max_queue=7_777) as w:
        for step, value in enumerate(values.tolist()):
            w.add_scalar("x", value, step)
    series = LogReader(logdir).scalars(".", "x")
    np.testing.assert_array_equal(series.values, values)
    np.testing.assert_array_equal(series.steps, np.arange(values.size))


@pytest.mark.parametrize(
    ("shape", "fmt", "dtype"),
    [((6, 5, 3), "HWC", np.uint8), ((3, 6, 5), "CHW", np.uint8), ((6, 5), "HW", np.uint8),
     ((6, 5, 4), "HWC", np.uint8), ((6, 5, 1), "HWC", np.uint8), ((6, 5, 3), "HWC", np.float32)],
)  # fmt: skip
def test_images_roundtrip_pixels(logdir, shape, fmt, dtype):
    rng = np.random.default_rng(1)
    if dtype == np.uint8:
        img = rng.integers(0, 256, shape, dtype=np.uint8)
        expected = img
    else:
        img = rng.random(shape).astype(dtype)
        expected = np.rint(img * 255).astype(np.uint8)
    with LogWriter(logdir) as w:
        w.add_image("sample", img, 7, dataformats=fmt)
    reader = LogReader(logdir)
    (event,) = reader.images(".", "sample")
    pixels = _png_pixels(reader.read_blob(event))
    if fmt == "CHW":
        expected = expected.transpose(1, 2, 0)
    if expected.ndim == 3 and expected.shape[2] == 1:
        expected = expected[:, :, 0]
    np.testing.assert_array_equal(pixels, expected)
    assert (event.step, event.height, event.width) == (7, 6, 5)


def test_pil_image_accepted(logdir):
    img = Image.new("RGB", (4, 3), (10, 20, 30))
    with LogWriter(logdir) as w:
        w.add_image("pil", img, 0)
    reader = LogReader(logdir)
    (event,) = reader.images(".", "pil")
    assert _png_pixels(reader.read_blob(event))[2, 3].tolist() == [10, 20, 30]


def test_every_image_step_is_kept(logdir):
    img = np.zeros((2, 2, 3), np.uint8)
    with LogWriter(logdir) as w:
        for step in range(500):
            w.add_image("many", img, step)
    assert [e.step for e in LogReader(logdir).images(".", "many")] == list(range(500))


def test_histogram_roundtrip_with_non_finite(logdir):
    values = np.array([0.0, 1.0, 1.0, 2.0, 3.0, np.nan, np.inf, -np.inf, -np.inf], np.float32)
    with LogWriter(logdir) as w:
        w.add_histogram("w", values, 4, buckets=3)
    (h,) = LogReader(logdir).histograms(".", "w")
    finite = values[np.isfinite(values)].astype(np.float64)
    counts, edges = np.histogram(finite, bins=3)
    assert h.step == 4
    assert h.edges.tolist() == edges.tolist() and h.counts.tolist() == counts.tolist()
    assert (h.min, h.max, h.sum, h.sum_squares, h.count) == (0.0, 3.0, 7.0, 15.0, 5)
    assert (h.nan_count, h.pos_inf_count, h.neg_inf_count) == (1, 1, 2)


def test_text_roundtrip(logdir):
    with LogWriter(logdir) as w:
        w.add_text("notes", "# héllo\n*world*", 3)
        w.add_text("notes", "default step")
    texts = LogReader(logdir).texts(".", "notes")
    assert [(t.step, t.text) for t in texts] == [(0, "default step"), (3, "# héllo\n*world*")]


def _model(name: str) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], name, [x], [y])
    return helper.make_model(graph)


def test_graphs_roundtrip_modelproto_path_bytes_newest_wins(logdir, tmp_path):
    first, second = _model("net"), _model("net")
    second.doc_string = "second"
    path = tmp_path / "other.onnx"
    onnx.save(_model("other"), str(path))
    with LogWriter(logdir) as w:
        w.add_graph(first)
        w.add_graph(second)
        w.add_graph(str(path))
        w.add_graph(first.SerializeToString(), name="raw")
    reader = LogReader(logdir)
    graphs = {g.name: g for g in reader.graphs(".")}
    assert sorted(graphs) == ["net", "other", "raw"]
    assert onnx.load_from_string(reader.read_blob(graphs["net"])).doc_string == "second"
    assert onnx.load_from_string(reader.read_blob(graphs["other"])).graph.name == "other"
    assert reader.read_blob(graphs["raw"]) == first.SerializeToString()


def test_file_name_and_header(logdir):
    with LogWriter(logdir, display_name="trainer-a", filename_suffix=".x") as w:
        w.add_scalar("a", 1.0, 0)
        path = w.file_name
    name = os.path.basename(path)
    assert FILE_MARKER in name and name.endswith(".x") and "tfevents" not in name
    assert not name.startswith("vdlrecords.")
    (info,) = LogReader(logdir).writers(".")
    assert info.display_name == "trainer-a" and info.pid == os.getpid() and info.closed
    assert len(info.writer_id) == 32 and info.rank == -1


def test_explicit_file_name_appends(logdir):
    for value in (1.0, 2.0):
        with LogWriter(logdir, file_name="mine.vdlog") as w:
            w.add_scalar("a", value, int(value))
    assert os.listdir(logdir) == ["mine.vdlog"]
    assert LogReader(logdir).scalars(".", "a").values.tolist() == [1.0, 2.0]


def test_runs_are_directories_and_every_file_is_read(logdir):
    for run in ("exp1", "exp2/seed0"):
        for k in range(2):  # two writers of one run: both files are read
            with LogWriter(os.path.join(logdir, run)) as w:
                w.add_scalar("loss", float(k), k)
    reader = LogReader(logdir)
    assert reader.runs() == ["exp1", "exp2/seed0"]
    assert reader.scalars("exp2/seed0", "loss").values.tolist() == [0.0, 1.0]
    assert len(reader.writers("exp1")) == 2


def test_poll_reads_only_new_points_and_new_runs(logdir):
    w = LogWriter(os.path.join(logdir, "a"))
    w.add_scalar("x", 1.0, 0)
    w.flush()
    reader = LogReader(logdir)
    first = reader.scalars("a", "x")
    w.add_scalar("x", 2.0, 1)
    w.flush()
    with LogWriter(os.path.join(logdir, "b")) as other:
        other.add_scalar("y", 3.0, 0)
    result = reader.poll()
    assert result.new_records >= 2
    assert reader.scalars("a", "x").values.tolist() == [1.0, 2.0]
    assert first.values.tolist() == [1.0]  # earlier views never change
    assert reader.runs() == ["a", "b"]
    w.close()
    assert reader.poll().bytes_read > 0  # the footer
    assert reader.poll().bytes_read == 0


def test_removed_run_disappears(logdir):
    import shutil

    with LogWriter(os.path.join(logdir, "gone")) as w:
        w.add_scalar("x", 1.0, 0)
    reader = LogReader(logdir)
    assert reader.runs() == ["gone"]
    shutil.rmtree(os.path.join(logdir, "gone"))
    reader.poll()
    assert reader.runs() == []


def test_unknown_run_or_tag_raises_keyerror(logdir):
    with LogWriter(logdir) as w:
        w.add_scalar("x", 1.0, 0)
    reader = LogReader(logdir)
    with pytest.raises(KeyError, match="unknown run 'nope'"):
        reader.scalars("nope", "x")
    with pytest.raises(KeyError, match="no scalars tag 'y'"):
        reader.scalars(".", "y")


def test_missing_logdir_is_named_or_with_load_false_awaited(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"logdir '.*typo' does not exist"):
        LogReader(str(tmp_path / "typo"))  # a mistyped path is not an empty logdir
    reader = LogReader(str(tmp_path / "not-yet"), load=False)
    reader.poll()
    assert reader.runs() == []
    with LogWriter(str(tmp_path / "not-yet")) as w:
        w.add_scalar("x", 1.0, 0)
    reader.poll()
    assert reader.runs() == ["."]


def test_histogram_of_only_non_finite_values(logdir):
    with LogWriter(logdir) as w:
        w.add_histogram("w", [np.nan, np.inf], 0)
    (h,) = LogReader(logdir).histograms(".", "w")
    assert h.edges.size == h.counts.size == 0 and h.count == 0
    assert (h.nan_count, h.pos_inf_count, h.neg_inf_count) == (1, 1, 0)


def test_one_flush_of_many_tags_is_one_record_split_past_the_limit(logdir, monkeypatch):
    from visualdl.sdk import _sink as sink

    monkeypatch.setattr(sink, "_MAX_POINTS_PER_RECORD", 1000)
    with LogWriter(logdir, flush_secs=3600, provenance=False) as w:
        for step in range(700):
            for tag in ("a", "b", "c"):
                w.add_scalar(tag, step * 0.5, step)
        w.flush()
        assert w.stats()["records"] == 3  # 2,100 points in records of at most 1,000
    reader = LogReader(logdir)
    for tag in ("a", "b", "c"):
        series = reader.scalars(".", tag)
        assert series.steps.tolist() == list(range(700))
        assert series.values.tolist() == [s * 0.5 for s in range(700)]


def test_histogram_wider_than_the_float_range(logdir):
    with LogWriter(logdir) as w:
        w.add_histogram("wide", [-1.7e308, 0.0, 1.7e308], 0, buckets=4)
    (h,) = LogReader(logdir).histograms(".", "wide")
    assert h.counts.tolist() == [1.0, 0.0, 1.0, 1.0] or h.counts.sum() == 3.0
    assert (h.edges[0], h.edges[-1], h.count) == (-1.7e308, 1.7e308, 3)
    assert np.all(np.isfinite(h.edges)) and np.all(np.diff(h.edges) > 0)


def test_write_to_disk_false_checks_and_writes_nothing(logdir):
    w = LogWriter(logdir, write_to_disk=False)
    w.add_scalar("x", 1.0, 0)
    with pytest.raises(TypeError, match="value must be a real number"):
        w.add_scalar("x", "bad", 1)
    w.flush()
    w.close()
    assert os.listdir(logdir) == []


def test_explicit_file_name_cuts_a_torn_tail_before_appending(logdir):
    path = os.path.join(logdir, "resumed.vdlog")
    with LogWriter(logdir, file_name="resumed.vdlog") as w:
        for step in range(100):
            w.add_scalar("x", float(step), step)
    from visualdl._formats.framing import frame

    with open(path, "ab") as f:  # a killed writer's last, incomplete record
        f.write(frame(b"x" * 5000)[:1000])
    with LogWriter(logdir, file_name="resumed.vdlog") as w:
        for step in range(100, 200):
            w.add_scalar("x", float(step), step)
    reader = LogReader(logdir)
    assert reader.scalars(".", "x").steps.tolist() == list(range(200))
    assert reader.problems == []
    with open(path, "ab") as f:  # junk at the end is cut too
        f.write(b"\xff" * 300)
    with LogWriter(logdir, file_name="resumed.vdlog") as w:
        w.add_scalar("x", 200.0, 200)
    reader = LogReader(logdir)
    assert reader.scalars(".", "x").steps.tolist() == list(range(201))
    assert reader.problems == []
