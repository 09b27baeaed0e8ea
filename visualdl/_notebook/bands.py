"""A job role's bands in the notebook's figures, as the web UI draws them: min-max (faint),
p5-p95 and p25-p75 over the ranks, each a fill of the same alpha over the last (the middle
half the darkest), and the median dashed; the hover of the min and max names the rank at
each extreme and the range of steps it holds it over."""

from __future__ import annotations

from typing import Any

import numpy as np

from visualdl._index.outliers import RankRuns
from visualdl._notebook.style import STYLE, _alpha
from visualdl.server._data import RoleLine

__all__ = ["add_bands", "holder_texts"]


def holder_texts(runs: RankRuns | None, steps: np.ndarray) -> list[str]:
    """Per step, who holds the extreme over which steps ("rank 7 over steps 100-240", or
    "most often rank 7: 62 of 80 steps 100-240" for a window); "" outside every range."""
    steps = np.asarray(steps, np.int64)
    if runs is None or not len(runs):
        return [""] * steps.size
    at = np.searchsorted(runs.first, steps, side="right") - 1
    inside = (at >= 0) & (runs.last[np.maximum(at, 0)] >= steps)
    out = []
    for i, ok in zip(at.tolist(), inside.tolist(), strict=True):  # per point shown (a few thousand)
        if not ok:
            out.append("")
            continue
        first, last, rank = int(runs.first[i]), int(runs.last[i]), int(runs.rank[i])
        span = f"step {first}" if first == last else f"steps {first}\u2013{last}"
        held, points = int(runs.held[i]), int(runs.points[i])
        out.append(
            f"rank {rank} over {span}" if held == points else f"most often rank {rank}: {held} of {points} {span}"
        )
    return out


def add_bands(fig: Any, go: Any, name: str, x: Any, band: RoleLine, color: str, shown: dict[str, int]) -> None:
    """Add the min-max band (its hover naming the extreme ranks), the p5-p95 and p25-p75 bands
    and the dashed median of one job role to ``fig``."""
    lo = np.asarray(band.min, np.float64)
    hi = np.asarray(band.max, np.float64)
    steps = np.asarray(band.mean.steps)
    low_by, high_by = holder_texts(band.min_runs, steps), holder_texts(band.max_runs, steps)
    rank_text = [
        f"min {a:.6g} (rank {ra}) · max {b:.6g} (rank {rb})"
        for a, b, ra, rb in zip(lo, hi, band.min_rank.tolist(), band.max_rank.tolist(), strict=True)
    ]
    holders = [
        " · ".join(p for p in (f"min: {a}" if a else "", f"max: {b}" if b else "") if p)
        for a, b in zip(low_by, high_by, strict=True)
    ]
    fill = _alpha(color, STYLE["band_alpha"])
    edge = dict(width=0, color=color)
    common = dict(legendgroup=name, x=x, mode="lines", showlegend=False)
    fig.add_trace(go.Scatter(**common, y=lo, line=edge, hoverinfo="skip", name=f"{name} min"), **shown)
    fig.add_trace(
        go.Scatter(
            **common,
            y=hi,
            line=edge,
            fill="tonexty",
            fillcolor=fill,
            text=rank_text,
            customdata=holders,
            hovertemplate="%{text}<br>%{customdata}<extra>" + name + "</extra>",
            name=f"{name} band",
        ),
        **shown,
    )
    q = np.asarray(band.quantiles, np.float64)
    if q.shape[0] != 5:
        return
    for low, high, label in ((0, 4, "p5-p95"), (1, 3, "p25-p75")):
        fig.add_trace(go.Scatter(**common, y=q[low], line=edge, hoverinfo="skip", name=f"{name} {label} low"), **shown)
        fig.add_trace(
            go.Scatter(
                **common,
                y=q[high],
                line=edge,
                fill="tonexty",
                fillcolor=fill,
                customdata=np.column_stack((q[low], q[high])),
                hovertemplate=label + ": %{customdata[0]:.6g} to %{customdata[1]:.6g}<extra>" + name + "</extra>",
                name=f"{name} {label}",
            ),
            **shown,
        )
    fig.add_trace(
        go.Scatter(
            **common,
            y=q[2],
            line=dict(color=color, width=STYLE["raw_width"], dash="dash"),
            hovertemplate="median %{y:.6g}<extra>" + name + "</extra>",
            name=f"{name} median",
        ),
        **shown,
    )
