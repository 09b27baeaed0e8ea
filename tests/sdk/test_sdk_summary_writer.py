"""SummaryWriter: a torch.utils.tensorboard script with only its import changed, read back."""

from __future__ import annotations

import inspect
import io
import math
import os
import re
import sys
import wave
from typing import Any

import numpy as np
import pytest
from kit.writers import import_torch, torch_writer
from PIL import Image

from visualdl import LogReader, SummaryWriter

METHODS = [
    "__init__",
    "add_scalar",
    "add_scalars",
    "add_histogram",
    "add_image",
    "add_images",
    "add_figure",
    "add_text",
    "add_audio",
    "add_pr_curve",
    "add_pr_curve_raw",
    "add_embedding",
    "add_hparams",
    "add_custom_scalars",
    "add_graph",
    "flush",
    "close",
    "get_logdir",
]
WALL = 1_700_000_000.5


def _net() -> Any:
    """A torch module (``_Net``) of one linear layer."""
    torch = import_torch()
    module: Any = torch.nn.Module

    class _Net(module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(4, 3)

        def forward(self, x: Any) -> Any:
            return torch.relu(self.fc(x))

    return _Net()


def _torch_script(writer_class, log_dir):
    """The calls of a torch.utils.tensorboard script; only ``writer_class`` changes."""
    torch = import_torch()
    writer = writer_class(log_dir)
    for step in range(3):
        writer.add_scalar("loss", torch.tensor(1.0 / (step + 1)), step, walltime=WALL + step)
    writer.add_scalar("loss", float("nan"), 3, walltime=WALL + 3)
    writer.add_scalars("run_14h", {"xsinx": 1.5, "xcosx": -2.0}, 7, walltime=WALL)
    writer.add_histogram("weights", torch.arange(10, dtype=torch.float32), 2, bins=5, walltime=WALL)
    writer.add_histogram("default_bins", np.linspace(0, 1, 100), 2, walltime=WALL)
    writer.add_image("chw", torch.ones(3, 4, 5) * 0.5, 1, walltime=WALL)
    writer.add_images("nchw", torch.zeros(10, 1, 2, 3), 1, walltime=WALL)
    writer.add_text("note", "hello *world*", 4, walltime=WALL)
    writer.add_audio("clip", torch.zeros(1, 441), 5, walltime=WALL)
    writer.add_pr_curve("pr", torch.tensor([0, 1, 1, 0]), torch.tensor([0.1, 0.9, 0.6, 0.4]), 6, walltime=WALL)
    writer.add_embedding(torch.eye(3), metadata=["a", "b", "c"], global_step=8, tag="emb")
    writer.add_embedding(torch.eye(2), metadata=[[1, "x"], [2, "y"]], metadata_header=["n", "s"], tag="emb2")
    writer.add_hparams({"lr": 0.1, "bsize": 32, "opt": "sgd", "nesterov": True}, {"hparam/acc": 0.75}, run_name="hp")
    writer.add_graph(_net(), torch.zeros(1, 4))
    writer.add_custom_scalars(
        {"Training": {"Loss": ["Multiline", ["loss", "run_14h"]], "Band": ["Margin", ["loss", "lo", "hi"]]}}
    )
    writer.flush()
    writer.close()


@pytest.mark.e2e  # torch (an e2e extra, seconds to import): imported by the test
def test_summary_writer_runs_a_torch_script_read_back_exactly(tmp_path):
    _torch_script(SummaryWriter, tmp_path / "exp")
    reader = LogReader(tmp_path)
    assert reader.runs() == ["exp", "exp/hp", "exp/run_14h_xcosx", "exp/run_14h_xsinx"]

    loss = reader.scalars("exp", "loss")
    assert loss.steps.tolist() == [0, 1, 2, 3]
    assert loss.values[:3].tolist() == [1.0, 0.5, pytest.approx(1 / 3)]
    assert math.isnan(loss.values[3])
    assert loss.wall_times.tolist() == [WALL, WALL + 1, WALL + 2, WALL + 3]  # seconds, as given
    for key, value in (("xsinx", 1.5), ("xcosx", -2.0)):
        series = reader.scalars(f"exp/run_14h_{key}", "run_14h")
        assert (series.steps.tolist(), series.values.tolist(), series.wall_times.tolist()) == ([7], [value], [WALL])

    (hist,) = reader.histograms("exp", "weights")
    assert (hist.step, hist.wall_time, hist.counts.tolist()) == (2, WALL, [2.0] * 5)
    assert len(reader.histograms("exp", "default_bins")[0].counts) == 30

    (chw,) = reader.images("exp", "chw")
    assert (chw.step, chw.wall_time, chw.height, chw.width, chw.channels) == (1, WALL, 4, 5, 3)
    assert np.asarray(Image.open(io.BytesIO(reader.read_blob(chw))))[0, 0].tolist() == [127, 127, 127]  # as torch
    (grid,) = reader.images("exp", "nchw")
    assert (grid.height, grid.width, grid.channels) == (2 * 2, 8 * 3, 1)  # 8 to a row, as torch

    (text,) = reader.texts("exp", "note")
    assert (text.step, text.wall_time, text.text) == (4, WALL, "hello *world*")
    (clip,) = reader.audio("exp", "clip")
    assert (clip.step, clip.sample_rate, clip.length_frames) == (5, 44100, 441)
    with wave.open(io.BytesIO(reader.read_blob(clip))) as wav:
        assert wav.getframerate() == 44100

    (pr,) = reader.pr_curves("exp", "pr")
    assert (pr.step, pr.wall_time, len(pr.thresholds)) == (6, WALL, 127)
    assert (pr.tp[0], pr.fp[0], pr.tp[-1]) == (2.0, 2.0, 0.0)

    (emb,) = reader.embeddings("exp", "emb")
    assert (emb.step, emb.rows, emb.dimension, emb.metadata) == (8, 3, 3, (("a",), ("b",), ("c",)))
    assert np.frombuffer(reader.read_blob(emb), "<f4").reshape(3, 3).tolist() == np.eye(3).tolist()
    (emb2,) = reader.embeddings("exp", "emb2")
    assert (emb2.metadata_header, emb2.metadata) == (("n", "s"), (("1", "x"), ("2", "y")))

    assert reader.hparams("exp") is None
    hp = reader.hparams("exp/hp")
    assert hp is not None
    assert hp.hparams == {"lr": 0.1, "bsize": 32, "opt": "sgd", "nesterov": True}
    assert hp.metrics == ("hparam/acc",)
    assert reader.scalars("exp/hp", "hparam/acc").values.tolist() == [0.75]

    (graph,) = reader.graphs("exp")
    assert (graph.name, graph.format) == ("_Net", "onnx")
    assert b"Gemm" in reader.read_blob(graph)

    layout = reader.scalar_layout("exp")
    assert layout is not None
    (category,) = layout.categories
    assert category.title == "Training"
    assert [(c.title, c.multiline, c.margin) for c in category.charts] == [
        ("Loss", ("loss", "run_14h"), ()),
        ("Band", (), (("loss", "lo", "hi"),)),
    ]


def test_summary_writer_defaults_step_and_walltime_as_torch(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        assert writer.get_logdir() == writer.log_dir == str(tmp_path)
        writer.add_scalar("x", 2)
        writer.add_pr_curve_raw("raw", [3, 1], [2, 0], [0, 2], [0, 2], [0.6, 1.0], [1.0, 0.3], 9, num_thresholds=2)
    reader = LogReader(tmp_path)
    series = reader.scalars(".", "x")
    assert series.steps.tolist() == [0]
    assert 0 < series.wall_times[0] < 1e11  # seconds
    (raw,) = reader.pr_curves(".", "raw")
    assert (raw.step, raw.thresholds.tolist(), raw.tp.tolist()) == (9, [0.0, 1.0], [3, 1])
    assert (raw.fn.tolist(), raw.precision.tolist(), raw.recall.tolist()) == ([0, 2], [0.6, 1.0], [1.0, 0.3])


def test_summary_writer_default_log_dir_is_torchs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writer = SummaryWriter(comment="_lr0.1")
    writer.close()
    folder, name = os.path.split(writer.get_logdir())
    assert folder == "runs" and name.endswith("_lr0.1")


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda w: w.add_scalar("x", "one", 1), TypeError, "scalar_value must be a real number"),
        (lambda w: w.add_scalar("x", 1.0, float("nan")), ValueError, "global_step must be an integer, or a number"),
        (lambda w: w.add_scalar("x", 1.0, 1, walltime=1.7e12), ValueError, "seconds since the epoch"),
        (lambda w: w.add_scalars("m", {"a/../../up": 1.0}, 1), ValueError, "'..' parts"),
        (lambda w: w.add_histogram("h", [1.0], 1, bins="nope"), ValueError, "bins must be"),
        pytest.param(
            lambda w: w.add_image("i", import_torch().ones(5, 4, 3), 1), ValueError, "channels", marks=pytest.mark.e2e
        ),
        pytest.param(
            lambda w: w.add_images("i", import_torch().ones(3, 4, 5), 1),
            ValueError,
            "needs 4 dimensions",
            marks=pytest.mark.e2e,
        ),
        (lambda w: w.add_pr_curve_raw("r", [1], [1], [1], [1], [1], [1], 1), ValueError, "num_thresholds=127"),
        pytest.param(
            lambda w: w.add_embedding(import_torch().eye(2), metadata=["a"]),
            ValueError,
            "one label per row",
            marks=pytest.mark.e2e,
        ),
        (lambda w: w.add_hparams({"lr": 0.1}, [0.5]), TypeError, "must be dicts"),
        (lambda w: w.add_hparams({"lr": 0.1}, {}, {"lr": [0.2]}), ValueError, "not one of"),
        (lambda w: w.add_custom_scalars({"c": {"t": ["Pie", ["a"]]}}), ValueError, "'Multiline' or 'Margin'"),
        (lambda w: w.add_custom_scalars({"c": {"t": ["Margin", ["a"]]}}), ValueError, "needs 3 tags"),
        pytest.param(lambda w: w.add_graph(_net()), ValueError, "input_to_model is needed", marks=pytest.mark.e2e),
        pytest.param(
            lambda w: w.add_graph(_net(), import_torch().zeros(1, 7)),
            ValueError,
            "could not export _Net",
            marks=pytest.mark.e2e,
        ),
        pytest.param(
            lambda w: w.add_graph("model.onnx", import_torch().zeros(1)),
            TypeError,
            "torch.nn.Module",
            marks=pytest.mark.e2e,
        ),
    ],
)
def test_summary_writer_refuses_bad_input_on_the_callers_thread(tmp_path, call, error, message):
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(error, match=re.escape(message)):
            call(writer)
        writer.add_scalar("still", 1.0, 1)
    assert LogReader(tmp_path).scalars(".", "still").values.tolist() == [1.0]


