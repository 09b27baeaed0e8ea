"""The writer round trip and the Store interface, against each kind of store alike: a
local directory, the in-memory store (``memory://``) and an S3 API server on loopback.

``store_url`` names a fresh logdir in one of them; a test that takes it runs three times.
"""

from __future__ import annotations

import io
import math
import os
import re
import subprocess
import time

import numpy as np
import pytest
from PIL import Image

from visualdl import LogReader, LogWriter, notebook
from visualdl._formats.vdlog.logformat import is_log_file
from visualdl._storage import LocalStore, ObjectStore, Store, open_store
from visualdl._storage.segments import split_segment


@pytest.fixture(params=["local", "memory", "s3"])
def store_url(request, tmp_path) -> str:
    """A fresh logdir: a local path, a ``memory://`` URL or an ``s3://`` URL."""
    if request.param == "local":
        return str(tmp_path / "logs")
    if request.param == "memory":
        return f"memory://vdl-test-{os.getpid()}-{time.time_ns()}"
    return f"{request.getfixturevalue('bucket')}/logs"


def _writer(url: str, **kwargs) -> LogWriter:
    return LogWriter(url, upload_secs=3600, **kwargs)


def test_store_roundtrip_scalars_exact_with_nan_and_inf(store_url):
    values = [0.1, -2.5, float("nan"), float("inf"), float("-inf"), 1e308, 5e-324, 0.0]
    with _writer(f"{store_url}/run") as w:
        for step, value in enumerate(values):
            w.add_scalar("train/loss", value, step * 10, walltime=1_700_000_000.0 + step)
    series = LogReader(store_url).scalars("run", "train/loss")
    assert series.steps.tolist() == [0, 10, 20, 30, 40, 50, 60, 70]
    got = series.values.tolist()
    assert got[:2] == values[:2] and math.isnan(got[2]) and got[3:] == values[3:]
    assert series.wall_times.tolist() == [1_700_000_000.0 + i for i in range(8)]


def test_store_roundtrip_every_flush_is_read_by_a_poll(store_url):
    w = _writer(f"{store_url}/run")
    w.add_scalar("loss", 2.0, 0)
    w.flush()
    reader = LogReader(store_url)
    assert reader.scalars("run", "loss").values.tolist() == [2.0]
    w.add_scalars("pair", {"a": 1.0, "b": 2.0}, 1)
    w.add_scalar("loss", 3.0, 1)
    w.close()
    reader.poll()
    assert reader.scalars("run", "loss").values.tolist() == [2.0, 3.0]
    assert sorted(reader.tags("run")["scalars"]) == ["loss", "pair/a", "pair/b"]
    assert reader.writers("run")[0].closed


def test_store_roundtrip_images_histograms_and_text(store_url):
    pixels = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    with _writer(f"{store_url}/run") as w:
        w.add_image("img", pixels, 0)
        w.add_histogram("h", np.array([0.0, 1.0, 1.0, 2.0]), 0, buckets=3)
        w.add_text("note", "hello", 0)
    reader = LogReader(store_url)
    (image,) = reader.images("run", "img")
    assert np.asarray(Image.open(io.BytesIO(reader.read_blob(image)))).tolist() == pixels.tolist()
    (histogram,) = reader.histograms("run", "h")
    assert histogram.counts.tolist() == [1, 2, 1]
    assert [t.text for t in reader.texts("run", "note")] == ["hello"]


def test_store_roundtrip_runs_are_directories_and_the_logdir_is_one(store_url):
    for run in ("a", "b/c"):
        with _writer(f"{store_url}/{run}") as w:
            w.add_scalar("x", 1.0, 0)
    with _writer(store_url) as w:
        w.add_scalar("x", 1.0, 0)
    store = open_store(store_url)
    assert sorted(store.relative(d) for d in store.list(is_log_file).directories) == [".", "a", "b/c"]
    assert LogReader(store_url).runs() == [".", "a", "b/c"]


def test_store_reader_a_logdir_that_is_one_run_reads_as_run_dot(store_url):
    """Logs at the logdir itself (at a bucket prefix as on a disk) are the run ``.``."""
    with _writer(store_url) as w:
        w.add_scalar("x", 1.0, 0)
    reader = LogReader(store_url)
    assert reader.runs() == ["."]
    assert reader.scalars(".", "x").values.tolist() == [1.0]


def test_store_reader_index_takes_a_store_and_reads_through_it(store_url):
    """An image blob is located and streamed through the index's own store; a second
    index over the same logdir keeps its own listing (no registry shared by readers)."""
    from visualdl._index.index import Index

    pixels = np.full((3, 2, 3), 7, dtype=np.uint8)
    w = _writer(f"{store_url}/run")
    w.add_image("img", pixels, 0)
    w.add_scalar("loss", 1.0, 0)
    w.flush()
    store = open_store(store_url)
    index = Index(store, load=True)
    assert index.store is store and index.logdir == store.logdir
    assert index.runs() == ["run"]
    assert index.tags("run")["images"] == ["img"] and index.tags("run")["scalars"] == ["loss"]
    (image,) = index.images("run", "img")
    path, offset, length = index.open_blob(image)
    with index.open_log(path) as f:
        f.seek(offset)
        png = f.read(length)
    assert png == index.read_blob(image)
    assert np.asarray(Image.open(io.BytesIO(png))).tolist() == pixels.tolist()
    other = LogReader(store_url)
    assert other._index.store is not store and other.read_blob(other.images("run", "img")[0]) == png
    w.add_scalar("loss", 2.0, 1)
    w.add_image("img", pixels, 1)
    w.close()
    assert index.poll().new_records > 0
    assert index.scalars("run", "loss").values.tolist() == [1.0, 2.0]
    assert [e.step for e in index.images("run", "img")] == [0, 1]
    assert index.read_blob(index.images("run", "img")[1]) == png


