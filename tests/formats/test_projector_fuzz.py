"""The projector files' parsers and the fatal-signal sidecar's under mutants of valid files,
as the log decoders are fuzzed (``test_decoders_fuzz.py``): a config of tensorboardX's
with its tokens replaced by what no writer makes (numbers of 5,000 digits, octal ``09``,
escapes past Unicode, unknown fields, nesting, a token repeated 30,000 times, bytes
flipped, the text cut), tensors and metadata with cells so replaced, sprites whose
header claims any size, sidecars whose lines say anything.

Whatever the mutant says: the config parser and the sidecar's give a value (what is wrong
is its ``problem``), the tensors', metadata's and sprite's give a value or raise
:class:`~visualdl.errors.LogFormatError`, and nothing else escapes; each holds at most
:data:`AMPLIFICATION` times the mutant's bytes (and a little) at its peak. Seeded: a
failure names its case. The unit tier runs a few hundred mutants of each file;
``VISUALDL_FUZZ_MUTANTS`` runs more, as the e2e test does.
"""

from __future__ import annotations

import io
import os
import random
import re
import struct
import tracemalloc
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from PIL import Image

from visualdl._formats import fatal, projector
from visualdl.errors import LogFormatError

UNIT_MUTANTS = 300
E2E_MUTANTS = int(os.environ.get("VISUALDL_FUZZ_MUTANTS", "5000"))
#: A parse holds at most this many times its input's bytes at its peak (and MARGIN more).
AMPLIFICATION = 48
MARGIN = 256 << 10
MAX_MUTANT_BYTES = 2 << 20  # mutants grown past this are cut (their repeats and copies compound)

CONFIG = b"""embeddings {
  tensor_name: "default:00000"
  tensor_path: "00000/default/tensors.tsv"
  metadata_path: "00000/default/metadata.tsv"
  sprite {
    image_path: "00000/default/sprite.png"
    single_image_dim: 4
    single_image_dim: 4
  }
}
embeddings <
  tensor_name: 'layer/out:00003', tensor_path: "00003/layer/out/tensors.tsv"
  tensor_shape: [9, 16]; bookmarks_path: "b\\303\\251\\x41\\u00e9\\U0001F600\\n"
>
model_checkpoint_path: "ckpt" # a comment
"""
TENSORS = (
    b"".join(
        b"\t".join(str(x).encode() for x in row) + b"\n"
        for row in np.random.default_rng(0).normal(size=(8, 5)).astype(np.float32).tolist()
    )
    + b"nan\tinf\t-inf\t1e-45\t3.4028235e38\n\n"
)
METADATA = b"index\tclass\tname\n" + b"".join(f"{i}\tclass {i % 3}\tw\xc3\xa9{i}\n".encode("latin-1") for i in range(9))
LABELS = b"".join(f"label {i}\n".encode() for i in range(9))
DUMP = b"""Fatal Python error: Segmentation fault

Thread 0x00007f5d1e5b8740 (most recent call first):
  File "/usr/lib/python3.11/threading.py", line 324 in wait

Current thread 0x00007f5d1e5b7740 (most recent call first):
  File "train.py", line 3 in crash
  File "train.py", line 5 in <module>

Extension modules: numpy.core._multiarray_umath (total: 1)
"""


def _sprite() -> bytes:
    out = io.BytesIO()
    Image.fromarray(np.zeros((12, 12, 3), np.uint8)).save(out, format="PNG")
    return out.getvalue()


SPRITE = _sprite()
SIDECAR = fatal.preamble("other", 7) + fatal.preamble("w", 123) + DUMP + fatal.preamble("w", 124)

_TOKEN = re.compile(rb'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|[A-Za-z_][A-Za-z0-9_]*|[-+]?[0-9]+|[{}<>:\[\],;]|\S')
_NUMBERS = [b"09", b"08", b"0x", b"0X1G", b"9" * 5000, b"-1", b"4294967296", b"0x" + b"f" * 5000, b"0" * 5000 + b"1",
            b"+0", b"-0", b"1e5", b"0777777777777", b"00000000009", b"1.5"]  # fmt: skip
