"""The JSON API, declared once: each route's path, summary, query parameters, answer and errors.

:data:`ROUTES` is the table the blueprint registers (:mod:`visualdl.server._http.api`), the
query parser reads (:func:`visualdl.server._http.params.parse_query`) and the OpenAPI
document is generated from (:mod:`visualdl.server._http.openapi`). Answers are JSON Schema
(2020-12, as OpenAPI 3.1 takes it); the tests check every answer against them. No flask
here.

Two shapes of "tags" are worth telling apart: ``/api/tags`` answers
``{kind: {tag: [runs having it]}}`` over the runs asked for (what the web UI lists), while
:meth:`visualdl._index.reader.LogReader.tags` gives one run's ``{kind: [tags]}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from visualdl._kinds.table import KINDS
from visualdl.server._http.params import (
    MAX_EXPAND,
    MAX_PATH_DEPTH,
    MAX_RUNS,
    MIN_MAX_POINTS,
    NUMBER_BOUNDS,
    Param,
)

__all__ = ["ERRORS", "ROUTES", "Route"]

#: The error answers the API documents, each a JSON ``{"error": sentence, "code": name}``.
ERRORS = {
    400: "a parameter is missing, empty, malformed or out of range (code invalid_argument)",
    403: "a Host name this server does not answer (DNS rebinding guard): start it with --allow-host NAME "
    "(code forbidden_host)",
    404: "unknown run, tag, graph, node or entry (code not_found)",
    405: "a method other than GET, HEAD or OPTIONS (code method_not_allowed)",
    422: "a model that cannot be shown: empty, truncated, not a model, no graph, a cycle, dangling inputs "
    "(code cannot_show)",
    431: "request line and headers together over 256 KiB (answered by the HTTP server)",
    500: "a fault of the server, logged; the message names only the exception's type (code internal_error)",
}
_ALWAYS = (403, 405, 431, 500)


@dataclass(frozen=True, slots=True)
class Route:
    """One GET endpoint of the API: ``name`` is its endpoint name in the blueprint."""

    name: str
    path: str
    summary: str
    params: tuple[Param, ...]
    response: dict[str, Any]
    content_types: tuple[str, ...] = ("application/json",)
    errors: tuple[int, ...] = (400, 404)

    @property
    def statuses(self) -> tuple[int, ...]:
        """Every status the route may answer: 200, its own errors and those of any route."""
        return tuple(sorted({200, *self.errors, *_ALWAYS}))


# -- answers -------------------------------------------------------------------------------

STRING: dict[str, Any] = {"type": "string"}
INTEGER: dict[str, Any] = {"type": "integer"}
NUMBER: dict[str, Any] = {"type": "number"}
BOOLEAN: dict[str, Any] = {"type": "boolean"}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {**schema, "type": [schema["type"], "null"]}


def _array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


def _object(properties: dict[str, Any], *, optional: tuple[str, ...] = (), description: str = "") -> dict[str, Any]:
    """An object with ``properties``, all of them required but ``optional``; more are allowed."""
    out: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": [name for name in properties if name not in optional],
    }
    if description:
        out["description"] = description
    return out


def _map(values: dict[str, Any], description: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "additionalProperties": values}
    if description:
        out["description"] = description
    return out


_NULLABLE_NUMBER = _nullable(NUMBER)
_NULLABLE_INTEGER = _nullable(INTEGER)
_NONFINITE = _array(
    {
        "type": "array",
        "prefixItems": [INTEGER, {"enum": ["nan", "inf", "-inf"]}],
        "minItems": 2,
        "maxItems": 2,
        "description": "[index into values, what the null there was]",
    }
)
_SERIES = {
    "steps": _array(INTEGER),
    "values": _array(_NULLABLE_NUMBER),
    "wall_times": _array(NUMBER),
    "nonfinite": _NONFINITE,
    "range_points": {"type": "integer", "description": "points in the step range before downsampling"},
}
_JOB_ROLE = _object(
    {
        "role": STRING,
        "ranks": _array(INTEGER),
        **_SERIES,
        "min": _array(_NULLABLE_NUMBER),
        "min_nonfinite": _NONFINITE,
        "max": _array(_NULLABLE_NUMBER),
        "max_nonfinite": _NONFINITE,
        "min_rank": _array(INTEGER),
        "max_rank": _array(INTEGER),
        "count": _array(INTEGER),
    },
    description="one role's mean over ranks with its min/max band and the rank at each extreme",
)
_RUN_SERIES = _object(
    {
        "run": STRING,
        **_SERIES,
        "total_points": {
            "type": "integer",
            "description": "points logged for the tag in the run, by all writers and attempts "
            "(replaced points of restarted ranks included)",
        },
        "job": _array(_JOB_ROLE),
        "per_rank": _array(_object({"role": STRING, "rank": INTEGER, **_SERIES})),
    },
    optional=("job", "per_rank"),
)
_SCALARS = _object(
    {
        "tag": STRING,
        "max_points": INTEGER,
        "runs": _array(_RUN_SERIES),
        "missing": {"type": "array", "items": STRING, "description": "runs asked for that have no such tag"},
    }
)
_WRITER = _object(
    {
        "host": STRING,
        "pid": INTEGER,
        "display_name": STRING,
        "rank": INTEGER,
        "world_size": INTEGER,
        "role": STRING,
        "job": STRING,
        "attempt": INTEGER,
        "closed": BOOLEAN,
        "format": {"enum": ["visualdl", "tfevents", "vdl2"], "description": "the file's format"},
        "unshown": _array(
            _object(
                {"tag": STRING, "kind": STRING, "count": INTEGER},
                description="values of a kind no view shows, of one tag (TensorBoard plugins, VisualDL 2 kinds)",
            )
        ),
    }
)
_RUNS = _object(
    {
        "runs": _array(
            _object(
                {
                    "name": STRING,
                    "files": INTEGER,
                    "closed": BOOLEAN,
                    "start_time": _NULLABLE_NUMBER,
                    "writers": _array(_WRITER),
                }
            )
        )
    }
)
_TAGS = {
    "type": "object",
    "propertyNames": {"enum": sorted(KINDS)},
    "additionalProperties": _map({"type": "array", "items": STRING, "minItems": 1}),
    "description": "{kind: {tag: [runs having it]}}: every kind held by the runs asked for, {} when it has no tags",
}
_KINDS = _object(
    {
        "kinds": _array(
            _object(
                {
                    "name": STRING,
                    "title": STRING,
                    "record": {"type": "boolean", "description": "a kind of record; false: a view of runs (jobs)"},
                    "tags": {"type": "integer", "description": "distinct tags of the kind over all runs"},
                    "runs": {"type": "integer", "description": "runs holding the kind (for jobs: runs that are jobs)"},
                }
            )
        )
    }
)
_HEALTH = _object(
    {
        "status": {"enum": ["ok", "loading"]},
        "loaded": BOOLEAN,
        "files_read": INTEGER,
        "files_total": INTEGER,
        "bytes_read": INTEGER,
        "polls": INTEGER,
        "last_poll_seconds": NUMBER,
        "last_poll_time": _NULLABLE_NUMBER,
        "reload_interval": NUMBER,
        "logdirs": _array(_object({"name": STRING, "path": STRING, "exists": BOOLEAN})),
        "problems": _array(_object({"logdir": STRING, "file": STRING, "offset": INTEGER, "message": STRING})),
        "not_served": _array(
            _object({"kind": STRING, "name": STRING, "run": STRING, "length": INTEGER, "message": STRING})
        ),
    }
)
_RUN_TAG = {"run": STRING, "tag": STRING}
_IMAGES = _object(
    {
        **_RUN_TAG,
        "steps": _array(INTEGER),
        "wall_times": _array(NUMBER),
        "widths": _array(INTEGER),
        "heights": _array(INTEGER),
    }
)
_HISTOGRAM = _object(
    {
        "step": INTEGER,
        "wall_time": NUMBER,
        "edges": _array(NUMBER),
        "counts": _array(NUMBER),
        "min": {**_NULLABLE_NUMBER, "description": "null: no finite value"},
        "max": _NULLABLE_NUMBER,
        "sum": _NULLABLE_NUMBER,
        "count": INTEGER,
        "nan_count": INTEGER,
        "pos_inf_count": INTEGER,
        "neg_inf_count": INTEGER,
    }
)
_HISTOGRAMS = _object({**_RUN_TAG, "total_entries": INTEGER, "entries": _array(_HISTOGRAM)})
_DISTRIBUTION = _object(
    {
        **_RUN_TAG,
        "steps": _array(INTEGER),
        "wall_times": _array(NUMBER),
        "percentiles": _array(NUMBER),
        "bands": {
            "type": "array",
            "items": _array(_NULLABLE_NUMBER),
            "description": "per step, the value at each percentile",
        },
    }
)
_TEXT = _object(
    {**_RUN_TAG, "entries": _array(_object({"step": INTEGER, "wall_time": NUMBER, "text": STRING}))},
)
_PER_ROLE = "per role: "
_JOB = _object(
    {
        "run": STRING,
        "roles": _array(_object({"role": STRING, "places": INTEGER, "world_size": INTEGER})),
        "writers": _array(
            _object(
                {
                    "role": STRING,
                    "rank": INTEGER,
                    "attempt": INTEGER,
                    "host": STRING,
                    "pid": INTEGER,
                    "file": STRING,
                    "state": {"enum": ["running", "closed", "killed", "silent"]},
                    "start_time": NUMBER,
                    "end_time": NUMBER,
                    "points": INTEGER,
                    "first_step": _NULLABLE_INTEGER,
                    "last_step": _NULLABLE_INTEGER,
                }
            )
        ),
        "times": _array(NUMBER),
        "alive": _map(_array(INTEGER), _PER_ROLE + "ranks alive at each of times"),
        "skew": _map(
            _object(
                {
                    "min_step": _array(_NULLABLE_NUMBER),
                    "max_step": _array(_NULLABLE_NUMBER),
                    "slowest_rank": _array(_NULLABLE_INTEGER),
                }
            ),
            _PER_ROLE + "lowest and highest step reached at each of times",
        ),
        "throughput": _map(
            _array(
                _object(
                    {
                        "rank": INTEGER,
                        "steps_per_second": _NULLABLE_NUMBER,
                        "recent_steps_per_second": _NULLABLE_NUMBER,
                        "last_step": _NULLABLE_INTEGER,
                        "straggler": BOOLEAN,
                    }
                )
            ),
            _PER_ROLE + "steps per second of each rank",
        ),
        "stragglers": _map(_array(INTEGER), _PER_ROLE + "ranks below 80% of the median recent throughput"),
        "restarts": _array(_object({"role": STRING, "rank": INTEGER, "files": INTEGER})),
        "median_recent_steps_per_second": _map(_NULLABLE_NUMBER),
    }
)
_GRAPHS = _object(
    {
        "graphs": _array(
            _object(
                {
                    "source": {"enum": ["file", "log"]},
                    "name": STRING,
                    "size": _NULLABLE_INTEGER,
                    "model": {"type": "string", "description": "a --model file's id (source file)"},
                    "run": {"type": "string", "description": "the run that logged it (source log)"},
                    "wall_time": NUMBER,
                },
                optional=("model", "run", "wall_time"),
            )
        )
    }
)
_VALUE = _object({"name": STRING}, description="a graph's input or output, with dtype and shape when known")
_GRAPH = _object(
    {
        "source": _object(
            {
                "run": _nullable(STRING),
                "name": _nullable(STRING),
                "model": _nullable(STRING),
                "label": STRING,
            }
        ),
        "model": {"type": "object", "description": "the model's properties (producer, opset, ...)"},
        "warnings": _array(STRING),
        "path": STRING,
        "breadcrumb": {"type": "array", "description": "the subgraphs from the main graph down to this one"},
        "graph": _object(
            {
                "name": STRING,
                "inputs": _array(_VALUE),
                "outputs": _array(_VALUE),
                "node_count": INTEGER,
                "group_count": INTEGER,
                "parameter_tensors": INTEGER,
                "parameter_count": INTEGER,
            }
        ),
        "nodes": _array(
            _object(
                {
                    "id": STRING,
                    "kind": {"enum": ["op", "group", "stack", "input", "output"]},
                    "x": NUMBER,
                    "y": NUMBER,
                    "w": NUMBER,
                    "h": NUMBER,
                },
                description="an op, a collapsed name-scope group, a stack of siblings alike (opened by its "
                "'stack' key in expand), or a graph input or output, placed",
            )
        ),
        "edges": _array(_object({"source": STRING, "target": STRING, "points": {"type": "array"}})),
        "expanded": _array(STRING),
        "width": NUMBER,
        "height": NUMBER,
    }
)
_GRAPH_NODE = _object(
    {
        "id": STRING,
        "name": STRING,
        "op_type": STRING,
        "attributes": _array(_object({"name": STRING, "type": STRING, "value": {}})),
        "doc_string": STRING,
        "inputs": _array(_object({"name": STRING, "dtype": STRING, "shape": {}})),
        "outputs": _array(_object({"name": STRING, "dtype": STRING, "shape": {}})),
        "parameters": _array({"type": "object", "description": "name, dtype, shape, size; never values"}),
        "parameter_count": INTEGER,
        "groups": _array(STRING),
    }
)
_GRAPH_SEARCH = _object(
    {
        "query": STRING,
        "hits": _array(_object({"id": STRING, "name": STRING, "op_type": STRING, "groups": _array(STRING)})),
        "truncated": BOOLEAN,
    }
)
_IMAGE = {"type": "string", "format": "binary"}
_NULLABLE_NUMBERS = _array(_NULLABLE_NUMBER)
_AUDIO = _object(
    {
        **_RUN_TAG,
        "entries": _array(
            _object(
                {
                    "step": INTEGER,
                    "wall_time": NUMBER,
                    "sample_rate": INTEGER,
                    "channels": INTEGER,
                    "frames": INTEGER,
                    "seconds": NUMBER,
                    "bytes": {"type": "integer", "description": "of the WAV file"},
                }
            )
        ),
    }
)
_CURVE_RUN = _object(
    {
        "run": STRING,
        "steps": _array(INTEGER),
        "step": _NULLABLE_INTEGER,
        "wall_time": NUMBER,
        "thresholds": _NULLABLE_NUMBERS,
        "tp": _NULLABLE_NUMBERS,
        "fp": _NULLABLE_NUMBERS,
        "tn": _NULLABLE_NUMBERS,
        "fn": _NULLABLE_NUMBERS,
        "auc": {**_NULLABLE_NUMBER, "description": "area under the curve, trapezoid rule; null under two points"},
    },
    optional=("wall_time", "thresholds", "tp", "fp", "tn", "fn", "auc"),
    description="one run's curve at one step (null: the run has none at or before the step asked); "
    "besides the counts, the two rates drawn, named by x and y: recall and precision (PR) or fpr and tpr "
    "(ROC); null where a rate is undefined (nothing predicted positive)",
)
_CURVES = _object(
    {
        "kind": {"enum": ["pr_curves", "roc_curves"]},
        "tag": STRING,
        "x": {"enum": ["recall", "fpr"]},
        "y": {"enum": ["precision", "tpr"]},
        "steps": {**_array(INTEGER), "description": "every step of the tag in the runs asked for"},
        "runs": _array(_CURVE_RUN),
        "missing": {**_array(STRING), "description": "runs asked for that have no such curve"},
    }
)
_METRIC = {
    "type": ["object", "null"],
    "properties": {
        "last": _NULLABLE_NUMBER,
        "last_nonfinite": {"enum": ["nan", "inf", "-inf", None]},
        "step": INTEGER,
        "min": _NULLABLE_NUMBER,
        "max": _NULLABLE_NUMBER,
        "points": INTEGER,
    },
    "required": ["last", "last_nonfinite", "step", "min", "max", "points"],
    "description": "the metric's scalar tag in the run: last value (null when not finite: see last_nonfinite) "
    "and its step, min and max over the finite values; null when the run never logged it",
}
_HPARAMS = _object(
    {
        "hparams": _array(
            _object(
                {"name": STRING, "type": {"enum": ["number", "boolean", "string"]}, "values": {"type": "array"}},
                optional=("values",),
                description="a hyperparameter over the runs; booleans and strings list their distinct values",
            )
        ),
        "metrics": {**_array(STRING), "description": "the scalar tags any run names as metrics"},
        "runs": _array(
            _object(
                {
                    "run": STRING,
                    "wall_time": NUMBER,
                    "hparams": {"type": "object", "description": "values as written: numbers, booleans, strings"},
                    "metrics": _map(_METRIC),
                }
            )
        ),
    }
)
_LAYOUT = _object(
    {
        "categories": _array(
            _object(
                {
                    "title": STRING,
                    "closed": BOOLEAN,
                    "charts": _array(
                        _object(
                            {
                                "title": STRING,
                                "multiline": _array(STRING),
                                "margin": _array(_array(STRING)),
                                "tags": {**_array(STRING), "description": "scalar tags the chart draws"},
                                "errors": _array(STRING),
                            }
                        )
                    ),
                }
            )
        )
    }
)
_EMBEDDINGS = _object(
    {
        **_RUN_TAG,
        "entries": _array(
            _object(
                {
                    "index": INTEGER,
                    "step": INTEGER,
                    "wall_time": NUMBER,
                    "rows": INTEGER,
                    "dimension": INTEGER,
                    "metadata_header": _array(STRING),
                }
            )
        ),
    }
)
_PROJECTION = _object(
    {
        **_RUN_TAG,
        "index": INTEGER,
        "method": {"enum": ["pca", "tsne", "umap"]},
        "dims": INTEGER,
        "rows": INTEGER,
        "dimension": INTEGER,
        "status": {"enum": ["done", "computing"], "description": "t-SNE and UMAP run in the background: ask again"},
        "points": {"type": "integer", "description": "rows projected: all for PCA, at most 5,000 sampled otherwise"},
        "coordinates": {
            "type": "string",
            "contentEncoding": "base64",
            "description": "little-endian float32, points x dims, row after row",
        },
        "sample": {
            "type": ["string", "null"],
            "contentEncoding": "base64",
            "description": "little-endian int32 rows projected, when a sample (null: every row, in order)",
        },
        "explained_variance": {**_nullable({"type": "array"}), "description": "PCA: variance share per component"},
        "metadata_header": _array(STRING),
        "metadata": {"type": "array", "items": _array(STRING), "description": "one list per metadata column"},
    },
    optional=("coordinates", "sample", "explained_variance"),
)
_NEIGHBORS = _object(
    {
        **_RUN_TAG,
        "index": INTEGER,
        "point": INTEGER,
        "metric": {"enum": ["cosine", "euclidean"]},
        "neighbors": _array(_object({"row": INTEGER, "distance": NUMBER, "labels": _array(STRING)})),
    }
)

# -- parameters ----------------------------------------------------------------------------

_RUN = Param("run", "run name, as listed by /api/runs", required=True)
_TAG = Param("tag", "tag name, as listed by /api/tags", required=True)
_INDEX = "[0-9]{1,18}"
_STEP = f"{_INDEX}\\.[^.|\\u0000]+\\.{_INDEX}"
_GRAPH_PARAMS = (
    Param("run", "run of a logged graph (or give model; neither: the first graph)"),
    Param("name", "graph name (default: the run's first graph)"),
    Param(
        "model",
        "a --model file, by its position in /api/graphs",
        pattern=_INDEX,
        hint="a number, the model's position in /api/graphs",
        example="0",
    ),
    Param(
        "path",
        f"subgraph path NODE.ATTRIBUTE.INDEX[|...], at most {MAX_PATH_DEPTH} steps, e.g. 3.then_branch.0",
        pattern=f"{_STEP}(\\|{_STEP}){{0,{MAX_PATH_DEPTH - 1}}}",
        hint=f"NODE.ATTRIBUTE.INDEX steps joined by |, at most {MAX_PATH_DEPTH}, e.g. 3.then_branch.0",
        example="3.then_branch.0",
    ),
)

_ENTRY = Param(
    "index",
    "which entry of the tag (by step, from 0); default: the newest",
    type="integer",
    bounds=NUMBER_BOUNDS["index"],
)

#: Every route of the JSON API but ``/api/openapi.json`` itself.
ROUTES: tuple[Route, ...] = (
    Route(
        "health",
        "/api/health",
        "Load progress, problems found in log files (file and byte offset)",
        (),
        _HEALTH,
        errors=(),
    ),
    Route("runs", "/api/runs", "Runs, with the writers (processes) of each", (), _RUNS, errors=()),
    Route(
        "kinds",
        "/api/kinds",
        "What the logdir holds, one entry per tab of the web UI: every kind of record with its tag and run "
        "counts, and the jobs view",
        (),
        _KINDS,
        errors=(),
    ),
    Route(
        "tags",
        "/api/tags",
        "Tags by kind, with the runs having each: {kind: {tag: [runs]}} (one run's reader gives {kind: [tags]})",
        (Param("run", "only these runs (each must be known)", many=MAX_RUNS),),
        _TAGS,
    ),
    Route(
        "scalars",
        "/api/scalars",
        "One tag for many runs, downsampled keeping every bucket's first, last, min, max and first NaN point",
        (
            Param("tag", "scalar tag", required=True),
            Param("run", "runs (repeat the parameter)", required=True, many=MAX_RUNS),
            Param(
                "max_points",
                "points per run at most",
                type="integer",
                bounds=(MIN_MAX_POINTS, 0),  # the maximum: the server's --max-points-limit
                settings_limit="max_points_limit",
                settings_default="max_points",
            ),
            Param("x_min", "first step of the range (finite)", type="number"),
            Param("x_max", "last step of the range (finite; below x_min: no points)", type="number"),
            Param(
                "ranks",
                "for jobs (runs of several ranked writers): 'mean' (default) gives per role the mean over "
                "ranks with its min/max band and the rank at each extreme in 'job'; 'each' adds every "
                "rank's own series in 'per_rank'",
                type="enum",
                choices=("mean", "each"),
            ),
        ),
        _SCALARS,
    ),
    Route(
        "images",
        "/api/images",
        "Every image of a tag in a run: steps, wall times, sizes",
        (_RUN, _TAG),
        _IMAGES,
    ),
    Route(
        "image",
        "/api/image",
        "The bytes of one image (PNG as LogWriter writes it; JPEG or GIF from TensorBoard's files), "
        "by position or by step",
        (
            _RUN,
            _TAG,
            Param(
                "index",
                "position in the /api/images list (default 0)",
                type="integer",
                bounds=NUMBER_BOUNDS["index"],
                default=0,
            ),
            Param("step", "the step (its last image); instead of index", type="integer", bounds=NUMBER_BOUNDS["step"]),
        ),
        _IMAGE,
        # Bytes whose first ones are none of these three come as application/octet-stream.
        content_types=("image/png", "image/jpeg", "image/gif", "application/octet-stream"),
    ),
    Route(
        "histograms",
        "/api/histograms",
        "Histograms of a tag in a run (up to max_entries, spread evenly over the steps)",
        (
            _RUN,
            _TAG,
            Param(
                "max_entries",
                "entries at most, default 50",
                type="integer",
                bounds=NUMBER_BOUNDS["max_entries"],
                default=50,
            ),
        ),
        _HISTOGRAMS,
    ),
    Route(
        "job",
        "/api/job",
        "A job's writers (role, rank, attempt, state running/closed/killed/silent), ranks alive over time per "
        "role, restarts, per-rank throughput in steps/s with stragglers, and step skew per role over time",
        (_RUN,),
        _JOB,
    ),
    Route(
        "distribution",
        "/api/distribution",
        "Percentile bands of a histogram tag over steps",
        (_RUN, _TAG),
        _DISTRIBUTION,
    ),
    Route("text", "/api/text", "Text entries of a tag in a run, by step", (_RUN, _TAG), _TEXT),
    Route("graphs", "/api/graphs", "Graphs of all runs, then the --model files", (), _GRAPHS, errors=()),
    Route(
        "graph",
        "/api/graph",
        "One ONNX graph laid out for drawing: model properties, inputs and outputs, nodes (ops, collapsed "
        "name-scope groups, graph inputs/outputs) with positions and sizes, edges with dtype, shape and route",
        (
            *_GRAPH_PARAMS,
            Param("expand", "name-scope groups to open (repeat); default: all up to 300 nodes", many=MAX_EXPAND),
            Param("collapsed", "1: every group closed", type="flag"),
            Param("expand_all", "1: every group open", type="flag"),
        ),
        _GRAPH,
        errors=(400, 404, 422),
    ),
    Route(
        "graph_node",
        "/api/graph/node",
        "One node of a graph: attributes (tensors summarised), inputs and outputs with dtype and shape, "
        "parameters (name, dtype, shape, size; never values), its groups",
        (
            Param(
                "node",
                "node id from /api/graph",
                required=True,
                pattern="n[0-9]{1,18}",
                hint="a node id from /api/graph, like n12",
                example="n0",
            ),
            *_GRAPH_PARAMS,
        ),
        _GRAPH_NODE,
        errors=(400, 404, 422),
    ),
    Route(
        "audio", "/api/audio", "Every clip of a tag in a run: step, sample rate, channels, length", (_RUN, _TAG), _AUDIO
    ),
    Route(
        "audio_clip",
        "/api/audio/clip",
        "The WAV bytes of one clip, by position or by step, streamed from the log file",
        (
            _RUN,
            _TAG,
            Param(
                "index",
                "position in the /api/audio list (default 0)",
                type="integer",
                bounds=NUMBER_BOUNDS["index"],
                default=0,
            ),
            Param("step", "the step (its last clip); instead of index", type="integer", bounds=NUMBER_BOUNDS["step"]),
        ),
        {"type": "string", "format": "binary"},
        content_types=("audio/wav", "application/octet-stream"),
    ),
    Route(
        "curves",
        "/api/curves",
        "A PR or ROC curve tag over many runs, each at one step (the one asked for, or the nearest before it; "
        "the newest by default): per threshold TP, FP, TN, FN and the two rates, and the area under the curve",
        (
            Param("kind", "pr_curves or roc_curves", type="enum", choices=("pr_curves", "roc_curves")),
            Param("tag", "curve tag", required=True),
            Param("run", "runs (repeat the parameter)", required=True, many=MAX_RUNS),
            Param(
                "step", "the step to show (the nearest before it per run)", type="integer", bounds=NUMBER_BOUNDS["step"]
            ),
        ),
        _CURVES,
    ),
    Route(
        "hparams",
        "/api/hparams",
        "Runs with hyperparameters: their values, and each metric's last, min and max from its scalar tag",
        (Param("run", "only these runs (each must be known)", many=MAX_RUNS),),
        _HPARAMS,
    ),
    Route(
        "scalar_layout",
        "/api/scalar_layout",
        "Custom scalar layouts of all runs merged (categories, charts of several tags, margin charts), each "
        "chart with the tags it draws",
        (),
        _LAYOUT,
        errors=(),
    ),
    Route("embeddings", "/api/embeddings", "The embeddings entries of a tag in a run", (_RUN, _TAG), _EMBEDDINGS),
    Route(
        "projection",
        "/api/projection",
        "An embeddings entry projected to 2 or 3 dimensions by PCA (always), t-SNE or UMAP (where installed; "
        "on 5,000 sampled rows, in the background), with its metadata columns",
        (
            _RUN,
            _TAG,
            _ENTRY,
            Param("method", "pca, tsne or umap", type="enum", choices=("pca", "tsne", "umap")),
            Param("dims", "2 or 3", type="integer", bounds=NUMBER_BOUNDS["dims"], default=2),
        ),
        _PROJECTION,
        errors=(400, 404, 422),
    ),
    Route(
        "neighbors",
        "/api/neighbors",
        "The k rows nearest to one row of an embeddings entry, in the original space",
        (
            _RUN,
            _TAG,
            _ENTRY,
            Param("point", "the row", type="integer", required=True, bounds=NUMBER_BOUNDS["index"]),
            Param("k", "how many (default 10)", type="integer", bounds=NUMBER_BOUNDS["k"], default=10),
            Param("metric", "cosine or euclidean", type="enum", choices=("cosine", "euclidean")),
        ),
        _NEIGHBORS,
    ),
    Route(
        "graph_search",
        "/api/graph/search",
        "Nodes whose name or op type matches q (up to 200), with the groups to open to reach each",
        (Param("q", "text to find", required=True), *_GRAPH_PARAMS),
        _GRAPH_SEARCH,
        errors=(400, 404, 422),
    ),
)
