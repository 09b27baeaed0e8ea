"""The files of TensorBoard's embedding projector, as tensorboardX's and torch's
``SummaryWriter.add_embedding`` write them beside a run's event files (no event record
names them): ``projector_config.pbtxt``, a ``ProjectorConfig`` in protobuf's text format
with one ``embeddings { ... }`` block per call, and the files each block names:
``tensor_path`` (one vector per line, values separated by tabs), ``metadata_path`` (one
label per line; or, when its first line holds a tab, a header row naming the columns and
one row of labels per vector) and ``sprite.image_path`` (the label images side by side,
``single_image_dim`` = [width, height] each, row after row).

The facts are TensorBoard's projector plugin's (``projector_config.proto``,
``projector_plugin.py``, the frontend's ``parseMetadata``): blank lines are skipped; a
tensor name ending in ``:0`` is the tensor itself; a block without ``tensor_name`` is
named by the basename of its ``tensor_path``; a tensor file that is not text is float32
bytes of ``tensor_shape``. A writer's name ``tag:00042`` (the step, padded) is read as
tag ``tag`` at step 42. Bytes in, values out; never opens a file. What is wrong raises
:class:`~visualdl.errors.LogFormatError` naming the file and the line.
"""

from __future__ import annotations

import io
import math
import posixpath
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson

from visualdl.errors import LogFormatError

__all__ = [
    "CONFIG_NAME",
    "PLUGIN_DIR",
    "EmbeddingInfo",
    "Metadata",
    "ProjectorConfig",
    "SpriteInfo",
    "check_sprite",
    "embedding_name",
    "parse_config",
    "parse_metadata",
    "parse_tensors",
]

#: The name of a projector config, in a run's directory or its ``plugins/projector``.
CONFIG_NAME = "projector_config.pbtxt"
#: The directory below a run where TensorFlow's writers keep a plugin's assets.
PLUGIN_DIR = "plugins/projector"


@dataclass(frozen=True, slots=True)
class SpriteInfo:
    image_path: str
    single_image_dim: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class EmbeddingInfo:
    """One ``embeddings`` block of a config, and the line it starts on."""

    tensor_name: str = ""
    metadata_path: str = ""
    bookmarks_path: str = ""
    tensor_shape: tuple[int, ...] = ()
    sprite: SpriteInfo | None = None
    tensor_path: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class ProjectorConfig:
    """A config's embeddings, and what stopped its reading (``""``: nothing; the blocks
    before a syntax error are kept)."""

    embeddings: tuple[EmbeddingInfo, ...]
    model_checkpoint_path: str = ""
    model_checkpoint_dir: str = ""
    problem: str = ""


@dataclass(frozen=True, slots=True)
class Metadata:
    """The labels of the vectors: ``rows[i]`` holds one label per column of ``header``;
    ``problem``: rows whose cells did not match the header (padded or cut, said once)."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    problem: str = ""


# -- the text format -------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""(?P<space>[ \t\r\f\v]+|\#[^\n]*)|(?P<newline>\n)
    |(?P<name>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    |(?P<number>[-+]?(?:0[xX][0-9a-fA-F]+|[0-9]+))
    |(?P<punct>[{}<>:\[\],;])""",
    re.VERBOSE,
)
_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))", re.DOTALL)
_SIMPLE = {"n": b"\n", "t": b"\t", "r": b"\r", "a": b"\a", "b": b"\b", "f": b"\f", "v": b"\v"}

# Field name -> (kind, repeated): "string", "uint" or the name of a message.
_FIELDS: dict[str, dict[str, tuple[str, bool]]] = {
    "ProjectorConfig": {
        "model_checkpoint_path": ("string", False),
        "embeddings": ("EmbeddingInfo", True),
        "model_checkpoint_dir": ("string", False),
    },
    "EmbeddingInfo": {
        "tensor_name": ("string", False),
        "metadata_path": ("string", False),
        "bookmarks_path": ("string", False),
        "tensor_shape": ("uint", True),
        "sprite": ("SpriteMetadata", False),
        "tensor_path": ("string", False),
    },
    "SpriteMetadata": {"image_path": ("string", False), "single_image_dim": ("uint", True)},
}