_STRINGS = [b'"\\UFFFFFFFF"', b'"\\U00110000"', b'"\\ud800"', b'"\\uDFFF\\uD800"', b'"\\777"', b'"\\x"', b'"\\u12"',
            b'"\\U1234567"', b'"' + b"a" * 20_000 + b'"', b'"unterminated', b'"\\', b'"\xff\xfe"', b'""', b"'\\''",
            b'"\\0\\00\\000\\0000"', b'"' + b"\\U0010FFFF" * 500 + b'"']  # fmt: skip
_NAMES = [b"embeddings", b"sprite", b"tensor_shape", b"unknown_field", b"_", b"single_image_dim", b"tensor_path"]
_PUNCT = [b"{", b"}", b"<", b">", b":", b"[", b"]", b",", b";", b"", b"#", b"\x00", b"\n"]
_CELLS = [b"", b"nan", b"-nan", b"NaN", b"inf", b"-Infinity", b"1e999", b"-1e-999", b"9" * 5000, b"0x10", b"1_0",
          b"-", b"+", b".", b"e5", b"1e", b"1-2", b"\x00", b"\xc3\xa9", b"\xff", b"4 5", b" 1", b"\r", b"\x0b",
          b"\t", b"\t\t", b"\n", b"\n\n\n", b"1" * 100]  # fmt: skip


def _flip(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return data
    i = rng.randrange(len(data))
    return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1 :]


