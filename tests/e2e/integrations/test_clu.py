"""VisualDLWriter, a clu MetricWriter, on a real flax training loop and beside clu's own writers.

A few steps of a tiny flax model trained with optax on the CPU are written with jax arrays
(scalars, a batch of images, histograms, audio, text, hyperparameters) and read back equal
to what the loop computed. The calls with which clu's own TensorFlow writer wrote
``tests/data/tflogs/clu`` make the same charts through ours. clu 0.0.12's
``clu.metric_writers`` imports TensorFlow, which this environment lacks: a child process
loads clu's interface, ``MultiWriter`` and ``AsyncWriter`` modules without that import and
drives ours through them.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import subprocess
import textwrap
import wave
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from kit.paths import ROOT
from kit.requirements import python, require

from visualdl import LogReader

if TYPE_CHECKING:
    from visualdl.integrations.clu import VisualDLWriter

# jax, flax, optax and clu are imported by the tests, not at collection: jax alone takes a
# second to import (and, once imported, warns at every fork of the process).
FRAMEWORKS = ("jax", "flax", "optax", "clu")

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def _frameworks() -> None:
    found = all(importlib.util.find_spec(name) is not None for name in FRAMEWORKS)
    require(found, "jax, flax, optax and clu", "pip install -e '.[e2e]'")


def _png(reader: LogReader, event: Any) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(reader.read_blob(event))))


def _wav(reader: LogReader, event: Any) -> np.ndarray:
    with wave.open(io.BytesIO(reader.read_blob(event))) as clip:
        return np.frombuffer(clip.readframes(clip.getnframes()), "<i2")


def _train(writer: VisualDLWriter, steps: int = 5) -> dict[str, Any]:
    """A tiny flax regression trained with optax, written as a clu loop writes; returns what it computed."""
    import flax.linen as nn
    import jax
    import jax.numpy as jnp
    import optax

    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x: jax.Array) -> jax.Array:
            return nn.Dense(1)(nn.tanh(nn.Dense(4)(x)))

    key = jax.random.PRNGKey(0)
    x = jax.random.normal(key, (16, 3))
    y = x.sum(axis=1, keepdims=True)
    model = MLP()
    params = model.init(key, x)
    optimizer = optax.sgd(0.1)
    opt_state = optimizer.init(params)

    @jax.jit
    def step_fn(params: Any, opt_state: Any) -> tuple[Any, Any, jax.Array]:
        def loss_fn(p: Any) -> jax.Array:
            out: Any = model.apply(p, x)
            return jnp.mean((out - y) ** 2)

        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = optimizer.update(grads, opt_state)
        return optax.apply_updates(params, updates), opt_state, loss

    hparams = {"learning_rate": 0.1, "model": {"hidden": 4, "act": "tanh"}, "layers": (3, 4, 1), "seed": jnp.int32(0)}
    writer.write_hparams(hparams)
    seen: dict[str, Any] = {"loss": [], "kernel": {}, "hparams": hparams}
    for step in range(1, steps + 1):
        params, opt_state, loss = step_fn(params, opt_state)
        writer.write_scalars(step, {"train/loss": loss, "train/lr": 0.1})
        seen["loss"].append(float(np.asarray(loss)))
        if step % 2 == 1:
            kernel = params["params"]["Dense_0"]["kernel"]
            writer.write_histograms(jnp.int32(step), {"params/kernel": kernel}, num_buckets={"params/kernel": 7})
            seen["kernel"][step] = np.asarray(kernel)
    # Three float images at one step (as jax arrays; one value past 1 and one below 0), then one uint8 HWC.
    images = jax.random.uniform(key, (3, 4, 5, 3), minval=-0.1, maxval=1.1)
    writer.write_images(steps, {"samples": images})
    single = np.arange(4 * 5, dtype=np.uint8).reshape(4, 5, 1) * 10
    writer.write_images(steps + 1, {"samples": single})
    clips = jax.random.uniform(key, (2, 50, 1), minval=-1.0, maxval=1.0)
    writer.write_audios(steps, {"clips": clips}, sample_rate=8000)
    writer.write_texts(steps, {"notes": f"**trained** {steps} steps"})
    seen.update(images=np.asarray(images), single=single, clips=np.asarray(clips))
    return seen


def test_clu_writer_flax_loop_read_back(tmp_path: Path) -> None:
    from visualdl.integrations.clu import VisualDLWriter

    writer = VisualDLWriter(str(tmp_path), collection="train")
    seen = _train(writer)
    writer.close()
    reader = LogReader(str(tmp_path))
    assert reader.runs() == ["train"]

    loss = reader.scalars("train", "train/loss")
    assert loss.steps.tolist() == [1, 2, 3, 4, 5]
    assert loss.values.tolist() == seen["loss"]
    assert reader.scalars("train", "train/lr").values.tolist() == [0.1] * 5

    histograms = reader.histograms("train", "params/kernel")
    assert [h.step for h in histograms] == [1, 3, 5]
    for histogram in histograms:
        values = seen["kernel"][histogram.step].astype(np.float64).ravel()
        assert len(histogram.counts) == 7
        assert (histogram.count, histogram.min, histogram.max) == (values.size, values.min(), values.max())
        assert histogram.counts.tolist() == np.histogram(values, bins=histogram.edges)[0].tolist()

    # A batch of three images stays three images of one tag at one step, in order.
    images = reader.images("train", "samples")
    assert [(e.step, e.height, e.width, e.channels) for e in images] == [(5, 4, 5, 3)] * 3 + [(6, 4, 5, 1)]
    wanted = np.clip(seen["images"] * 255.5, 0, 255).astype(np.uint8)  # tf.summary.image's conversion
    for event, pixels in zip(images[:3], wanted, strict=True):
        assert _png(reader, event).tolist() == pixels.tolist()
    assert _png(reader, images[3]).reshape(4, 5, 1).tolist() == seen["single"].tolist()

    clips = reader.audio("train", "clips")
    assert [(c.step, c.sample_rate, c.length_frames) for c in clips] == [(5, 8000, 50)] * 2
    for clip_event, clip in zip(clips, seen["clips"], strict=True):
        assert _wav(reader, clip_event).tolist() == np.trunc(clip[:, 0].astype(np.float64) * 32767).astype(int).tolist()

    assert [(t.step, t.text) for t in reader.texts("train", "notes")] == [(5, "**trained** 5 steps")]

    # clu's flattening, and every scalar key written as a metric.
    hparams = reader.hparams("train")
    assert hparams is not None
    assert hparams.hparams == {
        "learning_rate": 0.1,
        "model.hidden": 4,
        "model.act": "tanh",
        "layers.0": 3,
        "layers.1": 4,
        "layers.2": 1,
        "seed": 0,
    }
    assert hparams.metrics == ("train/loss", "train/lr")


def test_clu_writer_same_charts_as_clu_tensorboard_log(tmp_path: Path) -> None:
    """``write_clu`` of tests/data/tflogs/make_tflogs.py, with ours: the same tags, steps,
    images and clips per step, buckets, texts and hyperparameters as clu's TensorFlow writer."""
    from visualdl.integrations.clu import VisualDLWriter

    rng = np.random.default_rng(5)
    writer = VisualDLWriter(str(tmp_path))
    writer.write_hparams({"learning_rate": 0.01, "model": {"depth": 2, "act": "relu"}, "use_bn": True})
    for step in (0, 1, 2):
        writer.write_scalars(step, {"train/loss": 1.0 / (step + 1), "train/lr": 0.01})
        writer.write_images(step, {"samples": rng.random((2, 5, 5, 3), dtype=np.float32)})
        writer.write_histograms(step, {"params/w": rng.normal(size=100)}, num_buckets={"params/w": 8})
        writer.write_texts(step, {"summary": f"step {step}"})
        writer.write_audios(step, {"clips": rng.uniform(-1, 1, (2, 100, 1)).astype(np.float32)}, sample_rate=4000)
    writer.close()

    def charts(reader: LogReader, run: str) -> dict[str, Any]:
        tags = reader.tags(run)
        return {
            "scalars": {t: reader.scalars(run, t).steps.tolist() for t in tags["scalars"]},
            "images": {
                t: [(e.step, e.height, e.width, e.channels) for e in reader.images(run, t)] for t in tags["images"]
            },
            "histograms": {
                t: [(e.step, len(e.counts), e.count) for e in reader.histograms(run, t)] for t in tags["histograms"]
            },
            "text": {t: [(e.step, e.text) for e in reader.texts(run, t)] for t in tags["text"]},
            "audio": {
                t: [(e.step, e.sample_rate, e.length_frames) for e in reader.audio(run, t)] for t in tags["audio"]
            },
        }

    ours, theirs = LogReader(str(tmp_path)), LogReader(os.path.join(ROOT, "tests", "data", "tflogs", "clu"))
    assert ours.runs() == theirs.runs() == ["."]
    assert charts(ours, ".") == charts(theirs, ".")
    ours_hp, theirs_hp = ours.hparams("."), theirs.hparams(".")
    assert ours_hp is not None and theirs_hp is not None
    assert ours_hp.hparams == theirs_hp.hparams  # TensorBoard's 2.0 equals our 2
    assert ours_hp.metrics == ("train/loss", "train/lr")


