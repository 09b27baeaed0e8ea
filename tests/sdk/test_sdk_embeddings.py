"""Embeddings: LogWriter -> file -> LogReader, vectors as float32 and metadata as
VisualDL 2 takes it; bad input refused on the caller's thread."""

from __future__ import annotations

import numpy as np
import pytest

from visualdl import LogReader, LogWriter

MAT = [[1.25, -2.5, 3.0], [0.5, 0.25, 1e-3], [7.0, 8.0, 9.0]]


def _read(logdir: str) -> LogReader:
    reader = LogReader(logdir)
    reader.poll()
    assert reader.problems == []
    return reader


def _vectors(reader: LogReader, event) -> np.ndarray:
    return np.frombuffer(reader.read_blob(event), "<f4").reshape(event.rows, event.dimension)


def test_sdk_embeddings_one_label_per_row(logdir):
    with LogWriter(logdir) as writer:
        writer.add_embeddings("emb", mat=np.array(MAT), metadata=["cat", "dog", 3], walltime=5.0)
    reader = _read(logdir)
    (event,) = reader.embeddings(".", "emb")
    assert (event.step, event.wall_time, event.rows, event.dimension) == (0, 5.0, 3, 3)
    assert (event.metadata_header, event.metadata) == (("label",), (("cat",), ("dog",), ("3",)))
    assert _vectors(reader, event).tolist() == np.array(MAT, dtype=np.float32).tolist()


def test_sdk_embeddings_columns_of_labels_with_and_without_header(logdir):
    columns = [["a1", "a2", "a3"], ["b1", "b2", "b3"]]
    with LogWriter(logdir) as writer:
        writer.add_embeddings("named", MAT, columns, ["kind", "split"])
        writer.add_embeddings("default", MAT, np.array(columns))
        writer.add_embeddings("bare", MAT)
    reader = _read(logdir)
    (named,) = reader.embeddings(".", "named")
    assert named.metadata_header == ("kind", "split")
    assert named.metadata == (("a1", "b1"), ("a2", "b2"), ("a3", "b3"))
    (default,) = reader.embeddings(".", "default")
    assert (default.metadata_header, default.metadata) == (("label_0", "label_1"), named.metadata)
    (bare,) = reader.embeddings(".", "bare")
    assert (bare.metadata_header, bare.metadata, bare.rows) == ((), (), 3)


def test_sdk_embeddings_old_argument_names_still_work_with_a_warning(logdir):
    with LogWriter(logdir) as writer:
        with pytest.warns(DeprecationWarning) as caught:
            writer.add_embeddings("old", hot_vectors=MAT, labels=[["x", "y", "z"]], labels_meta=["name"])
    assert [str(w.message) for w in caught] == [
        "add_embeddings: hot_vectors is deprecated; pass mat",
        "add_embeddings: labels is deprecated; pass metadata",
        "add_embeddings: labels_meta is deprecated; pass metadata_header",
    ]
    reader = _read(logdir)
    (event,) = reader.embeddings(".", "old")
    assert (event.metadata_header, event.metadata) == (("name",), (("x",), ("y",), ("z",)))
    assert _vectors(reader, event).shape == (3, 3)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"mat": None}, TypeError, "mat must be a matrix with one vector per row; got None"),
        ({"mat": [1.0, 2.0, 3.0]}, ValueError, r"non-empty matrix .*got shape \(3,\)"),
        ({"mat": [[1.0, 2.0], [3.0]]}, ValueError, "rows of one length"),
        ({"mat": [["a"], ["b"], ["c"]]}, TypeError, "mat must be an array of numbers"),
        ({"mat": [[np.nan], [1.0], [2.0]]}, ValueError, "finite"),
        ({"mat": [[1e300], [1.0], [2.0]]}, ValueError, "fit in float32"),
        ({"metadata": ["a", "b"]}, ValueError, r"metadata must hold one label per row of mat \(3\); got 2"),
        ({"metadata": [["a", "b", "c"], ["a"]]}, ValueError, r"metadata\[1\] must hold one label per row"),
        ({"metadata": [["a", "b", "c"]], "metadata_header": ["x", "y"]}, ValueError, "metadata_header must hold"),
        ({"metadata": ["a", {"b": 1}, "c"]}, TypeError, r"metadata\[1\] must be a string or a number"),
        ({"metadata": None, "metadata_header": ["x"]}, ValueError, "metadata is None"),
        ({"metadata": "abc"}, TypeError, "metadata must be a list of labels"),
    ],
)
def test_sdk_embeddings_refuse_bad_input_and_lose_nothing(logdir, kwargs, error, match):
    args = {"tag": "e", "mat": MAT, "metadata": ["a", "b", "c"], **kwargs}
    with LogWriter(logdir) as writer:
        writer.add_embeddings("e", MAT, ["p", "q", "r"])
        with pytest.raises(error, match=match):
            writer.add_embeddings(**args)
    (event,) = _read(logdir).embeddings(".", "e")
    assert event.metadata == (("p",), ("q",), ("r",))
