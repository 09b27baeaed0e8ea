"""VisualDL in notebooks: plotly figures straight from a logdir, and the whole UI embedded.

Figures (no server, no IPython needed; they render inline in Jupyter, JupyterLab and VS
Code as any plotly figure does)::

    from visualdl import notebook
    notebook.scalars("runs", tags="loss|acc", smoothing=0.6)      # one subplot per tag
    notebook.images("runs", "samples/input")                      # a step slider
    notebook.histograms("runs", "weights/fc1", mode="overlay")

They read through the server's own data provider (the same LogReader, downsampling and
job aggregation): a job's chart is the mean over ranks with its min/max band, or every
rank with ``ranks="each"``. Calling again reads only what was written since (a cached
reader per logdir), so a live run is followed by re-running the cell.

The whole UI, in an iframe::

    %load_ext visualdl
    %visualdl --logdir runs [--port 6007]     # starts a server, or reuses this kernel's one
    %visualdl --list                          # servers this kernel started
    %visualdl --stop 6007

``display(port=...)`` embeds a server already running. Behind JupyterHub or
jupyter-server-proxy, set ``VISUALDL_PROXY_URL`` to the proxied address with ``%PORT%``
for the port (``/user/me/proxy/%PORT%/``); the iframe then points there. When it is an
absolute URL (``https://hub.example.org/user/me/proxy/%PORT%/``), the servers started
here (which inherit it) also answer requests for its host name: a server answers only
loopback names and the names it is told to, against DNS rebinding.
"""

from __future__ import annotations

import argparse
import atexit
import base64
import json
import math
import os
import re
import shlex
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from visualdl._storage import open_store
from visualdl.errors import NotFound
from visualdl.server._provider import DataProvider
from visualdl.server._settings import Settings

__all__ = ["display", "histograms", "images", "list_servers", "scalars", "smooth", "start", "stop"]

# The web UI's run colours (frontend_static/colors.js): the same palette, hash and assignment,
# so a run has one colour in the notebook and in the browser (both pinned by tests/data/colors.json).
_PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#7f7f7f",
    "#465505",
    "#a0004b",
    "#d29b55",
    "#0a875f",
    "#fa7d87",
    "#23297a",
    "#9b4600",
    "#91007d",
    "#91af5f",
    "#5f4164",
)
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


def _color(name: str) -> str:
    """The home colour of a name in the web UI (``colorOf`` of colors.js): 32-bit FNV-1a over
    the name's UTF-16 code units picks from the palette. A lone surrogate (an undecodable byte
    of a directory name) is hashed as the code unit the browser receives for it."""
    data = name.encode("utf-16-le", "surrogatepass")
    h = 0x811C9DC5
    for low, high in zip(data[::2], data[1::2], strict=True):
        h = ((h ^ (low | high << 8)) * 0x01000193) & 0xFFFFFFFF
    return _PALETTE[h % len(_PALETTE)]


def _assign_colors(keys: Sequence[str], given: Mapping[str, str] | None = None) -> dict[str, str]:
    """Colours of ``keys`` as ``assignColors`` of colors.js gives them: ``given`` ones kept,
    then in order each other key its home colour or the next one of the palette not taken."""
    out = {k: c for k, c in (given or {}).items() if k in keys}
    used = set(out.values())
    for key in keys:
        if key in out:
            continue
        slot = _PALETTE.index(_color(key))
        for _ in range(len(_PALETTE)):
            if _PALETTE[slot] not in used:
                break
            slot = (slot + 1) % len(_PALETTE)
        out[key] = _PALETTE[slot]
        used.add(_PALETTE[slot])
    return out