def test_clu_writer_videos_and_summaries_warn_once(tmp_path: Path) -> None:
    from visualdl.integrations.clu import VisualDLWriter

    with VisualDLWriter(str(tmp_path)) as writer:
        video = np.zeros((2, 3, 4, 4, 3), np.uint8)
        with pytest.warns(UserWarning, match=r"write_videos: \['clip'\] not written"):
            writer.write_videos(0, {"clip": video})
        writer.write_videos(1, {"clip": video})  # once: a second call is silent under -W error
        with pytest.warns(UserWarning, match=r"write_summaries: \['raw'\] not written"):
            writer.write_summaries(0, {"raw": np.zeros(3)})
        writer.write_audios(0, {"stereo": np.zeros((1, 10, 2), np.float32)}, sample_rate=100)  # no warning
        with pytest.warns(UserWarning, match=r"audios\['wide'\] has 20 channels of 30 frames"):
            writer.write_audios(0, {"wide": np.zeros((1, 30, 20), np.float32)}, sample_rate=100)
    reader = LogReader(str(tmp_path))
    assert [(e.step, e.channels, e.length_frames) for e in reader.audio(".", "stereo")] == [(0, 2, 10)]  # one WAV
    assert [(e.channels, e.length_frames) for e in reader.audio(".", "wide")] == [(1, 30)] * 20  # a clip per channel
    assert reader.tags(".")["images"] == []


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda w: w.write_images(0, {"x": np.zeros((4, 4))}), r"images\['x'\] must have shape \[N, H, W, C\]"),
        (lambda w: w.write_images(0, {"x": np.zeros((1, 4, 4, 3), np.int32)}), r"must be uint8 or floats"),
        (lambda w: w.write_scalars(0, {"x": np.zeros(3)}), r"scalars\['x'\] must hold one value; got shape \(3,\)"),
        (lambda w: w.write_scalars(0.5, {"x": 1.0}), r"step must be a whole number; got 0.5"),
        (lambda w: w.write_audios(0, {"x": np.zeros(10)}, sample_rate=8), r"audios\['x'\] must have shape \[N, T, C\]"),
    ],
)
def test_clu_writer_refuses_bad_input_by_name(tmp_path: Path, call: Any, message: str) -> None:
    from visualdl.integrations.clu import VisualDLWriter

    with VisualDLWriter(str(tmp_path)) as writer, pytest.raises((ValueError, TypeError), match=message):
        call(writer)