def _common(rng: random.Random, data: bytes) -> bytes:
    op = rng.randrange(4)
    if op == 0:
        return _flip(rng, data)
    if op == 1:
        return data[: rng.randrange(len(data) + 1)]
    if op == 2:  # a part repeated, up to a few hundred KB
        i = rng.randrange(len(data) + 1)
        j = min(len(data), i + rng.randint(1, 40))
        return data[:i] + data[i:j] * rng.choice([2, 100, 30_000 // max(1, j - i) + 1]) + data[j:]
    return data + data * rng.choice([1, 10])


def mutate_config(rng: random.Random, data: bytes) -> bytes:
    for _ in range(rng.randint(1, 3)):
        tokens = [m.span() for m in _TOKEN.finditer(data)]
        if not tokens or rng.random() < 0.25:
            data = _common(rng, data)
            continue
        start, end = rng.choice(tokens)
        token = data[start:end]
        if token[:1] in b"\"'":
            new = rng.choice(_STRINGS)
        elif token[:1].isdigit() or token[:1] in b"+-":
            new = rng.choice(_NUMBERS)
        elif token[:1].isalpha() or token[:1] == b"_":
            new = rng.choice([*_NAMES, b"sprite { " * rng.choice([1, 50, 3000])])
        else:
            new = rng.choice(_PUNCT) * rng.choice([1, 1, 2, 30_000])
        data = data[:start] + new + data[end:]
    return data


def mutate_cells(rng: random.Random, data: bytes) -> bytes:
    for _ in range(rng.randint(1, 3)):
        cells = [m.span() for m in re.finditer(rb"[^\t\n]+", data)]
        if not cells or rng.random() < 0.3:
            data = _common(rng, data)
            continue
        start, end = rng.choice(cells)
        data = data[:start] + rng.choice(_CELLS) * rng.choice([1, 1, 3, 20_000]) + data[end:]
    return data


def mutate_sprite(rng: random.Random, data: bytes) -> bytes:
    if rng.random() < 0.6:  # the header's width and height: any size, then its CRC made right again
        width, height = (rng.choice([0, 1, 12, 8192, 8193, 30_000, 1 << 31, (1 << 32) - 1]) for _ in range(2))
        body = struct.pack(">II", width, height) + data[24:29]
        data = data[:16] + body + struct.pack(">I", zlib.crc32(b"IHDR" + body)) + data[33:]
        return data if rng.random() < 0.7 else _common(rng, data)
    return _common(rng, data)


def mutate_sidecar(rng: random.Random, data: bytes) -> bytes:
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(4)
        if op == 0:
            data = re.sub(rb"pid \d+", b"pid " + rng.choice([b"9" * 5000, b"0", b"-1", b"1" * 20, b""]), data, count=1)
        elif op == 1:
            line = rng.choice([b"Fatal Python error: " + rng.choice([b"Aborted", b"x" * 10_000, b"\xff"]),
                               fatal.preamble("w", rng.randrange(1 << 40)),
                               b"Current thread 0x1 (most recent call first):",
                               b"\n" * rng.choice([1, 30_000])])  # fmt: skip
            i = rng.randrange(len(data) + 1)
            data = data[:i] + line + b"\n" + data[i:]
        else:
            data = _common(rng, data)
    return data


def _config(data: bytes) -> Any:
    config = projector.parse_config(data)
    assert isinstance(config, projector.ProjectorConfig)
    assert all(isinstance(e, projector.EmbeddingInfo) for e in config.embeddings)
    for info in config.embeddings:
        projector.embedding_name(info)
        assert all(0 <= d < 1 << 32 for d in info.tensor_shape)
    return config


def _tensors(data: bytes) -> Any:
    got = projector.parse_tensors(data, "t.tsv", (9, 5))
    assert got.dtype == np.float32 and got.ndim == 2
    return got


def _metadata(data: bytes) -> Any:
    got = projector.parse_metadata(data, "m.tsv", 9)
    assert len(got.rows) == 9 and all(len(row) == len(got.header) for row in got.rows)
    return got


def _sprite_check(data: bytes) -> Any:
    width, height, per_row, _ = projector.check_sprite(data, "s.png", (4, 4), 9)
    assert 0 < width <= projector.MAX_SPRITE_SIDE and 0 < height <= projector.MAX_SPRITE_SIDE and per_row > 0
    return width


def _sidecar(data: bytes) -> Any:
    got = fatal.parse(data, "w")
    assert got is None or (isinstance(got, fatal.FatalDump) and 0 <= got.pid < 1 << 63)
    return got


#: name -> (seed file, mutator, parse, whether LogFormatError is the parser's way to refuse).
FILES: dict[str, tuple[bytes, Callable[[random.Random, bytes], bytes], Callable[[bytes], Any], bool]] = {
    "config": (CONFIG, mutate_config, _config, False),
    "tensors": (TENSORS, mutate_cells, _tensors, True),
    "metadata": (METADATA, mutate_cells, _metadata, True),
    "labels": (LABELS, mutate_cells, _metadata, True),
    "sprite": (SPRITE, mutate_sprite, _sprite_check, True),
    "sidecar": (SIDECAR, mutate_sidecar, _sidecar, False),
}


def _fuzz(name: str, count: int, seed: int) -> None:
    """``count`` mutants of file ``name``, parsed a piece of 4 KiB at a time: what a piece's
    temporary arrays hold is bounded by its size (at most PIECE_BYTES), the rest must be
    proportional to the file."""
    original, mutator, parse, refuses = FILES[name]
    parse(original)  # the seed itself parses
    try:  # and what a parser loads once (the image library's plugins) is loaded before the peaks are measured
        parse(b"\x89PNG\r\n\x1a\n junk")
    except LogFormatError:
        pass
    for case in range(count):
        rng = random.Random(f"{seed}:{name}:{case}")
        data = mutator(rng, original)[:MAX_MUTANT_BYTES]
        tracemalloc.start()
        try:
            parse(data)
        except LogFormatError as e:
            assert refuses, f"{name} mutant {case}: the parser raised {e!r}, it returns its problem instead"
            assert (e.path and e.message[:1].islower()) or e.message[:4] == "line", (name, case, e)
        except Exception as e:
            raise AssertionError(f"{name} mutant {case} ({len(data):,} bytes, {data[:120]!r}) raised {e!r}") from e
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        assert peak <= AMPLIFICATION * len(data) + MARGIN, (
            f"{name} mutant {case}: {peak:,} bytes at the peak for {len(data):,} bytes of input ({data[:120]!r})"
        )


@pytest.mark.parametrize("name", sorted(FILES))
def test_projector_fuzz_mutants_parse_or_are_refused(name, monkeypatch):
    monkeypatch.setattr(projector, "PIECE_BYTES", 4096)
    _fuzz(name, UNIT_MUTANTS, 0)


@pytest.mark.e2e  # dear: tens of thousands of mutants
@pytest.mark.parametrize("name", sorted(FILES))
def test_projector_fuzz_many_mutants_parse_or_are_refused(name, monkeypatch):
    monkeypatch.setattr(projector, "PIECE_BYTES", 4096)
    _fuzz(name, E2E_MUTANTS, 1)
