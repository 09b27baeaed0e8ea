"""The ``goodput`` field of the job page's answer (``/api/job``), as JSON Schema."""

from __future__ import annotations

from visualdl.server._http.jsonschema import (
    BOOLEAN,
    INTEGER,
    NULLABLE_NUMBER,
    NUMBER,
    STRING,
    WALL_TIME,
    array,
    mapping,
    obj,
)

__all__ = ["GOODPUT"]

_TOTALS = {
    "start_time": WALL_TIME,
    "end_time": WALL_TIME,
    "wall_seconds": {**NULLABLE_NUMBER, "description": "first start to last end of any rank (null: no time known)"},
    "rank_seconds": {**NUMBER, "description": "the ranks' wall times summed"},
    "productive_seconds": {**NUMBER, "description": "time producing new steps, summed over ranks"},
    "lost_seconds": {**NUMBER, "description": "time lost to restarts, summed over ranks"},
    "restarts": INTEGER,
    "steps_done_twice": INTEGER,
    "recovering": {**INTEGER, "description": "ranks whose newest attempt has not yet passed their old highest step"},
    "goodput": {**NULLABLE_NUMBER, "description": "productive_seconds / rank_seconds"},
}
#: Per role, its ranks as columns: one entry per rank in each array.
_RANKS = obj(
    {
        "rank": array(INTEGER),
        "wall_seconds": array(NULLABLE_NUMBER),
        "productive_seconds": array(NUMBER),
        "lost_seconds": array(NUMBER),
        "restarts": array(INTEGER),
        "steps_done_twice": array(INTEGER),
        "goodput": array(NULLABLE_NUMBER),
        "recovering": array(BOOLEAN),
    },
    description="columns, one entry per rank",
)
_GAP = obj(
    {
        "role": STRING,
        "rank": INTEGER,
        "attempt": {**INTEGER, "description": "the attempt that was followed by another (killed, or ended)"},
        "next_attempt": INTEGER,
        "killed_at": {**WALL_TIME, "description": "the followed attempt's last entry (null: it logged none)"},
        "resumed_at": {**WALL_TIME, "description": "the first new step after it (null: not yet, recovering)"},
        "lost_seconds": NULLABLE_NUMBER,
        "steps_done_twice": {**INTEGER, "description": "steps the next attempt logged again"},
    }
)
GOODPUT = obj(
    {
        **_TOTALS,
        "roles": mapping(obj(_TOTALS), "per role: its totals"),
        "ranks": mapping(_RANKS, "per role: its ranks' goodput"),
        "gaps": array(_GAP),
    },
    description="time producing new steps and time lost to restarts (see visualdl/_jobs/goodput.py)",
)
