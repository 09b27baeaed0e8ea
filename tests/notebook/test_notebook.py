"""visualdl.notebook: figures from a logdir, and a real notebook run by a real kernel (nbclient + ipykernel)."""

from __future__ import annotations

import base64
import io
import json
import math
import os
import re
import subprocess
import sys
import textwrap
import time
import urllib.request

import numpy as np
import pytest
from kit.paths import DATA, ROOT
from kit.requirements import require_import
from PIL import Image

from visualdl import LogWriter, notebook


@pytest.fixture
def logs(tmp_path):
    with LogWriter(tmp_path / "a") as w:
        for step in range(50):
            w.add_scalar("loss", 1.0 / (step + 1), step)
        w.add_scalar("loss", float("nan"), 50)
        w.add_image("img", np.full((4, 6, 3), 200, np.uint8), 0)
        w.add_image("img", np.zeros((4, 6, 3), np.uint8), 5)
        w.add_histogram("w", np.arange(100.0), 3, buckets=4)
    for rank in range(2):
        with LogWriter(tmp_path / "job", rank=rank, world_size=2, role="trainer") as w:
            for step in range(10):
                w.add_scalar("loss", rank * 10.0 + step, step)
    return tmp_path


def _trace(fig, name):
    (trace,) = [t for t in fig.data if t.name == name]
    return trace


def test_notebook_scalars_figure_carries_the_logged_values(logs):
    fig = notebook.scalars(logs, tags="^loss$", runs=["a"], smoothing=0)
    raw = _trace(fig, "a (raw)")
    assert list(raw.x) == list(range(51))
    np.testing.assert_array_equal(raw.y[:50], [1.0 / (s + 1) for s in range(50)])
    assert np.isnan(raw.y[50])
    marks = _trace(fig, "a non-finite")
    assert list(marks.x) == [50] and list(marks.text) == ["NaN"]
    # At the top of the chart, on its own 0..1 axis, as the web UI draws it.
    assert list(marks.y) == [0.97] and list(marks.marker.symbol) == ["x"]
    assert marks.yaxis != raw.yaxis and fig.layout[marks.yaxis.replace("y", "yaxis")].range == (0, 1)


def test_notebook_draws_lines_as_the_web_ui():
    style = _golden("figure_style.json")
    del style["comment"]
    assert notebook.STYLE == style


def test_notebook_scalars_of_a_job_show_the_mean_and_band(logs):
    fig = notebook.scalars(logs, tags=["loss"], runs="job", smoothing=0)
    np.testing.assert_array_equal(_trace(fig, "job (raw)").y, np.arange(10) + 5.0)
    np.testing.assert_array_equal(_trace(fig, "job min").y, np.arange(10.0))
    band = _trace(fig, "job band")
    np.testing.assert_array_equal(band.y, np.arange(10) + 10.0)
    assert band.text[0] == "min 0 (rank 0) · max 10 (rank 1)"
    each = notebook.scalars(logs, tags=["loss"], runs="job", ranks="each", smoothing=0)
    np.testing.assert_array_equal(_trace(each, "job · trainer 1 (raw)").y, np.arange(10) + 10.0)


def _golden(name):
    """A file of golden vectors shared with tests/js (written by tests/data/make_golden_vectors.py)."""
    with open(os.path.join(DATA, name), encoding="ascii") as f:
        return json.load(f)


SMOOTHING = _golden("smoothing.json")
COLORS = _golden("colors.json")
_NONFINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _decode(value):
    """A value of the vectors: a number, None, or "NaN" / "Infinity" / "-Infinity"."""
    return _NONFINITE[value] if isinstance(value, str) else value