def test_clu_writer_flatten_hparams_as_clu() -> None:
    from clu.internal import utils  # clu's own flattening, which its TensorFlow writer uses

    from visualdl.integrations.clu import flatten_hparams

    nested = {"a": {"b": 1, "c": [2, {"d": None}]}, "e": (3.5, "x"), "f": True}
    assert flatten_hparams(nested) == dict(utils.flatten_dict(nested))


CLU_COMBINATORS = textwrap.dedent(
    """
    import importlib.util, json, sys, types
    try:
        import clu.metric_writers
    except ImportError:  # clu 0.0.12's package imports TensorFlow: load its modules without it
        import clu
        package = types.ModuleType("clu.metric_writers")
        package.__path__ = [clu.__path__[0] + "/metric_writers"]
        sys.modules["clu.metric_writers"] = package
    from clu.metric_writers.interface import MetricWriter
    from clu.metric_writers.logging_writer import LoggingWriter
    from clu.metric_writers.multi_writer import MultiWriter
    from clu.metric_writers.async_writer import AsyncWriter
    import jax.numpy as jnp
    import numpy as np
    from absl import logging
    from visualdl.integrations.clu import VisualDLWriter

    logging.set_verbosity(logging.INFO)  # LoggingWriter's lines, to stderr

    logdir = sys.argv[1]
    ours = VisualDLWriter(logdir, collection="multi")
    writer = MultiWriter([ours, LoggingWriter()])
    writer.write_hparams({"lr": 0.5, "net": {"depth": 2}})
    for step in range(3):
        writer.write_scalars(step, {"loss": jnp.float32(1.0 / (step + 1))})
        writer.write_images(step, {"grid": jnp.ones((2, 3, 3, 1)) * 0.5})
        writer.write_histograms(step, {"w": jnp.arange(10.0)}, num_buckets={"w": 5})
        writer.write_texts(step, {"note": f"step {step}"})
    writer.flush()
    writer.close()
    background = AsyncWriter(VisualDLWriter(logdir, collection="async"))
    for step in range(4):
        background.write_scalars(step, {"loss": np.float64(step) / 4})
    background.close()
    print(json.dumps({"subclass": isinstance(ours, MetricWriter), "mro": [c.__module__ for c in type(ours).__mro__]}))
    """
)


