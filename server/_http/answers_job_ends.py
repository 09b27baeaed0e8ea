"""The answers about how a job's processes ended: the writers' ``ended``, the timeline in
``/api/job`` and one writer's end with its traceback (``/api/job/end``), as JSON Schema."""

from __future__ import annotations

from visualdl.server._http.jsonschema import (
    BOOLEAN,
    INTEGER,
    NULLABLE_INTEGER,
    NULLABLE_NUMBER,
    STRING,
    WALL_TIME,
    array,
    nullable,
    obj,
)

__all__ = ["ENDED", "END_TIMELINE", "JOB_END", "STATES"]

#: A job page writer's state.
STATES = ["running", "closed", "killed", "silent", "raised", "signalled", "crashed"]
_ENDED_FIELDS = {
    "how": {
        "enum": ["closed", "exception", "signal", "fatal signal", "killed"],
        "description": "as the log says (closed, exception, signal), as faulthandler's sidecar says "
        "(fatal signal), or inferred: killed without a trace",
    },
    "wall_time": WALL_TIME,
    "step": NULLABLE_INTEGER,
    "exception_type": STRING,
    "message": STRING,
    "signal": STRING,
    "thread": STRING,
    "cause": {"type": "string", "description": "a guess for an inferred end, e.g. 'probably out of memory'"},
    "has_traceback": BOOLEAN,
}
ENDED = nullable(
    obj(
        _ENDED_FIELDS,
        description="how the writer's process ended (null: still running); the traceback is at /api/job/end",
    )
)
_MEMBER = {
    "role": STRING,
    "rank": INTEGER,
    "attempt": INTEGER,
    "file": STRING,
    "wall_time": WALL_TIME,
    "step": NULLABLE_INTEGER,
}
END_TIMELINE = obj(
    {
        "ended": INTEGER,
        "running": INTEGER,
        "first": nullable(
            obj(
                {**_MEMBER, **_ENDED_FIELDS, "who": STRING, "text": STRING},
                description="the earliest end that is not a clean close (else the earliest close)",
            )
        ),
        "groups": array(
            obj(
                {
                    "how": STRING,
                    "signal": STRING,
                    "exception_type": STRING,
                    "phrase": STRING,
                    "text": STRING,
                    "count": INTEGER,
                    "more": {"type": "integer", "description": "members not listed"},
                    "first_time": NULLABLE_NUMBER,
                    "last_time": NULLABLE_NUMBER,
                    "from_seconds": NULLABLE_NUMBER,
                    "to_seconds": NULLABLE_NUMBER,
                    "min_step": NULLABLE_INTEGER,
                    "max_step": NULLABLE_INTEGER,
                    "members": array(obj(_MEMBER)),
                }
            )
        ),
    },
    description="how the processes ended, first the earliest unclean end, then the others grouped by how",
)
JOB_END = obj(
    {
        "run": STRING,
        "file": STRING,
        "role": STRING,
        "rank": INTEGER,
        "attempt": INTEGER,
        "ended": nullable(obj({**_ENDED_FIELDS, "traceback": STRING})),
    }
)
