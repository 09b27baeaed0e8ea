"""VisualDL 2 log files (tests/data/vdl2, written by VisualDL 2.5.3) through LogReader: every
value written comes back exactly, runs are named as VisualDL 2 names them, damaged and
growing files are followed as our own are, and a run may mix the three formats."""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import shutil
from typing import Any

import numpy as np
import pytest
from kit.paths import DATA
from kit.requirements import require
from PIL import Image

from visualdl import LogReader
from visualdl._cli import summarise
from visualdl._formats import framebatch as _framebatch
from visualdl._formats.vdl2 import decode as _vdl2
from visualdl._index import polling as _reader
from visualdl._index import tail as _tail
from visualdl._index.discovery import open_log
from visualdl._kinds.table import ScalarBlock
from visualdl._storage import LocalStore

try:
    from tensorboardX import SummaryWriter as XWriter
except ImportError:  # pragma: no cover - CI installs it
    XWriter = None

DATA = os.path.join(DATA, "vdl2")
LOGDIR = os.path.join(DATA, "logdir")
with open(os.path.join(DATA, "expected.json"), encoding="utf-8") as _file:
    EXPECTED: dict[str, Any] = json.load(_file)
WHOLE_RUNS = [run for run in EXPECTED["runs"] if run != "torn"]
TORN = EXPECTED["runs"]["torn"]["files"]


def _bits(values: Any) -> list[int]:
    return np.asarray(values, np.float64).view(np.int64).tolist()


def _records(run: str) -> list[dict[str, Any]]:
    """The records of every file of ``run``, files in name order, each in file order."""
    files = EXPECTED["runs"][run]["files"]
    return [r for name in sorted(files) for r in files[name]["records"]]


def _want_scalars(records: list[dict[str, Any]]) -> dict[str, list[tuple[int, float, float]]]:
    """``tag -> [(step, value, wall time)]`` ordered by step (stable: file order among equal steps)."""
    out: dict[str, list[tuple[int, float, float]]] = {}
    for r in records:
        if r["kind"] in ("value", "tag_value"):
            tag = r["tag"] if r["kind"] == "value" else f"{r['tag']}/{r['sub_tag']}"
            out.setdefault(tag, []).append((r["step"], float(r["value"]), r["walltime_ms"] / 1000))
    return {tag: sorted(points, key=lambda p: p[0]) for tag, points in out.items()}


def _display_name(records: list[dict[str, Any]]) -> str:
    names = [r["display_name"] for r in records if r["kind"] == "meta_data" and r["display_name"]]
    return names[-1] if names else ""


@pytest.fixture(scope="module")
def reader() -> LogReader:
    return LogReader(LOGDIR)


def test_vdl2_runs_are_the_directories(reader):
    assert reader.runs() == sorted(EXPECTED["runs"])
    for run, spec in EXPECTED["runs"].items():
        infos = reader.writers(run)
        assert [os.path.basename(w.path) for w in infos] == sorted(spec["files"])
        assert {w.format for w in infos} == {"vdl2"}
        assert all(w.rank == -1 and w.pid == -1 and not w.closed for w in infos)


