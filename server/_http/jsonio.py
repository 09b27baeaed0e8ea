"""JSON responses through orjson: numpy arrays and scalars serialized natively, no ``tolist()``.

Floats are written as the shortest text that reads back to the same float64. NaN and
±Inf become ``null`` (JSON has none); the API lists them apart (``nonfinite``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import orjson
from flask import Flask, Response
from flask.json.provider import JSONProvider

__all__ = ["OrjsonProvider"]

_OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def _default(obj: Any) -> Any:
    """What orjson does not take natively: strided numpy views (as lists)."""
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"cannot serialize {type(obj).__name__} as JSON")


def _dumps(obj: Any) -> bytes:
    return orjson.dumps(obj, option=_OPTIONS, default=_default)


class OrjsonProvider(JSONProvider):
    """Flask's JSON provider, backed by orjson."""

    mimetype = "application/json"

    def __init__(self, app: Flask) -> None:
        super().__init__(app)

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return _dumps(obj).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        obj = self._prepare_response_obj(args, kwargs)
        return Response(_dumps(obj), mimetype=self.mimetype)
