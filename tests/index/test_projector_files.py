"""TensorBoard's projector files (``add_embedding`` of torch's and tensorboardX's writers)
read as embeddings entries: back through LogReader equal to what was written, kept up to
date as the logdir grows, and what is wrong (paths out of the logdir, ragged rows, cells
that are not numbers, labels or sprites that do not fit) a problem naming the file and
the line that loses nothing else."""

from __future__ import annotations

import os
import re
import shutil
from typing import Any

import numpy as np
import pytest
from kit.writers import import_torch, tensorboardx_writer, torch_writer

from visualdl import LogReader

pytestmark = [
    pytest.mark.e2e,  # torch's writer beside tensorboardX's in every test (torch: an e2e extra)
    pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning"),
]


def _matrix(seed: int, rows: int, dim: int) -> np.ndarray:
    m = np.random.default_rng(seed).normal(size=(rows, dim)).astype(np.float32)
    m[0, 0] = np.nan  # NaN and infinities are data
    m[1, -1] = -np.inf
    return m


#: Rows of the "default" tag: a square number of label images fills tensorboardX's sprite grid
#: (4 x 4 of 4 x 4 px), whose padding cells it leaves uninitialised (``np.ndarray``): any
#: other count would write, and cast, whatever that memory held.
ROWS = 16


def _label_images(seed: int) -> Any:
    return import_torch().from_numpy(np.random.default_rng(seed).random((ROWS, 3, 4, 4), dtype=np.float32))


#: What each run's writer wrote: tag -> step -> (matrix, header, rows of labels).
WRITTEN: dict[str, dict[str, dict[int, tuple[np.ndarray, tuple[str, ...], list[tuple[str, ...]]]]]] = {}


def _write(logdir: str) -> None:
    WRITTEN.clear()
    torch = import_torch()
    for run, writer in (("torch", torch_writer()), ("tbx", tensorboardx_writer())):
        w = writer(os.path.join(logdir, run))
        written = WRITTEN.setdefault(run, {})
        words = [f"w{i} é" for i in range(ROWS)]
        for step, seed in ((0, 1), (7, 2)):
            m = _matrix(seed, ROWS, 5)
            w.add_embedding(torch.from_numpy(m), metadata=words, label_img=_label_images(seed), global_step=step)
            written.setdefault("default", {})[step] = (m, ("label",), [(x,) for x in words])
        table = [[i, f"class {i % 3}", f"{i / 7:.3f}"] for i in range(9)]
        m = _matrix(3, 9, 16)
        w.add_embedding(m, metadata=table, metadata_header=["index", "class", "score"], global_step=3, tag="layer/out")
        written["layer/out"] = {3: (m, ("index", "class", "score"), [tuple(map(str, row)) for row in table])}
        m = _matrix(4, 6, 3)
        w.add_embedding(m, global_step=100, tag="bare")  # neither labels nor images
        written["bare"] = {100: (m, (), [])}
        w.add_scalar("loss", 1.0, 0)
        w.close()


@pytest.fixture
def projector_logs(tmp_path) -> str:
    logdir = str(tmp_path / "logs")
    _write(logdir)
    return logdir


def _vectors(reader: LogReader, event) -> np.ndarray:
    return np.frombuffer(reader.read_blob(event), "<f4").reshape(event.rows, event.dimension)


def _assert_as_written(reader: LogReader) -> None:
    assert reader.runs() == ["tbx", "torch"]
    for run, tags in WRITTEN.items():
        assert reader.tags(run)["embeddings"] == sorted(tags)
        for tag, by_step in tags.items():
            events = reader.embeddings(run, tag)
            assert [e.step for e in events] == sorted(by_step)
            for event in events:
                matrix, header, labels = by_step[event.step]
                np.testing.assert_array_equal(_vectors(reader, event), matrix)  # NaN where NaN, bit for bit
                assert (event.rows, event.dimension) == matrix.shape
                assert (event.metadata_header, list(event.metadata)) == (header, labels)


def test_projector_files_of_torch_and_tensorboardx_read_back_as_written(projector_logs):
    reader = LogReader(projector_logs)
    _assert_as_written(reader)
    assert reader.problems == []
    assert reader.tags("torch")["scalars"] == ["loss"]  # the event files are read as before


