"""Bad input raises on the caller's thread, names the argument and value, and loses nothing."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

from visualdl import LogReader, LogWriter
from visualdl._formats.vdlog.logformat import MAX_TAG_LENGTH


@pytest.fixture
def writer(logdir):
    w = LogWriter(logdir)
    w.add_scalar("good", 1.0, 0)
    yield w
    w.close()
    # Whatever failed in the test, what was written before it is intact.
    reader = LogReader(logdir)
    assert reader.scalars(".", "good").values.tolist()[:1] == [1.0]
    assert reader.problems == []


@pytest.mark.parametrize(
    ("value", "error", "match"),
    [("1.5", TypeError, "value must be a real number; got str '1.5'"),
     (None, TypeError, "value must be a real number; got NoneType None"),
     (1 + 2j, TypeError, "value must be a real number; got complex"),
     ([1.0, 2.0], TypeError, "value must be a real number; got list"),
     (np.array([1.0, 2.0]), ValueError, r"value must be a single number; got an array of shape \(2,\)"),
     (np.array("x"), TypeError, "dtype <U1"),
     (10**400, ValueError, "value must be a real number")],
)  # fmt: skip
def test_add_scalar_bad_value(writer, value, error, match):
    with pytest.raises(error, match=match):
        writer.add_scalar("good", value, 1)


@pytest.mark.parametrize(
    ("step", "error", "match"),
    [(-1, ValueError, "step must be a non-negative integer below 2\\*\\*63; got -1"),
     (1.5, ValueError, "step must be a non-negative integer; got float 1.5"),
     ("3", TypeError, "step must be a non-negative integer; got str '3'"),
     (None, TypeError, "step must be a non-negative integer; got NoneType"),
     (True, TypeError, "step must be a non-negative integer; got bool"),
     (2**63, ValueError, "below 2\\*\\*63")],
)  # fmt: skip
def test_add_scalar_bad_step(writer, step, error, match):
    with pytest.raises(error, match=match):
        writer.add_scalar("good", 1.0, step)


@pytest.mark.parametrize(
    ("tag", "error", "match"),
    [("", ValueError, "tag must be a non-empty string; got ''"),
     ("   ", ValueError, "tag must be a non-empty string"),
     (None, TypeError, "tag must be a non-empty string; got NoneType None"),
     (3, TypeError, "tag must be a non-empty string; got int 3"),
     ("a\x00b", ValueError, "NUL"),
     ("bad\ud800", ValueError, "tag is not valid Unicode")],
)  # fmt: skip
def test_add_scalar_bad_tag(writer, tag, error, match):
    with pytest.raises(error, match=match):
        writer.add_scalar(tag, 1.0, 1)


def test_tags_longer_than_the_server_accepts_are_refused(writer, logdir, tmp_path):
    longest = "t" * MAX_TAG_LENGTH
    writer.add_scalar(longest, 1.0, 0)
    too_long = "é" * (MAX_TAG_LENGTH + 1)
    message = f"tag must be at most {MAX_TAG_LENGTH} characters.*; got {MAX_TAG_LENGTH + 1} characters"
    with pytest.raises(ValueError, match=message):
        writer.add_scalar(too_long, 1.0, 0)
    with pytest.raises(ValueError, match=message):
        writer.add_text(too_long, "x", 0)
    with pytest.raises(ValueError, match="tag must be at most"):  # the joined tag main_tag/key
        writer.add_scalars("m" * (MAX_TAG_LENGTH - 2), {"ab": 1.0}, 0)
    with pytest.raises(ValueError, match="name must be at most"):
        writer.add_graph(b"\x08\x01", name=too_long)
    writer.flush()
    assert LogReader(logdir).tags(".")["scalars"] == sorted(["good", longest])


def test_bad_walltime(writer):
    with pytest.raises(ValueError, match="walltime must be a finite, non-negative"):
        writer.add_scalar("good", 1.0, 1, walltime=float("nan"))
    with pytest.raises(TypeError, match="walltime must be a real number"):
        writer.add_scalar("good", 1.0, 1, walltime="now")


@pytest.mark.parametrize(
    ("img", "fmt", "error", "match"),
    [(np.zeros((4, 4, 2), np.uint8), "HWC", ValueError, "img must have 1, 3 or 4 channels; got 2"),
     (np.zeros((4, 4), np.uint8), "HWC", ValueError, r"img has shape \(4, 4\) but dataformats='HWC' needs 3"),
     (np.zeros((3, 4, 5), np.uint8), "HWC", ValueError, r"got 5 \(shape \(3, 4, 5\) as HWC\); check dataformats"),
     (np.full((4, 4, 3), 1.5, np.float32), "HWC", ValueError, r"must hold values in \[0, 1\]; got 1.5..1.5"),
     (np.full((4, 4, 3), np.nan, np.float32), "HWC", ValueError, r"must hold values in \[0, 1\]"),
     (np.full((4, 4, 3), 300, np.int32), "HWC", ValueError, "must hold values in 0..255; got 300..300"),
     (np.zeros((0, 4, 3), np.uint8), "HWC", ValueError, "img must not be empty"),
     (np.zeros((4, 4, 3), np.complex64), "HWC", ValueError, "dtype complex64"),
     (np.zeros((4, 4, 3), np.uint8), "NHWC", ValueError, "dataformats must be one of HWC, CHW, HW; got 'NHWC'"),
     ("picture.png", "HWC", TypeError, "img must be a numpy array, a PIL image or a tensor; got str")],
)  # fmt: skip
def test_add_image_bad_input(writer, img, fmt, error, match):
    with pytest.raises(error, match=match):
        writer.add_image("img", img, 0, dataformats=fmt)


@pytest.mark.parametrize(
    ("values", "buckets", "error", "match"),
    [([], 10, ValueError, r"values must not be empty; got an array of shape \(0,\)"),
     (np.array(["a"]), 10, TypeError, "values must be an array of numbers; got an array of dtype <U1"),
     ("abc", 10, TypeError, "values must be an array of numbers; got str"),
     ([1.0], 0, ValueError, "buckets must be an integer from 1 to 100000; got int 0"),
     ([1.0], 10**7, ValueError, "buckets must be an integer from 1 to 100000; got int 10000000"),
     ([1.0], 2.5, ValueError, "buckets must be an integer from 1 to 100000; got float 2.5")],
)  # fmt: skip
def test_add_histogram_bad_input(writer, values, buckets, error, match):
    with pytest.raises(error, match=match):
        writer.add_histogram("h", values, 0, buckets=buckets)


def test_add_text_and_graph_bad_input(writer, tmp_path):
    with pytest.raises(TypeError, match="text_string must be a str; got int 5"):
        writer.add_text("t", 5)
    with pytest.raises(ValueError, match="text_string is not valid Unicode"):
        writer.add_text("t", "lone \ud800 surrogate")
    with pytest.raises(ValueError, match=r"model path .* is not a file"):
        writer.add_graph(str(tmp_path / "missing.onnx"))
    with pytest.raises(TypeError, match="export the network to ONNX first"):
        writer.add_graph(object())
    with pytest.raises(ValueError, match="model is empty"):
        writer.add_graph(b"")


def test_add_scalars_is_all_or_nothing(writer, logdir):
    with pytest.raises(TypeError, match=r"tag_scalar_dict\['b'\] must be a real number; got str 'x'"):
        writer.add_scalars("m", {"a": 1.0, "b": "x"}, 0)
    writer.flush()
    assert LogReader(logdir).tags(".")["scalars"] == ["good"]


def test_constructor_arguments(tmp_path):
    for flush_secs in (0, -1, float("inf"), float("nan"), 1e12, True):
        with pytest.raises(ValueError, match="flush_secs must be a positive, finite number"):
            LogWriter(str(tmp_path), flush_secs=flush_secs)
    limits: tuple[Any, ...] = (-1, 0, None, 1.5)
    for limit in limits:
        with pytest.raises(ValueError, match="max_pending_bytes must be a positive integer"):
            LogWriter(str(tmp_path), max_pending_bytes=limit)
    with pytest.raises(ValueError, match="display_name is not valid Unicode"):
        LogWriter(str(tmp_path), display_name="x\udc80")
    with pytest.raises(ValueError, match="max_queue must be a positive integer"):
        LogWriter(str(tmp_path), max_queue=0)
    with pytest.raises(ValueError, match=r"file_name must not start with '\.': readers skip hidden files"):
        LogWriter(str(tmp_path), file_name=".x.vdlog")
    for name in ("sub/x.vdlog", "x.vdlog\x00"):
        with pytest.raises(ValueError, match="file_name must be a bare file name"):
            LogWriter(str(tmp_path), file_name=name)
    for suffix in ("a/b", "/", ".x\x00"):
        with pytest.raises(ValueError, match=r"filename_suffix must not contain '/'.*subdirectories into logdir"):
            LogWriter(str(tmp_path), filename_suffix=suffix)
    with pytest.raises(ValueError, match=r"logdir must not be empty; pass '\.' for the current directory"):
        LogWriter("")
    assert os.listdir(tmp_path) == []  # nothing was created by the refused writers
    with pytest.raises(TypeError, match="unexpected keyword argument 'flush_sec'"):
        LogWriter(str(tmp_path), flush_sec=1)  # type: ignore[call-arg]  # the type checker sees it too


def test_closed_writer_refuses_with_clear_error(logdir):
    w = LogWriter(logdir)
    w.close()
    w.close()  # idempotent
    w.flush()  # nothing pending: a no-op, as in VisualDL 2
    with pytest.raises(ValueError, match="this LogWriter is closed"):
        w.add_scalar("x", 1.0, 0)
