"""The OpenAPI document of the JSON API, served at ``/api/openapi.json``."""

from __future__ import annotations

from typing import Any

__all__ = ["OPENAPI"]


def _param(
    name: str, description: str, *, required: bool = True, kind: str = "string", many: bool = False
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": kind}
    if many:
        schema = {"type": "array", "items": schema}
    param: dict[str, Any] = {
        "name": name,
        "in": "query",
        "required": required,
        "description": description,
        "schema": schema,
    }
    if many:
        param.update(style="form", explode=True)
    return param


_RUN = _param("run", "run name, as listed by /api/runs")
_TAG = _param("tag", "tag name, as listed by /api/tags")
_ERROR = {"description": "bad parameter, or unknown run or tag", "content": {"application/json": {
    "schema": {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}}}}  # fmt: skip
_NUMBERS = {"type": "array", "items": {"type": "number", "nullable": True}}


def _get(
    summary: str, params: list[dict[str, Any]], schema: dict[str, Any] | None = None, content: str = "application/json"
) -> dict[str, Any]:
    ok: dict[str, Any] = {"description": "OK"}
    ok["content"] = {content: {"schema": schema or {"type": "object"}}}
    return {"get": {"summary": summary, "parameters": params, "responses": {"200": ok, "400": _ERROR, "404": _ERROR}}}


OPENAPI: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {
        "title": "VisualDL API",
        "version": "1",
        "description": "Read-only JSON API over training logs. Errors are JSON objects with an `error` message. "
        "Non-finite scalar values (NaN, +Inf, -Inf) are null in `values` and listed in `nonfinite` as "
        "[index, 'nan' | 'inf' | '-inf'].",
    },
    "paths": {
        "/api/health": _get("Load progress, problems found in log files (file and byte offset)", []),
        "/api/runs": _get("Runs, with the writers (processes) of each", []),
        "/api/tags": _get(
            "Tags by kind: {kind: {tag: [runs]}}",
            [_param("run", "only these runs", required=False, many=True)],
        ),
        "/api/scalars": _get(
            "One tag for many runs, downsampled keeping every bucket's first, last, min, max and first NaN point",
            [
                _param("tag", "scalar tag"),
                _param("run", "runs (repeat the parameter)", many=True),
                _param("max_points", "points per run at most (5..100000)", required=False, kind="integer"),
                _param("x_min", "first step of the range", required=False, kind="number"),
                _param("x_max", "last step of the range", required=False, kind="number"),
                _param(
                    "ranks",
                    "for jobs (runs of several ranked writers): 'mean' (default) gives per role the mean over "
                    "ranks with its min/max band and the rank at each extreme in 'job'; 'each' adds every "
                    "rank's own series in 'per_rank'",
                    required=False,
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
                _param("index", "position in the /api/images list", required=False, kind="integer"),
                _param("step", "the step (its last image); instead of index", required=False, kind="integer"),
            ],
            {"type": "string", "format": "binary"},
            "image/png",
        ),
        "/api/histograms": _get(
            "Histograms of a tag in a run (up to max_entries, spread evenly over the steps)",
            [
                _RUN,
                _TAG,
                _param("max_entries", "entries at most (1..10000, default 50)", required=False, kind="integer"),
            ],
        ),
        "/api/job": _get(
            "A job's writers (role, rank, attempt, state running/closed/killed/silent), ranks alive over time per "
            "role, restarts, per-rank throughput in steps/s with stragglers, and step skew per role over time",
            [_RUN],
        ),
        "/api/graph": _get(
            "One ONNX graph laid out for drawing: model properties, inputs and outputs, nodes (ops, collapsed "
            "name-scope groups, graph inputs/outputs) with positions and sizes, edges with dtype, shape and route. "
            "422 for a model that cannot be shown (empty, truncated, not a model, no graph, a cycle, dangling inputs)",
            [
                _param("run", "run of a logged graph (or give model)", required=False),
                _param("name", "graph name in the run (default: the first)", required=False),
                _param("model", "a --model file, by its position in /api/graphs", required=False),
                _param(
                    "expand",
                    "name-scope groups to open (repeat); default: all up to 300 nodes",
                    required=False,
                    many=True,
                ),
                _param("collapsed", "1: every group closed", required=False),
                _param("expand_all", "1: every group open", required=False),
                _param("path", "subgraph path NODE.ATTRIBUTE.INDEX[|...], e.g. 3.then_branch.0", required=False),
            ],
        ),
        "/api/graph/node": _get(
            "One node of a graph: attributes (tensors summarised), inputs and outputs with dtype and shape, "
            "parameters (name, dtype, shape, size; never values), its groups",
            [
                _param("node", "node id from /api/graph"),
                _param("run", "as /api/graph", required=False),
                _param("name", "as /api/graph", required=False),
                _param("model", "as /api/graph", required=False),
                _param("path", "as /api/graph", required=False),
            ],
        ),
        "/api/graph/search": _get(
            "Nodes whose name or op type matches q (up to 200), with the groups to open to reach each",
            [
                _param("q", "text to find"),
                _param("run", "as /api/graph", required=False),
                _param("name", "as /api/graph", required=False),
                _param("model", "as /api/graph", required=False),
                _param("path", "as /api/graph", required=False),
            ],
        ),
        "/api/distribution": _get("Percentile bands of a histogram tag over steps", [_RUN, _TAG]),
        "/api/text": _get("Text entries of a tag in a run, by step", [_RUN, _TAG]),
        "/api/graphs": _get("Graphs of all runs", []),
    },
}
