"""The answers of the system metrics of a job (``/api/job/system``, the list in ``/api/job``), as JSON Schema."""

from __future__ import annotations

from visualdl.server._http.jsonschema import INTEGER, NULLABLE_NUMBER, NUMBER, STRING, WALL_TIME, array, obj

__all__ = ["SYSTEM", "SYSTEM_LIST"]

_SCOPE = {"enum": ["process", "host", "gpu"]}
_METRIC = {"type": "string", "description": "scope/name, e.g. host/memory_used, gpu/utilization"}
_PER_TIME = "at each of times"

SYSTEM_LIST = array(
    obj(
        {"metric": _METRIC, "scope": _SCOPE, "name": STRING, "unit": STRING, "writers": INTEGER},
        description="a system metric the job records (LogWriter(system_metrics=True)), apart from its tags; "
        "writers: log files recording it",
    )
)
_BANDS = obj(
    {
        "role": STRING,
        "members": {**INTEGER, "description": "series over which the bands are: ranks (ranks x GPUs for gpu)"},
        "count": {**array(INTEGER), "description": "members with a value " + _PER_TIME},
        **{
            field: {**array(NULLABLE_NUMBER), "description": f"the {what} of the members' values {_PER_TIME}"}
            for field, what in (
                ("p5", "5th percentile"),
                ("p25", "25th percentile"),
                ("median", "median"),
                ("p75", "75th percentile"),
                ("p95", "95th percentile"),
                ("min", "minimum"),
                ("max", "maximum"),
            )
        },
        "min_rank": {**array(INTEGER), "description": "the rank at the minimum (-1: no value)"},
        "max_rank": {**array(INTEGER), "description": "the rank at the maximum (-1: no value)"},
        "min_gpu": {**array(INTEGER), "description": "its GPU for a gpu metric (-1 otherwise)"},
        "max_gpu": {**array(INTEGER), "description": "its GPU for a gpu metric (-1 otherwise)"},
    },
    description="one role's bands over its ranks: a rank's value at a time is its last sample then "
    "(null when older than three sampling intervals)",
)
SYSTEM = obj(
    {
        "run": STRING,
        "points": INTEGER,
        "metrics": array(
            obj(
                {
                    "metric": _METRIC,
                    "scope": _SCOPE,
                    "name": STRING,
                    "unit": STRING,
                    "times": {**array(NUMBER), "description": "the time grid, seconds since the epoch"},
                    "roles": array(_BANDS),
                    "lines": array(
                        obj(
                            {
                                "role": STRING,
                                "rank": INTEGER,
                                "gpu": INTEGER,
                                "host": STRING,
                                "wall_times": array(WALL_TIME),
                                "values": array(NULLABLE_NUMBER),
                            },
                            description="the rank asked for (rank=): its own samples, downsampled to points",
                        )
                    ),
                }
            )
        ),
    }
)
