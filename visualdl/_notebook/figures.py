"""The notebook's figures: plotly figures of a logdir's scalars, images and histograms.

They read the data provider's typed values (the server's query layer: the same reader,
downsampling and job aggregation as the web UI, a tag's chart by the call that answers
``/api/scalars``: :meth:`~visualdl.server._provider.DataProvider.read_chart`), never its
JSON; a cached provider per logdir is polled at each call, so re-running a cell follows a
live run.
"""

from __future__ import annotations

import base64
import io
import math
import os
import re
import threading
from typing import Any

import numpy as np

from visualdl._notebook.bands import add_bands
from visualdl._notebook.style import (
    STYLE,
    _alpha,
    _assign_colors,
    _effective_weight,
    _nonfinite_kind,
    _relative_unit,
    smooth,
)
from visualdl._storage import open_store
from visualdl.errors import NotFound
from visualdl.server._data import Line, RoleLine, RunScalars
from visualdl.server._provider import DataProvider
from visualdl.server._rebin import DEFAULT_BINS, MAX_BINS, rebin_events
from visualdl.server._settings import Settings

__all__ = ["histograms", "images", "scalars"]

_providers: dict[str, DataProvider] = {}
_lock = threading.Lock()


def _provider(logdir: str | os.PathLike[str]) -> DataProvider:
    """The cached provider of ``logdir``, polled: what was written since the last call is read."""
    store = open_store(logdir)
    path = store.location
    if not store.exists():
        raise FileNotFoundError(f"logdir {os.fspath(logdir)!r} does not exist")
    with _lock:
        provider = _providers.get(path)
        if provider is None:
            provider = _providers[path] = DataProvider(Settings(logdirs=(("", path),), background=False))
    provider.poll()
    return provider


def _select(names: list[str], wanted: str | list[str] | tuple[str, ...] | None, what: str) -> list[str]:
    if wanted is None:
        return names
    if isinstance(wanted, str):
        try:
            pattern = re.compile(wanted)
        except re.error as e:
            raise ValueError(f"{what} must be a regular expression or a list of names; {wanted!r}: {e}") from e
        return [n for n in names if pattern.search(n)]
    missing = [w for w in wanted if w not in names]
    if missing:
        raise ValueError(f"unknown {what} {missing!r}; known: {names!r}")
    return [n for n in names if n in wanted]


def _x(entry: Line, x_axis: str, start: float, unit: float = 3600.0) -> Any:
    if x_axis == "step":
        return np.asarray(entry.steps)
    walls = np.asarray(entry.wall_times, np.float64)
    if x_axis == "relative":
        return (walls - start) / unit
    return walls.astype("datetime64[s]") if walls.size else walls


