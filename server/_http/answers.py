"""The answers of the listing routes, health, scalars and the job page, as JSON Schema."""

from __future__ import annotations

from visualdl._kinds.table import KINDS
from visualdl.server._http.answers_goodput import GOODPUT
from visualdl.server._http.answers_job_ends import END_TIMELINE, ENDED, STATES
from visualdl.server._http.answers_system import SYSTEM_LIST
from visualdl.server._http.answers_wrong import WRONG_MARKS
from visualdl.server._http.jsonschema import (
    BOOLEAN,
    INTEGER,
    NULLABLE_INTEGER,
    NULLABLE_NUMBER,
    NUMBER,
    STRING,
    WALL_TIME,
    array,
    mapping,
    obj,
)

__all__ = [
    "HEALTH",
    "JOB",
    "JOB_HEATMAP",
    "JOB_ROLE",
    "KIND_LIST",
    "NONFINITE",
    "PER_ROLE",
    "RUNS",
    "RUN_SERIES",
    "RUNS_TABLE",
    "RUN_REPLACED",
    "SCALARS",
    "SERIES",
    "TAGS",
    "WRITER",
]


NONFINITE = array(
    {
        "type": "array",
        "prefixItems": [INTEGER, {"enum": ["nan", "inf", "-inf"]}],
        "minItems": 2,
        "maxItems": 2,
        "description": "[index into values, what the null there was]",
    }
)
#: The quantiles of a job role over its ranks, by field name.
QUANTILE_NAMES = {
    "p5": "5th percentile",
    "p25": "25th percentile",
    "median": "median",
    "p75": "75th percentile",
    "p95": "95th percentile",
}
SERIES = {
    "steps": array(INTEGER),
    "values": array(NULLABLE_NUMBER),
    "wall_times": array(WALL_TIME),
    "nonfinite": NONFINITE,
    "range_points": {"type": "integer", "description": "points in the step range before downsampling"},
}
_ROW5 = {"type": "array", "items": INTEGER, "minItems": 5, "maxItems": 5}
_ROW2 = {"type": "array", "items": INTEGER, "minItems": 2, "maxItems": 2}
EXTREME_HOLDERS = obj(
    {
        "ranges": {
            **array(_ROW5),
            "description": "[first_step, last_step, rank, held, points]: the rank holding the extreme over the "
            "steps first..last (held == points); past 200 ranges, each range a window naming the rank holding it "
            "at most points (held of points)",
        },
        "top": {**array(_ROW2), "description": "[rank, points held]: the most frequent holders, most first"},
    }
)
JOB_ROLE = obj(
    {
        "role": STRING,
        "ranks": array(INTEGER),
        **SERIES,
        "min": array(NULLABLE_NUMBER),
        "min_nonfinite": NONFINITE,
        "max": array(NULLABLE_NUMBER),
        "max_nonfinite": NONFINITE,
        "min_rank": array(INTEGER),
        "max_rank": array(INTEGER),
        "count": array(INTEGER),
        **{
            field: {**array(NULLABLE_NUMBER), "description": f"the {what} of the ranks' values at each point"}
            for field, what in QUANTILE_NAMES.items()
        },
        **{f"{field}_nonfinite": NONFINITE for field in QUANTILE_NAMES},
        "std": {
            **array(NULLABLE_NUMBER),
            "description": "the sample standard deviation (n - 1) of the ranks' values at each point: 0 for one "
            "value, null (std_nonfinite: nan) with none or with an infinity among them",
        },
        "std_nonfinite": NONFINITE,
        **{
            f"{field}_rank": {
                **array(INTEGER),
                "description": f"the rank at the {what} edge at each point: the lowest rank holding the order "
                "statistic numpy's 'nearest' method gives (index round((n - 1) q) of the n values, half to even; "
                "the edge itself where (n - 1) q is whole, else the nearer of the two values it lies between); "
                "-1: no value",
            }
            for field, what in QUANTILE_NAMES.items()
        },
        "extremes": obj(
            {"min": EXTREME_HOLDERS, "max": EXTREME_HOLDERS, **{field: EXTREME_HOLDERS for field in QUANTILE_NAMES}},
            description="who holds the minimum, the maximum and each quantile's edge (its field's _rank), by range "
            "of steps over the whole step range asked for (not only the points sent)",
        ),
    },
    optional=("extremes",),
    description="one role's mean over ranks with its min/max band, the rank at each extreme, the "
    "quantiles of the ranks' values (numpy's linear interpolation, NaN ignored), each with the rank at its edge",
)
RUN_SERIES = obj(
    {
        "run": STRING,
        **SERIES,
        "total_points": {
            "type": "integer",
            "description": "points logged for the tag in the run, by all writers and attempts "
            "(replaced points of restarted ranks included)",
        },
        "job": array(JOB_ROLE),
        "per_rank": array(obj({"role": STRING, "rank": INTEGER, **SERIES})),
        "wrong": WRONG_MARKS,
        "group": obj(
            {
                "key": {
                    "type": "object",
                    "additionalProperties": {"type": ["string", "number", "null"]},
                    "description": "the value of each field grouped by (name: the regex's capture); null: none",
                },
                "members": {
                    **array(STRING),
                    "description": "the group's runs; the band's ranks (min_rank, ...) are positions in it",
                },
            },
            description="a group of runs (run is its label), drawn as one line with bands over its members",
        ),
    },
    optional=("job", "per_rank", "wrong", "group"),
)
SCALARS = obj(
    {
        "tag": STRING,
        "max_points": INTEGER,
        "runs": array(RUN_SERIES),
        "missing": {"type": "array", "items": STRING, "description": "runs asked for that have no such tag"},
    }
)
WRITER = obj(
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
        "unshown": array(
            obj(
                {"tag": STRING, "kind": STRING, "count": INTEGER},
                description="values of a kind no view shows, of one tag (TensorBoard plugins, VisualDL 2 kinds)",
            )
        ),
    }
)
RUNS = obj(
    {
        "runs": array(
            obj(
                {
                    "name": STRING,
                    "files": INTEGER,
                    "closed": BOOLEAN,
                    "start_time": NULLABLE_NUMBER,
                    "writers": array(WRITER),
                }
            )
        )
    }
)
_SUMMARY_VALUE = {"type": ["number", "string"], "description": 'a number, or "nan", "inf", "-inf"'}
RUNS_TABLE = obj(
    {
        "total": {"type": "integer", "description": "runs in all"},
        "matched": {"type": "integer", "description": "runs the query selects"},
        "offset": INTEGER,
        "fields": {**array(STRING), "description": "the columns a query, a sort or group_by may name"},
        "hparams": {**array(STRING), "description": "the hparams any run has"},
        "rows": array(
            obj(
                {
                    "name": STRING,
                    "status": {"enum": ["live", "finished", "crashed", "killed"]},
                    "host": {"type": ["string", "null"]},
                    "start_time": NULLABLE_NUMBER,
                    "end_time": NULLABLE_NUMBER,
                    "duration": NULLABLE_NUMBER,
                    "writers": INTEGER,
                    "attempts": INTEGER,
                    "command": {"type": ["string", "null"], "description": "the newest writer's command line"},
                    "git_commit": {"type": ["string", "null"], "description": "its code's git commit"},
                    "git_branch": {"type": ["string", "null"]},
                    "git_dirty": {"type": ["boolean", "null"], "description": "null: unknown"},
                    "python": {"type": ["string", "null"]},
                    "cwd": {"type": ["string", "null"]},
                    "hparams": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
                    "metrics": {
                        "type": "object",
                        "additionalProperties": {
                            "oneOf": [
                                {"type": "null"},
                                obj(
                                    {"last": _SUMMARY_VALUE, "min": _SUMMARY_VALUE, "max": _SUMMARY_VALUE},
                                    optional=("last", "min", "max"),
                                ),
                            ]
                        },
                    },
                },
                description="also packages.NAME: the version of each key package the run's process imported",
            )
        ),
    }
)
RUN_REPLACED = obj(
    {
        "run": STRING,
        "attempts": {**INTEGER, "description": "times the run's busiest place was written (its restarts)"},
        "replaced": {**INTEGER, "description": "scalar points of earlier writers replaced by later ones, all tags"},
        "tags": mapping(INTEGER, "replaced points per scalar tag that has any"),
    }
)
TAGS = {
    "type": "object",
    "propertyNames": {"enum": sorted(KINDS)},
    "additionalProperties": mapping({"type": "array", "items": STRING, "minItems": 1}),
    "description": "{kind: {tag: [runs having it]}}: every kind held by the runs asked for, {} when it has no tags",
}
KIND_LIST = obj(
    {
        "kinds": array(
            obj(
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
HEALTH = obj(
    {
        "status": {
            "enum": ["ok", "loading", "degraded"],
            "description": "degraded: indexing cannot keep everything it reads; `degraded` says why and the fix",
        },
        "loaded": BOOLEAN,
        "files_read": INTEGER,
        "files_total": INTEGER,
        "bytes_read": INTEGER,
        "polls": INTEGER,
        "last_poll_seconds": NUMBER,
        "last_poll_time": NULLABLE_NUMBER,
        "reload_interval": NUMBER,
        "logdirs": array(obj({"name": STRING, "path": STRING, "exists": BOOLEAN})),
        "problems": array(obj({"logdir": STRING, "file": STRING, "offset": INTEGER, "message": STRING})),
        "not_served": array(obj({"kind": STRING, "name": STRING, "run": STRING, "length": INTEGER, "message": STRING})),
        "degraded": array(STRING),
    }
)
PER_ROLE = "per role: "
JOB = obj(
    {
        "run": STRING,
        "roles": array(obj({"role": STRING, "places": INTEGER, "world_size": INTEGER})),
        "writers": array(
            obj(
                {
                    "role": STRING,
                    "rank": INTEGER,
                    "attempt": INTEGER,
                    "host": STRING,
                    "pid": INTEGER,
                    "file": STRING,
                    "state": {"enum": STATES},
                    "start_time": WALL_TIME,
                    "end_time": WALL_TIME,
                    "points": INTEGER,
                    "first_step": NULLABLE_INTEGER,
                    "last_step": NULLABLE_INTEGER,
                    "ended": ENDED,
                }
            )
        ),
        "ends": END_TIMELINE,
        "times": array(NUMBER),
        "alive": mapping(array(INTEGER), PER_ROLE + "ranks alive at each of times"),
        "skew": mapping(
            obj(
                {
                    "min_step": array(NULLABLE_NUMBER),
                    "max_step": array(NULLABLE_NUMBER),
                    "slowest_rank": array(NULLABLE_INTEGER),
                }
            ),
            PER_ROLE + "lowest and highest step reached at each of times",
        ),
        "throughput": mapping(
            array(
                obj(
                    {
                        "rank": INTEGER,
                        "steps_per_second": NULLABLE_NUMBER,
                        "recent_steps_per_second": NULLABLE_NUMBER,
                        "last_step": NULLABLE_INTEGER,
                        "straggler": BOOLEAN,
                        "recovering": BOOLEAN,
                    }
                )
            ),
            PER_ROLE + "steps per second of each rank",
        ),
        "stragglers": mapping(array(INTEGER), PER_ROLE + "ranks below 80% of the median recent throughput"),
        "restarts": array(obj({"role": STRING, "rank": INTEGER, "files": INTEGER})),
        "median_recent_steps_per_second": mapping(NULLABLE_NUMBER),
        "goodput": GOODPUT,
        "system": SYSTEM_LIST,
    }
)
JOB_HEATMAP = obj(
    {
        "run": STRING,
        "role": STRING,
        "metric": STRING,
        "unit": STRING,
        "rows": {**array(INTEGER), "description": "the rank of each row, ascending"},
        "times": {**array(NUMBER), "description": "the edges of the time grid's cells (columns + 1), as /api/job"},
        "columns": INTEGER,
        "min": {**NULLABLE_NUMBER, "description": "the value of byte 0 (null: no value at all)"},
        "max": {**NULLABLE_NUMBER, "description": "the value of byte 254"},
        "values": {
            "type": "string",
            "contentEncoding": "base64",
            "description": "rows x columns bytes, row by row: min + byte / 254 * (max - min); 255: no value",
        },
        "overlays": obj(
            {
                "row": array(INTEGER),
                "time": array(NUMBER),
                "kind": array({"enum": ["restart", "end"]}),
                "text": array(STRING),
            },
            description="markers, column-wise: a rank's later attempt started (restart) or one of its files "
            "ended (end), at a row and a wall time",
        ),
    }
)
