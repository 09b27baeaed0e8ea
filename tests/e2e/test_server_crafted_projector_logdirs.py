"""A server of two logdirs, the first holding a crafted projector config and a crafted
fatal-signal sidecar: the first poll ends (``/api/health`` is no longer "loading"), the
second logdir is indexed, and ``/api/health`` names each bad file among its problems."""

from __future__ import annotations

import os

from kit.servers import get_json, serve_cli

from visualdl import LogWriter

LOAD_SECONDS = 120.0  # a loaded machine: the server's start and first poll


def test_server_crafted_projector_config_is_a_problem_and_the_next_logdir_is_read(tmp_path):
    first, second = str(tmp_path / "first"), str(tmp_path / "second")
    with LogWriter(os.path.join(first, "bad")) as w:
        w.add_scalar("loss", 1.0, 0)
    with open(os.path.join(first, "bad", "projector_config.pbtxt"), "w") as f:
        f.write('embeddings { tensor_path: "t.tsv" tensor_shape: 09 }\n')
    writer = LogWriter(os.path.join(first, "crashed"))  # a live writer whose sidecar names a pid of 5,000 digits
    writer.add_scalar("loss", 2.0, 0)
    writer.flush()
    sidecar = writer._sink.path + ".fatal"
    with open(sidecar, "ab") as f:
        writer_id = writer._sink.writer_id  # type: ignore[union-attr]
        f.write(f"visualdl fatal-signal sidecar: writer {writer_id} pid {'9' * 5000}\n".encode())
        f.write(b"Fatal Python error: Segmentation fault\n")
    with LogWriter(os.path.join(second, "good")) as w:
        w.add_scalar("accuracy", 0.5, 3)
    try:
        with serve_cli(["--logdir", first, second], str(tmp_path / "server.log"), timeout=LOAD_SECONDS) as base:
            health = get_json(base + "api/health", timeout=30)
            assert health["loaded"] and health["status"] != "loading"
            files = {(p["logdir"], p["file"]) for p in health["problems"]}  # a logdir by its name
            assert ("first", os.path.join("bad", "projector_config.pbtxt")) in files
            assert ("first", os.path.relpath(sidecar, first)) in files
            config = next(p for p in health["problems"] if p["file"].endswith("projector_config.pbtxt"))
            assert config["message"].startswith("line 1: 09 is not a uint32")
            runs = [r["name"] for r in get_json(base + "api/runs", timeout=30)["runs"]]
            assert sum(r.endswith("good") for r in runs) == 1 and sum(r.endswith("bad") for r in runs) == 1
            tags = get_json(base + "api/tags", timeout=30)["scalars"]
            assert [r for r in tags["accuracy"] if r.endswith("good")]  # the second logdir, indexed
    finally:
        writer.close()