@pytest.mark.parametrize("case", SMOOTHING["cases"], ids=lambda c: f"{c['series']}@{c['weight']}")
def test_notebook_smooth_matches_the_golden_vectors(case):
    values = [_decode(v) for v in SMOOTHING["series"][case["series"]]]  # None stays None, as null in JS
    got = notebook.smooth(values, _decode(case["weight"])).tolist()
    expected = case["expected"]
    assert [math.isnan(g) for g in got] == [e is None for e in expected]  # gaps where smoothing.js has null
    pairs = [(g, e) for g, e in zip(got, expected, strict=True) if e is not None]
    if case.get("exact"):
        assert [g for g, _ in pairs] == [e for _, e in pairs]
    else:
        want = pytest.approx([e for _, e in pairs], rel=SMOOTHING["relative_tolerance"], abs=0)
        assert [g for g, _ in pairs] == want


def test_notebook_smooth_by_hand():
    # w = 0.5 over [1, 2, NaN, 4]: last = 0.5, 1.25, -, 2.625 divided by 1 - 0.5**k = 0.5, 0.75, -, 0.875.
    got = notebook.smooth(np.array([1.0, 2.0, np.nan, 4.0]), 0.5)
    assert got[0] == 1.0 and got[1] == pytest.approx(5 / 3, rel=1e-15) and np.isnan(got[2]) and got[3] == 3.0
    np.testing.assert_array_equal(notebook.smooth(np.arange(4), 0), [0.0, 1.0, 2.0, 3.0])


def test_notebook_palette_and_colors_are_the_web_uis():
    assert list(notebook._PALETTE) == COLORS["palette"]
    names = [c["name"] for c in COLORS["cases"]]
    assert {n: notebook._color(n) for n in names} == {c["name"]: c["color"] for c in COLORS["cases"]}
    assert notebook._alpha("#1f77b4", 0.3) == "rgba(31,119,180,0.3)"  # as colors.js withAlpha


def test_notebook_scalars_draw_a_run_in_its_web_ui_colour(logs):
    (case,) = [c for c in COLORS["cases"] if c["name"] == "a"]
    fig = notebook.scalars(logs, tags=["loss"], runs=["a"], smoothing=0)
    assert _trace(fig, "a (raw)").line.color == case["color"]


def test_notebook_images_and_histograms(logs):
    fig = notebook.images(logs, "img")
    assert [f.name for f in fig.frames] == ["0", "5"]
    assert fig.frames[0].data[0].source.startswith("data:image/png;base64,")
    hist = notebook.histograms(logs, "w", mode="overlay", bins=None)  # the 4 buckets as written
    assert len(hist.data) == 1 and list(hist.data[0].y) == [25.0, 25.0, 25.0, 25.0]
    (even,) = notebook.histograms(logs, "w", mode="overlay").data  # re-binned: 30 even bins, as the web UI
    np.testing.assert_allclose(even.y, np.full(30, 100 / 30), rtol=1e-12)
    assert even.x[0] == pytest.approx(99 / 60) and even.x[-1] == pytest.approx(99 - 99 / 60)  # centres over [0, 99]


def test_notebook_images_of_one_step_show_side_by_side(tmp_path):
    red = np.zeros((6, 5, 3), np.uint8)
    red[..., 0] = 255
    blue = np.zeros((4, 3, 3), np.uint8)
    blue[..., 2] = 255
    with LogWriter(tmp_path) as w:
        w.add_image("batch", red, 3)
        w.add_image("batch", blue, 3)  # a second image at the same step
        w.add_image("batch", blue, 4)
    fig = notebook.images(tmp_path, "batch")
    assert [f.name for f in fig.frames] == ["3", "4"]  # one slider position per step
    first = _png(fig.frames[0].data[0].source)
    assert first.shape == (6, 5 + 4 + 3, 4)  # side by side, a gap of 4 pixels, top-aligned
    assert (first[:6, :5, :3] == (255, 0, 0)).all() and (first[:4, 9:, :3] == (0, 0, 255)).all()
    assert (first[:, 5:9, :3] == 255).all() and (first[4:, 9:, :3] == 255).all()  # white around
    assert _png(fig.frames[1].data[0].source).shape[:2] == (4, 3)  # alone: as logged


def _png(source: str) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(source.split(",", 1)[1]))))