def test_store_reader_exists_asks_the_store_nothing_after_a_listing(store_url, monkeypatch):
    """The server's health answer (``Index.exists``) costs an object store no request: it is
    what the latest listing found."""
    with _writer(f"{store_url}/run") as w:
        w.add_scalar("x", 1.0, 0)
    from visualdl._index.index import Index

    reader = Index(store_url)
    if isinstance(reader.store, ObjectStore):
        assert not reader.exists()  # nothing listed yet

        def asked() -> bool:
            raise AssertionError("exists() sent a request")

        monkeypatch.setattr(reader.store, "exists", asked)
    reader.poll()
    assert reader.exists()


def test_store_roundtrip_an_explicit_file_name_is_appended_to(store_url):
    """On a disk, writers given one file_name append to it; in a store that cannot append,
    each writer's segments are a log of their own (one writer's never overwrite another's)."""
    paths = []
    for step in range(2):
        with _writer(f"{store_url}/run", file_name="fixed.vdlog") as w:
            w.add_scalar("x", float(step), step)
            paths.append(w.file_name)
    reader = LogReader(store_url)
    assert reader.scalars("run", "x").steps.tolist() == [0, 1]
    if isinstance(open_store(store_url), LocalStore):
        assert paths[0] == paths[1] and paths[0].endswith("/run/fixed.vdlog")
    else:
        assert paths[0] != paths[1]
        assert all(re.fullmatch(r".*/run/fixed\.[0-9a-f]{8}\.vdlog", p) for p in paths), paths
    assert sorted(w.path for w in reader.writers("run")) == sorted(set(paths))


def test_store_lists_logs_by_directory_and_reads_segments_as_one_file(store_url):
    run = f"{store_url}/run"
    w = _writer(run)
    w.add_scalar("x", 1.0, 0)
    w.flush()
    w.add_scalar("x", 2.0, 1)
    w.close()
    store = open_store(store_url)
    assert store.exists()
    listing = store.list(is_log_file)
    assert not listing.problems
    ((directory, logs),) = listing.directories.items()
    assert store.relative(directory) == "run"
    ((path, size),) = logs.items()
    assert path == w.file_name
    assert store.stat(path)[1] == size
    with store.open(path) as f:
        data = f.read()
    assert len(data) == size
    assert (store.source(path) is None) == isinstance(store, LocalStore)
    # A reader's listing asks no size that costs a call of its own (a local file's stat).
    unsized = store.list(is_log_file, sizes=False).directories[directory]
    assert unsized == ({path: -1} if isinstance(store, LocalStore) else {path: size})


def test_store_appender_segments_a_log_only_where_files_cannot_grow(store_url):
    store = open_store(store_url)
    out = store.appender("run", "x.vdlog", exclusive=True, upload_secs=3600, upload_bytes=1 << 20)
    out.begin(b"head")
    out.write(b"body")
    assert out.waiting == (0 if store.appends else 4)
    out.flush()
    out.close()
    listing = store.list(lambda name: name.endswith(".vdlog"))
    assert list(listing.directories.values()) == [{out.path: 8}]
    with store.open(out.path) as f:
        assert f.read() == b"headbody"
    if isinstance(store, ObjectStore):
        names = [p.rpartition("/")[2] for p in store.fs.find(store.root)]
        assert [split_segment(n)[0] for n in names] == ["x.vdlog"]  # type: ignore[index]


def test_open_store_takes_a_url_for_a_url_and_a_path_for_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert isinstance(open_store("s3://bucket/x"), ObjectStore)
    assert open_store("s3://bucket/x").location == "s3://bucket/x"
    local = open_store("file://" + str(tmp_path / "a"))
    assert isinstance(local, LocalStore) and local.location == str(tmp_path / "a")
    assert open_store("rel").location == str(tmp_path / "rel")
    assert isinstance(open_store("memory://m"), Store)


def test_notebook_start_passes_a_url_to_the_server_unchanged(tmp_path, monkeypatch):
    """A URL must not go through ``os.path.abspath`` (it became ``$PWD/s3:/bucket/x``)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    started: list[list[str]] = []

    class Started(Exception):
        pass

    def popen(args, **kwargs):
        started.append(list(args))
        raise Started

    monkeypatch.setattr(subprocess, "Popen", popen)
    with pytest.raises(Started):
        notebook.start("s3://bucket/x", port=1)
    args = started[0]
    assert args[args.index("--logdir") + 1] == "s3://bucket/x"


def test_local_store_opens_only_files_below_its_logdir(tmp_path):
    (tmp_path / "logs").mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("not a log")
    store = LocalStore(str(tmp_path / "logs"))
    with pytest.raises(OSError, match="not a file of the logdir"):
        store.open(str(outside))
    with pytest.raises(OSError, match="not a file of the logdir"):
        store.open(str(tmp_path / "logs") + "2/x.vdlog")  # a sibling whose name starts the same