class _SyntaxError(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")


def _unquote(token: str, line: int) -> str:
    body = token[1:-1]
    out = bytearray()
    at = 0
    for m in _ESCAPE.finditer(body):
        out += body[at : m.start()].encode("utf-8")
        octal, hexa, short, long, char = m.groups()
        if octal is not None:
            out.append(int(octal, 8) & 0xFF)
        elif hexa is not None:
            out.append(int(hexa, 16))
        elif short is not None or long is not None:
            out += chr(int(short or long, 16)).encode("utf-8", "surrogatepass")
        else:
            out += _SIMPLE.get(char, char.encode("utf-8"))
        at = m.end()
    out += body[at:].encode("utf-8")
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _SyntaxError(line, f"the string {token[:60]!r} is not UTF-8 once unescaped") from e


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str, int]] = []
        line, at = 1, 0
        while at < len(text):
            m = _TOKEN.match(text, at)
            if m is None:  # raised when the parser gets there: the blocks before it are kept
                self.tokens.append(("error", f"unexpected {text[at : at + 20]!r}", line))
                break
            kind = m.lastgroup or ""
            if kind == "newline":
                line += 1
            elif kind != "space":
                self.tokens.append((kind, m.group(), line))
            at = m.end()
        self.tokens.append(("end", "", line))
        self.at = 0

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.at]

    def take(self) -> tuple[str, str, int]:
        token = self.tokens[self.at]
        if token[0] == "error":
            raise _SyntaxError(token[2], token[1])
        self.at += 1
        return token

    def expect(self, text: str) -> None:
        kind, value, line = self.take()
        if value != text or kind not in ("punct",):
            raise _SyntaxError(line, f"expected {text!r}, found {value or 'the end'!r}")

    def scalar(self, kind: str) -> str | int:
        token, value, line = self.take()
        if kind == "string":
            if token != "string":
                raise _SyntaxError(line, f"expected a quoted string, found {value or 'the end'!r}")
            parts = [_unquote(value, line)]
            while self.peek()[0] == "string":  # adjacent strings are one, as in C
                parts.append(_unquote(self.take()[1], line))
            return "".join(parts)
        if token != "number":
            raise _SyntaxError(line, f"expected a whole number, found {value or 'the end'!r}")
        digits = value.lstrip("+-")
        number = int(value, 16 if digits[:2].lower() == "0x" else 8 if len(digits) > 1 and digits[0] == "0" else 10)
        if not 0 <= number < 1 << 32:
            raise _SyntaxError(line, f"{value} is not a uint32")
        return number

    def message(self, name: str, close: str, sink: list[EmbeddingInfo] | None = None) -> dict[str, Any]:
        fields = _FIELDS[name]
        values: dict[str, Any] = {}
        while True:
            kind, value, line = self.peek()
            if (kind == "end" and close == "") or (kind == "punct" and value == close and close):
                self.take()
                return values
            if kind == "error":
                self.take()  # raises
            if kind != "name":
                raise _SyntaxError(line, f"expected a field name, found {value or 'the end'!r}")
            self.take()
            if value not in fields:
                raise _SyntaxError(line, f"{name} has no field {value!r} (known: {', '.join(fields)})")
            field_kind, repeated = fields[value]
            if not repeated and value in values:
                raise _SyntaxError(line, f"{value!r} is given twice")
            if field_kind in _FIELDS:
                if self.peek()[1] == ":":
                    self.take()
                _, opener, open_line = self.take()
                if opener not in ("{", "<"):
                    raise _SyntaxError(open_line, f"expected '{{' after {value!r}, found {opener or 'the end'!r}")
                sub = self.message(field_kind, "}" if opener == "{" else ">")
                if field_kind == "EmbeddingInfo":
                    info = _embedding(sub, line)
                    if sink is not None:
                        sink.append(info)  # kept even when a later block is broken
                    values.setdefault(value, []).append(info)
                else:
                    values[value] = sub
            else:
                self.expect(":")
                if repeated and self.peek()[1] == "[":
                    self.take()
                    items: list[object] = []
                    while self.peek()[1] != "]":
                        items.append(self.scalar(field_kind))
                        if self.peek()[1] == ",":
                            self.take()
                    self.take()
                    values.setdefault(value, []).extend(items)
                elif repeated:
                    values.setdefault(value, []).append(self.scalar(field_kind))
                else:
                    values[value] = self.scalar(field_kind)
            if self.peek()[1] in (",", ";"):
                self.take()


def _embedding(fields: dict[str, Any], line: int) -> EmbeddingInfo:
    sprite = fields.get("sprite")
    return EmbeddingInfo(
        tensor_name=str(fields.get("tensor_name", "")),
        metadata_path=str(fields.get("metadata_path", "")),
        bookmarks_path=str(fields.get("bookmarks_path", "")),
        tensor_shape=tuple(fields.get("tensor_shape", ())),
        sprite=SpriteInfo(str(sprite.get("image_path", "")), tuple(sprite.get("single_image_dim", ())))
        if isinstance(sprite, dict)
        else None,
        tensor_path=str(fields.get("tensor_path", "")),
        line=line,
    )


