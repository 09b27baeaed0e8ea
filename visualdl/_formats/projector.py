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
import operator
import posixpath
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from visualdl.errors import LogFormatError

__all__ = [
    "CONFIG_NAME",
    "PLUGIN_DIR",
    "MAX_LINE_BYTES",
    "MAX_SPRITE_SIDE",
    "PIECE_BYTES",
    "SPRITE_FORMATS",
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
    |(?P<string>"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"|'[^'\\\n]*+(?:\\.[^'\\\n]*+)*+')  # possessive: no stack
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


def _tokens(text: str) -> Iterator[tuple[str, str, int]]:
    """``(kind, text, line)`` of each token, then ``("end", "", line)``; what is not a token is
    an ``"error"`` token, and the last."""
    line, at = 1, 0
    while at < len(text):
        m = _TOKEN.match(text, at)
        if m is None:  # raised when the parser gets there: the blocks before it are kept
            yield ("error", f"unexpected {text[at : at + 20]!r}", line)
            return
        kind = m.lastgroup or ""
        if kind == "newline":
            line += 1
        elif kind != "space":
            yield (kind, m.group(), line)
        at = m.end()
    yield ("end", "", line)


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
            point = int(short or long, 16)
            if point > 0x10FFFF:
                raise _SyntaxError(
                    line, f"the string {token[:60]!r} holds \\U{long}, past the last code point U+10FFFF"
                )
            out += chr(point).encode("utf-8", "surrogatepass")
        else:
            out += _SIMPLE.get(char, char.encode("utf-8"))
        at = m.end()
    out += body[at:].encode("utf-8")
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _SyntaxError(line, f"the string {token[:60]!r} is not UTF-8 once unescaped") from e


class _Parser:
    """A recursive descent over the tokens, taken one at a time (a config of 16 MB of commas
    holds one token at a time, not 16M of them)."""

    def __init__(self, text: str) -> None:
        self._tokens = _tokens(text)
        self._next = next(self._tokens)

    def peek(self) -> tuple[str, str, int]:
        return self._next

    def take(self) -> tuple[str, str, int]:
        token = self._next
        if token[0] == "error":
            raise _SyntaxError(token[2], token[1])
        if token[0] != "end":
            self._next = next(self._tokens)
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
        return _uint32(value, line)

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


#: The longest number token read (a uint32 in octal with a sign is 13 characters); longer
#: ones are refused before they are converted (Python refuses 4,300 digits and more).
_MAX_NUMBER_CHARS = 40


def _uint32(token: str, line: int) -> int:
    """The value of a number token, which protobuf's text format reads as hexadecimal after
    ``0x``, octal after a leading ``0``, decimal else; what is no uint32 is a syntax error."""
    digits = token.lstrip("+-")
    hexadecimal = digits[:2].lower() == "0x"
    octal = not hexadecimal and len(digits) > 1 and digits[0] == "0"
    shown = token if len(token) <= 20 else f"{token[:20]}… ({len(token):,} digits)"
    number = -1
    if len(token) <= _MAX_NUMBER_CHARS and (not octal or (digits.isdigit() and not set(digits) & set("89"))):
        number = int(token, 16 if hexadecimal else 8 if octal else 10)
    if not 0 <= number < 1 << 32:
        why = " (a number starting with 0 is octal)" if octal and set(digits) & set("89") else ""
        raise _SyntaxError(line, f"{shown} is not a uint32{why}")
    return number


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


#: A step is an int64: 18 digits are always one (more are part of the name).
_MAX_STEP_DIGITS = 18
_STEP = re.compile(r"^(.*):(-?[0-9]+)$", re.DOTALL)


def embedding_name(info: EmbeddingInfo) -> tuple[str, int]:
    """``(tag, step)`` of a block: ``tag:00042`` (tensorboardX's and torch's name: the tag
    and its step, padded) is ``("tag", 42)``; TensorFlow's ``name:0`` is ``("name", 0)``;
    a name without one is at step 0; no name: the basename of ``tensor_path``."""
    name = info.tensor_name or posixpath.basename(info.tensor_path.replace("\\", "/"))
    m = _STEP.match(name)
    if m is not None and m.group(1):
        step = m.group(2)
        digits = step.lstrip("-").lstrip("0") or "0"  # padded with zeros (any number of them)
        if len(digits) <= _MAX_STEP_DIGITS:
            return m.group(1), int(digits) * (-1 if step.startswith("-") else 1)
    return name, 0  # no step, or one of more digits than a step has: part of the name


# -- the tensors -----------------------------------------------------------------------------

#: Bytes of text looked at a time: the temporary arrays of a piece are ~3 times its bytes,
#: whatever the file's size (the values themselves go straight into the result).
PIECE_BYTES = 256 << 10
#: The longest line (one vector) of a tensors file, its newline aside: millions of
#: dimensions, far more than the projector can use. A piece ends at the first newline after
#: PIECE_BYTES, so this bounds a piece, and the memory its arrays take, whatever the file.
MAX_LINE_BYTES = 8 << 20
#: The bytes ``bytes.isspace`` and C's ``isspace`` do not take for white space.
_SOLID = np.ones(256, bool)
_SOLID[[9, 10, 11, 12, 13, 32]] = False


@dataclass(frozen=True, slots=True)
class _Piece:
    """A run of whole lines of a text: ``data[start:end]``, its first line's number (from 0),
    and the lines of it holding a value."""

    start: int
    end: int
    first_line: int
    rows: int


def _pieces(data: bytes, path: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of runs of whole lines of about PIECE_BYTES each. A line longer than
    :data:`MAX_LINE_BYTES` raises, found before any array is made over it: only the line
    crossing ``start + PIECE_BYTES`` can be longer than PIECE_BYTES."""
    start = 0
    while start < len(data):
        cut = start + PIECE_BYTES
        line = max(start, data.rfind(b"\n", start, cut) + 1)  # where the line crossing the cut starts
        end = data.find(b"\n", cut, line + MAX_LINE_BYTES + 1)
        if end < 0 and len(data) > line + MAX_LINE_BYTES:
            number = data.count(b"\n", 0, line) + 1
            raise LogFormatError(
                f"line {number} is longer than the {MAX_LINE_BYTES:,} bytes a line "
                "(one vector) may hold: a vector of that many values is more than the projector can show",
                path,
            )
        end = len(data) if end < 0 else end + 1
        yield start, end
        start = end


def _lines(piece: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """Of a piece of text (bytes as uint8, whole lines): its number of lines, the index of
    each line that is not blank, and the tabs of each of those. A few numpy passes, each
    over a line and its newline: at most 5 bytes a byte of the piece."""
    newlines = np.flatnonzero(piece == 10)
    ends = newlines if piece.size and piece[-1] == 10 else np.append(newlines, piece.size)
    starts = np.concatenate(([0], ends[:-1] + 1))  # a line and its newline: never empty
    kept = np.flatnonzero(np.logical_or.reduceat(_SOLID[piece], starts))
    tabs = np.add.reduceat(piece == 9, starts, dtype=np.int32)[kept]  # a piece is < 2 GiB
    return ends.size, kept, tabs


def parse_tensors(data: bytes, path: str, shape: tuple[int, ...] = ()) -> np.ndarray:
    """The vectors of a tensors file (rows x dimension, float32): text, a row a line and
    values separated by tabs (blank lines skipped; ``nan`` and ``inf`` are values), or,
    when it is not text, float32 bytes of ``shape`` (``tensor_shape``). A ragged row, a
    cell that is not a number, or a shape that does not fit raises, naming the line.

    Parsed a piece of lines at a time, straight into the result: at its peak it holds the
    text, the result and one piece's temporary arrays, never a Python object per line or cell."""
    if not data.isascii():
        if len(shape) == 2 and shape[0] * shape[1] * 4 == len(data) and shape[0] * shape[1]:
            return np.frombuffer(data, "<f4").reshape(shape)
        got = f"{len(data):,} bytes" + (f" for tensor_shape {list(shape)}" if shape else " and no tensor_shape")
        raise LogFormatError(
            f"not a text file of tab-separated numbers, nor float32 bytes of its tensor_shape ({got})", path
        )
    text = np.frombuffer(data, np.uint8)
    pieces: list[_Piece] = []
    dim = first = 0
    ragged, odd = 0, (0, 0)  # rows of another length, and the first one's (line, values)
    lines = 0
    for start, end in _pieces(data, path):
        count, kept, tabs = _lines(text[start:end])
        if kept.size:
            if not pieces:
                dim, first = int(tabs[0]) + 1, lines + int(kept[0])
            other = np.flatnonzero(tabs != dim - 1)
            if other.size and not ragged:
                odd = (lines + int(kept[other[0]]), int(tabs[other[0]]) + 1)
            ragged += other.size
            pieces.append(_Piece(start, end, lines, kept.size))
        lines += count
    if not pieces:
        raise LogFormatError("holds no vectors (no line with a number)", path)
    if ragged:
        raise LogFormatError(
            f"line {odd[0] + 1} has {odd[1]} values where line {first + 1} has {dim} ({ragged:,} "
            f"row{'s' if ragged > 1 else ''} of another length): every vector must have the same dimension",
            path,
        )
    rows = sum(p.rows for p in pieces)
    out = np.empty(rows * dim, np.float32)
    at = 0
    for p in pieces:
        piece = data[p.start : p.end]
        try:
            values = np.fromstring(piece, np.float32, sep=" ")  # any white space; C's strtod, through float64
        except ValueError:
            values = None
        if values is None or values.size != p.rows * dim:  # a cell that is not one number
            raise LogFormatError(_bad_cell(piece, p.first_line), path)
        out[at : at + values.size] = values
        at += values.size
    if len(shape) == 2 and tuple(shape) != (rows, dim):
        raise LogFormatError(f"holds {rows} x {dim} values, but its tensor_shape is {list(shape)}", path)
    return out.reshape(rows, dim)


def _bad_cell(piece: bytes, first_line: int) -> str:
    """Where the first cell that is not a number is, in a piece whose parse failed."""
    for i, line in enumerate(piece.split(b"\n")):
        if line.isspace() or not line:
            continue
        for column, cell in enumerate(line.rstrip(b"\r").split(b"\t")):
            try:
                float(cell)
                number = len(cell.split()) == 1 and b"_" not in cell
            except ValueError:
                number = False
            if not number:
                shown = cell[:40].decode("ascii", "replace")
                return f"line {first_line + i + 1}, column {column + 1}: {shown!r} is not a number"
    last = first_line + piece.count(b"\n") + 1
    return f"lines {first_line + 1} to {last} hold a value that is not a number"


# -- the metadata ----------------------------------------------------------------------------

_SOLID_LINE = re.compile(r"^[^\S\n]*\S", re.MULTILINE)  # a line that is not blank, to its first character


def parse_metadata(data: bytes, path: str, rows: int) -> Metadata:
    """The labels of ``rows`` vectors. One column (named ``label``) unless the first line
    holds a tab: then it names the columns. Labels of rows that are blank count as empty
    labels when that makes one row per vector, else blank lines are skipped (as
    TensorBoard does). A different number of rows raises.

    The rows are counted before any label is made, and rows alike are one tuple: a file
    holds, besides its text, a string per label that differs and a pointer per row."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise LogFormatError(f"line {line}: not UTF-8 text", path) from e
    if "\r" in text:  # a line's last \r is not its label's
        text = text.replace("\r\n", "\n").removesuffix("\r")
    found = _SOLID_LINE.search(text)
    header_line = None
    start = 0  # where the labels start
    if found is not None:
        line_start = text.rfind("\n", 0, found.start()) + 1
        line_end = text.find("\n", found.start())
        line_end = len(text) if line_end < 0 else line_end
        if "\t" in text[line_start:line_end]:
            header_line = text.count("\n", 0, line_start)
            start = min(len(text), line_end + 1)
    body = text[start:]
    every = body.count("\n") + (0 if body.endswith("\n") or not body else 1)
    skip = every != rows
    if skip:
        solid = sum(1 for _ in _SOLID_LINE.finditer(body))  # a match at a time: nothing per blank line
        if solid != rows:
            raise LogFormatError(
                f"holds {solid:,} rows of labels for {rows:,} vectors"
                + (" (after its header row)" if header_line is not None else "")
                + ": one row per vector is needed",
                path,
            )
    lines = body.split("\n")
    if body.endswith("\n") or not body:
        lines.pop()
    if skip:
        lines = list(filter(str.strip, lines))
    if header_line is None:
        return Metadata(("label",), _shared(list(zip(lines))))
    header = tuple(text[line_start:line_end].split("\t"))
    width = len(header)
    cells = list(map(operator.methodcaller("split", "\t"), lines))
    del lines
    widths = np.fromiter(map(len, cells), np.int64, len(cells))
    off = np.flatnonzero(widths != width)
    problem = ""
    if off.size and len(cells) * width > 2 * len(data) + width:  # padding would make most of the labels
        raise LogFormatError(
            f"its header row (line {header_line + 1}) names {width:,} columns, but its {len(cells):,} rows hold "
            f"{int(widths.sum()):,} labels: the header does not fit the rows",
            path,
        )
    if off.size:
        n = _line_of(body, int(off[0]), skip) + header_line + 1
        problem = (
            f"line {n} has {int(widths[off[0]])} labels for {width} columns "
            f"({off.size:,} row{'s' if off.size > 1 else ''} so): missing labels are empty, extra ones not shown"
        )
        for i in off.tolist():
            cells[i] = tuple((cells[i] + [""] * width)[:width])
    return Metadata(header, _shared(list(map(tuple, cells))), problem)


def _shared(rows: list[tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    """``rows``, each row alike to an earlier one replaced by it (labels of a few classes
    cost a pointer a row)."""
    first: dict[tuple[str, ...], tuple[str, ...]] = {}
    return tuple(map(first.setdefault, rows, rows))


def _line_of(body: str, row: int, skip: bool) -> int:
    """The line (from 1) of ``body`` holding row ``row`` of labels (blank lines skipped or not)."""
    if not skip:
        return row + 1
    for i, m in enumerate(_SOLID_LINE.finditer(body)):
        if i == row:
            return body.count("\n", 0, m.start()) + 1
    return row + 1


# -- the sprite ------------------------------------------------------------------------------

#: The widest and tallest sprite read, in pixels (TensorBoard's limit: a browser's canvas holds it).
MAX_SPRITE_SIDE = 8192
#: The image formats of sprites, those a browser shows.
SPRITE_FORMATS = ("PNG", "JPEG", "GIF", "WEBP", "BMP")
_FORMATS_SAID = "PNG, JPEG, GIF, WebP or BMP"
_PNG = b"\x89PNG\r\n\x1a\n"


def _png_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG, from its first chunk's header (None: it is not one)."""
    if data[:8] != _PNG or data[12:16] != b"IHDR" or len(data) < 24:
        return None
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def check_sprite(data: bytes, path: str, dim: tuple[int, ...], rows: int) -> tuple[int, int, int, str]:
    """``(width, height, per row, media type)`` of a sprite of ``rows`` images of ``dim`` = [width,
    height] pixels each, laid row after row from the top left (TensorBoard's rule: as
    many a row as the sprite's width holds); raises when it is not an image or is too small,
    or larger than :data:`MAX_SPRITE_SIDE` a side. Only its header is read, never its pixels;
    a PNG's size is checked before the image library sees it."""
    from PIL import Image, UnidentifiedImageError

    if len(dim) != 2 or not all(dim):
        raise LogFormatError(f"single_image_dim must be [width, height] of one image; got {list(dim)}", path)
    size = _png_size(data)
    if size is not None and max(size) > MAX_SPRITE_SIDE:
        raise LogFormatError(_too_large("a PNG of", *size), path)
    try:
        with Image.open(io.BytesIO(data), formats=SPRITE_FORMATS) as image:
            width, height = image.size
            media_type = Image.MIME.get(image.format or "", "application/octet-stream")
    except Image.DecompressionBombError as e:
        raise LogFormatError(f"claims more pixels than a sprite may hold ({e})", path) from e
    except UnidentifiedImageError as e:
        raise LogFormatError(f"not an image of {_FORMATS_SAID}", path) from e
    except Exception as e:  # the image library's boundary: its readers raise many kinds of error
        raise LogFormatError(f"not an image of {_FORMATS_SAID} ({type(e).__name__}: {e})", path) from e
    if max(width, height) > MAX_SPRITE_SIDE:
        raise LogFormatError(_too_large("an image of", width, height), path)
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


def _too_large(what: str, width: int, height: int) -> str:
    return (
        f"is {what} {width} x {height} px, more than the {MAX_SPRITE_SIDE} x {MAX_SPRITE_SIDE} px a sprite may be "
        "(TensorBoard's limit too): write smaller label images, or fewer of them"
    )