def scalars(
    logdir: str | os.PathLike[str],
    tags: str | list[str] | None = None,
    runs: str | list[str] | None = None,
    *,
    smoothing: float = 0.6,
    x_axis: str = "step",
    log_y: bool = False,
    max_points: int = 5000,
    ranks: str = "mean",
    columns: int = 2,
    smoothing_mode: str = "tensorboard",
) -> Any:
    """One subplot per scalar tag, one line per run (the raw line faint, the smoothed one solid).

    ``smoothing``: TensorBoard's debiased exponential moving average with this weight;
    ``smoothing_mode="adaptive"`` smooths series under 100 points less (``weight ** (100 / n)``),
    as the web UI's "adaptive" choice does.

    ``tags``/``runs``: a regular expression (searched) or a list of exact names; None: all.
    ``x_axis``: ``"step"``, ``"relative"`` (time since the run started, in seconds, minutes or
    hours as the chart's span asks) or ``"wall"``.
    A job's run is drawn as its mean over ranks with its bands per role (min-max faint,
    p5-p95, p25-p75, the median dashed; the hover names the rank at each extreme and the
    steps it holds it over), or one line per rank with ``ranks="each"``. NaN and ±Inf are gaps
    in the line, marked at the top (NaN: x, +Inf: triangle up) or bottom (-Inf: triangle down)
    of the chart, as in the web UI.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    _effective_weight(smoothing, 0, smoothing_mode)  # a mode it does not know: the error says so, first
    if x_axis not in ("step", "relative", "wall"):
        raise ValueError(f"x_axis must be 'step', 'relative' or 'wall'; got {x_axis!r}")
    if ranks not in ("mean", "each"):
        raise ValueError(f"ranks must be 'mean' or 'each'; got {ranks!r}")
    provider = _provider(logdir)
    by_tag = provider.list_tags().get("scalars", {})
    chosen = _select(sorted(by_tag), tags, "tags")
    wanted_runs = set(_select(sorted(provider.run_names()), runs, "runs"))
    listed = provider.list_runs()
    starts = {r.name: r.start_time for r in listed}
    run_colors = _assign_colors([r.name for r in listed])
    rows = max(1, math.ceil(len(chosen) / columns))
    cols = min(columns, max(1, len(chosen)))
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=chosen or ["no scalar data"],
        vertical_spacing=min(0.12, 0.3 / rows),
        specs=[[{"secondary_y": True}] * cols for _ in range(rows)],  # NaN/±Inf markers: 0..1 of the height
    )
    fig.update_yaxes(range=[0, 1], fixedrange=True, visible=False, showgrid=False, secondary_y=True)
    for i, tag in enumerate(chosen):
        row, col = i // columns + 1, i % columns + 1
        entries = _entries(provider, tag, [r for r in by_tag[tag] if r in wanted_runs], max_points, ranks)
        # A relative axis in seconds, minutes or hours, as the chart's longest run asks (as the web UI does).
        unit, unit_name = _relative_unit(_span(entries, starts, ranks))
        # Runs keep their colour over all runs; a job's roles or ranks take free ones (as the web UI).
        names = [name for run, entry in entries for name, _, _ in _lines(run, entry, ranks)]
        colors = _assign_colors(names, run_colors)
        for run, entry in entries:
            for name, series, band in _lines(run, entry, ranks):
                color = colors[name]
                x = _x(series, x_axis, starts.get(run) or 0.0, unit)
                values = np.asarray(series.values, np.float64)
                shown = dict(row=row, col=col)
                if band is not None:
                    add_bands(fig, go, name, x, band, color, shown)
                _add_line(fig, go, name, x, values, color, smoothing, i == 0, shown, smoothing_mode)
                _add_nonfinite(fig, go, name, x, values, color, shown)
        fig.update_xaxes(
            title_text={"step": "step", "relative": f"relative time ({unit_name})", "wall": "wall time"}[x_axis],
            row=row,
            col=col,
        )
        if log_y:
            fig.update_yaxes(type="log", row=row, col=col)
    fig.update_layout(
        height=max(320, 300 * rows), margin=dict(l=50, r=20, t=40, b=40), template="plotly_white", hovermode="x unified"
    )
    return fig


def _entries(
    provider: DataProvider, tag: str, runs: list[str], max_points: int, ranks: str
) -> list[tuple[str, RunScalars]]:
    """The series of ``tag`` of each of ``runs``, the web UI's chart of them (a run removed
    meanwhile is left out)."""
    if not runs:
        return []  # no runs is every run to read_chart
    try:
        chart = provider.read_chart(tag=tag, runs=runs, max_points=max_points, ranks=ranks, max_runs=None)
    except NotFound:  # a run removed meanwhile: each of the others alone
        entries: list[tuple[str, RunScalars]] = []
        for run in runs:
            try:
                chart = provider.read_chart(tag=tag, runs=[run], max_points=max_points, ranks=ranks)
            except NotFound:
                continue
            entries.extend((series.run, series) for series in chart.runs)
        return entries
    return [(series.run, series) for series in chart.runs]


def _span(entries: list[tuple[str, RunScalars]], starts: dict[str, float | None], ranks: str) -> float:
    """Seconds from each run's start to its last point, the longest over the chart's lines."""
    span = 0.0
    for run, entry in entries:
        for _, series, _ in _lines(run, entry, ranks):
            walls = series.wall_times
            if len(walls):
                span = max(span, float(walls[-1]) - (starts.get(run) or float(walls[0])))
    return span


def _add_line(
    fig: Any,
    go: Any,
    name: str,
    x: Any,
    values: np.ndarray,
    color: str,
    smoothing: float,
    legend: bool,
    shown: dict[str, int],
    mode: str = "tensorboard",
) -> None:
    """The raw line (faint when smoothed), then the smoothed one (in the legend of the first chart)."""
    fig.add_trace(
        go.Scatter(
            legendgroup=name,
            x=x,
            y=values,
            mode="lines",
            name=f"{name} (raw)",
            showlegend=False,
            line=dict(color=_alpha(color, STYLE["raw_alpha"]) if smoothing else color, width=STYLE["raw_width"]),
        ),
        **shown,
    )
    if smoothing:
        fig.add_trace(
            go.Scatter(
                legendgroup=name,
                x=x,
                y=smooth(values, _effective_weight(smoothing, len(values), mode)),
                mode="lines",
                name=name,
                showlegend=legend,
                line=dict(color=color, width=STYLE["smoothed_width"]),
            ),
            **shown,
        )


def _add_nonfinite(fig: Any, go: Any, name: str, x: Any, values: np.ndarray, color: str, shown: dict[str, int]) -> None:
    """Markers at the top (NaN, +Inf) or bottom (-Inf) of the chart where values are not finite."""
    bad = ~np.isfinite(values)
    if bad.any():
        marks = [STYLE["nonfinite"][_nonfinite_kind(v)] for v in values[bad]]
        fig.add_trace(
            go.Scatter(
                legendgroup=name,
                x=np.asarray(x)[bad],
                y=[m["y"] for m in marks],
                mode="markers",
                cliponaxis=False,
                marker=dict(
                    symbol=[m["symbol"] for m in marks],
                    color=color,
                    size=10,
                    line=dict(color="#b3261e", width=1.5),
                ),
                name=f"{name} non-finite",
                text=[m["label"] for m in marks],
                hovertemplate="%{text} at %{x}<extra>" + name + "</extra>",
                showlegend=False,
            ),
            secondary_y=True,
            **shown,
        )


def _lines(run: str, entry: RunScalars, ranks: str) -> list[tuple[str, Line, RoleLine | None]]:
    """``(name, series, band or None)`` per line of a run's series: the run's, or a job's
    roles (with their bands), or with ``ranks="each"`` every rank's."""
    if not entry.job:
        return [(run, entry.line, None)]
    if ranks == "each" and entry.per_rank is not None:
        return [(f"{run} · {r.role} {r.rank}", r.line, None) for r in entry.per_rank]
    several = len(entry.job) > 1
    return [(f"{run} · {j.role}" if several else run, j.mean, j) for j in entry.job]


