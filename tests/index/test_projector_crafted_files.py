"""One crafted projector file or fatal-signal sidecar is a problem of that file, never of
the logdir: ``LogReader`` reads every other file and run, and names the bad file in its
problems, whatever the file says and whatever its parser does with it."""

from __future__ import annotations

import os
import struct
import zlib

import numpy as np
import pytest

from visualdl import LogReader, LogWriter
from visualdl._formats import projector as projector_format

GOOD_BLOCK = 'embeddings {\n tensor_name: "good:00003"\n tensor_path: "t.tsv"\n metadata_path: "m.tsv"\n}\n'


def _png_claiming(width: int, height: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"") + chunk(b"IEND", b"")


def _run(logdir: str, name: str, config: str, files: dict[str, bytes] | None = None) -> str:
    run = os.path.join(logdir, name)
    with LogWriter(run) as writer:
        writer.add_scalar("loss", 1.0, 0)
    files = {"t.tsv": b"1\t2\n3\t4\n", "m.tsv": b"a\nb\n", **(files or {})}
    for file, data in files.items():
        with open(os.path.join(run, file), "wb") as f:
            f.write(data)
    with open(os.path.join(run, "projector_config.pbtxt"), "w") as f:
        f.write(config)
    return run


CRAFTED = {
    "octal 09": ('embeddings { tensor_path: "t.tsv" tensor_shape: 09 }\n', {}),
    "5,000 digits": ('embeddings { tensor_path: "t.tsv" tensor_shape: ' + "9" * 5000 + " }\n", {}),
    "bad escape": ('embeddings { tensor_path: "\\UFFFFFFFF" }\n', {}),
    "sprite bomb": (
        'embeddings { tensor_name: "bomb" tensor_path: "t.tsv"\n'
        ' sprite { image_path: "s.png" single_image_dim: [1, 1] } }\n',
        {"s.png": _png_claiming(30_000, 30_000)},
    ),
}


def _assert_rest_read(reader: LogReader) -> None:
    assert reader.runs() == ["bad", "fine"]
    assert reader.tags("bad")["scalars"] == ["loss"] and reader.tags("fine")["scalars"] == ["loss"]
    (event,) = reader.embeddings("fine", "good")
    assert event.step == 3 and event.metadata == (("a",), ("b",))
    assert np.frombuffer(reader.read_blob(event), "<f4").tolist() == [1, 2, 3, 4]


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_projector_crafted_file_is_its_own_problem(tmp_path, case):
    config, files = CRAFTED[case]
    logdir = str(tmp_path)
    bad = _run(logdir, "bad", config, files)
    _run(logdir, "fine", GOOD_BLOCK)
    reader = LogReader(logdir)  # raised before, for every case
    _assert_rest_read(reader)
    (problem,) = reader.problems
    named = os.path.join(bad, "s.png" if case == "sprite bomb" else "projector_config.pbtxt")
    assert problem.path == named
    if case == "sprite bomb":  # the vectors are kept, without their label images
        assert [e.rows for e in reader.embeddings("bad", "bomb")] == [2] and "30000 x 30000 px" in problem.message
    reader.poll()  # and again at every poll
    assert [p.path for p in reader.problems] == [named]