#: How lines are drawn, as the web UI draws them (``STYLE`` of frontend_static/scalarfigure.js;
#: both pinned by tests/data/figure_style.json). A NaN or ±Inf is a marker at the top or
#: bottom of its chart (``y`` in 0..1 of the chart's height), on the step it was logged at.
STYLE: dict[str, Any] = {
    "raw_alpha": 0.3,
    "raw_width": 1.2,
    "smoothed_width": 1.8,
    "band_alpha": 0.18,
    "nonfinite": {
        "nan": {"label": "NaN", "y": 0.97, "symbol": "x"},
        "inf": {"label": "+Inf", "y": 0.97, "symbol": "triangle-up"},
        "-inf": {"label": "-Inf", "y": 0.03, "symbol": "triangle-down"},
    },
}


def _alpha(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def _nonfinite_kind(value: float) -> str:
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


#: Series shorter than this are smoothed less (``effectiveWeight`` of scalarfigure.js).
SHORT_SERIES = 100


def _effective_weight(weight: float, n: int) -> float:
    """The smoothing weight for ``n`` points, as the web UI uses it: ``weight`` from 100
    points on, ``weight ** (100 / n)`` below (an EMA lags about w / (1 - w) points whatever
    the length: a short series' curve would trail far behind its points)."""
    w = min(max(float(weight), 0.0), 0.999) if weight == weight else 0.0
    return w if n >= SHORT_SERIES or n <= 0 else w ** (SHORT_SERIES / n)


def smooth(values: Any, weight: float) -> np.ndarray:
    """TensorBoard's debiased exponential moving average, as the web UI draws it
    (frontend_static/smoothing.js; both pinned by tests/data/smoothing.json).

    ``last = last * w + (1 - w) * v`` over the finite values, each divided by ``1 - w**k``
    (k: finite values so far). Non-finite values (NaN, None, ±Inf) are skipped and come back
    as NaN; a constant series, or a weight of 0, comes back as it is. ``weight`` is clipped
    to 0..0.999 (NaN: 0).
    """
    v = np.asarray(values, np.float64)
    out = np.full(v.shape, np.nan)
    finite = np.isfinite(v)
    w = float(weight)
    w = min(w, 0.999) if w > 0 else 0.0
    real = v[finite]
    if w == 0 or real.size == 0 or (real == real[0]).all():
        out[finite] = real
        return out
    # The recurrence as a scan in log2(n) passes: after the pass with shift s, each point
    # holds its last 2s terms (1 - w) * w**(i - j) * v[j]; stop early once w**s is 0.
    last = (1 - w) * real
    shift = 1
    while shift < last.size and w**shift > 0:
        last[shift:] += w**shift * last[:-shift]
        shift *= 2
    # Debiasing: from k = 54 / log2(1 / w) on, w**k < 2**-54 and 1 - w**k rounds to 1.
    head = min(real.size, int(54 * math.log(2) / -math.log(w)) + 2)
    last[:head] /= 1 - np.power(w, np.arange(1, head + 1, dtype=np.float64))
    out[finite] = last
    return out


def _relative_unit(span: float) -> tuple[float, str]:
    """Seconds per unit, and its name, of a relative time axis spanning ``span`` seconds
    (``relativeUnit`` of frontend_static/scalarfigure.js)."""
    if not span >= 120:
        return 1.0, "seconds"
    return (60.0, "minutes") if span < 2 * 3600 else (3600.0, "hours")


def _x(entry: dict[str, Any], x_axis: str, start: float, unit: float = 3600.0) -> Any:
    if x_axis == "step":
        return np.asarray(entry["steps"])
    walls = np.asarray(entry["wall_times"], np.float64)
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
) -> Any:
    """One subplot per scalar tag, one line per run (the raw line faint, the smoothed one solid).

    ``tags``/``runs``: a regular expression (searched) or a list of exact names; None: all.
    ``x_axis``: ``"step"``, ``"relative"`` (time since the run started, in seconds, minutes or
    hours as the chart's span asks) or ``"wall"``.
    A job's run is drawn as its mean over ranks with a min/max band per role, or one line
    per rank with ``ranks="each"``. NaN and ±Inf are gaps in the line, marked at the top
    (NaN: x, +Inf: triangle up) or bottom (-Inf: triangle down) of the chart, as in the web UI.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    if x_axis not in ("step", "relative", "wall"):
        raise ValueError(f"x_axis must be 'step', 'relative' or 'wall'; got {x_axis!r}")
    if ranks not in ("mean", "each"):
        raise ValueError(f"ranks must be 'mean' or 'each'; got {ranks!r}")
    provider = _provider(logdir)
    by_tag = provider.list_tags().get("scalars", {})
    chosen = _select(sorted(by_tag), tags, "tags")
    wanted_runs = set(_select(sorted(provider.run_names()), runs, "runs"))
    listed = provider.list_runs()
    starts = {r["name"]: r["start_time"] for r in listed}
    run_colors = _assign_colors([r["name"] for r in listed])
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
        entries = []
        for run in by_tag[tag]:
            if run not in wanted_runs:
                continue
            try:
                entries.append((run, provider.read_scalars(run=run, tag=tag, max_points=max_points, ranks=ranks)))
            except NotFound:
                continue  # removed meanwhile
        # A relative axis in seconds, minutes or hours, as the chart's longest run asks (as the web UI does).
        span = 0.0
        for run, entry in entries:
            for _, series, _ in _lines(run, entry, ranks):
                walls = series["wall_times"]
                if len(walls):
                    span = max(span, float(walls[-1]) - (starts.get(run) or float(walls[0])))
        unit, unit_name = _relative_unit(span)
        # Runs keep their colour over all runs; a job's roles or ranks take free ones (as the web UI).
        names = [name for run, entry in entries for name, _, _ in _lines(run, entry, ranks)]
        colors = _assign_colors(names, run_colors)
        for run, entry in entries:
            for name, series, band in _lines(run, entry, ranks):
                color = colors[name]
                x = _x(series, x_axis, starts.get(run) or 0.0, unit)
                values = np.asarray(series["values"], np.float64)
                shown = dict(row=row, col=col)
                if band is not None:
                    lo = np.asarray(band["min"], np.float64)
                    hi = np.asarray(band["max"], np.float64)
                    rank_text = [
                        f"min {a:.6g} (rank {ra}) · max {b:.6g} (rank {rb})"
                        for a, b, ra, rb in zip(lo, hi, band["min_rank"], band["max_rank"], strict=True)
                    ]
                    fig.add_trace(
                        go.Scatter(
                            legendgroup=name,
                            x=x,
                            y=lo,
                            mode="lines",
                            line=dict(width=0, color=color),
                            showlegend=False,
                            hoverinfo="skip",
                            name=f"{name} min",
                        ),
                        **shown,
                    )
                    fig.add_trace(
                        go.Scatter(
                            legendgroup=name,
                            x=x,
                            y=hi,
                            mode="lines",
                            line=dict(width=0, color=color),
                            fill="tonexty",
                            fillcolor=_alpha(color, STYLE["band_alpha"]),
                            showlegend=False,
                            text=rank_text,
                            hovertemplate="%{text}<extra>" + name + "</extra>",
                            name=f"{name} band",
                        ),
                        **shown,
                    )
                fig.add_trace(
                    go.Scatter(
                        legendgroup=name,
                        x=x,
                        y=values,
                        mode="lines",
                        name=f"{name} (raw)",
                        showlegend=False,
                        line=dict(
                            color=_alpha(color, STYLE["raw_alpha"]) if smoothing else color, width=STYLE["raw_width"]
                        ),
                    ),
                    **shown,
                )
                if smoothing:
                    fig.add_trace(
                        go.Scatter(
                            legendgroup=name,
                            x=x,
                            y=smooth(values, _effective_weight(smoothing, len(values))),
                            mode="lines",
                            name=name,
                            showlegend=i == 0,
                            line=dict(color=color, width=STYLE["smoothed_width"]),
                        ),
                        **shown,
                    )
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


def _lines(run: str, entry: dict[str, Any], ranks: str) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    """``(name, series, band or None)`` per line of a run's /api/scalars entry."""
    if "job" not in entry:
        return [(run, entry, None)]
    if ranks == "each" and "per_rank" in entry:
        return [(f"{run} · {r['role']} {r['rank']}", r, None) for r in entry["per_rank"]]
    several = len(entry["job"]) > 1
    return [(f"{run} · {j['role']}" if several else run, j, j) for j in entry["job"]]