def images(logdir: str | os.PathLike[str], tag: str, run: str | None = None, *, max_frames: int = 60) -> Any:
    """The images of ``tag`` of one run (the first having it by default), with a step slider.

    At most ``max_frames`` steps, spread evenly, the first and last included. A step of
    several images (a batch: ``tf.summary.image(max_outputs=3)``, Keras, clu) shows them
    side by side in the order logged, as the web UI does.
    """
    import plotly.graph_objects as go

    provider = _provider(logdir)
    runs = provider.list_tags().get("images", {}).get(tag)
    if not runs:
        raise ValueError(f"no run of {os.fspath(logdir)!r} has an image tag {tag!r}")
    if run is None:
        run = runs[0]
    elif run not in runs:
        raise ValueError(f"run {run!r} has no image tag {tag!r}; runs with it: {runs!r}")
    listing = provider.read_events(run=run, kind="images", tag=tag)
    steps = np.fromiter((e.step for e in listing), np.int64, len(listing))
    # The events are in step order: each step's images are a run of equal steps.
    starts = np.flatnonzero(np.r_[True, steps[1:] != steps[:-1]])
    ends = np.r_[starts[1:], len(steps)]
    n = len(starts)
    chosen = sorted({round(i * (n - 1) / max(1, min(n, max_frames) - 1)) for i in range(min(n, max_frames))})
    frames = []
    for group in chosen:
        pngs = [provider.read_image(run=run, tag=tag, index=i) for i in range(starts[group], ends[group])]
        source = "data:image/png;base64," + base64.b64encode(_side_by_side(pngs)).decode()
        frames.append(go.Frame(data=[go.Image(source=source)], name=str(int(steps[starts[group]]))))
    fig = go.Figure(data=frames[-1].data, frames=frames)
    fig.update_layout(
        title=f"{tag} · {run}",
        template="plotly_white",
        margin=dict(l=10, r=10, t=40, b=10),
        sliders=[
            {
                "active": len(frames) - 1,
                "currentvalue": {"prefix": "step "},
                "steps": [
                    {
                        "label": f.name,
                        "method": "animate",
                        "args": [[f.name], {"mode": "immediate", "frame": {"duration": 0, "redraw": True}}],
                    }
                    for f in frames
                ],
            }
        ],
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig


#: Pixels between the images of one step.
_GAP = 4


def _side_by_side(pngs: list[bytes]) -> bytes:
    """One PNG of the images in a row, top-aligned on white (the PNG itself when alone)."""
    if len(pngs) == 1:
        return pngs[0]
    from PIL import Image

    pictures = [Image.open(io.BytesIO(png)).convert("RGBA") for png in pngs]
    width = sum(p.width for p in pictures) + _GAP * (len(pictures) - 1)
    canvas = Image.new("RGBA", (width, max(p.height for p in pictures)), (255, 255, 255, 255))
    x = 0
    for picture in pictures:
        canvas.alpha_composite(picture, (x, 0))
        x += picture.width + _GAP
    out = io.BytesIO()
    canvas.save(out, format="PNG")
    return out.getvalue()


def histograms(
    logdir: str | os.PathLike[str],
    tag: str,
    run: str | None = None,
    *,
    mode: str = "offset",
    max_entries: int = 30,
    bins: int | None = DEFAULT_BINS,
) -> Any:
    """The histograms of ``tag`` over steps: ``"offset"`` (ridgeline, newest in front) or ``"overlay"``.

    Each step's buckets are re-binned onto one grid of ``bins`` even bins, as the web UI
    draws them (uneven buckets, torch's and TensorFlow's, would draw their own widths);
    ``bins=None`` draws the buckets as written.
    """
    import plotly.graph_objects as go

    if mode not in ("offset", "overlay"):
        raise ValueError(f"mode must be 'offset' or 'overlay'; got {mode!r}")
    if bins is not None and (
        isinstance(bins, bool) or not isinstance(bins, int | np.integer) or not 0 < bins <= MAX_BINS
    ):
        raise ValueError(f"bins must be an integer from 1 to {MAX_BINS} or None (the buckets as written); got {bins!r}")
    provider = _provider(logdir)
    runs = provider.list_tags().get("histograms", {}).get(tag)
    if not runs:
        raise ValueError(f"no run of {os.fspath(logdir)!r} has a histogram tag {tag!r}")
    run = run if run is not None else runs[0]
    entries, _ = provider.read_histograms(run=run, tag=tag, max_entries=max_entries)
    if bins is None:
        buckets = [(e.edges, e.counts) for e in entries]
    else:
        grid, rebinned = rebin_events(entries, bins)
        buckets = [(grid if c.size else c, c) for c in rebinned]
    fig = go.Figure()
    peak = max((max(c.tolist(), default=0) for _, c in buckets), default=1) or 1
    for k, (e, (edges, counts)) in enumerate(zip(entries, buckets, strict=True)):
        centers = (edges[:-1] + edges[1:]) / 2
        shade = k / max(1, len(entries) - 1)
        color = f"rgba({int(40 + 180 * (1 - shade))},{int(90 + 60 * shade)},{int(200 - 120 * shade)},0.8)"
        if mode == "offset":
            base = (len(entries) - 1 - k) * 0.6
            y = base + counts / peak
            fig.add_trace(
                go.Scatter(
                    x=centers,
                    y=np.full(centers.size, base),
                    mode="lines",
                    line=dict(width=0),
                    showlegend=False,
                    hoverinfo="skip",
                )
            )
            fig.add_trace(
                go.Scatter(
                    x=centers,
                    y=y,
                    mode="lines",
                    fill="tonexty",
                    line=dict(color=color, width=1),
                    name=f"step {e.step}",
                    customdata=counts,
                    hovertemplate="step " + str(e.step) + " · %{x:.4g}: %{customdata:.4g}<extra></extra>",
                )
            )
        else:
            fig.add_trace(
                go.Scatter(x=centers, y=counts, mode="lines", line=dict(color=color, width=1.5), name=f"step {e.step}")
            )
    fig.update_layout(title=f"{tag} · {run}", template="plotly_white", height=420, margin=dict(l=50, r=20, t=40, b=40))
    if mode == "offset":
        fig.update_yaxes(showticklabels=False)
    return fig
