"""The ``goodput`` field of ``/api/job``: a job's goodput (:mod:`visualdl._jobs.goodput`) as JSON."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from visualdl._jobs.goodput import Goodput, GoodputTotals

__all__ = ["goodput_answer"]


def _number(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _totals(t: GoodputTotals) -> dict[str, Any]:
    return dataclasses.asdict(t)


def goodput_answer(g: Goodput) -> dict[str, Any]:
    """The job's and each role's totals, per role its ranks as columns (arrays, one entry per
    rank), and one row per restart."""
    roles = np.array([role for role, _ in g.places], dtype=object)
    ranks = np.array([rank for _, rank in g.places], np.int64)
    names = g.roles()
    wall = g.wall
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(wall > 0, g.productive / wall, np.nan)
    columns = {}
    for role in names:
        m = roles == role
        columns[role] = {  # to the millisecond and 1e-5: a third of the bytes at 10,000 ranks
            "rank": ranks[m],
            "wall_seconds": np.round(wall[m], 3),
            "productive_seconds": np.round(g.productive[m], 3),
            "lost_seconds": np.round(g.lost[m], 3),
            "restarts": g.restarts[m],
            "steps_done_twice": g.twice[m],
            "goodput": np.round(ratio[m], 5),
            "recovering": g.recovering[m],
        }
    gp = g.gaps["place"]
    restarts = [
        {
            "role": g.places[p][0],
            "rank": g.places[p][1],
            "attempt": int(a),
            "next_attempt": int(b),
            "killed_at": _number(o),
            "resumed_at": _number(c),
            "lost_seconds": _number(x),
            "steps_done_twice": int(t),
        }
        for p, a, b, o, c, x, t in zip(
            gp.tolist(),
            g.gaps["attempt"].tolist(),
            g.gaps["next_attempt"].tolist(),
            g.gaps["opened"].tolist(),
            g.gaps["closed"].tolist(),
            g.gaps["lost"].tolist(),
            g.gaps["twice"].tolist(),
            strict=True,
        )
    ]
    return {
        **_totals(g.totals()),
        "roles": {role: _totals(g.totals(roles == role)) for role in names},
        "ranks": columns,
        "gaps": restarts,
    }
