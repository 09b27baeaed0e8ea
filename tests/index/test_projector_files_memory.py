"""Projector files take memory in proportion to their size: tensors parsed into arrays, not
Python objects per cell; labels counted before they are made; a file named by many blocks
read once, its array and labels shared. Peaks are measured with tracemalloc in the test's
own run (numpy's arrays are traced too), against the files' bytes."""

from __future__ import annotations

import os
import tracemalloc

import numpy as np

from visualdl import LogReader, LogWriter
from visualdl._formats import projector as projector_format


def _logdir(tmp_path, files: dict[str, bytes], blocks: list[str]) -> str:
    run = os.path.join(str(tmp_path), "run")
    with LogWriter(run) as writer:
        writer.add_scalar("loss", 1.0, 0)
    for name, data in files.items():
        with open(os.path.join(run, name), "wb") as f:
            f.write(data)
    with open(os.path.join(run, "projector_config.pbtxt"), "w") as f:
        f.writelines(f"embeddings {{\n{block}\n}}\n" for block in blocks)
    return str(tmp_path)


def _peak(read) -> int:
    tracemalloc.start()
    try:
        read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_projector_memory_tensors_of_short_lines_in_proportion(tmp_path):
    rows = 2 << 20
    data = b"0\n" * rows  # the worst case of text: a value of 4 bytes for every 2 bytes read
    logdir = _logdir(tmp_path, {"t.tsv": data}, ['tensor_name: "zeros"\ntensor_path: "t.tsv"'])
    readers = []
    peak = _peak(lambda: readers.append(LogReader(logdir)))
    (event,) = readers[0].embeddings("run", "zeros")
    assert (event.rows, event.dimension) == (rows, 1)
    # The text read (1x), the vectors (2x) and one piece's temporary arrays; it was 28x.
    assert peak < 4 * len(data), f"{peak:,} bytes at the peak for {len(data):,} bytes of tensors"


def test_projector_memory_blank_labels_counted_before_made(tmp_path):
    data = b"\n" * (4 << 20)
    files = {"t.tsv": b"1\t2\n3\t4\n", "m.tsv": data}
    logdir = _logdir(tmp_path, files, ['tensor_name: "blank"\ntensor_path: "t.tsv"\nmetadata_path: "m.tsv"'])
    readers = []
    peak = _peak(lambda: readers.append(LogReader(logdir)))
    (problem,) = readers[0].problems
    assert "holds 0 rows of labels for 2 vectors" in problem.message
    assert peak < 3 * len(data), f"{peak:,} bytes at the peak for {len(data):,} bytes of labels"  # it was 121x


def test_projector_memory_a_pair_named_by_100_blocks_is_read_once(tmp_path, monkeypatch):
    rows = 2000
    m = np.random.default_rng(0).normal(size=(rows, 24)).astype(np.float32)
    files = {
        "t.tsv": "".join("\t".join(map(str, row)) + "\n" for row in m).encode(),
        "m.tsv": "".join(f"word{i % 7}\n" for i in range(rows)).encode(),
    }
    blocks = [f'tensor_name: "same:{i:05d}"\ntensor_path: "t.tsv"\nmetadata_path: "m.tsv"' for i in range(100)]
    logdir = _logdir(tmp_path, files, blocks)
    calls = {"tensors": 0, "metadata": 0}

    def counted(name, parse):
        def call(*args, **kwargs):
            calls[name] += 1
            return parse(*args, **kwargs)

        return call

    monkeypatch.setattr("visualdl._index.projector.parse_tensors", counted("tensors", projector_format.parse_tensors))
    monkeypatch.setattr(
        "visualdl._index.projector.parse_metadata", counted("metadata", projector_format.parse_metadata)
    )
    reader = LogReader(logdir)
    events = reader.embeddings("run", "same")
    assert [e.step for e in events] == list(range(100))
    assert calls == {"tensors": 1, "metadata": 1}
    assert all(e.metadata is events[0].metadata for e in events)  # one tuple of labels for the 100 entries
    assert len({id(row) for row in events[0].metadata}) == 7  # rows alike: one tuple each
    for event in (events[0], events[-1]):
        assert np.array_equal(np.frombuffer(reader.read_blob(event), "<f4").reshape(rows, 24), m)
    assert calls["tensors"] == 1  # served from the one array
    # A block added later naming the same pair: read from what the last poll parsed.
    with open(os.path.join(logdir, "run", "projector_config.pbtxt"), "a") as f:
        f.write('embeddings {\ntensor_name: "same:00100"\ntensor_path: "t.tsv"\nmetadata_path: "m.tsv"\n}\n')
    reader.poll()
    assert len(reader.embeddings("run", "same")) == 101 and calls == {"tensors": 1, "metadata": 1}
