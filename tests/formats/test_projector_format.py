"""The projector files' text (``visualdl._formats.projector``): the config's text format as
protobuf's ``text_format`` writes it (torch) and as tensorboardX appends it, the tensors,
the metadata and the sprite, and what is wrong in each named by its line."""

from __future__ import annotations

import io

import numpy as np
import pytest
from google.protobuf import text_format
from PIL import Image

from visualdl._formats.projector import (
    EmbeddingInfo,
    SpriteInfo,
    check_sprite,
    embedding_name,
    parse_config,
    parse_metadata,
    parse_tensors,
)
from visualdl.errors import LogFormatError

try:
    from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig
except ImportError:  # pragma: no cover - the test extra installs tensorboard
    ProjectorConfig = None


def test_projector_config_as_protobuf_writes_it_reads_back_field_for_field():
    if ProjectorConfig is None:
        pytest.skip("tensorboard's projector_config_pb2 is needed to write the reference text")
    config = ProjectorConfig()
    for name, path in (('a/"b\\c é\t:00003', '00003/a%2f"b/tensors.tsv'), ("plain", "plain.tsv")):
        e = config.embeddings.add()
        e.tensor_name, e.tensor_path, e.metadata_path, e.bookmarks_path = name, path, "m é.tsv", "b.json"
        e.tensor_shape.extend([10, 4])
        e.sprite.image_path = "s.png"
        e.sprite.single_image_dim.extend([6, 8])
    for as_utf8 in (False, True):
        got = parse_config(text_format.MessageToString(config, as_utf8=as_utf8).encode())
        assert not got.problem
        assert [(e.tensor_name, e.tensor_path, e.metadata_path, e.bookmarks_path, e.tensor_shape, e.sprite)
                for e in got.embeddings] == [
            (e.tensor_name, e.tensor_path, e.metadata_path, e.bookmarks_path, (10, 4), SpriteInfo("s.png", (6, 8)))
            for e in config.embeddings
        ]  # fmt: skip


def test_projector_config_tensorboardx_append_and_other_syntax():
    text = b"""# a comment
model_checkpoint_path: 'ckpt'
embeddings {
tensor_name: "emb:00001"
tensor_path: "00001/emb/tensors.tsv"
sprite {
image_path: "00001/emb/sprite.png"
single_image_dim: 8
single_image_dim: 8
}
}
embeddings < tensor_name: 'x' 'y' tensor_shape: [3, 0x2] ; sprite: { single_image_dim: [4, 4] } >
"""
    got = parse_config(text)
    assert not got.problem and got.model_checkpoint_path == "ckpt"
    first, second = got.embeddings
    assert first == EmbeddingInfo("emb:00001", sprite=SpriteInfo("00001/emb/sprite.png", (8, 8)),
                                  tensor_path="00001/emb/tensors.tsv", line=3)  # fmt: skip
    assert (second.tensor_name, second.tensor_shape, second.sprite, second.line) == (
        "xy",
        (3, 2),
        SpriteInfo("", (4, 4)),
        12,
    )


@pytest.mark.parametrize(
    ("text", "kept", "message"),
    [
        (b'embeddings { tensor_path: "a" }\nembeddings {\n tensor_nam: "b" }', 1,
         r"^line 3: EmbeddingInfo has no field 'tensor_nam'"),
        (b'embeddings { tensor_path: "a" }\nembeddings { tensor_name: "x"y" }', 1,
         r"^line 2: EmbeddingInfo has no field 'y'"),
        (b'embeddings { tensor_path: "a" tensor_path: "b" }', 0, r"^line 1: 'tensor_path' is given twice"),
        (b'embeddings { tensor_shape: -1 }', 0, r"^line 1: -1 is not a uint32"),
        (b'embeddings {\n tensor_path: "a"\n', 0, r"^line 3: expected a field name, found 'the end'"),
        (b'\xff', 0, r"^line 1: not UTF-8 text"),
    ],
)  # fmt: skip
def test_projector_config_errors_name_the_line_and_keep_the_blocks_before(text, kept, message):
    got = parse_config(text)
    assert len(got.embeddings) == kept
    assert got.problem and __import__("re").match(message, got.problem), got.problem


@pytest.mark.parametrize(
    ("name", "path", "expected"),
    [("emb:00042", "", ("emb", 42)), ("a/b:-0005", "", ("a/b", -5)), ("word_embedding:0", "", ("word_embedding", 0)),
     ("plain", "", ("plain", 0)), ("", "x/vectors.tsv", ("vectors.tsv", 0)), (":7", "", (":7", 0))],
)  # fmt: skip
def test_projector_embedding_name_is_tag_and_step(name, path, expected):
    assert embedding_name(EmbeddingInfo(tensor_name=name, tensor_path=path)) == expected


