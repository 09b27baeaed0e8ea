"""Segment names: how a writer's uploads are named and read back in order, whoever else
writes beside it (``visualdl/_storage/segments.py``)."""

from __future__ import annotations

import os
import re
import time

from visualdl import LogReader, LogWriter
from visualdl._storage import open_store
from visualdl._storage.objects import filesystem
from visualdl._storage.segments import group_segments, segment_name, shared_log_name, split_segment


def test_segments_a_millionth_segment_is_still_a_segment_of_its_log():
    names = [segment_name(1_700_000_000_000 + seq, seq, "x.vdlog") for seq in (999_998, 999_999, 1_000_000, 1_000_001)]
    assert [split_segment(n) for n in names] == [
        ("x.vdlog", 1_700_000_000_000 + seq, seq) for seq in (999_998, 999_999, 1_000_000, 1_000_001)
    ]
    plain, grouped = group_segments(reversed(names))
    assert plain == [] and grouped == {"x.vdlog": names}


def test_segments_a_shared_name_gets_a_writers_token_before_its_marker():
    assert re.fullmatch(r"train\.[0-9a-f]{8}\.vdlog", shared_log_name("train.vdlog"))
    assert shared_log_name("vdlrecords.1.log.vdlog", "0badf00d") == "vdlrecords.1.log.0badf00d.vdlog"
    assert shared_log_name("train.vdlog-rank3", "0badf00d") == "train.0badf00d.vdlog-rank3"
    assert shared_log_name("train.vdlog") != shared_log_name("train.vdlog")


def test_segments_two_writers_of_one_name_in_one_millisecond_keep_both_uploads(monkeypatch):
    """The clock stopped: both writers of ``train.vdlog`` upload at the same millisecond
    with the same sequence number, and neither overwrites the other."""
    url = f"memory://vdl-segments-{os.getpid()}-{time.time_ns()}"
    store = open_store(url)
    monkeypatch.setattr("visualdl._storage.objects.time.time", lambda: 1_800_000_000.0)
    outs = [store.appender("run", "train.vdlog", exclusive=False, upload_secs=3600, upload_bytes=1 << 20) for _ in "ab"]
    for out, body in zip(outs, (b"first", b"second"), strict=True):
        out.begin(b"head:")
        out.write(body)
        out.flush()
        out.close()
    listing = store.list(lambda name: ".vdlog" in name)
    (logs,) = listing.directories.values()
    assert sorted(logs) == sorted(out.path for out in outs) and len(logs) == 2
    contents = set()
    for path in logs:
        with store.open(path) as f:
            contents.add(f.read())
    assert contents == {b"head:first", b"head:second"}


def test_segments_one_listed_late_between_two_read_ones_reads_the_log_again_once():
    """A segment that shows up between two already read (listed late by a store, or put
    back) makes its log another file: read again from the start, every point once."""
    url = f"memory://vdl-segments-late-{os.getpid()}-{time.time_ns()}"
    w = LogWriter(f"{url}/run", upload_secs=3600)
    for step in range(3):
        w.add_scalar("x", float(step), step)
        w.flush()
    fs, root = filesystem(url)
    names = sorted(p.rpartition("/")[2] for p in fs.find(f"{root}/run"))
    assert len(names) == 3  # one segment per flush; the writer is still running
    late = f"{root}/run/{names[1]}"
    body = fs.cat_file(late)
    fs.rm(late)
    reader = LogReader(url)
    assert reader.scalars("run", "x").steps.tolist() == [0, 2]
    fs.pipe_file(late, body)
    reader.poll()
    assert reader.scalars("run", "x").steps.tolist() == [0, 1, 2]
    assert reader.scalars("run", "x").values.tolist() == [0.0, 1.0, 2.0]
    assert not reader.problems
    w.close()