@pytest.mark.parametrize("model", [b"\x08\x07onnx bytes", "model.onnx"])
def test_summary_writer_add_graph_of_no_torch_module_is_a_type_error_without_torch(tmp_path, monkeypatch, model):
    monkeypatch.setitem(sys.modules, "torch", None)  # ``import torch`` raises ImportError, as when not installed
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(
            TypeError, match=r"model must be a torch\.nn\.Module; got (bytes|str) .*LogWriter\.add_graph"
        ):
            writer.add_graph(model)


@pytest.mark.e2e  # torch (an e2e extra, seconds to import): imported by the test
def test_summary_writer_warns_that_label_img_is_not_stored(tmp_path):
    torch = import_torch()
    with SummaryWriter(tmp_path) as writer, pytest.warns(UserWarning, match="label_img is not stored"):
        writer.add_embedding(torch.eye(2), label_img=torch.zeros(2, 3, 4, 4))
    assert LogReader(tmp_path).embeddings(".", "default")[0].rows == 2


@pytest.mark.e2e  # torch (an e2e extra, seconds to import): imported by the test
def test_summary_writer_signatures_equal_torchs():
    TorchWriter = torch_writer()

    def shape(function):
        return [(p.name, p.default, p.kind) for p in inspect.signature(function).parameters.values()]

    ours = {m: shape(getattr(SummaryWriter, m)) for m in METHODS}
    assert ours == {m: shape(getattr(TorchWriter, m)) for m in METHODS}