def test_projector_parser_that_raises_anything_loses_only_its_file(tmp_path, monkeypatch):
    """A bug of a parser (any exception) costs the file it read, not the logdir."""
    logdir = str(tmp_path)
    bad = _run(logdir, "bad", GOOD_BLOCK.replace("t.tsv", "u.tsv"), {"u.tsv": b"5\t6\n7\t8\n"})
    _run(logdir, "fine", GOOD_BLOCK)
    real = projector_format.parse_tensors

    def buggy(data: bytes, path: str, shape: tuple[int, ...] = ()) -> np.ndarray:
        if path.endswith("u.tsv"):
            raise ZeroDivisionError("a parser's bug")
        return real(data, path, shape)

    monkeypatch.setattr("visualdl._index.projector.parse_tensors", buggy)
    monkeypatch.setattr("visualdl._index.projector.parse_config", lambda data: 1 / 0 if b"u.tsv" in data else
                        projector_format.parse_config(data))  # fmt: skip
    reader = LogReader(logdir)
    _assert_rest_read(reader)
    (problem,) = reader.problems
    assert problem.path == os.path.join(bad, "projector_config.pbtxt")
    assert "reading it failed (ZeroDivisionError: division by zero)" in problem.message
    monkeypatch.setattr("visualdl._index.projector.parse_config", projector_format.parse_config)
    reader.poll()
    (problem,) = reader.problems
    assert problem.path == os.path.join(bad, "u.tsv")
    assert "reading it failed (ZeroDivisionError: a parser's bug)" in problem.message
    _assert_rest_read(reader)


def test_projector_fatal_sidecar_naming_a_pid_of_5000_digits_is_its_own_problem(tmp_path):
    logdir = str(tmp_path)
    writer = LogWriter(os.path.join(logdir, "bad"))
    writer.add_scalar("loss", 1.0, 5)
    writer.flush()
    path, writer_id = writer._sink.path, writer._sink.writer_id  # type: ignore[union-attr]
    _run(logdir, "fine", GOOD_BLOCK)
    try:
        with open(path + ".fatal", "ab") as f:
            f.write(f"visualdl fatal-signal sidecar: writer {writer_id} pid {'9' * 5000}\n".encode())
            f.write(b"Fatal Python error: Segmentation fault\n\nCurrent thread 0x1 (most recent call first):\n")
        reader = LogReader(logdir)  # raised before
        assert reader.runs() == ["bad", "fine"]
        assert reader.scalars("bad", "loss").steps.tolist() == [5]
        (problem,) = reader.problems
        assert problem.path == path + ".fatal" and "(5,000 digits), which no process has (garbled)" in problem.message
        (info,) = reader.writers("bad")
        assert info.ended is None
    finally:
        writer.close()


def test_projector_sidecar_parser_that_raises_anything_loses_only_its_file(tmp_path, monkeypatch):
    logdir = str(tmp_path)
    writer = LogWriter(os.path.join(logdir, "bad"))
    writer.add_scalar("loss", 1.0, 5)
    writer.flush()
    path, writer_id = writer._sink.path, writer._sink.writer_id  # type: ignore[union-attr]
    _run(logdir, "fine", GOOD_BLOCK)
    try:
        with open(path + ".fatal", "ab") as f:
            f.write(f"visualdl fatal-signal sidecar: writer {writer_id} pid 1\nFatal Python error: Aborted\n".encode())
        monkeypatch.setattr("visualdl._index.sidecars.parse", lambda data, writer_id: 1 / 0)
        reader = LogReader(logdir)
        _assert_rest_read_but_bad_embeddings(reader)
        (problem,) = reader.problems
        assert problem.path == path + ".fatal"
        assert problem.message == "reading the fatal-signal sidecar failed (ZeroDivisionError: division by zero)"
    finally:
        writer.close()


def _assert_rest_read_but_bad_embeddings(reader: LogReader) -> None:
    assert reader.runs() == ["bad", "fine"]
    assert reader.scalars("bad", "loss").steps.tolist() == [5]
    assert [e.step for e in reader.embeddings("fine", "good")] == [3]


def test_projector_crafted_name_of_100000_characters_is_not_said_whole(tmp_path):
    logdir = str(tmp_path)
    block = 'embeddings { tensor_name: "' + "n" * 100_000 + '" tensor_path: "missing.tsv" }\n'
    _run(logdir, "bad", block)
    _run(logdir, "fine", GOOD_BLOCK)
    reader = LogReader(logdir)
    _assert_rest_read(reader)
    (problem,) = reader.problems
    assert problem.path.endswith("missing.tsv") and problem.message.endswith("…' (step 0): not found")
    assert len(problem.message) < 300
