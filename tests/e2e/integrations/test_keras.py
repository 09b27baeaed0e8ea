"""VisualDLCallback writes what keras.callbacks.TensorBoard writes, on Keras 3's torch and jax backends.

Each backend fits a tiny conv net for 3 epochs in a process of its own (``keras_fit.py``:
Keras picks its backend at import) with both callbacks on the same fit, Keras's writing into
a recorder of the ``tensorflow.summary`` calls it makes (TensorFlow cannot be installed
beside this environment). The log read back holds the same runs, tags, steps and values as
those calls, and the values fit reported; the weight images are Keras's reshaping scaled
over each weight's range; the graph is ONNX on torch and a warning on jax (whose exporter,
jax2onnx, is not installed).
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kit.paths import ROOT
from kit.requirements import python, require

from visualdl import LogReader

# Only whether it is installed: importing keras here would pick a backend for this process.
HAVE_KERAS = importlib.util.find_spec("keras") is not None

pytestmark = pytest.mark.e2e
HERE = Path(__file__).parent


def _fit(backend: str, logdir: Path, tmp_path: Path, child_env: dict[str, str], *mode: str) -> dict[str, Any]:
    require(HAVE_KERAS, "keras", "pip install -e '.[e2e]'")
    out = tmp_path / "fit.json"
    subprocess.run(
        [python(), str(HERE / "keras_fit.py"), backend, str(logdir), str(out), *mode],
        env=child_env,
        check=True,
        timeout=600,
    )
    return json.loads(out.read_text())


def _expected(records: list[dict[str, Any]]) -> dict[tuple[str, str, str], dict[int, dict[str, Any]]]:
    """Keras's calls per (run, kind, tag) and step; at a step written twice, the later one
    (as a reader shows a point a later writer wrote again)."""
    out: dict[tuple[str, str, str], dict[int, dict[str, Any]]] = {}
    for record in records:
        out.setdefault((record["run"], record["kind"], record["tag"]), {})[record["step"]] = record
    return out


def _tags(reader: LogReader, run: str, kind: str) -> set[str]:
    return set(reader.tags(run)[{"scalar": "scalars", "histogram": "histograms", "image": "images"}[kind]])


@pytest.fixture(scope="module", params=["torch", "jax"])
def fitted(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, Any], LogReader]:
    """One fit per backend, shared by the tests of this module."""
    tmp = tmp_path_factory.mktemp(f"keras_{request.param}")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    fit = _fit(request.param, tmp / "logs", tmp, env)
    assert fit["backend"] == request.param
    return fit, LogReader(str(tmp / "logs"))


def test_keras_callback_runs_and_tags_as_keras(fitted: tuple[dict[str, Any], LogReader]) -> None:
    fit, reader = fitted
    expected = _expected(fit["records"])
    assert reader.runs() == ["train", "validation"]
    for run in ("train", "validation"):
        for kind in ("scalar", "histogram", "image"):
            keras_tags = {tag for (r, k, tag) in expected if r == run and k == kind}
            assert _tags(reader, run, kind) == keras_tags, (run, kind)
    scalars = {tag for (r, k, tag) in expected if k == "scalar"}
    assert {"epoch_loss", "epoch_mae", "epoch_learning_rate", "batch_loss", "batch_mae"} <= scalars
    assert {"evaluation_loss_vs_iterations", "epoch_steps_per_second", "batch_steps_per_second"} <= scalars


def test_keras_callback_scalars_equal_keras(fitted: tuple[dict[str, Any], LogReader]) -> None:
    fit, reader = fitted
    for (run, kind, tag), steps in _expected(fit["records"]).items():
        if kind != "scalar":
            continue
        series = reader.scalars(run, tag)
        assert series.steps.tolist() == sorted(steps), (run, tag)
        if tag.endswith("steps_per_second"):  # timed by each callback on its own
            assert (series.values > 0).all()
        else:
            assert series.values.tolist() == [steps[s]["value"] for s in sorted(steps)], (run, tag)


def test_keras_callback_scalars_equal_what_fit_reported(fitted: tuple[dict[str, Any], LogReader]) -> None:
    fit, reader = fitted
    history = fit["history"]
    assert reader.scalars("train", "epoch_loss").values.tolist() == history["loss"]
    assert reader.scalars("train", "epoch_mae").values.tolist() == history["mae"]
    assert reader.scalars("validation", "epoch_loss").values.tolist() == history["val_loss"]
    # update_freq=2: the 2nd, 4th, ... of 12 training batches, counted from 1 over the fit.
    batch_loss = reader.scalars("train", "batch_loss")
    assert batch_loss.steps.tolist() == [2, 4, 6, 8, 10, 12]
    assert batch_loss.values.tolist() == [fit["batches"][s - 1]["loss"] for s in (2, 4, 6, 8, 10, 12)]
    # Three evaluations in fit, at the optimizer's iterations, and model.evaluate's after it at 12.
    evaluations = fit["evaluations"]
    assert [e["step"] for e in evaluations] == [4, 8, 12, 12]
    evaluation = reader.scalars("validation", "evaluation_mae_vs_iterations")
    assert evaluation.steps.tolist() == [4, 8, 12]
    assert evaluation.values.tolist() == [e["logs"]["mae"] for e in evaluations[:2] + evaluations[3:]]
    # ExponentialDecay(0.05, decay_steps=2, decay_rate=0.5) after 4, 8, 12 iterations, in float32.
    learning_rate = reader.scalars("train", "epoch_learning_rate").values
    assert learning_rate.tolist() == [float(np.float32(0.05) * np.float32(0.5) ** (2 * e)) for e in (1, 2, 3)]


def test_keras_callback_weight_histograms(fitted: tuple[dict[str, Any], LogReader]) -> None:
    fit, reader = fitted
    seen = 0
    for (run, kind, tag), steps in _expected(fit["records"]).items():
        if kind != "histogram":
            continue
        events = reader.histograms(run, tag)
        assert [e.step for e in events] == sorted(steps) == [0, 2]
        for event in events:
            values = np.asarray(steps[event.step]["values"])
            assert len(event.counts) == 30 or values.min() == values.max()
            assert (event.count, event.min, event.max) == (values.size, values.min(), values.max())
            assert event.sum == pytest.approx(values.sum(), rel=1e-12, abs=1e-12)
            assert event.counts.tolist() == np.histogram(values, bins=event.edges)[0].tolist()
            seen += 1
    assert seen == 2 * 6  # two kernels and two biases of Dense, the conv's kernel and bias, twice


def test_keras_callback_weight_images_keras_shapes_our_range(fitted: tuple[dict[str, Any], LogReader]) -> None:
    from PIL import Image

    fit, reader = fitted
    for (run, kind, tag), steps in _expected(fit["records"]).items():
        if kind != "image":
            continue
        events = reader.images(run, tag)
        for step, record in steps.items():
            data = np.asarray(record["data"])
            low, high = data.min(), data.max()
            wanted = np.rint((data - low) * (255.0 / (high - low))).astype(np.uint8)[: record["max_outputs"]]
            at_step = [e for e in events if e.step == step]
            assert len(at_step) == len(wanted), (tag, step)
            for event, pixels in zip(at_step, wanted, strict=True):
                png = np.asarray(Image.open(io.BytesIO(reader.read_blob(event))))
                assert png.reshape(pixels.shape).tolist() == pixels.tolist(), (tag, step)
    # The conv kernel (3, 3, 1, 4) is four 3x3 images to Keras; tf.summary.image keeps three.
    kernel = [e for e in reader.images("train", "sequential/conv2d/kernel/image") if e.step == 2]
    assert [(e.height, e.width, e.channels) for e in kernel] == [(3, 3, 1)] * 3


def test_keras_callback_graph_or_warning(fitted: tuple[dict[str, Any], LogReader]) -> None:
    fit, reader = fitted
    graphs = reader.graphs("train")
    if fit["backend"] == "torch":
        import onnx

        assert [g.name for g in graphs] == ["keras"]
        model = onnx.load_model_from_string(reader.read_blob(graphs[0]))
        ops = {node.op_type for node in model.graph.node}
        assert "Conv" in ops and ({"Gemm", "MatMul"} & ops), ops
        assert fit["warnings"] == []
    else:
        assert graphs == []
        [warning] = fit["warnings"]
        assert "could not export model 'sequential' to ONNX on the jax backend" in warning
        assert "jax2onnx" in warning


def _charts(reader: LogReader) -> dict[str, dict[str, Any]]:
    """What each run's charts show, values aside: tags, steps, each step's image shapes, buckets."""
    out: dict[str, dict[str, Any]] = {}
    for run in reader.runs():
        tags = reader.tags(run)
        out[run] = {
            "scalars": {tag: reader.scalars(run, tag).steps.tolist() for tag in tags["scalars"]},
            "images": {
                tag: [(e.step, e.height, e.width, e.channels) for e in reader.images(run, tag)]
                for tag in tags["images"]
            },
            "histograms": {
                tag: [(e.step, len(e.counts)) for e in reader.histograms(run, tag)] for tag in tags["histograms"]
            },
        }
    return out


def test_keras_callback_same_charts_as_keras_tensorboard_log(tmp_path: Path) -> None:
    """The fit with which the real keras.callbacks.TensorBoard (on TensorFlow) wrote
    tests/data/tflogs/keras, with ours on the torch backend: the same runs, tags, steps,
    images per step and their shapes, buckets (values differ: another backend's arithmetic)."""
    require(HAVE_KERAS, "keras", "pip install -e '.[e2e]'")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    logdir = tmp_path / "logs"
    subprocess.run(
        [python(), str(HERE / "keras_fit.py"), "torch", str(logdir), "tflogs"], env=env, check=True, timeout=600
    )
    ours = LogReader(str(logdir))
    assert _charts(ours) == _charts(LogReader(os.path.join(ROOT, "tests", "data", "tflogs", "keras")))
    assert [g.name for g in ours.graphs("train")] == ["keras"]


def test_keras_callback_epoch_scalars_whatever_update_freq(tmp_path: Path) -> None:
    """On purpose unlike Keras 3's callback: with update_freq=2 and 3 batches an epoch, its
    epoch summaries fall under the record_if of the epoch's last batch, so epoch 0 (batch 3)
    writes none (a known TensorBoard issue); ours writes every epoch's, as fit reported them."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    fit = _fit("torch", tmp_path / "logs", tmp_path, env, "odd")
    keras_epochs = sorted({r["step"] for r in fit["records"] if r["tag"] == "epoch_loss" and r["run"] == "train"})
    assert keras_epochs == [1]  # batches 3, 6, 9: only epoch 1 ends on a multiple of 2
    reader = LogReader(str(tmp_path / "logs"))
    for run, key in (("train", "loss"), ("validation", "val_loss")):
        series = reader.scalars(run, "epoch_loss")
        assert series.steps.tolist() == [0, 1, 2]
        assert series.values.tolist() == fit["history"][key]
    assert reader.scalars("train", "batch_loss").steps.tolist() == [2, 4, 6, 8]


BFLOAT16 = """
import sys, warnings
import ml_dtypes, numpy as np
from visualdl.integrations.keras import VisualDLCallback
warnings.simplefilter("error")  # a value dropped is a warning
callback = VisualDLCallback(sys.argv[1], update_freq="batch", write_graph=False)
callback.on_train_begin()
callback.on_train_batch_begin(0)
callback.on_train_batch_end(0, {"loss": np.asarray(1.5, ml_dtypes.bfloat16), "nan": float("nan")})
callback.on_epoch_end(0, {"loss": ml_dtypes.bfloat16(2.5)})
callback.on_train_end()
"""


@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_keras_callback_bfloat16_and_nan_scalars_written(tmp_path: Path, backend: str) -> None:
    """A bfloat16 value (a mixed_bfloat16 model's own train_step) is a number, as tf.summary
    casts it, not dropped; NaN is data, kept."""
    require(HAVE_KERAS, "keras", "pip install -e '.[e2e]'")
    env = dict(os.environ, KERAS_BACKEND=backend, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([python(), "-c", BFLOAT16, str(tmp_path)], env=env, check=True, timeout=300)
    reader = LogReader(str(tmp_path))
    assert reader.scalars("train", "batch_loss").values.tolist() == [1.5]
    assert np.isnan(reader.scalars("train", "batch_nan").values).tolist() == [True]
    assert reader.scalars("train", "epoch_loss").values.tolist() == [2.5]
