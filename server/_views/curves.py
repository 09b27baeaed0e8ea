"""The answer of the PR/ROC curve route, from the provider's events.

A tag over many runs, each at one step (the
one asked for, or the nearest before it; the newest by default), with every threshold's
counts and rates and the area under the curve by the trapezoid rule (PR: precision over
recall; ROC: TPR over FPR), computed with numpy here so that every client agrees.
"""

from __future__ import annotations

import bisect
import math
from typing import Any

import numpy as np

from visualdl._kinds.table import PrCurveEvent, RocCurveEvent
from visualdl.errors import InvalidArgument, NotFound
from visualdl.server._provider import DataProvider

__all__ = ["CURVE_AXES", "curves"]

#: Per kind of curve: its x and y arrays (as drawn) and the other rates it keeps.
CURVE_AXES = {"pr_curves": ("recall", "precision"), "roc_curves": ("fpr", "tpr")}


def _numbers(values: np.ndarray) -> list[float | None]:
    """A JSON list: NaN (a rate where nothing was predicted positive) as null."""
    return [None if not math.isfinite(v) else v for v in values.tolist()]


def area(x: np.ndarray, y: np.ndarray) -> float | None:
    """The area under y(x) by the trapezoid rule over the points where both are finite,
    ordered by x; None with fewer than two such points."""
    keep = np.isfinite(x) & np.isfinite(y)
    if keep.sum() < 2:
        return None
    xs, ys = x[keep], y[keep]
    order = np.lexsort((ys, xs))
    xs, ys = xs[order], ys[order]
    return float(np.sum(np.diff(xs) * (ys[1:] + ys[:-1])) / 2)


def _curve(event: PrCurveEvent | RocCurveEvent, kind: str) -> dict[str, Any]:
    x_name, y_name = CURVE_AXES[kind]
    x, y = getattr(event, x_name), getattr(event, y_name)
    return {
        "step": event.step,
        "wall_time": event.wall_time,
        "thresholds": _numbers(event.thresholds),
        "tp": _numbers(event.tp),
        "fp": _numbers(event.fp),
        "tn": _numbers(event.tn),
        "fn": _numbers(event.fn),
        x_name: _numbers(x),
        y_name: _numbers(y),
        "auc": area(x, y),
    }


def curves(provider: DataProvider, *, kind: str, tag: str, runs: list[str], step: int | None) -> dict[str, Any]:
    """``tag``'s curves of ``kind`` in each of ``runs``, each at ``step`` or the nearest
    step before it (the newest without ``step``); runs without the tag are listed apart."""
    if kind not in CURVE_AXES:
        raise InvalidArgument(f"kind must be one of {', '.join(CURVE_AXES)}; got {kind!r}")
    out: list[dict[str, Any]] = []
    missing: list[str] = []
    every: set[int] = set()
    for run in runs:
        try:
            events = provider.read_events(run=run, kind=kind, tag=tag)
        except NotFound:
            if run not in provider.run_names():
                raise  # an unknown run is an error; a run without the tag is listed
            missing.append(run)
            continue
        if not events:
            missing.append(run)
            continue
        steps = [e.step for e in events]
        every.update(steps)
        at = len(events) - 1 if step is None else bisect.bisect_right(steps, step) - 1
        entry: dict[str, Any] = {"run": run, "steps": steps}
        entry.update(_curve(events[at], kind) if at >= 0 else {"step": None})
        out.append(entry)
    x_name, y_name = CURVE_AXES[kind]
    return {"kind": kind, "tag": tag, "x": x_name, "y": y_name, "steps": sorted(every), "runs": out, "missing": missing}