def test_notebook_live_logdir_is_reread(logs):
    assert len(_trace(notebook.scalars(logs, tags=["loss"], runs=["a"]), "a (raw)").x) == 51
    with LogWriter(logs / "a") as w:
        w.add_scalar("loss", 0.0, 51)
    assert len(_trace(notebook.scalars(logs, tags=["loss"], runs=["a"]), "a (raw)").x) == 52


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda d: notebook.scalars(d, x_axis="epoch"), "x_axis must be"),
        (lambda d: notebook.scalars(d, tags="("), "tags must be a regular expression"),
        (lambda d: notebook.scalars(d, runs=["nope"]), "unknown runs"),
        (lambda d: notebook.images(d, "nope"), "has an image tag 'nope'"),
        (lambda d: notebook.histograms(d, "w", mode="stacked"), "mode must be"),
        (lambda d: notebook.histograms(d, "w", bins=0), "bins must be an integer from 1 to 1000"),
        (lambda d: notebook.scalars(d / "missing"), "does not exist"),
    ],
)
def test_notebook_bad_arguments_are_named(logs, call, message):
    with pytest.raises((ValueError, FileNotFoundError), match=message):
        call(logs)


@pytest.mark.e2e  # a process of its own importing the notebook module and plotly: a CPU second
def test_notebook_figures_need_no_ipython(logs):
    code = textwrap.dedent(
        f"""
        import sys
        sys.modules["IPython"] = None  # importing it would fail
        from visualdl import notebook
        fig = notebook.scalars({str(logs)!r})
        print(len(fig.data), "IPython" in sys.modules and sys.modules["IPython"] is not None)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[1] == "False"


@pytest.mark.e2e  # a real Jupyter kernel: seconds to start
def test_notebook_runs_in_a_real_kernel_with_the_magic(logs, tmp_path):
    nbformat = require_import("nbformat", "pip install -e '.[e2e]'")
    NotebookClient = require_import("nbclient", "pip install -e '.[e2e]'").NotebookClient
    logdir = str(logs)
    cells = [
        f"import sys\nsys.path.insert(0, {ROOT!r})\nfrom visualdl import LogWriter, notebook",
        f"with LogWriter({logdir + '/nb'!r}) as w:\n    for s in range(5):\n        w.add_scalar('acc', s / 10, s)",
        f"notebook.scalars({logdir!r}, tags=['acc'], smoothing=0)",
        "%load_ext visualdl",
        f"%visualdl --logdir {logdir} --height 500",
        "%visualdl --list",
        "%visualdl --stop",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, kernel_name="python3", timeout=120, resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [c.outputs for c in nb.cells]
    for out in outputs:
        assert not [o for o in out if o.output_type == "error"], out
    plotly = [o for o in outputs[2] if "application/vnd.plotly.v1+json" in o.get("data", {})]
    assert plotly, outputs[2]
    figure = plotly[0]["data"]["application/vnd.plotly.v1+json"]
    (raw,) = [t for t in figure["data"] if t["name"] == "nb (raw)"]
    assert _decoded(raw["x"]) == [0, 1, 2, 3, 4]
    assert _decoded(raw["y"]) == [0.0, 0.1, 0.2, 0.3, 0.4]
    html = "".join(o["data"].get("text/html", "") for o in outputs[4] if o.output_type == "display_data")
    iframe = re.search(r'<iframe[^>]*src="(http://localhost:(\d+)/)"', html, re.S)
    assert iframe, html
    assert 'height="500"' in html
    warned = "".join(o.get("text", "") for o in outputs[4] if o.output_type == "stream")
    assert "Consider using IPython.display.IFrame" not in warned and "Warning" not in warned, warned
    port = int(iframe.group(2))
    listed = "".join(o.get("text", "") for o in outputs[5])
    assert f"port {port}: " in listed and "running" in listed
    assert "stopped: [" + str(port) + "]" in "".join(o.get("text", "") for o in outputs[6])


def test_notebook_iframe_url_answers_and_server_is_reused(logs):
    port = notebook.start(logs)
    try:
        assert notebook.start(logs) == port  # the same logdir: the same server
        with urllib.request.urlopen(notebook.url(port).replace("localhost", "127.0.0.1"), timeout=10) as response:
            assert response.status == 200 and b"VisualDL" in response.read()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/runs", timeout=10) as response:
            assert {r["name"] for r in json.loads(response.read())["runs"]} >= {"a", "job"}
    finally:
        notebook.stop(port)
    assert notebook.list_servers() == []


def test_notebook_proxy_url(monkeypatch):
    monkeypatch.setenv("VISUALDL_PROXY_URL", "/user/me/proxy/%PORT%/")
    assert notebook.url(6007) == "/user/me/proxy/6007/"


def _decoded(value):
    """plotly JSON may carry arrays as {dtype, bdata} (base64): back to a list."""
    if isinstance(value, dict) and "bdata" in value:
        import base64

        return np.frombuffer(base64.b64decode(value["bdata"]), value["dtype"]).tolist()
    return list(value)


def test_notebook_relative_time_in_a_unit_fit_for_the_span(tmp_path):
    with LogWriter(tmp_path / "quick") as w:
        t0 = time.time()  # just after the writer started: the run's start
        for step in range(5):
            w.add_scalar("loss", 1.0, step, walltime=t0 + 2 * step)  # an 8-second job
    fig = notebook.scalars(tmp_path, x_axis="relative", smoothing=0)
    raw = _trace(fig, "quick (raw)")
    assert list(raw.x) == pytest.approx([0, 2, 4, 6, 8], abs=0.5)
    assert fig.layout.xaxis.title.text == "relative time (seconds)"


@pytest.mark.parametrize("case", SMOOTHING["modes"], ids=lambda c: f"{c['weight']}x{c['n']}")
def test_notebook_smoothing_modes_match_the_golden_vectors(case):
    """TensorBoard's weight as given by default; "adaptive" smooths a short series less (as the web UI)."""
    weight, n = case["weight"], case["n"]
    assert notebook._effective_weight(weight, n) == case["tensorboard"]
    assert notebook._effective_weight(weight, n, "adaptive") == pytest.approx(
        case["adaptive"], rel=SMOOTHING["relative_tolerance"], abs=0
    )


def test_notebook_smooths_eight_points_as_tensorboard_does_unless_asked_otherwise(tmp_path):
    from visualdl import LogWriter

    values = [0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.77]
    with LogWriter(str(tmp_path / "val")) as w:
        for step, v in enumerate(values):
            w.add_scalar("acc", v, step)
    smoothed = _trace(notebook.scalars(tmp_path, smoothing=0.6), "val")
    assert list(smoothed.y) == pytest.approx(notebook.smooth(values, 0.6).tolist(), rel=1e-12)
    assert abs(smoothed.y[-1] - 0.77) > 0.1  # visibly smoothed, as in TensorBoard
    adaptive = _trace(notebook.scalars(tmp_path, smoothing=0.6, smoothing_mode="adaptive"), "val")
    assert abs(adaptive.y[-1] - 0.77) < 0.01
    with pytest.raises(ValueError, match="smoothing_mode must be one of tensorboard, adaptive; got 'tb'"):
        notebook.scalars(tmp_path, smoothing_mode="tb")


@pytest.mark.e2e  # a process of its own importing the notebook module
def test_notebook_display_without_ipython_names_the_extra(tmp_path):
    code = (
        "import builtins, sys\n"
        "real = builtins.__import__\n"
        "def no_ipython(name, *args, **kwargs):\n"
        "    if name.startswith('IPython'):\n"
        "        raise ModuleNotFoundError(\"No module named 'IPython'\")\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = no_ipython\n"
        "from visualdl import notebook\n"
        "notebook.display(8080)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
    assert done.returncode == 1
    assert 'need IPython: pip install "visualdl[notebook]"' in done.stderr, done.stderr
