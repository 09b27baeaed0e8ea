"""Write the golden vectors shared by the Python and the JavaScript tests.

    python3 tests/data/make_golden_vectors.py     # rewrites tests/data/smoothing.json and colors.json

Run it again only to add or change a vector, and review the diff: the expected values
are computed here independently of both implementations under test
(``frontend_static/smoothing.js`` and ``colors.js``, ``visualdl.notebook.smooth`` and
``_color``), so they must not change when those change.

- ``smoothing.json``: the debiased EMA computed exactly (rational arithmetic on the
  given doubles), then rounded to the nearest double. Each vector is checked here to be
  fair: smoothing.js's own floating-point recurrence, replayed step by step, lands within
  1e-13 relative of every expected value (the tests allow 1e-12). Non-finite inputs are
  written ``null``, ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` (JSON has no such numbers);
  expected gaps are ``null``. ``exact`` marks vectors whose output must equal the input bit
  for bit (weight 0, a constant series).
  ``modes`` gives, per smoothing mode (``tensorboard``, the default, and ``adaptive``), the
  weight a series of ``n`` points is smoothed with.
- ``colors.json``: the palette of colors.js and, per run name, its UTF-16 code units, their
  32-bit FNV-1a hash and the colour it picks. The file is ASCII: names are \\u-escaped, a
  lone surrogate included (the browser receives one for an undecodable directory name).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
COLORS_JS = HERE.parent.parent / "frontend_static" / "colors.js"

NAN, INF = math.nan, math.inf
WEIGHTS = [0, 0.6, 0.95, 0.999]


def _long() -> list[float]:
    """1000 points of a noisy falling loss, every 50th NaN and one +Inf."""
    values = [2 / (1 + 0.01 * k) + 0.1 * math.sin(0.37 * k) + 0.05 * math.sin(2.9 * k) for k in range(1000)]
    for k in range(25, 1000, 50):
        values[k] = NAN
    values[613] = INF
    return values


SERIES: dict[str, Sequence[float | None]] = {
    "hand": [1.0, 2.0, NAN, 4.0],
    "loss": [1 / (1 + 0.1 * k) + 0.02 * math.sin(1.7 * k) for k in range(50)],
    "gaps": [None, NAN, 0.9, 0.8, None, 0.85, INF, 0.6, -INF, NAN, 0.55, 0.5, None, 0.52, 0.4, INF, NAN],
    "all non-finite": [None, NAN, INF, -INF],
    "constant with gaps": [0.1, 0.1, 0.1, 0.1, NAN, 0.1, 0.1, 0.1, 0.1, None, 0.1, 0.1],
    "single point": [3.7],
    "single point among gaps": [None, 3.7, NAN],
    "empty": [],
    "negative": [-5 + 4 * (1 - math.exp(-k / 10)) + 0.3 * math.sin(k) for k in range(40)],
    "mixed sign": [4.0, -1.0, 3.0, -2.0, 5.0, -1.5, 2.0, 0.0, 6.0, -3.0, 7.0, -0.5],
    "huge": [1e300, 2e300, 1.5e308, 5e307, 1.7976931348623157e308, 3e306],
    "tiny": [1e-300, 3e-300, 2e-310, 1e-305, 5e-301, 7e-300],
    "long": _long(),
}

# Weights outside 0..0.999 are clipped (NaN: 0) before smoothing.
CLIPPED = [(1, 0.999), (1.5, 0.999), (-0.3, 0), ("NaN", 0)]

NAMES = [
    "",
    "a",
    "foobar",
    "train",
    "eval",
    "run-1",
    "run-2",
    "run-10",
    "logs/exp 2024-01-01 12:00",
    "job · trainer",
    "job · trainer 3",
    "résumé",
    "Ελληνικά",
    "日本語の実験",
    "실험",
    "🚀 launch",
    "👩\u200d💻 dev",
    "\U0001d518\U0001d52b\U0001d526\U0001d520\U0001d52c\U0001d521\U0001d522",  # "Unicode" in Fraktur letters
    "lr=3e-4 😀😀",
    "a\udcff",
    "\ud83d",
]


def _finite(values: Sequence[float | None]) -> list[float]:
    return [v for v in values if v is not None and math.isfinite(v)]


def _passes_through(values: Sequence[float | None], weight: float) -> bool:
    """Weight 0 or a constant series: smoothing gives the input back."""
    finite = _finite(values)
    return weight == 0 or all(v == finite[0] for v in finite)


def exact_smooth(values: Sequence[float | None], weight: float) -> list[float | None]:
    """The EMA with exact rationals; a constant series and weight 0 give the input back."""
    out: list[float | None] = []
    if _passes_through(values, weight):
        return [v if v is not None and math.isfinite(v) else None for v in values]
    w = Fraction(weight)
    last, power = Fraction(0), Fraction(1)
    for v in values:
        if v is None or not math.isfinite(v):
            out.append(None)
            continue
        last = last * w + (1 - w) * Fraction(v)
        power *= w
        out.append(float(last / (1 - power)))
    return out


def float_smooth(values: Sequence[float | None], weight: float) -> list[float | None]:
    """smoothing.js step for step in doubles, to check that a vector is fair."""
    finite = _finite(values)
    constant = bool(finite) and all(v == finite[0] for v in finite)
    last, k = 0.0, 0
    out: list[float | None] = []
    for v in values:
        if v is None or not math.isfinite(v):
            out.append(None)
        elif weight == 0 or constant:
            out.append(v)
        else:
            last = last * weight + (1 - weight) * v
            k += 1
            out.append(last / (1 - weight**k))
    return out


def _encode(v: float | None) -> float | str | None:
    if v is None or math.isfinite(v):
        return v
    return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")


def smoothing_vectors() -> dict[str, Any]:
    # Worked by hand: w = 0.5 over [1, 2, NaN, 4]: last = 0.5, 1.25, -, 2.625; divided by
    # 1 - 0.5**k = 0.5, 0.75, -, 0.875: 1, 5/3, gap, 3.
    assert exact_smooth(SERIES["hand"], 0.5) == [1.0, 5 / 3, None, 3.0]
    cases: list[dict[str, Any]] = [{"series": "hand", "weight": 0.5}]
    cases += [{"series": name, "weight": w} for name in SERIES if name != "hand" for w in WEIGHTS]
    cases += [{"series": "loss", "weight": given, "clipped": clipped} for given, clipped in CLIPPED]
    for case in cases:
        values = SERIES[case["series"]]
        weight = case.get("clipped", case["weight"])
        expected = exact_smooth(values, weight)
        if _passes_through(values, weight):
            case["exact"] = True
        replay = float_smooth(values, weight)
        for e, r in zip(expected, replay, strict=True):
            if e is None or r is None:
                assert e is r is None, (case, e, r)
            else:
                assert abs(r - e) <= 1e-13 * abs(e), (case, e, r)
        case["expected"] = expected
    return {
        "_comment": (
            "Generated by tests/data/make_golden_vectors.py (python3 tests/data/make_golden_vectors.py); "
            "see its docstring. Read by tests/notebook/test_notebook.py and tests/js/smoothing.test.mjs."
        ),
        "relative_tolerance": 1e-12,
        "series": {name: [_encode(v) for v in values] for name, values in SERIES.items()},
        "cases": cases,
        "modes": smoothing_modes(),
    }


#: The smoothing modes: "tensorboard" (the default) smooths every series with the weight as
#: given, as TensorBoard does; "adaptive" raises the weight to the power 100 / n below 100
#: points, so that a short series is smoothed about as much per point as a long one.
ADAPTIVE_POINTS = 100


def smoothing_modes() -> list[dict[str, Any]]:
    """The weight each mode smooths a series of ``n`` points with, for a given weight."""
    out = []
    for weight, n in ((0.6, 8), (0.6, 50), (0.6, 99), (0.6, 100), (0.6, 5000), (0.9, 1), (0.0, 11), (0.999, 3)):
        adaptive = weight if n >= ADAPTIVE_POINTS else weight ** (ADAPTIVE_POINTS / n)
        out.append({"weight": weight, "n": n, "tensorboard": weight, "adaptive": adaptive})
    return out


def palette() -> list[str]:
    source = COLORS_JS.read_text()
    block = re.search(r"export const PALETTE = \[(.*?)\];", source, re.S)
    assert block, f"no PALETTE in {COLORS_JS}"
    return re.findall(r"'(#[0-9a-f]{6})'", block.group(1))


def code_units(name: str) -> list[int]:
    data = name.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def fnv1a(units: list[int]) -> int:
    h = 0x811C9DC5
    for unit in units:
        h = ((h ^ unit) * 0x01000193) % 2**32
    return h


def color_vectors() -> dict[str, Any]:
    # The published FNV-1a 32-bit test vectors (ASCII: code units are the bytes).
    assert [fnv1a(code_units(s)) for s in ("", "a", "foobar")] == [0x811C9DC5, 0xE40C292C, 0xBF9CF968]
    assert code_units("🚀") == [0xD83D, 0xDE80]
    colors = palette()
    assert len(colors) == 20, colors
    cases = []
    for name in NAMES:
        units = code_units(name)
        h = fnv1a(units)
        cases.append({"name": name, "code_units": units, "hash": h, "color": colors[h % len(colors)]})
    return {
        "_comment": (
            "Generated by tests/data/make_golden_vectors.py (python3 tests/data/make_golden_vectors.py); "
            "see its docstring. Read by tests/notebook/test_notebook.py and tests/js/colors.test.mjs."
        ),
        "palette": colors,
        "cases": cases,
        "assignments": assignment_vectors(colors),
    }


def assign(keys: list[str], given: dict[str, str], colors: list[str]) -> list[str]:
    """Given colours kept; then, in order, each other key its home colour or the next free one."""
    out = dict(given)
    used = set(given.values())
    for key in keys:
        if key in out:
            continue
        slot = fnv1a(code_units(key)) % len(colors)
        for _ in range(len(colors)):
            if colors[slot] not in used:
                break
            slot = (slot + 1) % len(colors)
        out[key] = colors[slot]
        used.add(colors[slot])
    return [out[key] for key in keys]


def assignment_vectors(colors: list[str]) -> list[dict[str, Any]]:
    """Lists of names (some of them sharing a home colour) and the colours they are given."""
    home: dict[int, list[str]] = {}
    for i in range(200):
        name = f"run-{i}"
        home.setdefault(fnv1a(code_units(name)) % len(colors), []).append(name)
    clash = next(names for names in home.values() if len(names) >= 3)[:3]  # three names, one home colour
    trainers = [f"job · trainer {r}" for r in range(4)] + ["job · pserver 0", "job · pserver 1"]
    many = [f"run-{i}" for i in range(25)]  # more names than colours: some must share
    out = []
    for keys, given in (
        (clash, {}),
        (["train", "eval", *clash], {}),
        (trainers, {}),
        (["job", *trainers], {"job": colors[0]}),
        (many, {}),
        (["a", "b"], {"a": colors[fnv1a(code_units("b")) % len(colors)]}),  # b's home is taken: b moves on
    ):
        out.append({"keys": keys, "given": given, "colors": assign(keys, given, colors)})
    assert len(set(out[0]["colors"])) == 3 and len(set(out[4]["colors"])) == len(colors)
    return out


def _write(path: Path, document: dict[str, Any], lists: tuple[str, ...]) -> None:
    """JSON with one line per series and per case, so that a diff shows what changed."""
    lines = ["{"]
    items = list(document.items())
    for i, (key, value) in enumerate(items):
        end = "," if i < len(items) - 1 else ""
        if key in lists and isinstance(value, dict):
            inner = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items()]
            lines += [f" {json.dumps(key)}: {{", ",\n".join(inner), f" }}{end}"]
        elif key in lists:
            lines += [f" {json.dumps(key)}: [", ",\n".join(f"  {json.dumps(v)}" for v in value), f" ]{end}"]
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}{end}")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == json.loads(json.dumps(document))
    path.write_text(text, encoding="ascii")


def main() -> None:
    _write(HERE / "smoothing.json", smoothing_vectors(), ("series", "cases"))
    _write(HERE / "colors.json", color_vectors(), ("cases", "assignments"))


if __name__ == "__main__":
    main()