def test_projector_files_are_followed_as_the_logdir_grows(projector_logs):
    reader = LogReader(projector_logs)
    # A later process appends a block (its event file named apart: tensorboardX's names have no pid).
    x = tensorboardx_writer()(os.path.join(projector_logs, "tbx"), filename_suffix=".later")
    m = _matrix(9, 4, 5)
    x.add_embedding(m, metadata=list("abcd"), global_step=20)
    x.close()
    before = reader.embeddings("tbx", "default")
    reader.poll()
    after = reader.embeddings("tbx", "default")
    assert [e.step for e in after] == [0, 7, 20]
    assert after[:2] == before  # the entries whose files did not change are not read again
    np.testing.assert_array_equal(_vectors(reader, after[2]), m)
    # A tensors file rewritten in place: read again, its new values served.
    path = os.path.join(projector_logs, "tbx", "00020", "default", "tensors.tsv")
    with open(path, "w") as f:
        f.write("1\t2\t3\t4\t5\n" * 4)
    os.utime(path, (1, 1))
    reader.poll()
    np.testing.assert_array_equal(
        _vectors(reader, reader.embeddings("tbx", "default")[2]), np.tile(np.arange(1, 6), (4, 1))
    )
    # The config gone: its entries go, the event files stay.
    os.remove(os.path.join(projector_logs, "tbx", "projector_config.pbtxt"))
    reader.poll()
    assert reader.tags("tbx")["embeddings"] == [] and reader.tags("tbx")["scalars"] == ["loss"]


def _config(logdir: str, run: str, blocks: list[str]) -> None:
    with open(os.path.join(logdir, run, "projector_config.pbtxt"), "a") as f:
        for block in blocks:
            f.write(f"embeddings {{\n{block}\n}}\n")


def test_projector_paths_outside_the_logdir_are_problems_not_reads(projector_logs, tmp_path):
    secret = tmp_path / "secret.tsv"
    secret.write_text("1\t2\n")
    os.symlink(secret, os.path.join(projector_logs, "torch", "link.tsv"))
    _config(projector_logs, "torch", [
        'tensor_name: "passwd:00001"\ntensor_path: "../../etc/passwd"',
        f'tensor_name: "abs:00001"\ntensor_path: "{secret}"',
        'tensor_name: "link:00001"\ntensor_path: "link.tsv"',
        'tensor_name: "meta:00001"\ntensor_path: "00000/default/tensors.tsv"\nmetadata_path: "../../../x.tsv"',
    ])  # fmt: skip
    reader = LogReader(projector_logs)
    messages = sorted(p.message for p in reader.problems)
    config = os.path.join(projector_logs, "torch", "projector_config.pbtxt")
    assert {p.path for p in reader.problems} == {config}
    assert len(messages) == 4
    assert any(m.startswith("line ") and "'passwd' (step 1): tensor_path '../../etc/passwd' (named in" in m
               and "lies outside the logdir" in m for m in messages)  # fmt: skip
    assert any(f"'abs' (step 1): tensor_path '{secret}'" in m and "outside the logdir" in m for m in messages)
    assert any(
        "'link' (step 1): tensor_path 'link.tsv'" in m and "once its symbolic links are followed" in m for m in messages
    )
    assert any("'meta' (step 1): metadata_path '../../../x.tsv'" in m for m in messages)
    tags = reader.tags("torch")["embeddings"]
    assert "passwd" not in tags and "abs" not in tags and "link" not in tags
    meta = reader.embeddings("torch", "meta")[0]  # its vectors, without the labels it may not read
    assert meta.metadata == () and _vectors(reader, meta).shape == (ROWS, 5)
    _assert_as_written_but(reader, {"meta"})


def _assert_as_written_but(reader: LogReader, extra: set[str]) -> None:
    for run, tags in WRITTEN.items():
        assert set(reader.tags(run)["embeddings"]) - extra == set(tags)
        for tag, by_step in tags.items():
            for event in reader.embeddings(run, tag):
                np.testing.assert_array_equal(_vectors(reader, event), by_step[event.step][0])


