"""The answer of ``/api/job/wrong``, and the marks of a job's chart: the first rank to go wrong. Pure.

From :meth:`visualdl.server._provider.DataProvider.read_job_wrong`: per tag of a run its first
non-finite value (step, rank, role, wall time, "nan" / "inf" / "-inf"), and per role and
replicated tag the first step at which the ranks disagree, with the ranks outside the
majority (see :mod:`visualdl._index.wrong` for the definitions). The jobs page lists both;
a job's chart of a tag marks them at their step (``wrong`` in its ``/api/scalars`` entry).
"""

from __future__ import annotations

import math
import os
from typing import Any, TypedDict

from visualdl._index.wrong import Divergence, FirstNonfinite
from visualdl._jobs.wrong import divergence_text, nonfinite_text
from visualdl.server._data import WrongMarks

__all__ = ["JobWrongAnswer", "chart_marks", "job_wrong_answer"]

Found = tuple[list[FirstNonfinite], list[Divergence]]


class JobWrongAnswer(TypedDict):
    run: str
    nonfinite: list[dict[str, Any]]
    divergence: list[dict[str, Any]]


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _nonfinite(f: FirstNonfinite) -> dict[str, Any]:
    return {
        "tag": f.tag,
        "step": f.step,
        "wall_time": _finite(f.wall_time),
        "value": f.value,
        "role": f.role,
        "rank": f.rank,
        "file": os.path.basename(f.path),
    }


def _divergence(d: Divergence) -> dict[str, Any]:
    return {
        "tag": d.tag,
        "role": d.role,
        "step": d.step,
        "ranks": list(d.ranks),
        "minority": d.minority,
        "points": d.points,
        "majority": _finite(d.majority),
        "why": d.why,
    }


def job_wrong_answer(run: str, found: Found) -> JobWrongAnswer:
    firsts, parted = found
    return {
        "run": run,
        "nonfinite": [_nonfinite(f) for f in firsts],
        "divergence": [_divergence(d) for d in parted],
    }


def chart_marks(found: WrongMarks) -> list[dict[str, Any]]:
    """The marks of one tag's job chart: ``{kind, role, step, ranks, text}`` each."""
    firsts, parted = found.nonfinite, found.divergence
    marks = [
        {
            "kind": "nonfinite",
            "role": f.role,
            "step": f.step,
            "ranks": [f.rank],
            "text": nonfinite_text(f),
        }
        for f in firsts
    ]
    marks += [
        {"kind": "divergence", "role": d.role, "step": d.step, "ranks": list(d.ranks), "text": divergence_text(d)}
        for d in parted
    ]
    return marks
