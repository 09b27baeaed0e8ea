"""The answers of the first rank to go wrong (``/api/job/wrong``, a job chart's marks), as JSON Schema."""

from __future__ import annotations

from visualdl.server._http.jsonschema import (
    INTEGER,
    NULLABLE_NUMBER,
    STRING,
    WALL_TIME,
    array,
    obj,
)

__all__ = ["JOB_WRONG", "WRONG_MARKS"]

WRONG_MARKS = array(
    obj(
        {
            "kind": {"enum": ["nonfinite", "divergence"]},
            "role": STRING,
            "step": INTEGER,
            "ranks": array(INTEGER),
            "text": STRING,
        },
        description="a mark at a step of a job's chart: the tag's first non-finite value, or the first step "
        "at which the ranks of a replicated tag disagree (the ranks outside the majority)",
    )
)
JOB_WRONG = obj(
    {
        "run": STRING,
        "nonfinite": array(
            obj(
                {
                    "tag": STRING,
                    "step": INTEGER,
                    "wall_time": WALL_TIME,
                    "value": {"enum": ["nan", "inf", "-inf"]},
                    "role": STRING,
                    "rank": {"type": "integer", "description": "-1: an unranked writer"},
                    "file": STRING,
                },
                description="per tag, its first non-finite value: the lowest step, then the earliest wall time "
                "(points replaced by a restarted rank do not count)",
            )
        ),
        "divergence": array(
            obj(
                {
                    "tag": STRING,
                    "role": STRING,
                    "step": INTEGER,
                    "ranks": array(INTEGER),
                    "minority": {"type": "integer", "description": "points outside the majority at the step"},
                    "points": {"type": "integer", "description": "points logged at the step"},
                    "majority": NULLABLE_NUMBER,
                    "why": {"enum": ["declared", "setting", "detected"]},
                },
                description="per role and replicated tag, the first step at which its ranks disagree beyond a "
                "relative 1e-6, and the ranks outside the majority there (at most 64 named)",
            )
        ),
    }
)