@pytest.mark.parametrize("run", WHOLE_RUNS)
def test_vdl2_every_value_comes_back_exactly(reader, run):
    records = _records(run)
    want = _want_scalars(records)
    tags = reader.tags(run)
    assert tags["scalars"] == sorted(want)
    for tag, points in want.items():
        series = reader.scalars(run, tag)
        assert series.steps.tolist() == [s for s, _, _ in points], tag
        assert _bits(series.values) == _bits([v for _, v, _ in points]), tag
        assert series.wall_times.tolist() == [w for _, _, w in points], tag
        assert series.steps.dtype == np.int64 and series.values.dtype == np.float64

    for kind, ours, get in (
        ("image", "images", reader.images),
        ("histogram", "histograms", reader.histograms),
        ("text", "text", reader.texts),
    ):
        wanted: dict[str, list[dict[str, Any]]] = {}
        for r in records:
            if r["kind"] == kind:
                wanted.setdefault(r["tag"], []).append(r)
        assert tags[ours] == sorted(wanted)
        for tag, rs in wanted.items():
            rs = sorted(rs, key=lambda r: r["step"])
            events = get(run, tag)
            assert [(e.step, e.wall_time) for e in events] == [(r["step"], r["walltime_ms"] / 1000) for r in rs]
            for event, r in zip(events, rs, strict=True):
                if kind == "image":
                    assert (event.height, event.width, event.channels) == tuple(r["png_shape"])
                    png = reader.read_blob(event)
                    with Image.open(io.BytesIO(png)) as img:
                        assert img.mode == r["png_mode"]
                        pixels = np.asarray(img)
                    assert hashlib.sha256(pixels.tobytes()).hexdigest() == r["sha256_png_pixels"]
                    assert pixels.tolist() == r["pixels_hwc"]
                elif kind == "histogram":
                    assert event.counts.tolist() == r["hist"] and event.edges.tolist() == r["bin_edges"]
                    assert event.count == len(r["values_passed"])
                else:
                    assert event.text == r["text"]
    assert tags["graphs"] == []

    # The writers: display names as VisualDL 2 shows them, the kinds not shown counted.
    for info in reader.writers(run):
        file_records = EXPECTED["runs"][run]["files"][os.path.basename(info.path)]["records"]
        assert info.display_name == _display_name(file_records)
        first = file_records[0]
        assert first["walltime_ms_min"] / 1000 <= info.start_time <= first["walltime_ms_max"] / 1000
        counted: dict[tuple[str, str], int] = {}
        for r in file_records:
            if r["kind"] in _vdl2.COUNTED_KINDS:
                counted[(r["tag"], r["kind"])] = counted.get((r["tag"], r["kind"]), 0) + 1
        assert info.unshown == tuple((tag, kind, n) for (tag, kind), n in sorted(counted.items()))


def test_vdl2_small_windows_and_rounds_read_the_same(monkeypatch, reader):
    """Records longer than the read window, rounds that stop after any record: the same data."""
    monkeypatch.setattr(_tail, "_WINDOW", 37)
    monkeypatch.setattr(_reader, "ROUND_BYTES", 50)
    small = LogReader(LOGDIR)
    assert [(p.path, p.offset) for p in small.problems] == [(p.path, p.offset) for p in reader.problems]
    for run in WHOLE_RUNS:
        assert small.tags(run) == reader.tags(run)
        for tag in reader.tags(run)["scalars"]:
            a, b = small.scalars(run, tag), reader.scalars(run, tag)
            assert (a.steps.tolist(), _bits(a.values)) == (b.steps.tolist(), _bits(b.values))
        for tag in reader.tags(run)["images"]:
            assert [small.read_blob(e) for e in small.images(run, tag)] == [
                reader.read_blob(e) for e in reader.images(run, tag)
            ]
        assert [w.display_name for w in small.writers(run)] == [w.display_name for w in reader.writers(run)]


def test_vdl2_image_bytes_are_the_files_and_read_from_it(reader):
    """The PNG is not kept: open_blob says where it lies, the bytes there are the record's."""
    for tag in reader.tags("kinds")["images"]:
        for event in reader.images("kinds", tag):
            assert isinstance(event.ref, _vdl2.ValueRef)
            path, offset, length = reader._index.open_blob(event)
            with open(path, "rb") as f:
                data = f.read()
            payload = data[
                event.ref.offset + 8 : event.ref.offset + 8 + int.from_bytes(data[event.ref.offset :][:8], "little")
            ]
            png = _vdl2.png_of(payload, event.ref.value)
            assert data[offset : offset + length] == png == reader.read_blob(event)


