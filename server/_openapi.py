"""The OpenAPI document of the JSON API, served at ``/api/openapi.json``.

It states what the server enforces, with the limits of :mod:`visualdl.server._params`:
every text parameter's length (``minLength`` 1: a parameter given empty is a 400; leave
it out instead), integer bounds, enums and patterns, and the JSON error answers (400,
403, 404, 405, 422). ``tests/test_server_openapi.py`` probes each bound against the server.
"""

from __future__ import annotations

import copy
from typing import Any

from visualdl.server._params import MAX_EXPAND, MAX_PATH_DEPTH, MAX_RUNS, MIN_MAX_POINTS, NUMBER_BOUNDS, text_limit

__all__ = ["openapi_document"]

# No NUL character: the server refuses one in any text parameter.
_NO_NUL = "^[^\\u0000]*$"
_INDEX = "[0-9]{1,18}"
_STEP = f"{_INDEX}\\.[^.|\\u0000]+\\.{_INDEX}"


def _text_schema(name: str, *, pattern: str = _NO_NUL) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": text_limit(name), "pattern": pattern}


def _param(
    name: str,
    description: str,
    *,
    required: bool = True,
    schema: dict[str, Any] | None = None,
    many: int = 0,
    example: Any = None,
) -> dict[str, Any]:
    """A query parameter: text (by default), or ``schema``; ``many``: repeated, at most that many times."""
    schema = schema or _text_schema(name)
    if many:
        schema = {"type": "array", "items": schema, "minItems": 1, "maxItems": many}
    param: dict[str, Any] = {
        "name": name,
        "in": "query",
        "required": required,
        "description": description,
        "schema": schema,
    }
    if many:
        param.update(style="form", explode=True)
    if example is not None:
        param["example"] = example
    return param


def _integer(name: str, description: str, low: int, high: int) -> dict[str, Any]:
    return _param(
        name,
        f"{description} ({low}..{high})",
        required=False,
        schema={"type": "integer", "minimum": low, "maximum": high},
    )


