"""The answer of ``/api/job/stragglers``: why each straggler is slow
(:func:`visualdl._jobs.stragglers.job_stragglers`) as JSON."""

from __future__ import annotations

from typing import Any

from visualdl._jobs.stragglers import Cause, StragglerReport

__all__ = ["stragglers_answer"]


def _cause(c: Cause) -> dict[str, Any]:
    return {
        "scope": c.scope,
        "name": c.name,
        "unit": c.unit,
        "label": c.label,
        "value": c.value,
        "median": c.median,
        "deviation": c.deviation,
    }


def stragglers_answer(run: str, report: StragglerReport) -> dict[str, Any]:
    """Per role the wall times compared over, and each straggler with its causes."""
    return {
        "run": run,
        "windows": {role: list(w) for role, w in report.windows.items()},
        "stragglers": [
            {"role": s.role, "rank": s.rank, "text": s.text, "causes": [_cause(c) for c in s.causes]}
            for s in report.stragglers
        ],
    }