def images(logdir: str | os.PathLike[str], tag: str, run: str | None = None, *, max_frames: int = 60) -> Any:
    """The images of ``tag`` of one run (the first having it by default), with a step slider.

    At most ``max_frames`` steps, spread evenly, the first and last included.
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
    listing = provider.list_images(run=run, tag=tag)
    n = len(listing["steps"])
    chosen = sorted({round(i * (n - 1) / max(1, min(n, max_frames) - 1)) for i in range(min(n, max_frames))})
    frames = []
    for index in chosen:
        png = provider.read_image(run=run, tag=tag, index=index)
        source = "data:image/png;base64," + base64.b64encode(png).decode()
        frames.append(go.Frame(data=[go.Image(source=source)], name=str(listing["steps"][index])))
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


def histograms(
    logdir: str | os.PathLike[str], tag: str, run: str | None = None, *, mode: str = "offset", max_entries: int = 30
) -> Any:
    """The histograms of ``tag`` over steps: ``"offset"`` (ridgeline, newest in front) or ``"overlay"``."""
    import plotly.graph_objects as go

    if mode not in ("offset", "overlay"):
        raise ValueError(f"mode must be 'offset' or 'overlay'; got {mode!r}")
    provider = _provider(logdir)
    runs = provider.list_tags().get("histograms", {}).get(tag)
    if not runs:
        raise ValueError(f"no run of {os.fspath(logdir)!r} has a histogram tag {tag!r}")
    run = run if run is not None else runs[0]
    body = provider.read_histograms(run=run, tag=tag, max_entries=max_entries)
    entries = body["entries"]
    fig = go.Figure()
    peak = max((max(e["counts"], default=0) for e in entries), default=1) or 1
    for k, e in enumerate(entries):
        edges = np.asarray(e["edges"])
        centers = (edges[:-1] + edges[1:]) / 2
        counts = np.asarray(e["counts"], np.float64)
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
                    name=f"step {e['step']}",
                    customdata=counts,
                    hovertemplate="step " + str(e["step"]) + " · %{x:.4g}: %{customdata:.4g}<extra></extra>",
                )
            )
        else:
            fig.add_trace(
                go.Scatter(
                    x=centers, y=counts, mode="lines", line=dict(color=color, width=1.5), name=f"step {e['step']}"
                )
            )
    fig.update_layout(title=f"{tag} · {run}", template="plotly_white", height=420, margin=dict(l=50, r=20, t=40, b=40))
    if mode == "offset":
        fig.update_yaxes(showticklabels=False)
    return fig


# -- the server in an iframe --------------------------------------------------------------


@dataclass
class _Server:
    logdir: str
    port: int
    process: subprocess.Popen[bytes]
    log_path: str


_servers: dict[int, _Server] = {}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _answers(port: int, timeout: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=timeout) as response:
            return bool(response.status == 200 and "status" in json.loads(response.read()))
    except (OSError, ValueError):
        return False


def start(logdir: str | os.PathLike[str], port: int | None = None, *, timeout: float = 60.0) -> int:
    """Start ``visualdl --logdir`` in the background (or reuse this kernel's server of the
    same logdir), wait until it answers, and return its port."""
    path = open_store(logdir).location
    for server in list(_servers.values()):
        if server.process.poll() is not None:
            del _servers[server.port]
        elif server.logdir == path and (port is None or port == server.port):
            return server.port
    port = port or _free_port()
    log_path = os.path.join(os.path.expanduser("~"), f".visualdl-notebook-{port}.log")
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "visualdl", "--logdir", path, "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    server = _Server(path, port, process, log_path)
    deadline = time.monotonic() + timeout
    while not _answers(port):
        if process.poll() is not None:
            with open(log_path, errors="replace") as f:
                tail = f.read()[-2000:]
            raise RuntimeError(
                f"the VisualDL server for {path!r} on port {port} exited ({process.returncode}):\n{tail}"
            )
        if time.monotonic() > deadline:
            process.terminate()
            raise TimeoutError(
                f"the VisualDL server on port {port} did not answer within {timeout:g} s; see {log_path}"
            )
        time.sleep(0.1)
    _servers[port] = server
    return port


def list_servers() -> list[dict[str, Any]]:
    """The servers this kernel started: port, logdir, pid and whether they still run."""
    return [
        {"port": s.port, "logdir": s.logdir, "pid": s.process.pid, "running": s.process.poll() is None}
        for s in _servers.values()
    ]


def stop(port: int | None = None) -> list[int]:
    """Stop the server on ``port`` that this kernel started (all of them by default)."""
    ports = list(_servers) if port is None else [port]
    stopped = []
    for p in ports:
        server = _servers.pop(p, None)
        if server is None:
            raise ValueError(f"no server started by this kernel on port {p}; started: {sorted(_servers)!r}")
        if server.process.poll() is None:
            server.process.terminate()
            try:
                server.process.wait(10)
            except subprocess.TimeoutExpired:
                server.process.kill()
        stopped.append(p)
    return stopped


atexit.register(stop)


def url(port: int) -> str:
    """Where the browser reaches the server: ``VISUALDL_PROXY_URL`` with ``%PORT%`` replaced, or localhost."""
    proxy = os.environ.get("VISUALDL_PROXY_URL", "")
    if proxy:
        return proxy.replace("%PORT%", str(port))
    return f"http://localhost:{port}/"


def display(port: int = 8080, height: int = 800) -> Any:
    """Embed the VisualDL server on ``port`` in the notebook (an iframe)."""
    from IPython.display import HTML
    from IPython.display import display as show

    src = url(port)
    frame = HTML(
        f'<iframe src="{_attr(src)}" width="100%" height="{int(height)}" frameborder="0" '
        f'title="VisualDL on port {int(port)}"></iframe>'
    )
    show(frame)
    return None


def _attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def _magic(line: str) -> Any:
    """``%visualdl --logdir DIR [--port N] [--height H]``, ``%visualdl --list``, ``%visualdl --stop [PORT]``."""
    parser = argparse.ArgumentParser(prog="%visualdl", add_help=False)
    parser.add_argument("--logdir")
    parser.add_argument("--port", type=int)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--stop", nargs="?", const=-1, type=int)
    try:
        args = parser.parse_args(shlex.split(line))
    except SystemExit:
        print("usage: %visualdl --logdir DIR [--port N] [--height H] | --list | --stop [PORT]", file=sys.stderr)
        return None
    if args.list:
        for s in list_servers():
            print(f"port {s['port']}: {s['logdir']} (pid {s['pid']}, {'running' if s['running'] else 'stopped'})")
        return None
    if args.stop is not None:
        print("stopped:", stop(None if args.stop == -1 else args.stop))
        return None
    if args.logdir:
        port = start(args.logdir, args.port)
    elif args.port:
        port = args.port
    else:
        print("usage: %visualdl --logdir DIR [--port N] [--height H] | --list | --stop [PORT]", file=sys.stderr)
        return None
    return display(port, args.height)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext visualdl``: registers the ``%visualdl`` line magic."""
    ipython.register_magic_function(_magic, magic_kind="line", magic_name="visualdl")
