"""JSON Schema (2020-12, as OpenAPI 3.1 takes it) in a few words: the builders the
answers of the API are declared with (:mod:`._http.answers` and its siblings)."""

from __future__ import annotations

from typing import Any

__all__ = [
    "BOOLEAN",
    "INTEGER",
    "NULLABLE_INTEGER",
    "NULLABLE_NUMBER",
    "NUMBER",
    "STRING",
    "WALL_TIME",
    "array",
    "mapping",
    "nullable",
    "obj",
]

STRING: dict[str, Any] = {"type": "string"}
INTEGER: dict[str, Any] = {"type": "integer"}
NUMBER: dict[str, Any] = {"type": "number"}
BOOLEAN: dict[str, Any] = {"type": "boolean"}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {**schema, "type": [schema["type"], "null"]}


def array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


def obj(properties: dict[str, Any], *, optional: tuple[str, ...] = (), description: str = "") -> dict[str, Any]:
    """An object with ``properties``, all of them required but ``optional``; more are allowed."""
    out: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": [name for name in properties if name not in optional],
    }
    if description:
        out["description"] = description
    return out


def mapping(values: dict[str, Any], description: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "additionalProperties": values}
    if description:
        out["description"] = description
    return out


NULLABLE_NUMBER = nullable(NUMBER)
NULLABLE_INTEGER = nullable(INTEGER)
#: A time as a log file holds it, in seconds since the epoch: null where the file holds NaN
#: or an infinity (a crafted or damaged one; JSON has neither).
WALL_TIME: dict[str, Any] = {**NULLABLE_NUMBER, "description": "seconds since the epoch; null: not finite in its file"}
