"""The answer of ``/api/job/stragglers``: why each straggler is slow, as JSON Schema."""

from __future__ import annotations

from visualdl.server._http.jsonschema import INTEGER, NUMBER, STRING, array, obj

__all__ = ["JOB_STRAGGLERS"]

_CAUSE = obj(
    {
        "scope": {"enum": ["process", "host", "gpu"]},
        "name": STRING,
        "unit": STRING,
        "label": STRING,
        "value": {**NUMBER, "description": "the straggler's mean over the window"},
        "median": {**NUMBER, "description": "the median of its role (of the hosts it ran on, for scope host)"},
        "deviation": {**NUMBER, "description": "signed, in robust units (visualdl/_jobs/stragglers.py)"},
    }
)

JOB_STRAGGLERS = obj(
    {
        "run": STRING,
        "windows": {
            "type": "object",
            "additionalProperties": array(NUMBER),
            "description": "per role with stragglers, the first and last wall time its means are taken over: "
            "while at least half of its places (and two) were alive",
        },
        "stragglers": array(
            obj(
                {
                    "role": STRING,
                    "rank": INTEGER,
                    "text": STRING,
                    "causes": {
                        **array(_CAUSE),
                        "description": "its own most deviating metric (process or GPU), then its host's, "
                        "each when one deviates; empty: nothing sets it apart",
                    },
                }
            )
        ),
    }
)
