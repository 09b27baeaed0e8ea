"""The OpenAPI document of the JSON API, generated from :data:`visualdl.server._http.routes.ROUTES`.

Served at ``/api/openapi.json``. It states what the server enforces, from the same
declarations the server parses queries with: every text parameter's length
(``minLength`` 1: a parameter given empty is a 400; leave it out instead), integer
bounds, enums and patterns; each answer's JSON Schema; and the JSON error answers.
``tests/test_server_openapi.py`` probes each bound against the server, and the API tests
check every answer against the schema here.
"""

from __future__ import annotations

from typing import Any

from visualdl.server._http.params import Param
from visualdl.server._http.routes import ERRORS, ROUTES, Route
from visualdl.server._settings import Settings

__all__ = ["openapi_document"]

_ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "error": {"type": "string", "minLength": 1, "description": "what is wrong and how to fix it, a sentence"},
        "code": {"type": "string", "description": "a stable name of the error: not_found, invalid_argument, ..."},
    },
    "required": ["error", "code"],
}


def _parameter(param: Param, settings: Settings) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": param.name,
        "in": "query",
        "required": param.required,
        "description": param.description,
        "schema": param.schema(settings),
    }
    if param.type == "integer":
        low, high = param.limits(settings)
        out["description"] += f" ({low}..{high})"
    if param.many:
        out.update(style="form", explode=True)
    if param.example:
        out["example"] = param.example
    return out


def _operation(route: Route, settings: Settings) -> dict[str, Any]:
    ok = {"description": "OK", "content": {kind: {"schema": route.response} for kind in route.content_types}}
    responses: dict[str, Any] = {"200": ok}
    if 304 in route.statuses:
        responses["304"] = {
            "description": "Not Modified: the answer is the one whose ETag the request sent in If-None-Match "
            "(every JSON answer has a weak ETag of its bytes)",
            "headers": {"ETag": {"description": "the answer's tag", "schema": {"type": "string"}}},
        }
    for status in route.statuses:
        if status not in (200, 304):
            responses[str(status)] = {"$ref": f"#/components/responses/{status}"}
    return {
        "operationId": route.name,
        "summary": route.summary,
        "parameters": [_parameter(p, settings) for p in route.params],
        "responses": responses,
    }


def _responses() -> dict[str, Any]:
    out: dict[str, Any] = {
        str(status): {
            "description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
        for status, description in ERRORS.items()
    }
    out["405"]["headers"] = {"Allow": {"description": "the methods allowed", "schema": {"type": "string"}}}
    out["503"]["headers"] = {
        "Retry-After": {"description": "seconds to wait before asking again", "schema": {"type": "integer"}}
    }
    return out


def openapi_document(settings: Settings) -> dict[str, Any]:
    """The document for a server of ``settings`` (its ``max_points_limit`` and ``path_prefix``)."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "VisualDL API",
            "version": "1",
            "description": "Read-only JSON API over training logs. Errors are JSON objects with an `error` "
            "message and a `code`, including those of the HTTP server itself (a malformed request: 400; "
            "headers too large: 431). A parameter given empty is a 400: leave it out instead; unknown "
            "parameters are ignored. Non-finite scalar values (NaN, +Inf, -Inf) are null in `values` and "
            "listed in `nonfinite` as [index, 'nan' | 'inf' | '-inf']. Other numbers read from log files are "
            "null where the file holds NaN or an infinity, and the schema says so: wall times (a crafted or "
            "damaged file), neighbour distances (a vector with NaN). A value that cannot be shown at all (an "
            "image width past 2**31, a sample rate that is no whole number, histogram edges that are not "
            "finite) is left out of its tag and reported in /api/health's problems.",
        },
        "servers": [{"url": settings.path_prefix.rstrip("/") or "/"}],
        "paths": {route.path: {"get": _operation(route, settings)} for route in ROUTES},
        "components": {"schemas": {"Error": _ERROR_SCHEMA}, "responses": _responses()},
    }
