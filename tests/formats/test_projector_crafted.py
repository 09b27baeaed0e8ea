"""Crafted projector files and fatal-signal sidecars (``visualdl/_formats/projector.py``,
``visualdl/_formats/fatal.py``): what no writer makes is refused with the parser's own
error, or a problem, in a sentence naming what is wrong; nothing else escapes."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

from visualdl._formats.fatal import parse as parse_fatal
from visualdl._formats.fatal import preamble
from visualdl._formats.projector import MAX_SPRITE_SIDE, check_sprite, parse_config, parse_metadata, parse_tensors
from visualdl.errors import LogFormatError


def png_claiming(width: int, height: int) -> bytes:
    """A PNG whose header says ``width`` x ``height`` px, and holds no pixel (57 bytes)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"") + chunk(b"IEND", b"")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('embeddings { tensor_path: "t.tsv" tensor_shape: 09 }', "line 1: 09 is not a uint32"),
        ('embeddings { tensor_path: "t.tsv" tensor_shape: 0x }', "line 1: "),
        (
            "embeddings {\n tensor_shape: " + "9" * 5000 + " }",
            "line 2: 99999999999999999999… (5,000 digits) is not a uint32",
        ),
        ('embeddings { tensor_path: "\\UFFFFFFFF" }', "line 1: the string '\"\\\\UFFFFFFFF\"' holds \\UFFFFFFFF, past"),
        ('embeddings { tensor_path: "\\U00110000" }', "line 1: the string '\"\\\\U00110000\"' holds \\U00110000, past"),
        ('embeddings { tensor_path: "\\ud800" }', "is not UTF-8 once unescaped"),
        ("embeddings { tensor_shape: [" + "1," * 100_000, "line 1: expected a whole number, found 'the end'"),
    ],
)
def test_projector_crafted_config_is_a_problem_naming_its_line(text, problem):
    config = parse_config(text.encode())
    assert problem in config.problem
    assert config.embeddings == ()


def test_projector_crafted_config_keeps_the_blocks_before_the_bad_one():
    good = 'embeddings { tensor_name: "a" tensor_path: "a.tsv" tensor_shape: [2, 3] }\n'
    config = parse_config((good + "embeddings { tensor_shape: 08 }\n").encode())
    assert [e.tensor_shape for e in config.embeddings] == [(2, 3)]
    assert config.problem.startswith("line 2: 08 is not a uint32")


def test_projector_sprite_claiming_more_pixels_than_drawn_is_refused_before_decoding():
    bomb = png_claiming(30_000, 30_000)
    assert len(bomb) == 57
    with pytest.raises(LogFormatError) as e:
        check_sprite(bomb, "s.png", (1, 1), 4)
    assert e.value.path == "s.png"
    assert e.value.message == (
        f"is a PNG of 30000 x 30000 px, more than the {MAX_SPRITE_SIDE} x {MAX_SPRITE_SIDE} px a sprite may be "
        "(TensorBoard's limit too): write smaller label images, or fewer of them"
    )
    # At the limit, the header alone is read (the image holds no pixel: never decoded).
    assert check_sprite(png_claiming(MAX_SPRITE_SIDE, 4), "s.png", (4, 4), 4)[:3] == (MAX_SPRITE_SIDE, 4, 2048)


@pytest.mark.parametrize(
    "data",
    [b"\x89PNG\r\n\x1a\n", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, b"GIF89a\xff\xff\xff\xff", b"\xff\xd8\xff\xc0\x00\x11"],
)
def test_projector_sprite_that_is_no_image_is_the_parsers_error(data):
    with pytest.raises(LogFormatError) as e:
        check_sprite(data, "s.png", (1, 1), 4)
    assert e.value.path == "s.png"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"1\t2\n3\t\n", "line 2, column 2: '' is not a number"),
        (b"1\t2\n3\t1_0\n", "line 2, column 2: '1_0' is not a number"),
        (b"1\t2\n3\t0x10\n", "line 2, column 2: '0x10' is not a number"),
        (b"1\t2\n3\t4 5\n", "line 2, column 2: '4 5' is not a number"),
        (b"\n\t\n  \n", "holds no vectors (no line with a number)"),
        (b"1\t" + b"9" * 5000 + b"\n", None),  # a long number: infinity, as float('9' * 5000) is
    ],
)
def test_projector_crafted_tensors_are_the_parsers_error(data, message):
    if message is None:
        assert parse_tensors(data, "t.tsv").tolist() == [[1.0, np.inf]]
        return
    with pytest.raises(LogFormatError) as e:
        parse_tensors(data, "t.tsv")
    assert e.value.message == message


def test_projector_fatal_sidecar_naming_a_pid_of_5000_digits_is_a_problem():
    dump = b'Fatal Python error: Segmentation fault\n\nCurrent thread 0x1 (most recent call first):\n  File "x"\n'
    data = f"visualdl fatal-signal sidecar: writer w pid {'9' * 5000}\n".encode() + dump
    got = parse_fatal(data, "w")
    assert got is not None and got.signal == "" and got.pid == 0
    assert got.problem == (
        "the sidecar's line of the writer names pid '99999999999999999999…' (5,000 digits), which no process has "
        "(garbled)"
    )
    assert parse_fatal(preamble("w", 12) + dump, "w").pid == 12  # type: ignore[union-attr]


def test_projector_crafted_metadata_is_the_parsers_error():
    with pytest.raises(LogFormatError) as e:
        parse_metadata(b"\n" * 100_000, "m.tsv", 2)
    assert e.value.message == "holds 0 rows of labels for 2 vectors: one row per vector is needed"
