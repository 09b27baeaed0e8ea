"""The JSON API, declared once: each route's path, summary, query parameters, answer and errors.

:data:`ROUTES` is the table the blueprint registers (:mod:`visualdl.server._http.api`), the
query parser reads (:func:`visualdl.server._http.params.parse_query`) and the OpenAPI
document is generated from (:mod:`visualdl.server._http.openapi`). Answers are JSON Schema
(2020-12, as OpenAPI 3.1 takes it), declared in :mod:`._http.answers` and its siblings; the
tests check every answer against them. No flask here.

Two shapes of "tags" are worth telling apart: ``/api/tags`` answers
``{kind: {tag: [runs having it]}}`` over the runs asked for (what the web UI lists), while
:meth:`visualdl._logreader.LogReader.tags` gives one run's ``{kind: [tags]}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from visualdl._jobs.heatmap import METRICS
from visualdl.server._http.answers import (
    HEALTH,
    JOB,
    JOB_HEATMAP,
    KIND_LIST,
    RUN_REPLACED,
    RUNS,
    RUNS_TABLE,
    SCALARS,
    TAGS,
)
from visualdl.server._http.answers_graph import GRAPH, GRAPH_NODE, GRAPH_SEARCH, GRAPHS
from visualdl.server._http.answers_job_ends import JOB_END
from visualdl.server._http.answers_kinds import (
    AUDIO,
    CURVES,
    DISTRIBUTION,
    EMBEDDINGS,
    HISTOGRAMS,
    HPARAMS,
    IMAGE,
    IMAGES,
    LAYOUT,
    NEIGHBORS,
    PROJECTION,
    TEXT,
)
from visualdl.server._http.answers_stragglers import JOB_STRAGGLERS
from visualdl.server._http.answers_system import SYSTEM
from visualdl.server._http.answers_wrong import JOB_WRONG
from visualdl.server._http.params import (
    MAX_EXPAND,
    MAX_PATH_DEPTH,
    MAX_RUNS,
    MIN_MAX_POINTS,
    NUMBER_BOUNDS,
    Param,
)
from visualdl.server._rebin import MAX_BINS

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
    503: "a costly query (where) while others are evaluated: ask again after Retry-After seconds (code busy)",
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
        """Every status the route may answer: 200, 304 for a JSON answer asked for again with its
        ETag, its own errors and those of any route."""
        json = (304,) if self.content_types == ("application/json",) else ()
        return tuple(sorted({200, *json, *self.errors, *_ALWAYS}))


# -- parameters ----------------------------------------------------------------------------

_RUN = Param("run", "run name, as listed by /api/runs", required=True)
_WHERE = Param(
    "where",
    "select runs by a query over their hparams, runs-table columns and tag summaries, e.g. "
    'lr < 0.3 and opt == "adam" and loss.min < 0.1 and name ~ "seed1\\d+" (see /api/runs/table)',
    example='name ~ "seed"',
)
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


def _events_route(kind: str, summary: str, answer: dict[str, Any]) -> Route:
    """The route of an event kind answered by the list of one tag's events in a run: named
    as the kind, at ``/api/<kind>``, taking run and tag (its handler is the generic one of
    :data:`visualdl.server._http.handlers.EVENT_VIEWS`)."""
    return Route(kind, f"/api/{kind}", summary, (_RUN, _TAG), answer)


#: Every route of the JSON API but ``/api/openapi.json`` itself.
ROUTES: tuple[Route, ...] = (
    Route(
        "health",
        "/api/health",
        "Load progress, problems found in log files (file and byte offset)",
        (),
        HEALTH,
        errors=(),
    ),
    Route("runs", "/api/runs", "Runs, with the writers (processes) of each", (), RUNS, errors=()),
    Route(
        "runs_table",
        "/api/runs/table",
        "The runs as a table, a page at a time: name, status (live, finished, crashed, killed), host, start, end, "
        "duration, writers, attempts, hparams and, for the tags asked, each run's last, min and max; filtered by "
        "a query, sorted by any column, runs in natural order otherwise",
        (
            _WHERE,
            Param("sort", "the column to sort by: a field as where names it (lr, status, loss.min, ...)"),
            Param("order", "ascending or descending", type="enum", choices=("asc", "desc")),
            Param("metric", "scalar tags whose last, min and max to give per run", many=32),
            Param("offset", "first row of the page", type="integer", bounds=NUMBER_BOUNDS["offset"], default=0),
            Param("limit", "rows of the page at most", type="integer", bounds=NUMBER_BOUNDS["limit"], default=200),
        ),
        RUNS_TABLE,
        errors=(400, 404, 503),
    ),
    Route(
        "runs_replaced",
        "/api/runs/replaced",
        "A run written more than once (a script run twice into one directory, a rank restarted): how many "
        "scalar points of earlier writers later ones replaced at the same steps, per tag (/api/scalars with "
        "points=replaced draws them)",
        (_RUN,),
        RUN_REPLACED,
    ),
    Route(
        "kinds",
        "/api/kinds",
        "What the logdir holds, one entry per tab of the web UI: every kind of record with its tag and run "
        "counts, and the jobs view",
        (),
        KIND_LIST,
        errors=(),
    ),
    Route(
        "tags",
        "/api/tags",
        "Tags by kind, with the runs having each: {kind: {tag: [runs]}} (one run's reader gives {kind: [tags]})",
        (Param("run", "only these runs (each must be known)", many=MAX_RUNS),),
        TAGS,
    ),
    Route(
        "scalars",
        "/api/scalars",
        "One tag for many runs, downsampled keeping every bucket's first, last, min, max and first NaN point",
        (
            Param("tag", "scalar tag", required=True),
            Param(
                "run",
                f"runs (repeat the parameter, at most {MAX_RUNS}; or select them with where; neither: every run)",
                many=MAX_RUNS,
            ),
            _WHERE,
            Param(
                "group_by",
                "draw groups of runs, one line with bands each, by these fields (hparams or runs-table columns, "
                "as in where); ':auto': what splits the runs into a few groups (hparams that are not seeds, else "
                "the runs' parent folders)",
                many=8,
            ),
            Param(
                "group_regex",
                "group runs by what this regular expression captures in their names (its groups joined by /)",
            ),
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
            Param(
                "points",
                "'kept' (default): each step's point of the latest writer; 'replaced': the points of earlier "
                "writers a later one replaced at the same steps (a run written twice, a restarted rank), each "
                "run's as one line, never grouped or aggregated",
                type="enum",
                choices=("kept", "replaced"),
            ),
            Param(
                "rank",
                "for jobs: only this rank's own series (in 'line' and 'per_rank'), no aggregation over ranks: "
                "RANK (of the first role having it, trainers first) or ROLE/RANK",
                pattern="(?:[^\\u0000]{1,256}/)?[0-9]{1,9}",
                hint="a rank, or ROLE/RANK such as trainer/7",
                example="trainer/0",
            ),
        ),
        SCALARS,
        errors=(400, 404, 503),
    ),
    _events_route("images", "Every image of a tag in a run: steps, wall times, sizes", IMAGES),
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
            Param(
                "sample",
                "with step: the position among that step's images (0 first; samples in /api/images)",
                type="integer",
                bounds=NUMBER_BOUNDS["index"],
            ),
        ),
        IMAGE,
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
            Param(
                "bins",
                "re-bin every entry onto one grid of this many even bins over their values (counts taken as "
                "spread evenly within each bucket, as TensorBoard draws them); default: the buckets as written",
                type="integer",
                bounds=(1, MAX_BINS),
            ),
        ),
        HISTOGRAMS,
    ),
    Route(
        "job",
        "/api/job",
        "A job's writers (role, rank, attempt, state running/closed/killed/silent/raised/signalled/crashed), how "
        "their processes ended (a timeline: the first end, the others grouped), ranks alive over time per role, "
        "restarts, per-rank throughput in steps/s with stragglers, step skew per role over time, and goodput "
        "(time producing new steps, time lost to each restart, steps done twice) per job, role and rank",
        (_RUN,),
        JOB,
    ),
    Route(
        "job_heatmap",
        "/api/job/heatmap",
        "A rank x time heatmap of a job's role: a metric (steps per second) per rank over the job's time grid, "
        "as bytes quantised over [min, max], with restarts and process ends as markers",
        (
            _RUN,
            Param("role", "the role (default: the first, trainers first)"),
            Param("metric", "what is drawn", type="enum", choices=tuple(METRICS)),
        ),
        JOB_HEATMAP,
    ),
    Route(
        "job_end",
        "/api/job/end",
        "How one writer of a job ended, with its traceback (an exception's, or faulthandler's for a fatal signal)",
        (_RUN, Param("file", "a log file's name, as /api/job lists it in writers[].file", required=True)),
        JOB_END,
    ),
    Route(
        "job_stragglers",
        "/api/job/stragglers",
        "Why each straggler of a job is slow: the system metric that sets it apart from the median of its role "
        "over the job's last quarter, and its host's when that is not a host metric",
        (_RUN,),
        JOB_STRAGGLERS,
    ),
    Route(
        "job_wrong",
        "/api/job/wrong",
        "The first rank to go wrong: per tag the first non-finite value (step, rank, role, wall time), and per "
        "replicated tag (declared, named by --replicated-tags, or equal on every rank on most steps) the first "
        "step at which the ranks disagree and which ranks",
        (_RUN,),
        JOB_WRONG,
    ),
    Route(
        "job_system",
        "/api/job/system",
        "A job's system metrics (process, host, GPU; units): per metric and role, bands over the ranks on a "
        "time grid (median, p5-p95, min/max and the ranks there), and one rank's own line on request",
        (
            _RUN,
            Param(
                "metric",
                "scope/name as listed in /api/job's system (repeat); default: all",
                many=1000,
                pattern="(process|host|gpu)/[A-Za-z0-9_.-]{1,64}",
                hint="scope/name, like host/memory_used",
                example="host/cpu",
            ),
            Param("role", "only this role's ranks"),
            Param("rank", "also this rank's own line", type="integer", bounds=NUMBER_BOUNDS["rank"]),
            Param(
                "points", "times on the grid, default 200", type="integer", bounds=NUMBER_BOUNDS["grid"], default=200
            ),
        ),
        SYSTEM,
    ),
    Route(
        "distribution",
        "/api/distribution",
        "Percentile bands of a histogram tag over steps",
        (_RUN, _TAG),
        DISTRIBUTION,
    ),
    _events_route("text", "Text entries of a tag in a run, by step", TEXT),
    Route("graphs", "/api/graphs", "Graphs of all runs, then the --model files", (), GRAPHS, errors=()),
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
        GRAPH,
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
        GRAPH_NODE,
        errors=(400, 404, 422),
    ),
    _events_route("audio", "Every clip of a tag in a run: step, sample rate, channels, length", AUDIO),
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
            Param(
                "sample",
                "with step: the position among that step's clips (0 first; sample in /api/audio)",
                type="integer",
                bounds=NUMBER_BOUNDS["index"],
            ),
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
        CURVES,
    ),
    Route(
        "hparams",
        "/api/hparams",
        "Runs with hyperparameters: their values, and each metric's last, min and max from its scalar tag",
        (Param("run", "only these runs (each must be known)", many=MAX_RUNS),),
        HPARAMS,
    ),
    Route(
        "scalar_layout",
        "/api/scalar_layout",
        "Custom scalar layouts of all runs merged (categories, charts of several tags, margin charts), each "
        "chart with the tags it draws",
        (),
        LAYOUT,
        errors=(),
    ),
    _events_route("embeddings", "The embeddings entries of a tag in a run", EMBEDDINGS),
    Route(
        "projection",
        "/api/projection",
        "An embeddings entry projected to 2 or 3 dimensions by PCA (always), t-SNE or UMAP (where installed; "
        "on 5,000 sampled rows, in a worker process), with its metadata columns; computed once in the background "
        "(status computing: ask again), a failure answered 422",
        (
            _RUN,
            _TAG,
            _ENTRY,
            Param("method", "pca, tsne or umap", type="enum", choices=("pca", "tsne", "umap")),
            Param("dims", "2 or 3", type="integer", bounds=NUMBER_BOUNDS["dims"], default=2),
        ),
        PROJECTION,
        errors=(400, 404, 422),
    ),
    Route(
        "projection_sprite",
        "/api/projection/sprite",
        "The label images of an embeddings entry written by TensorBoard's writers (add_embedding's label_img): "
        "one image, laid out as the projection's sprite field says",
        (_RUN, _TAG, _ENTRY),
        {"type": "string", "format": "binary"},
        content_types=("image/png", "image/jpeg", "image/gif", "application/octet-stream"),
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
        NEIGHBORS,
    ),
    Route(
        "graph_search",
        "/api/graph/search",
        "Nodes whose name or op type matches q (up to 200), with the groups to open to reach each",
        (Param("q", "text to find", required=True), *_GRAPH_PARAMS),
        GRAPH_SEARCH,
        errors=(400, 404, 422),
    ),
)