def parse_config(data: bytes) -> ProjectorConfig:
    """A ``projector_config.pbtxt``'s embeddings. A syntax error (or text that is not
    UTF-8) is the config's ``problem``, naming its line; the blocks before it are kept."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        return ProjectorConfig((), problem=f"line {line}: not UTF-8 text (byte {e.start})")
    got: list[EmbeddingInfo] = []
    try:
        parser = _Parser(text)
        fields = parser.message("ProjectorConfig", "", got)
    except _SyntaxError as e:
        after = "; the embeddings after it are not read" if got or "embeddings" in text else ""
        return ProjectorConfig(tuple(got), problem=f"{e}{after}")
    return ProjectorConfig(
        tuple(got),
        str(fields.get("model_checkpoint_path", "")),
        str(fields.get("model_checkpoint_dir", "")),
    )


_STEP = re.compile(r"^(.*):(-?[0-9]+)$", re.DOTALL)


def embedding_name(info: EmbeddingInfo) -> tuple[str, int]:
    """``(tag, step)`` of a block: ``tag:00042`` (tensorboardX's and torch's name: the tag
    and its step, padded) is ``("tag", 42)``; TensorFlow's ``name:0`` is ``("name", 0)``;
    a name without one is at step 0; no name: the basename of ``tensor_path``."""
    name = info.tensor_name or posixpath.basename(info.tensor_path.replace("\\", "/"))
    m = _STEP.match(name)
    if m is not None and m.group(1):
        return m.group(1), int(m.group(2))
    return name, 0


# -- the tensors -----------------------------------------------------------------------------


def parse_tensors(data: bytes, path: str, shape: tuple[int, ...] = ()) -> np.ndarray:
    """The vectors of a tensors file (rows x dimension, float32): text, a row a line and
    values separated by tabs (blank lines skipped; ``nan`` and ``inf`` are values), or,
    when it is not text, float32 bytes of ``shape`` (``tensor_shape``). A ragged row, a
    cell that is not a number, or a shape that does not fit raises, naming the line."""
    if not data.isascii():
        if len(shape) == 2 and shape[0] * shape[1] * 4 == len(data) and shape[0] * shape[1]:
            return np.frombuffer(data, "<f4").reshape(shape)
        got = f"{len(data):,} bytes" + (f" for tensor_shape {list(shape)}" if shape else " and no tensor_shape")
        raise LogFormatError(
            f"not a text file of tab-separated numbers, nor float32 bytes of its tensor_shape ({got})", path
        )
    lines = data.split(b"\n")
    kept = [i for i, line in enumerate(lines) if line and not line.isspace()]
    if not kept:
        raise LogFormatError("holds no vectors (no line with a number)", path)
    widths = np.fromiter((lines[i].count(b"\t") for i in kept), np.int64, len(kept)) + 1
    dim = int(widths[0])
    ragged = np.flatnonzero(widths != dim)
    if ragged.size:
        at = int(ragged[0])
        raise LogFormatError(
            f"line {kept[at] + 1} has {int(widths[at])} values where line {kept[0] + 1} has {dim} "
            f"({ragged.size:,} row{'s' if ragged.size > 1 else ''} of another length): every vector must have "
            f"the same dimension",
            path,
        )
    del lines[:]  # parsed from ``data`` below; the lines are needed again only to say what is wrong
    values = _numbers(data, len(kept) * dim)
    if values is None:
        raise LogFormatError(_bad_cell(data.split(b"\n"), kept), path)
    if len(shape) == 2 and tuple(shape) != (len(kept), dim):
        raise LogFormatError(f"holds {len(kept)} x {dim} values, but its tensor_shape is {list(shape)}", path)
    return values.reshape(len(kept), dim)


#: Bytes of text parsed at a time (with the Python floats of one piece, ~3x that in memory).
PIECE_BYTES = 8 << 20
_PLAIN = b"0123456789.eE+-\t\n\r "


def _numbers(data: bytes, count: int) -> np.ndarray | None:
    """The ``count`` numbers of ``data`` (whitespace-separated) as float32; None when it
    holds another number of them or something else. A piece of plain decimals is parsed
    by orjson as a JSON array (1.1 to 1.3 times as fast as numpy's strtod; rounded through
    float64, as Python's ``float`` and TensorBoard do); others (``nan``, ``inf``) by numpy."""
    out = np.empty(count, np.float32)
    at = start = 0
    while start < len(data):
        end = data.find(b"\n", start + PIECE_BYTES)
        end = len(data) if end < 0 else end + 1
        piece = data[start:end]
        start = end
        parsed: Any = None
        if not piece.translate(None, _PLAIN):
            try:
                parsed = orjson.loads(b"[" + piece.replace(b"\t", b",").replace(b"\n", b",").rstrip(b", \r") + b"]")
            except orjson.JSONDecodeError:
                parsed = None  # a blank line, an empty cell: numpy's parse says
        if parsed is None:
            try:
                parsed = np.fromstring(piece, np.float32, sep=" ")  # any whitespace; C's strtod
            except ValueError:
                return None
        if at + len(parsed) > count:
            return None
        out[at : at + len(parsed)] = (
            np.fromiter(parsed, np.float64, len(parsed)) if isinstance(parsed, list) else parsed
        )
        at += len(parsed)
    return out if at == count else None


def _bad_cell(lines: list[bytes], kept: list[int]) -> str:
    """Where the first cell that is not a number is (only when the fast parse failed)."""
    for i in kept:
        for column, cell in enumerate(lines[i].rstrip(b"\r").split(b"\t")):
            try:
                float(cell)
            except ValueError:
                shown = cell[:40].decode("ascii", "replace")
                return f"line {i + 1}, column {column + 1}: {shown!r} is not a number"
    return "holds a value that is not a number"


# -- the metadata ----------------------------------------------------------------------------


def parse_metadata(data: bytes, path: str, rows: int) -> Metadata:
    """The labels of ``rows`` vectors. One column (named ``label``) unless the first line
    holds a tab: then it names the columns. Labels of rows that are blank count as empty
    labels when that makes one row per vector, else blank lines are skipped (as
    TensorBoard does). A different number of rows raises."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise LogFormatError(f"line {line}: not UTF-8 text", path) from e
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    header_line = first if first is not None and "\t" in lines[first] else None
    start = 0 if header_line is None else header_line + 1
    numbered = list(enumerate(lines[start:], start + 1))
    if len(numbered) != rows:
        numbered = [(n, line) for n, line in numbered if line.strip()]
    if len(numbered) != rows:
        raise LogFormatError(
            f"holds {len(numbered):,} rows of labels for {rows:,} vectors"
            + (" (after its header row)" if header_line is not None else "")
            + ": one row per vector is needed",
            path,
        )
    if header_line is None:
        return Metadata(("label",), tuple((line,) for _, line in numbered))
    header = tuple(lines[header_line].split("\t"))
    width = len(header)
    cells = [line.split("\t") for _, line in numbered]
    off = [n for (n, _), row in zip(numbered, cells, strict=True) if len(row) != width]
    problem = ""
    if off:
        n = off[0]
        problem = (
            f"line {n} has {len(cells[[m for m, _ in numbered].index(n)])} labels for {width} columns "
            f"({len(off):,} row{'s' if len(off) > 1 else ''} so): missing labels are empty, extra ones not shown"
        )
        cells = [(row + [""] * width)[:width] for row in cells]
    return Metadata(header, tuple(tuple(row) for row in cells), problem)


# -- the sprite ------------------------------------------------------------------------------


def check_sprite(data: bytes, path: str, dim: tuple[int, ...], rows: int) -> tuple[int, int, int, str]:
    """``(width, height, per row, media type)`` of a sprite of ``rows`` images of ``dim`` = [width,
    height] pixels each, laid row after row from the top left (TensorBoard's rule: as
    many a row as the sprite's width holds); raises when it is not an image or is too small."""
    from PIL import Image, UnidentifiedImageError

    if len(dim) != 2 or not all(dim):
        raise LogFormatError(f"single_image_dim must be [width, height] of one image; got {list(dim)}", path)
    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            media_type = Image.MIME.get(image.format or "", "application/octet-stream")
    except (UnidentifiedImageError, OSError) as e:
        raise LogFormatError(f"not an image ({e})", path) from e
    w, h = dim
    per_row = width // w
    needed = math.ceil(rows / per_row) * h if per_row else 0
    if not per_row or height < needed:
        raise LogFormatError(
            f"is {width} x {height} px: {rows:,} images of {w} x {h} px, {per_row} a row, need "
            f"{max(w, per_row * w)} x {needed or h} px at least",
            path,
        )
    return width, height, per_row, media_type