def test_projector_bad_files_are_problems_naming_file_and_line(projector_logs):
    run = os.path.join(projector_logs, "tbx")
    os.makedirs(os.path.join(run, "bad"))
    files = {"ragged.tsv": b"1\t2\n3\n", "cell.tsv": b"1\t2\n3\tfour\n", "ok.tsv": b"1\t2\n3\t4\n",
             "labels.tsv": b"a\nb\nc\n"}  # fmt: skip
    with open(os.path.join(run, "00000", "default", "sprite.png"), "rb") as f:
        files["sprite.png"] = f.read()  # 16 x 16 px: too small for 2 images of 16 x 16 px, one a row
    for name, content in files.items():
        with open(os.path.join(run, "bad", name), "wb") as f:
            f.write(content)
    _config(projector_logs, "tbx", [
        'tensor_name: "ragged"\ntensor_path: "bad/ragged.tsv"',
        'tensor_name: "cell"\ntensor_path: "bad/cell.tsv"',
        'tensor_name: "missing"\ntensor_path: "bad/nothing.tsv"',
        'tensor_name: "labels"\ntensor_path: "bad/ok.tsv"\nmetadata_path: "bad/labels.tsv"',
        'tensor_name: "sprite"\ntensor_path: "bad/ok.tsv"\n'
        'sprite { image_path: "bad/sprite.png" single_image_dim: [16, 16] }',
        'tensor_name: "ckpt"',
    ])  # fmt: skip
    with open(os.path.join(run, "projector_config.pbtxt"), "a") as f:
        f.write('embeddings { tensor_name: "broken }\n')
    reader = LogReader(projector_logs)
    bad = os.path.join(run, "bad")
    # Each problem names its file, and the line of the config's block (then the file's own line).
    assert all(re.match(r"^line \d+: ", p.message) for p in reader.problems)
    got = {(os.path.relpath(p.path, run), re.sub(r"^line \d+: ", "", p.message)) for p in reader.problems}
    assert got == {
        ("bad/ragged.tsv", "embeddings 'ragged' (step 0): line 2 has 1 values where line 1 has 2 "
                           "(1 row of another length): every vector must have the same dimension"),
        ("bad/cell.tsv", "embeddings 'cell' (step 0): line 2, column 2: 'four' is not a number"),
        ("bad/nothing.tsv", "embeddings 'missing' (step 0): not found"),
        ("bad/labels.tsv", "embeddings 'labels' (step 0): holds 3 rows of labels for 2 vectors: one row per "
                           "vector is needed; its vectors are shown without labels"),
        ("bad/sprite.png", "embeddings 'sprite' (step 0): is 16 x 16 px: 2 images of 16 x 16 px, 1 a row, "
                           "need 16 x 32 px at least"),
        ("projector_config.pbtxt", "embeddings 'ckpt' (step 0) names no tensor_path: vectors in a TensorFlow "
                                   "checkpoint are not read; write them as TSV"),
        ("projector_config.pbtxt", "unexpected '\"broken }\\n'; the embeddings after it are not read"),
    }  # fmt: skip
    # Each bad block loses only its own part: vectors with a bad label file or sprite are kept.
    assert reader.tags("tbx")["embeddings"] == sorted(["default", "layer/out", "bare", "labels", "sprite"])
    assert reader.embeddings("tbx", "labels")[0].metadata == ()
    np.testing.assert_array_equal(_vectors(reader, reader.embeddings("tbx", "sprite")[0]), [[1, 2], [3, 4]])
    _assert_as_written_but(reader, {"labels", "sprite"})
    # Fixed in place: read again at the next poll, the problem gone.
    with open(os.path.join(bad, "ragged.tsv"), "w") as f:
        f.write("1\t2\n3\t4\n")
    reader.poll()
    assert "ragged" in reader.tags("tbx")["embeddings"]
    assert not any(p.path.endswith("ragged.tsv") for p in reader.problems)


def test_projector_config_in_plugins_projector_belongs_to_its_run(projector_logs):
    run = os.path.join(projector_logs, "torch")
    assets = os.path.join(run, "plugins", "projector")
    os.makedirs(assets)
    shutil.move(os.path.join(run, "projector_config.pbtxt"), os.path.join(assets, "projector_config.pbtxt"))
    with open(os.path.join(assets, "projector_config.pbtxt")) as f:
        text = f.read()
    with open(os.path.join(assets, "projector_config.pbtxt"), "w") as f:  # paths relative to the config
        f.write(text.replace('_path: "', '_path: "../../'))
    reader = LogReader(projector_logs)
    assert reader.problems == []
    assert reader.runs() == ["tbx", "torch"]
    _assert_as_written(reader)


def test_projector_block_appended_again_is_one_entry(projector_logs):
    """A script run twice into one directory: tensorboardX appends the same block again
    (and writes the step's files anew); the entry is listed, and read, once."""
    m = _matrix(5, ROWS, 5)
    x = tensorboardx_writer()(os.path.join(projector_logs, "tbx"), filename_suffix=".again")
    x.add_embedding(m, metadata=[f"w{i} é" for i in range(ROWS)], label_img=_label_images(5), global_step=7)
    x.close()
    with open(os.path.join(projector_logs, "tbx", "projector_config.pbtxt")) as f:
        assert f.read().count('tensor_name: "default:00007"') == 2
    reader = LogReader(projector_logs)
    events = reader.embeddings("tbx", "default")
    assert [e.step for e in events] == [0, 7]
    np.testing.assert_array_equal(_vectors(reader, events[1]), m)
    assert reader.problems == []