def test_clu_writer_in_clu_multiwriter_and_asyncwriter(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(
        [python(), "-c", CLU_COMBINATORS, str(tmp_path)],
        env=env,
        check=True,
        timeout=300,
        capture_output=True,
        text=True,
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["subclass"] is True
    assert "clu.metric_writers.interface" in out["mro"]
    reader = LogReader(str(tmp_path))
    assert reader.runs() == ["async", "multi"]
    loss = reader.scalars("multi", "loss")
    assert loss.steps.tolist() == [0, 1, 2]
    assert loss.values.tolist() == [float(np.float32(1.0 / (s + 1))) for s in range(3)]
    assert [(e.step, e.height, e.width) for e in reader.images("multi", "grid")] == [
        (s, 3, 3) for s in range(3) for _ in range(2)
    ]
    assert [len(h.counts) for h in reader.histograms("multi", "w")] == [5, 5, 5]
    assert [t.text for t in reader.texts("multi", "note")] == ["step 0", "step 1", "step 2"]
    hparams = reader.hparams("multi")
    assert hparams is not None and hparams.hparams == {"lr": 0.5, "net.depth": 2} and hparams.metrics == ("loss",)
    assert reader.scalars("async", "loss").values.tolist() == [0.0, 0.25, 0.5, 0.75]
    # LoggingWriter, beside ours in the MultiWriter, logged the same scalars.
    assert "[1] loss=0.5" in done.stderr, done.stderr[-2000:]