def test_projector_tensors_exact_with_nan_inf_blank_lines_and_crlf():
    values = np.random.default_rng(0).normal(size=(50, 7)).astype(np.float32)
    values[3, 2], values[4, 0], values[5, 6] = np.nan, np.inf, -np.inf
    text = "\n".join("\t".join(str(float(v)) for v in row) for row in values)  # as torch writes them
    got = parse_tensors(("\n" + text.replace("\n", "\n\n", 1) + "\n\n").encode(), "t.tsv")
    np.testing.assert_array_equal(got, values)
    crlf = parse_tensors(b"1\t2\r\n3\t4\r\n", "t.tsv")
    assert crlf.tolist() == [[1, 2], [3, 4]] and crlf.dtype == np.float32


@pytest.mark.e2e  # 16 MB of text in several pieces: seconds to write and parse
def test_projector_tensors_large_pieces_agree_with_numpy():
    values = np.random.default_rng(1).normal(size=(60_000, 40)).astype(np.float32) * 1e3
    data = "".join("\t".join(map(repr, row)) + "\n" for row in values.astype(np.float64).tolist()).encode()
    assert len(data) > 2 * (8 << 20)  # several pieces
    np.testing.assert_array_equal(parse_tensors(data, "t.tsv"), values)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"1\t2\n3\t4\n5\n", r"^t\.tsv: line 3 has 1 values where line 1 has 2 \(1 row of another length\)"),
        (b"1\t2\n\n3\tx7\n", r"^t\.tsv: line 3, column 2: 'x7' is not a number$"),
        (b"1\t2\t3\n4\t\t5\n", r"^t\.tsv: line 2, column 2: '' is not a number$"),
        (b"1\ttrue\n", r"^t\.tsv: line 1, column 2: 'true' is not a number$"),
        (b"\n \n", r"^t\.tsv: holds no vectors"),
        (b"\x80\x01\x02", r"^t\.tsv: not a text file of tab-separated numbers, nor float32 bytes .*no tensor_shape"),
    ],
)
def test_projector_tensors_bad_input_names_file_and_line(data, message):
    with pytest.raises(LogFormatError, match=message):
        parse_tensors(data, "t.tsv")


def test_projector_tensors_binary_by_tensor_shape_and_shape_checked():
    values = np.arange(12, dtype="<f4").reshape(4, 3) + 0.5
    values[0, 0] = 2.0**-140  # bytes that are not ASCII
    np.testing.assert_array_equal(parse_tensors(values.tobytes(), "t.bin", (4, 3)), values)
    with pytest.raises(LogFormatError, match=r"holds 2 x 2 values, but its tensor_shape is \[3, 2\]"):
        parse_tensors(b"1\t2\n3\t4\n", "t.tsv", (3, 2))


def test_projector_metadata_one_column_header_and_blank_labels():
    one = parse_metadata(b"cat\n\ndog\n", "m.tsv", 3)  # an empty label is a blank line
    assert (one.header, one.rows) == (("label",), (("cat",), ("",), ("dog",)))
    skipped = parse_metadata(b"cat\n\ndog\n", "m.tsv", 2)  # TensorBoard skips blank lines
    assert skipped.rows == (("cat",), ("dog",))
    table = parse_metadata("n\tname\r\n0\tzéro\r\n1\tone\r\n".encode(), "m.tsv", 2)
    assert (table.header, table.rows, table.problem) == (("n", "name"), (("0", "zéro"), ("1", "one")), "")
    ragged = parse_metadata(b"a\tb\n1\n2\t3\t4\n", "m.tsv", 2)
    assert ragged.rows == (("1", ""), ("2", "3"))
    assert ragged.problem.startswith("line 2 has 1 labels for 2 columns (2 rows so)")


@pytest.mark.parametrize(
    ("data", "rows", "message"),
    [(b"a\nb\n", 3, r"^m\.tsv: holds 2 rows of labels for 3 vectors"),
     (b"h1\th2\na\tb\n", 2, r"holds 1 rows of labels for 2 vectors \(after its header row\)"),
     (b"a\n\xffb\n", 2, r"^m\.tsv: line 2: not UTF-8 text")],
)  # fmt: skip
def test_projector_metadata_mismatch_raises(data, rows, message):
    with pytest.raises(LogFormatError, match=message):
        parse_metadata(data, "m.tsv", rows)


def _png(width: int, height: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height)).save(buf, format="PNG")
    return buf.getvalue()


def test_projector_sprite_grid_as_tensorboard_lays_it():
    assert check_sprite(_png(24, 24), "s.png", (6, 8), 10) == (24, 24, 4, "image/png")  # torch's 10 images of 6 x 8
    with pytest.raises(
        LogFormatError, match=r"^s\.png: is 24 x 16 px: 10 images of 6 x 8 px, 4 a row, need 24 x 24 px"
    ):
        check_sprite(_png(24, 16), "s.png", (6, 8), 10)
    with pytest.raises(LogFormatError, match=r"single_image_dim must be \[width, height\]"):
        check_sprite(_png(24, 24), "s.png", (6,), 10)
    with pytest.raises(LogFormatError, match=r"^s\.png: not an image"):
        check_sprite(b"not a png", "s.png", (6, 8), 10)