_RUN = _param("run", "run name, as listed by /api/runs")
_TAG = _param("tag", "tag name, as listed by /api/tags")
_ERROR_SCHEMA = {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}
_RESPONSES: dict[str, Any] = {
    code: {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    for code, description in {
        "400": "a parameter is missing, empty, malformed or out of range",
        "403": "a Host name this server does not answer (DNS rebinding guard): start it with --allow-host NAME",
        "404": "unknown run, tag, graph, node or entry",
        "405": "a method other than GET, HEAD or OPTIONS",
        "422": "a model that cannot be shown (empty, truncated, not a model, no graph, a cycle, dangling inputs)",
        "431": "request line and headers together over 256 KiB (answered by the HTTP server)",
    }.items()
}
_RESPONSES["405"]["headers"] = {"Allow": {"description": "the methods allowed", "schema": {"type": "string"}}}
_NUMBERS = {"type": "array", "items": {"type": "number", "nullable": True}}


def _get(
    summary: str,
    params: list[dict[str, Any]],
    schema: dict[str, Any] | None = None,
    content: str = "application/json",
    *,
    errors: tuple[str, ...] = ("400", "403", "404", "405", "431"),
) -> dict[str, Any]:
    ok: dict[str, Any] = {"description": "OK", "content": {content: {"schema": schema or {"type": "object"}}}}
    responses = {"200": ok, **{code: {"$ref": f"#/components/responses/{code}"} for code in errors}}
    return {"get": {"summary": summary, "parameters": params, "responses": responses}}


def _graph_params() -> list[dict[str, Any]]:
    return [
        _param("run", "run of a logged graph (or give model; neither: the first graph)", required=False),
        _param("name", "graph name (default: the run's first graph)", required=False),
        _param(
            "model",
            "a --model file, by its position in /api/graphs",
            required=False,
            schema=_text_schema("model", pattern=f"^{_INDEX}$"),
            example="0",
        ),
        _param(
            "path",
            f"subgraph path NODE.ATTRIBUTE.INDEX[|...], at most {MAX_PATH_DEPTH} steps, e.g. 3.then_branch.0",
            required=False,
            schema=_text_schema("path", pattern=f"^{_STEP}(\\|{_STEP}){{0,{MAX_PATH_DEPTH - 1}}}$"),
            example="3.then_branch.0",
        ),
    ]


_GRAPH_ERRORS = ("400", "403", "404", "405", "422", "431")
_NO_PARAMS = ("403", "405", "431")
_FLAG = {"type": "string", "enum": ["0", "1"]}


def _paths(max_points_limit: int) -> dict[str, Any]:
    low, high = NUMBER_BOUNDS["max_entries"]
    return {
        "/api/health": _get("Load progress, problems found in log files (file and byte offset)", [], errors=_NO_PARAMS),
        "/api/runs": _get("Runs, with the writers (processes) of each", [], errors=_NO_PARAMS),
        "/api/tags": _get(
            "Tags by kind: {kind: {tag: [runs]}}",
            [_param("run", "only these runs", required=False, many=MAX_RUNS)],
        ),
        "/api/scalars": _get(
            "One tag for many runs, downsampled keeping every bucket's first, last, min, max and first NaN point",
            [
                _param("tag", "scalar tag"),
                _param("run", "runs (repeat the parameter)", many=MAX_RUNS),
                _integer("max_points", "points per run at most", MIN_MAX_POINTS, max_points_limit),
                _param("x_min", "first step of the range (finite)", required=False, schema={"type": "number"}),
                _param(
                    "x_max",
                    "last step of the range (finite; below x_min: no points)",
                    required=False,
                    schema={"type": "number"},
                ),
                _param(
                    "ranks",
                    "for jobs (runs of several ranked writers): 'mean' (default) gives per role the mean over "
                    "ranks with its min/max band and the rank at each extreme in 'job'; 'each' adds every "
                    "rank's own series in 'per_rank'",
                    required=False,
                    schema={"type": "string", "enum": ["mean", "each"]},
                ),
            ],
            {
                "type": "object",
                "properties": {
                    "tag": {"type": "string"},
                    "max_points": {"type": "integer"},
                    "missing": {"type": "array", "items": {"type": "string"}},
                    "runs": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "run": {"type": "string"},
                                "steps": {"type": "array", "items": {"type": "integer"}},
                                "values": _NUMBERS,
                                "wall_times": {"type": "array", "items": {"type": "number"}},
                                "nonfinite": {"type": "array", "items": {"type": "array"}},
                                "total_points": {
                                    "type": "integer",
                                    "description": "points logged for the tag in the run, by all writers and "
                                    "attempts (replaced points of restarted ranks included)",
                                },
                                "range_points": {"type": "integer"},
                            },
                        },
                    },
                },
            },
        ),
        "/api/images": _get("Every image of a tag in a run: steps, wall times, sizes", [_RUN, _TAG]),
        "/api/image": _get(
            "The PNG of one image, by position or by step",
            [
                _RUN,
                _TAG,
                _integer("index", "position in the /api/images list", *NUMBER_BOUNDS["index"]),
                _integer("step", "the step (its last image); instead of index", *NUMBER_BOUNDS["step"]),
            ],
            {"type": "string", "format": "binary"},
            "image/png",
        ),
        "/api/histograms": _get(
            "Histograms of a tag in a run (up to max_entries, spread evenly over the steps)",
            [_RUN, _TAG, _integer("max_entries", "entries at most, default 50", low, high)],
        ),
        "/api/job": _get(
            "A job's writers (role, rank, attempt, state running/closed/killed/silent), ranks alive over time per "
            "role, restarts, per-rank throughput in steps/s with stragglers, and step skew per role over time",
            [_RUN],
        ),
        "/api/graph": _get(
            "One ONNX graph laid out for drawing: model properties, inputs and outputs, nodes (ops, collapsed "
            "name-scope groups, graph inputs/outputs) with positions and sizes, edges with dtype, shape and route",
            [
                *_graph_params(),
                _param(
                    "expand",
                    "name-scope groups to open (repeat); default: all up to 300 nodes",
                    required=False,
                    many=MAX_EXPAND,
                ),
                _param("collapsed", "1: every group closed", required=False, schema=_FLAG),
                _param("expand_all", "1: every group open", required=False, schema=_FLAG),
            ],
            errors=_GRAPH_ERRORS,
        ),
        "/api/graph/node": _get(
            "One node of a graph: attributes (tensors summarised), inputs and outputs with dtype and shape, "
            "parameters (name, dtype, shape, size; never values), its groups",
            [
                _param(
                    "node",
                    "node id from /api/graph",
                    schema=_text_schema("node", pattern="^n[0-9]{1,18}$"),
                    example="n0",
                ),
                *_graph_params(),
            ],
            errors=_GRAPH_ERRORS,
        ),
        "/api/graph/search": _get(
            "Nodes whose name or op type matches q (up to 200), with the groups to open to reach each",
            [_param("q", "text to find"), *_graph_params()],
            errors=_GRAPH_ERRORS,
        ),
        "/api/distribution": _get("Percentile bands of a histogram tag over steps", [_RUN, _TAG]),
        "/api/text": _get("Text entries of a tag in a run, by step", [_RUN, _TAG]),
        "/api/graphs": _get("Graphs of all runs", [], errors=_NO_PARAMS),
    }


def openapi_document(*, max_points_limit: int, path_prefix: str = "") -> dict[str, Any]:
    """The document for a server of ``Settings.max_points_limit`` under ``path_prefix``."""
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "VisualDL API",
            "version": "1",
            "description": "Read-only JSON API over training logs. Errors are JSON objects with an `error` "
            "message, including those of the HTTP server itself (a malformed request: 400; headers too large: 431). "
            "A parameter given empty is a 400: leave it out instead; unknown parameters are ignored. "
            "Non-finite scalar values (NaN, +Inf, -Inf) are null in `values` and listed in `nonfinite` as "
            "[index, 'nan' | 'inf' | '-inf'].",
        },
        "servers": [{"url": path_prefix or "/"}],
        "paths": _paths(max_points_limit),
        "components": {"schemas": {"Error": _ERROR_SCHEMA}, "responses": copy.deepcopy(_RESPONSES)},
    }