@pytest.mark.e2e  # torch (an e2e extra, seconds to import): imported by the test
@pytest.mark.filterwarnings("ignore:`torch.jit.trace.* is deprecated:DeprecationWarning")  # torch's add_graph
def test_summary_writer_reads_back_as_torchs_own_writer_does(tmp_path):
    """The same script through torch's SummaryWriter (TensorBoard event files) and through
    this one: every kind both keep reads back equal. torch's add_embedding writes projector
    files beside the events and its add_graph a GraphDef: both are read, compared elsewhere
    (tests/index/test_projector_files.py, tests/e2e/export/test_graphdef_torch.py)."""
    TorchWriter = torch_writer()

    _torch_script(TorchWriter, tmp_path / "torch")
    _torch_script(SummaryWriter, tmp_path / "ours")
    reader = LogReader(tmp_path)
    assert reader.problems == []
    a: Any  # ours and torch's, of each kind in turn
    b: Any
    for run in ("", "/hp", "/run_14h_xcosx", "/run_14h_xsinx"):
        theirs, ours = f"torch{run}", f"ours{run}"
        tags, ours_tags = reader.tags(theirs), reader.tags(ours)
        # torch's embeddings are read from its projector files, under the same tags; its graph
        # is a GraphDef, named "Default" as TensorBoard names it, ours an ONNX model by class.
        assert (tags.pop("embeddings"), tags.pop("graphs")) == (([], []) if run else (["emb", "emb2"], ["Default"]))
        assert (ours_tags.pop("embeddings"), ours_tags.pop("graphs")) == (
            ([], []) if run else (["emb", "emb2"], ["_Net"])
        )
        # torch names a text tag "TAG/text_summary" in the file; this writer keeps the tag given.
        tags["text"] = [t.removesuffix("/text_summary") for t in tags["text"]]
        assert ours_tags == tags, run
        for tag in tags["scalars"]:
            a, b = reader.scalars(ours, tag), reader.scalars(theirs, tag)
            assert a.steps.tolist() == b.steps.tolist()
            if run != "/hp":  # add_hparams takes no walltime: its metrics are logged at the time of the call
                assert a.wall_times.tolist() == b.wall_times.tolist()
            assert np.array_equal(a.values.astype(np.float32), b.values, equal_nan=True), tag  # torch: float32
        for tag in tags["histograms"]:
            ((a,), (b,)) = reader.histograms(ours, tag), reader.histograms(theirs, tag)
            assert (a.step, a.wall_time, a.min, a.max, a.sum, a.count) == (
                b.step,
                b.wall_time,
                b.min,
                b.max,
                b.sum,
                b.count,
            )
            if tag != "default_bins":  # bins="tensorflow": torch's exponential buckets, 30 equal ones here
                assert np.array_equal(a.edges, b.edges) and np.array_equal(a.counts, b.counts), tag
        for tag in tags["images"]:
            for a, b in zip(reader.images(ours, tag), reader.images(theirs, tag), strict=True):
                assert (a.step, a.wall_time, a.height, a.width) == (b.step, b.wall_time, b.height, b.width)
                pixels = [np.asarray(Image.open(io.BytesIO(reader.read_blob(e))).convert("RGB")) for e in (a, b)]
                assert np.array_equal(pixels[0], pixels[1]), tag  # floats scaled and truncated as torch does
        for tag in tags["text"]:
            assert reader.texts(ours, tag) == reader.texts(theirs, f"{tag}/text_summary")
        for tag in tags["audio"]:
            ((a,), (b,)) = reader.audio(ours, tag), reader.audio(theirs, tag)
            assert (a.step, a.sample_rate, a.length_frames, a.channels) == (
                b.step,
                b.sample_rate,
                b.length_frames,
                b.channels,
            )
            with wave.open(io.BytesIO(reader.read_blob(a))) as x, wave.open(io.BytesIO(reader.read_blob(b))) as y:
                assert x.readframes(x.getnframes()) == y.readframes(y.getnframes())
        for tag in tags["pr_curves"]:
            ((a,), (b,)) = reader.pr_curves(ours, tag), reader.pr_curves(theirs, tag)
            for field in ("thresholds", "tp", "fp", "tn", "fn", "precision", "recall"):
                assert np.allclose(getattr(a, field), getattr(b, field), rtol=1e-6, atol=0), field
        hparams = [reader.hparams(r) for r in (ours, theirs)]
        assert [(h.hparams, h.metrics) if h else None for h in hparams] == [
            ({"lr": 0.1, "bsize": 32, "opt": "sgd", "nesterov": True}, ("hparam/acc",)) if run == "/hp" else None
        ] * 2
        a, b = reader.scalar_layout(ours), reader.scalar_layout(theirs)
        assert (a is None, b is None) == (bool(run), bool(run))
        assert a is None or a.categories == b.categories


