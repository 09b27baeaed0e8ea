"""How the notebook's figures look, as the web UI draws: run colours, line style, smoothing.

The palette, the hash that gives a name its home colour and the assignment of free colours
are those of ``frontend_static/colors.js``; the smoothing is the web UI's debiased
exponential moving average (both pinned by tests against the same data files).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["STYLE", "smooth"]

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


#: In the "adaptive" smoothing mode, series shorter than this are smoothed less
#: (``effectiveWeight`` of scalarfigure.js).
SHORT_SERIES = 100
#: The smoothing modes: TensorBoard's (the weight as given, the default) and "adaptive".
SMOOTHING_MODES = ("tensorboard", "adaptive")


def _effective_weight(weight: float, n: int, mode: str = "tensorboard") -> float:
    """The smoothing weight for ``n`` points, as the web UI uses it. ``"tensorboard"``: the
    weight as given, whatever the length, as TensorBoard smooths. ``"adaptive"``: ``weight``
    from 100 points on, ``weight ** (100 / n)`` below (an EMA lags about w / (1 - w) points
    whatever the length: a short series' curve trails far behind its points otherwise)."""
    if mode not in SMOOTHING_MODES:
        raise ValueError(f"smoothing_mode must be one of {', '.join(SMOOTHING_MODES)}; got {mode!r}")
    w = min(max(float(weight), 0.0), 0.999) if weight == weight else 0.0
    if mode == "tensorboard":
        return w
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
