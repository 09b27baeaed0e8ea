"""Every answer of the JSON API checked against the OpenAPI document the server generates.

``ContractClient`` is the Flask test client of every test (``conftest.py`` installs it):
a GET of a documented route must answer a documented status, with a documented content
type, and a JSON body that its JSON Schema (2020-12) accepts. The fuzz test calls
:func:`check_answer` on what it sends straight through WSGI.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import jsonschema
import orjson
from flask import Flask
from flask.testing import FlaskClient

from visualdl.server._http.openapi import openapi_document

__all__ = ["ContractClient", "check_answer", "document_of", "schema_at"]


def document_of(app: Flask) -> dict[str, Any]:
    """The OpenAPI document ``app`` serves (generated from its settings, as the server does)."""
    document: dict[str, Any] | None = app.extensions.get("tests.openapi")
    if document is None:
        document = openapi_document(app.extensions["visualdl.provider"].settings)
        app.extensions["tests.openapi"] = document
    return document


def _resolve(document: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


@lru_cache(maxsize=256)
def _validator(schema_json: bytes) -> jsonschema.Draft202012Validator:
    schema = orjson.loads(schema_json)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def schema_at(document: dict[str, Any], path: str, status: int, content_type: str = "application/json") -> Any:
    """The schema of the ``status`` answer of GET ``path`` in ``content_type``, ``$ref`` resolved."""
    operation = document["paths"][path]["get"]
    response = _resolve(document, operation["responses"][str(status)])
    return _resolve(document, response["content"][content_type]["schema"])


def check_answer(
    document: dict[str, Any],
    method: str,
    path: str,
    status: int,
    content_type: str,
    body: bytes | Callable[[], bytes],
) -> None:
    """Fail unless the answer to ``method path`` is one the document states; ``path`` is the
    request's path under the app's prefix, ``body`` the bytes or how to read them (only when
    JSON). Only GETs of documented routes are checked."""
    prefix = document["servers"][0]["url"].rstrip("/")
    if method != "GET" or not path.startswith(prefix + "/"):
        return
    route = path[len(prefix) :]
    if route not in document["paths"]:
        return
    responses = document["paths"][route]["get"]["responses"]
    assert str(status) in responses, f"GET {path} answered {status}, not documented: {sorted(responses)}"
    response = _resolve(document, responses[str(status)])
    if status == 304:  # Not Modified: no body, whatever the type
        assert not (body() if callable(body) else body), f"GET {path} answered 304 with a body"
        return
    content_type = content_type.split(";")[0].strip()
    assert content_type in response["content"], f"GET {path} answered {status} as {content_type!r}"
    if content_type != "application/json":
        return  # bytes (an image): streamed, not read here
    schema = _resolve(document, response["content"][content_type]["schema"])
    data = body if isinstance(body, bytes) else body()
    _validator(orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)).validate(orjson.loads(data))


class ContractClient(FlaskClient):
    """Flask's test client, checking every answer of the JSON API against the app's document."""

    def open(self, *args: Any, **kwargs: Any) -> Any:
        response = super().open(*args, **kwargs)
        request = response.request
        zipped = response.headers.get("Content-Encoding") == "gzip"  # a large answer to a client accepting gzip
        check_answer(
            document_of(self.application),
            request.method,
            request.path,
            response.status_code,
            response.headers.get("Content-Type", ""),
            (lambda: gzip.decompress(response.get_data())) if zipped else response.get_data,
        )
        return response
