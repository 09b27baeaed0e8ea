"""Query parameters, declared once: their limits, their JSON schema and their parsing.

A :class:`Param` states a parameter's type, bounds, choices, pattern and whether it is
required or repeated; :func:`parse_query` takes a request's arguments by those
declarations (a bad value: :class:`~visualdl.errors.InvalidArgument` naming it) and
:meth:`Param.schema` states the same rules for the OpenAPI document. No flask here.

Every name the API lists (runs, tags, graph names) is within its limit here
(:func:`visualdl.server._provider.servable`), so what ``/api/tags`` lists, the other
endpoints take.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from visualdl._index.runquery import MAX_QUERY_CHARS
from visualdl.errors import InvalidArgument
from visualdl.server._graph.limits import MAX_PATH_DEPTH
from visualdl.server._provider import MAX_RUN_LENGTH, MAX_TAG_LENGTH
from visualdl.server._settings import MIN_MAX_POINTS, Settings

__all__ = [
    "MAX_EXPAND",
    "MAX_PATH_DEPTH",
    "MAX_RUNS",
    "MAX_TEXT",
    "MIN_MAX_POINTS",
    "NO_NUL",
    "NUMBER_BOUNDS",
    "Param",
    "parse_query",
    "text_limit",
]

#: Characters of any other text parameter (q, node, model, path, an expanded group), at most.
MAX_TEXT = 1024
#: Values of a repeated ``run`` parameter in one request, at most.
MAX_RUNS = 1000
#: Values of a repeated ``expand`` parameter in one request, at most.
MAX_EXPAND = 10_000
_TEXT_LIMITS = {"run": MAX_RUN_LENGTH, "tag": MAX_TAG_LENGTH, "name": MAX_TAG_LENGTH, "where": MAX_QUERY_CHARS}
#: (minimum, maximum) of the integer parameters; ``max_points`` is bounded by ``Settings.max_points_limit``.
NUMBER_BOUNDS = {
    "index": (0, 2**62),
    "step": (0, 2**63 - 1),
    "max_entries": (1, 10_000),
    "k": (1, 1000),
    "dims": (2, 3),
    "rank": (0, 2**31 - 1),
    "grid": (2, 2000),
    "offset": (0, 2**31 - 1),
    "limit": (1, 5000),
}
#: The pattern of any text without a stated one: the server refuses a NUL character.
NO_NUL = "^[^\\u0000]*$"
# Numbers as JSON writes them, in ASCII digits: int() and float() also take "٣", " 3" and "1_0".
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def text_limit(name: str) -> int:
    """The most characters the text parameter ``name`` takes."""
    return _TEXT_LIMITS.get(name, MAX_TEXT)


class Args(Protocol):
    """A request's query arguments (werkzeug's ``MultiDict``): every value of a name, in order."""

    def getlist(self, key: str) -> list[str]: ...


@dataclass(frozen=True, slots=True)
class Param:
    """One query parameter.

    ``type``: ``text`` (1 to :func:`text_limit` characters, no NUL, matching ``pattern``
    in full when given, ``hint`` saying what matches), ``integer`` (ASCII digits within
    ``bounds``; ``settings_limit`` names the :class:`Settings` field of the maximum and
    ``settings_default`` that of the default), ``number`` (finite), ``enum`` (one of
    ``choices``, the first by default) or ``flag`` (``0``/``1``, absent is 0).
    ``many``: repeated, at most that many times (text only).
    """

    name: str
    description: str
    type: Literal["text", "integer", "number", "enum", "flag"] = "text"
    required: bool = False
    many: int = 0
    bounds: tuple[int, int] = (0, 0)
    default: int | None = None
    settings_limit: str = ""
    settings_default: str = ""
    choices: tuple[str, ...] = ()
    pattern: str = ""
    hint: str = ""
    example: str = ""

    def limits(self, settings: Settings) -> tuple[int, int]:
        """The (minimum, maximum) of an integer parameter on a server of ``settings``."""
        low, high = self.bounds
        if self.settings_limit:
            high = int(getattr(settings, self.settings_limit))
        return low, high

    def schema(self, settings: Settings) -> dict[str, Any]:
        """The JSON schema of the parameter's value (of the array of values when ``many``)."""
        item: dict[str, Any]
        if self.type == "text":
            pattern = f"^{self.pattern}$" if self.pattern else NO_NUL
            item = {"type": "string", "minLength": 1, "maxLength": text_limit(self.name), "pattern": pattern}
        elif self.type == "integer":
            low, high = self.limits(settings)
            item = {"type": "integer", "minimum": low, "maximum": high}
        elif self.type == "number":
            item = {"type": "number"}
        elif self.type == "enum":
            item = {"type": "string", "enum": list(self.choices)}
        else:
            item = {"type": "string", "enum": ["0", "1"]}
        if self.many:
            return {"type": "array", "items": item, "minItems": 1, "maxItems": self.many}
        return item

    def parse(self, values: list[str], settings: Settings) -> Any:
        """The value of the parameter given ``values`` (every occurrence, in order)."""
        name = self.name
        if self.many:
            if not values and self.required:
                raise InvalidArgument(f"missing query parameter {name!r} (give it once per run)")
            if len(values) > self.many:
                raise InvalidArgument(f"query parameter {name!r} is given {len(values)} times; at most {self.many}")
            return [self._text(value) for value in values]
        raw = values[0] if values else None
        if raw is None:
            if self.required:
                raise InvalidArgument(f"missing query parameter {name!r}")
            return self._absent(settings)
        if self.type == "text":
            return self._text(raw)
        if self.type == "integer":
            return self._integer(raw, settings)
        if self.type == "number":
            return self._number(raw)
        if self.type == "enum":
            if raw not in self.choices:
                allowed = " or ".join(repr(c) for c in self.choices)
                raise InvalidArgument(f"query parameter {name!r} must be {allowed}; got {raw[:40]!r}")
            return raw
        if raw not in ("0", "1"):
            raise InvalidArgument(f"query parameter {name!r} must be 0 or 1; got {raw[:40]!r}")
        return raw == "1"

    def _absent(self, settings: Settings) -> Any:
        if self.type == "integer":
            return int(getattr(settings, self.settings_default)) if self.settings_default else self.default
        if self.type == "enum":
            return self.choices[0]
        if self.type == "flag":
            return False
        return None

    def _text(self, value: str) -> str:
        name = self.name
        if not value:
            raise InvalidArgument(f"query parameter {name!r} must not be empty; leave it out instead")
        limit = text_limit(name)
        if len(value) > limit:
            raise InvalidArgument(f"query parameter {name!r} must be at most {limit} characters; got {len(value)}")
        if "\x00" in value:
            raise InvalidArgument(f"query parameter {name!r} must not hold a NUL character")
        if self.pattern and re.fullmatch(self.pattern, value) is None:
            raise InvalidArgument(f"query parameter {name!r} must be {self.hint}; got {value[:40]!r}")
        return value

    def _integer(self, raw: str, settings: Settings) -> int:
        low, high = self.limits(settings)
        if _INTEGER.fullmatch(raw) is None:
            raise InvalidArgument(f"query parameter {self.name!r} must be an integer; got {raw[:40]!r}")
        value = int(raw) if len(raw) <= 40 else high + 1
        if not low <= value <= high:
            raise InvalidArgument(f"query parameter {self.name!r} must be between {low} and {high}; got {raw[:40]}")
        return value

    def _number(self, raw: str) -> float:
        name = self.name
        if len(raw) > MAX_TEXT or _NUMBER.fullmatch(raw) is None:
            if raw.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
                raise InvalidArgument(f"query parameter {name!r} must be finite; got {raw[:40]!r}")
            raise InvalidArgument(f"query parameter {name!r} must be a number; got {raw[:40]!r}")
        value = float(raw)
        if not math.isfinite(value):
            raise InvalidArgument(f"query parameter {name!r} must be finite; got {raw[:40]!r}")
        return value


def parse_query(params: Sequence[Param], args: Args, settings: Settings) -> dict[str, Any]:
    """Every declared parameter's value by name, checked in declaration order; others are ignored.

    Absent optional ones are ``None`` (text, number), their default (integer, enum),
    ``False`` (flag) or ``[]`` (repeated).
    """
    return {param.name: param.parse(args.getlist(param.name), settings) for param in params}