def test_vdl2_image_changed_on_disk_is_a_format_error(tmp_path):
    from visualdl.errors import LogFormatError

    shutil.copytree(os.path.join(LOGDIR, "kinds"), tmp_path / "kinds")
    reader = LogReader(tmp_path)
    event = reader.images("kinds", "samples/rgb")[0]
    (path,) = [w.path for w in reader.writers("kinds")]
    with open(path, "rb") as f:
        data = bytearray(f.read())
    _, offset, _ = reader._index.open_blob(event)
    data[offset : offset + 4] = b"GIF8"
    with open(path, "wb") as f:
        f.write(data)
    with pytest.raises(LogFormatError, match="not a PNG"):
        reader.read_blob(event)
    with open(path, "wb") as f:
        f.write(data[: event.ref.offset + 20])
    with pytest.raises(LogFormatError, match="gone"):
        reader.read_blob(event)


def test_vdl2_only_the_garbage_is_a_problem_while_files_may_grow(reader):
    problems = [(os.path.relpath(p.path, LOGDIR), p.offset) for p in reader.problems]
    assert problems == [("torn/vdlrecords.1700000403.log", 248)]
    (problem,) = reader.problems
    assert str(TORN["vdlrecords.1700000403.log"]["garbage_first8_as_le_u64"]) in problem.message


@pytest.fixture
def clock(monkeypatch):
    class Clock:
        now = 1000.0

        def __call__(self) -> float:
            return self.now

    fake = Clock()
    monkeypatch.setattr(_tail, "_now", fake)
    return fake


@pytest.fixture
def torn_apart(tmp_path) -> str:
    """Each torn fixture file alone in a run of its own (named after the file)."""
    for name in TORN:
        os.makedirs(tmp_path / name)
        shutil.copy(os.path.join(LOGDIR, "torn", name), tmp_path / name / name)
    return str(tmp_path)


def test_vdl2_torn_files_keep_their_whole_records_and_report_a_torn_write_once_stopped(torn_apart, clock):
    reader = LogReader(torn_apart)
    for name, spec in TORN.items():
        want = _want_scalars(spec["records"][: spec["complete_records"]])
        for tag, points in want.items():
            series = reader.scalars(name, tag)
            assert (series.steps.tolist(), _bits(series.values)) == (
                [s for s, _, _ in points],
                _bits([v for _, v, _ in points]),
            )
    assert [(os.path.basename(p.path), p.offset) for p in reader.problems] == [("vdlrecords.1700000403.log", 248)]
    clock.now += _tail.STOPPED_SECONDS + 1
    reader.poll()
    reader.poll()  # reported once
    got = sorted((os.path.basename(p.path), p.offset, p.message) for p in reader.problems)
    assert [(name, offset) for name, offset, _ in got] == [
        ("vdlrecords.1700000401.log", TORN["vdlrecords.1700000401.log"]["last_complete_record_end"]),
        ("vdlrecords.1700000402.log", TORN["vdlrecords.1700000402.log"]["last_complete_record_end"]),
        ("vdlrecords.1700000403.log", 248),
    ]
    assert "truncated record of 21 bytes" in got[0][2] and "truncated record of 3 bytes" in got[1][2]


def test_vdl2_torn_write_then_completed_is_read(torn_apart, clock):
    """A writer that comes back after its file stopped growing: the record completed is read."""
    name = "vdlrecords.1700000401.log"
    reader = LogReader(torn_apart)
    clock.now += _tail.STOPPED_SECONDS + 1
    reader.poll()
    assert len(reader.problems) == 3
    with open(os.path.join(LOGDIR, "torn", "vdlrecords.1700000403.log"), "rb") as f:
        whole = f.read()[:248]
    with open(os.path.join(torn_apart, name, name), "wb") as f:
        f.write(whole)
    reader.poll()
    lost = TORN[name]["lost_record"]
    assert reader.scalars(name, lost["tag"]).steps.tolist()[-1] == lost["step"]