@pytest.mark.e2e  # torch (an e2e extra, seconds to import): imported by the test
@pytest.mark.filterwarnings("ignore:`torch.jit.trace.* is deprecated:DeprecationWarning")  # torch's add_graph
def test_summary_writer_api_answers_as_for_torchs_own_files(tmp_path, make_app):
    """The same script through torch's writer and ours, served: the API answers alike."""
    from urllib.parse import urlencode

    TorchWriter = torch_writer()

    _torch_script(TorchWriter, tmp_path / "torch")
    _torch_script(SummaryWriter, tmp_path / "ours")
    app = make_app(str(tmp_path))
    client = app.test_client()

    def get(path: str, **params: Any) -> Any:
        response = client.get(f"{path}?{urlencode(params, doseq=True)}")
        assert response.status_code == 200, (path, params, response.data[:300])
        return response.get_json()

    def answers(run: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for tag in ("loss", "run_14h"):
            runs = [run] if tag == "loss" else [f"{run}/run_14h_xsinx", f"{run}/run_14h_xcosx"]
            for series in get("/api/scalars", tag=tag, run=runs)["runs"]:
                values = [None if v is None else float(np.float32(v)) for v in series["values"]]
                out[f"{tag} {series['run'].removeprefix(run)}"] = (series["steps"], values, series["nonfinite"])
        out["weights"] = [(e["counts"], e["edges"]) for e in get("/api/histograms", run=run, tag="weights")["entries"]]
        out["clip"] = [
            {k: v for k, v in e.items() if k != "bytes"} for e in get("/api/audio", run=run, tag="clip")["entries"]
        ]
        (curve,) = get("/api/curves", kind="pr_curves", tag="pr", run=run)["runs"]
        out["pr"] = {k: v for k, v in curve.items() if k != "run"}
        (hp,) = get("/api/hparams", run=f"{run}/hp")["runs"]
        out["hparams"] = (hp["hparams"], {k: (m["last"], m["step"]) for k, m in hp["metrics"].items()})
        return out

    ours, torchs = answers("ours"), answers("torch")
    assert ours.keys() == torchs.keys()
    for key in ours:
        if key == "pr":  # torch stores its rates in float32
            for field, value in ours[key].items():
                assert value == pytest.approx(torchs[key][field], rel=1e-6, nan_ok=True), field
        else:
            assert ours[key] == torchs[key], key


def test_summary_writer_reaches_into_its_writers_only_through_the_record_port():
    """Besides LogWriter's public calls, SummaryWriter queues what it checked itself through
    one port (``sdk._writer.RecordPort``): no private name of another object is read."""
    import ast

    from kit.paths import ROOT

    with open(os.path.join(ROOT, "sdk", "_summary.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    private = sorted(
        f"line {node.lineno}: .{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and not (isinstance(node.value, ast.Name) and node.value.id == "self")
    )
    assert private == []
