"""Projector files (torch's ``add_embedding``) in a bucket: found through the store's listing
and read by ranged GETs of objects that are not logs, the same entries as from a disk; a
path that leaves the logdir's prefix is a problem, not a request; a rewritten tensors
object is read again."""

from __future__ import annotations

import os
import time

import fsspec
import numpy as np
import pytest
from kit.writers import import_torch, torch_writer

from visualdl import LogReader
from visualdl._storage import open_store

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


def _upload(local: str, url: str) -> None:
    fs, _ = fsspec.core.url_to_fs(url)
    for directory, _, names in os.walk(local):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                fs.pipe(f"{url}/{os.path.relpath(path, local)}", f.read())


@pytest.fixture(params=["memory", "s3"])
def store_url(request) -> str:
    if request.param == "memory":
        return f"memory://vdl-projector-{os.getpid()}-{time.time_ns()}"
    return f"{request.getfixturevalue('bucket')}/logs"


@pytest.mark.e2e  # torch's writer (torch: an e2e extra)
def test_store_projector_files_read_from_objects_as_from_disk(store_url, tmp_path):
    local = str(tmp_path / "logs")
    m = np.random.default_rng(0).normal(size=(20, 3)).astype(np.float32)
    torch = import_torch()
    w = torch_writer()(os.path.join(local, "run"))
    w.add_embedding(torch.from_numpy(m), metadata=[f"p{i}" for i in range(20)], global_step=4, tag="emb")
    w.add_embedding(torch.from_numpy(m[:5] * 2), global_step=9, tag="emb")
    w.close()
    with open(os.path.join(local, "run", "projector_config.pbtxt"), "a") as f:
        f.write('embeddings { tensor_name: "up:1" tensor_path: "../../secret.tsv" }\n'
                'embeddings { tensor_name: "abs:1" tensor_path: "/etc/passwd" }\n'
                'embeddings { tensor_name: "other:1" tensor_path: "memory://elsewhere/t.tsv" }\n')  # fmt: skip
    _upload(local, store_url)
    remote = LogReader(store_url)
    disk = LogReader(local)
    for reader in (remote, disk):
        assert reader.tags("run")["embeddings"] == ["emb"]
        first, second = reader.embeddings("run", "emb")
        assert (first.step, first.metadata[:2], second.step, second.rows) == (4, (("p0",), ("p1",)), 9, 5)
        np.testing.assert_array_equal(np.frombuffer(reader.read_blob(first), "<f4").reshape(20, 3), m)
        np.testing.assert_array_equal(np.frombuffer(reader.read_blob(second), "<f4").reshape(5, 3), m[:5] * 2)
        outside = [p.message for p in reader.problems if "lies outside the logdir" in p.message]
        # A URL in a local logdir's config is a relative path there, and names no file.
        assert len(outside) == (3 if reader is remote else 2) and len(reader.problems) == 3, reader.problems
    gets = remote._index.store.requests["GET"]
    remote.poll()
    assert remote._index.store.requests["GET"] == gets  # nothing changed: nothing read again


def test_store_projector_object_rewritten_is_read_again():
    url = f"memory://vdl-projector-live-{os.getpid()}-{time.time_ns()}"
    fs, _ = fsspec.core.url_to_fs(url)
    fs.pipe(f"{url}/run/events.out.tfevents.1.host", b"")
    fs.pipe(f"{url}/run/projector_config.pbtxt", b'embeddings { tensor_name: "v:00002" tensor_path: "v.tsv" }')
    fs.pipe(f"{url}/run/v.tsv", b"1\t2\n")
    reader = LogReader(url)
    (event,) = reader.embeddings("run", "v")
    assert (event.step, np.frombuffer(reader.read_blob(event), "<f4").tolist()) == (2, [1.0, 2.0])
    fs.pipe(f"{url}/run/v.tsv", b"1\t2\n3\t4\n")
    reader.poll()
    (event,) = reader.embeddings("run", "v")
    assert np.frombuffer(reader.read_blob(event), "<f4").tolist() == [1.0, 2.0, 3.0, 4.0]


def test_store_resolve_refuses_what_leaves_the_logdir(tmp_path):
    store = open_store(str(tmp_path / "logs"))
    config = os.path.join(str(tmp_path / "logs"), "run", "projector_config.pbtxt")
    assert store.resolve(config, "00001/x/tensors.tsv") == os.path.join(
        str(tmp_path / "logs"), "run", "00001", "x", "tensors.tsv"
    )
    assert store.resolve(config, "../other/t.tsv") == os.path.join(str(tmp_path / "logs"), "other", "t.tsv")
    for name in ("../../t.tsv", "/etc/passwd", "..", "../../logs2/t.tsv"):
        with pytest.raises(ValueError, match=r"lies outside the logdir"):
            store.resolve(config, name)
    objects = open_store("memory://vdl-resolve/logs")
    assert (
        objects.resolve("memory:///vdl-resolve/logs/run/p.pbtxt", "a/../b.tsv")
        == "memory:///vdl-resolve/logs/run/b.tsv"
    )
    for name in (
        "../../x.tsv",
        "/vdl-resolve/logs/run/b.tsv",
        "s3://vdl-resolve/logs/b.tsv",
        "memory://vdl-resolve/logsx/b.tsv",
    ):
        with pytest.raises(ValueError, match=r"lies outside the logdir"):
            objects.resolve("memory:///vdl-resolve/logs/run/p.pbtxt", name)