def test_vdl2_live_file_copied_in_pieces(logdir, clock):
    """A file growing a piece at a time, cut anywhere (mid-record, mid-length): no problem
    for the torn tail while it may grow; every value once it is whole."""
    run = "scalars"
    (name,) = EXPECTED["runs"][run]["files"]
    with open(os.path.join(LOGDIR, run, name), "rb") as f:
        data = f.read()
    os.makedirs(os.path.join(logdir, run))
    path = os.path.join(logdir, run, name)
    frames = _vdl2.scan(data).frames
    cuts = sorted({3, frames[1][0] + 4, frames[2][0] + 11, frames[5][0] + 8, len(data) // 2, len(data) - 1})
    reader = LogReader(logdir)
    done = 0
    for cut in [*cuts, len(data)]:
        with open(path, "ab") as f:
            f.write(data[done:cut])
        done = cut
        clock.now += _tail.STOPPED_SECONDS / 2  # growing: never seen still for STOPPED_SECONDS
        reader.poll()
        assert reader.problems == []
        whole = sum(1 for offset, payload in frames if offset + 8 + len(payload) <= cut)
        if run in reader.runs():
            count = sum(len(reader.scalars(run, t)) for t in reader.tags(run)["scalars"])
            assert count == sum(1 for _, p in frames[:whole] if _vdl2.parse_record(p).values[0].tag != "meta_data_tag")
    want = _want_scalars(_records(run))
    for tag, points in want.items():
        assert _bits(reader.scalars(run, tag).values) == _bits([v for _, v, _ in points])
    clock.now += _tail.STOPPED_SECONDS + 1
    reader.poll()
    assert reader.problems == []
    (info,) = reader.writers(run)
    assert info.display_name == _display_name(_records(run)) != ""


def test_vdl2_next_to_our_files_and_tensorboard_files_in_one_run(logdir):
    from visualdl import LogWriter

    require(XWriter is not None, "tensorboardX", "pip install -e '.[bench]'")
    with LogWriter(logdir) as ours:
        ours.add_scalar("ours", 1.0, 0)
        ours.add_text("ours/text", "mine", 0)
    theirs = XWriter(logdir)
    theirs.add_scalar("theirs", 2.0, 0)
    theirs.add_histogram("theirs/hist", np.arange(5.0), 0)
    theirs.close()
    for run in ("scalars", "kinds"):
        (name,) = EXPECTED["runs"][run]["files"]
        shutil.copy(os.path.join(LOGDIR, run, name), os.path.join(logdir, name))
    reader = LogReader(logdir)
    assert reader.runs() == ["."]
    want = sorted(["ours", "theirs", *_want_scalars(_records("scalars"))])
    tags = reader.tags(".")
    assert tags["scalars"] == want
    assert tags["text"] == sorted(["ours/text", "notes/log", "notes/no step"])
    assert tags["histograms"] == sorted(["theirs/hist", "weights/constant", "weights/default buckets", "weights/w1"])
    assert tags["images"] == ["samples/gray", "samples/rgb"]
    assert sorted(w.format for w in reader.writers(".")) == ["tfevents", "vdl2", "vdl2", "visualdl"]
    assert reader.scalars(".", "ours").values.tolist() == [1.0] and reader.scalars(".", "theirs").values.tolist() == [
        2.0
    ]
    assert _bits(reader.scalars(".", "train/loss").values) == _bits(
        [v for _, v, _ in _want_scalars(_records("scalars"))["train/loss"]]
    )
    assert len(reader.read_blob(reader.images(".", "samples/rgb")[0])) > 8
    assert reader.problems == []
    text = summarise(logdir)
    assert "run '.': 4 file(s)" in text and "samples/rgb: 3 entries" in text
    assert f"train/loss: {len(_want_scalars(_records('scalars'))['train/loss'])} points" in text


def test_vdl2_inspect_lists_runs_tags_and_the_garbage():
    text = summarise(LOGDIR)
    assert f"{len(EXPECTED['runs'])} run(s)" in text
    assert "run 'multi': 2 file(s)" in text and "scalars    loss: 10 points" in text
    assert "images     samples/rgb: 3 entries" in text
    assert "vdlrecords.1700000403.log at byte 248" in text


def test_vdl2_notebook_figures(tmp_path):
    from visualdl import notebook

    shutil.copytree(LOGDIR, tmp_path / "logs", ignore=shutil.ignore_patterns("torn"))
    logs = tmp_path / "logs"
    fig = notebook.scalars(logs, tags="^train/loss$", runs=["scalars"], smoothing=0)
    (raw,) = [t for t in fig.data if t.name == "scalars (raw)"]
    want = _want_scalars(_records("scalars"))["train/loss"]
    assert list(raw.x) == [s for s, _, _ in want]
    assert [v for v in raw.y if not math.isnan(v)] == [v for _, v, _ in want if not math.isnan(v)]
    images = notebook.images(logs, "samples/rgb")
    assert [f.name for f in images.frames] == ["0", "1", "2"]
    hist = notebook.histograms(logs, "weights/w1", mode="overlay")
    assert len(hist.data) >= 1


def _frames(items: list[tuple[int, Any]]) -> list[tuple[int, bytes]]:
    """A read's items, its batches as the ``(offset, payload)`` of their records."""
    out = []
    for offset, item in items:
        if isinstance(item, _framebatch.Batch):
            out += [(offset + item.frame(i), item.payload(i)) for i in range(len(item))]
        else:
            out.append((offset, item))
    return out


@pytest.mark.parametrize("run", ["kinds", "scalars"])
def test_vdl2_a_file_cut_anywhere_is_read_whole_once_complete(tmp_path, run):
    """A file cut anywhere (a write seen half done): the first read takes the records
    before it and reports nothing, the next takes the rest."""
    (name,) = EXPECTED["runs"][run]["files"]
    with open(os.path.join(LOGDIR, run, name), "rb") as f:
        data = f.read()
    whole = _vdl2.scan(data).frames
    path = str(tmp_path / name)
    near = {o + d for o, _ in whole for d in range(-2, 11)}  # around every record's start and its length prefix
    for cut in sorted({*range(0, len(data) + 1, 5), *near, len(data)} & set(range(len(data) + 1))):
        with open(path, "wb") as f:
            f.write(data[:cut])
        logfile = open_log(path, LocalStore(str(tmp_path)))
        first = _frames(logfile.read())
        assert [o for o, _ in first] == [o for o, p in whole if o + 8 + len(p) <= cut], cut
        with open(path, "ab") as f:
            f.write(data[cut:])
        rest = _frames(logfile.read())
        assert first + rest == whole and logfile.problems == [], cut


def test_vdl2_garbage_then_a_record_cut_in_its_length_prefix(logdir, clock):
    """Garbage reported once; a record appended after it, first seen with its length prefix
    cut short, is read whole once written (the garbage's skip leaves those bytes)."""
    with open(os.path.join(LOGDIR, "multi", "vdlrecords.1700000300.log"), "rb") as f:
        data = f.read()
    frames = _vdl2.scan(data).frames
    garbage = bytes(range(0x90, 0xFF))
    record = data[frames[1][0] : frames[2][0]]
    path = os.path.join(logdir, "vdlrecords.1.log")
    with open(path, "wb") as f:
        f.write(data[: frames[1][0]] + garbage + record[:5])
    reader = LogReader(logdir)
    assert [p.offset for p in reader.problems] == [frames[1][0]]
    with open(path, "ab") as f:
        f.write(record[5:])
    clock.now += 1
    reader.poll()
    assert [p.offset for p in reader.problems] == [frames[1][0]]
    want = _vdl2.decode("f", frames[1:2]).events[0][2]
    assert isinstance(want, ScalarBlock)
    (tag,) = want.tags
    assert reader.scalars(".", tag).steps.tolist() == want.steps.tolist()
    clock.now += _tail.STOPPED_SECONDS + 1
    reader.poll()
    assert [p.offset for p in reader.problems] == [frames[1][0]]
