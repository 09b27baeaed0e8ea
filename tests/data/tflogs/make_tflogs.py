"""Write the TensorFlow logs of this folder with the real libraries (see README.md).

TensorFlow cannot share the test environment, so this runs in a venv of its own and the
logs it writes are committed; the tests read them with our reader and with TensorBoard's.

    python3.11 -m venv build/venv-tf
    build/venv-tf/bin/pip install tensorflow-cpu==2.21.0 tensorboard==2.21.0 clu==0.0.12
    build/venv-tf/bin/python tests/data/tflogs/make_tflogs.py [--force]

Every value comes from fixed seeds; only wall times, host names and pids differ from one
run to the next. It refuses to overwrite the logs unless given ``--force``.
"""

from __future__ import annotations

import os
import shutil
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np
import tensorflow as tf
from tensorboard.plugins.custom_scalar import layout_pb2
from tensorboard.plugins.custom_scalar import summary as custom_scalar_summary
from tensorboard.plugins.hparams import api as hp
from tensorboard.plugins.pr_curve import summary as pr_summary
from tensorboard.plugins.scalar import metadata as scalar_metadata

HERE = os.path.dirname(os.path.abspath(__file__))
DIRS = ("tf2", "hparams", "keras", "tf1graph", "clu")
STEPS = (0, 1, 2)


def _images(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.random((n, 6, 8, 3), dtype=np.float32)


def _clips(rng: np.random.Generator, n: int, frames: int, channels: int) -> np.ndarray:
    return rng.uniform(-1, 1, (n, frames, channels)).astype(np.float32)


def write_tf2(logdir: str) -> None:
    """``tf.summary`` of every kind at several steps, in one run."""
    rng = np.random.default_rng(2)
    writer = tf.summary.create_file_writer(logdir)
    with writer.as_default():
        for step in STEPS:
            tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
            tf.summary.scalar("metrics/acc", 0.5 + 0.1 * step, step=step)
            # float64 in: tf.summary.scalar casts to float32; a raw write keeps the float64.
            tf.summary.scalar("f64/cast", np.float64(1.0 / 3.0 + step), step=step)
            tf.summary.write(
                "f64/raw",
                tf.constant(1.0 / 3.0 + step, tf.float64),
                step=step,
                metadata=scalar_metadata.create_summary_metadata(display_name="", description=""),
            )
            tf.summary.scalar("special", [float("nan"), float("inf"), float("-inf")][step], step=step)
            # max_outputs=3: three images at steps 0 and 2, two at step 1.
            tf.summary.image("images/batch", _images(rng, 3 if step != 1 else 2), step=step, max_outputs=3)
            tf.summary.image("images/single", _images(rng, 1), step=step)
            # Several clips per step; two tags at different sample rates, one of them stereo.
            tf.summary.audio("audio/speech", _clips(rng, 3, 200, 1), sample_rate=8000, step=step, max_outputs=3)
            tf.summary.audio("audio/music", _clips(rng, 2, 300, 2), sample_rate=22050, step=step, max_outputs=4)
            tf.summary.histogram("weights", rng.normal(size=500) * (step + 1), step=step)
            tf.summary.histogram("weights/few", rng.normal(size=50), step=step, buckets=5)
            tf.summary.text("notes", f"step **{step}**: a *markdown* note", step=step)
            tf.summary.text("table", tf.constant([["a", "b"], [f"{step}", "x y"]]), step=step)
            labels = rng.random(40) > 0.5
            predictions = np.clip(labels * 0.4 + rng.random(40) * 0.6, 0, 1).astype(np.float32)
            tf.summary.experimental.write_raw_pb(
                pr_summary.pb("pr/curve", labels, predictions, num_thresholds=11).SerializeToString(), step=step
            )
        layout = layout_pb2.Layout(
            category=[
                layout_pb2.Category(
                    title="losses",
                    chart=[
                        layout_pb2.Chart(title="loss", multiline=layout_pb2.MultilineChartContent(tag=[r"loss"])),
                        layout_pb2.Chart(
                            title="acc band",
                            margin=layout_pb2.MarginChartContent(
                                series=[
                                    layout_pb2.MarginChartContent.Series(
                                        value="metrics/acc", lower="f64/cast", upper="f64/raw"
                                    )
                                ]
                            ),
                        ),
                    ],
                ),
                layout_pb2.Category(title="closed", closed=True),
            ]
        )
        tf.summary.experimental.write_raw_pb(custom_scalar_summary.pb(layout).SerializeToString(), step=0)

        @tf.function
        def f(x):
            with tf.name_scope("block"):
                return tf.nn.relu(tf.matmul(x, tf.ones((2, 2))) + 1.0)

        tf.summary.graph(f.get_concrete_function(tf.TensorSpec((None, 2), tf.float32)).graph)
    writer.close()


def write_hparams(logdir: str) -> None:
    """The hparams plugin as its tutorial has it: the experiment in the root, a trial per run."""
    hparams = [
        hp.HParam("units", hp.Discrete([8, 16])),
        hp.HParam("dropout", hp.RealInterval(0.1, 0.3)),
        hp.HParam("optimizer", hp.Discrete(["adam", "sgd"])),
        hp.HParam("batchnorm", hp.Discrete([False, True])),
    ]
    metrics = [hp.Metric("accuracy", display_name="Accuracy"), hp.Metric("loss")]
    with tf.summary.create_file_writer(logdir).as_default():
        hp.hparams_config(hparams=hparams, metrics=metrics)
    trials = [
        {"units": 8, "dropout": 0.1, "optimizer": "adam", "batchnorm": False},
        {"units": 16, "dropout": 0.2, "optimizer": "sgd", "batchnorm": True},
        {"units": 16, "dropout": 0.3, "optimizer": "adam", "batchnorm": True},
    ]
    for n, trial in enumerate(trials):
        writer = tf.summary.create_file_writer(os.path.join(logdir, f"run-{n}"))
        with writer.as_default():
            hp.hparams({hparams[i]: trial[h.name] for i, h in enumerate(hparams)}, trial_id=f"run-{n}")
            for step in STEPS:
                tf.summary.scalar("accuracy", 0.6 + 0.1 * n + 0.01 * step, step=step)
                tf.summary.scalar("loss", 1.0 - 0.1 * n - 0.01 * step, step=step)
        writer.close()


def write_keras(logdir: str) -> None:
    """``keras.callbacks.TensorBoard`` on a tiny model fit for two epochs: train/ and validation/."""
    import keras

    keras.utils.set_random_seed(3)
    rng = np.random.default_rng(3)
    x = rng.random((32, 4, 4, 1), dtype=np.float32)
    y = (x.mean(axis=(1, 2, 3)) > 0.5).astype(np.float32)
    model = keras.Sequential(
        [
            keras.Input((4, 4, 1)),
            keras.layers.Conv2D(2, 3, activation="relu", name="conv"),
            keras.layers.Flatten(),
            keras.layers.Dense(1, activation="sigmoid", name="head"),
        ]
    )
    model.compile(optimizer="sgd", loss="binary_crossentropy", metrics=["accuracy"])
    callback = keras.callbacks.TensorBoard(
        logdir, histogram_freq=1, write_images=True, write_graph=True, update_freq="epoch"
    )
    model.fit(x, y, batch_size=16, epochs=2, validation_split=0.25, callbacks=[callback], verbose=0)


def write_tf1graph(logdir: str) -> None:
    """TF1 graph mode: a ``GraphDef`` with name scopes, a ``MetaGraphDef``, and scalars run in a session."""
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        v1.set_random_seed(4)
        x = v1.placeholder(tf.float32, (None, 3), name="x")
        with tf.name_scope("layer1"):
            w = tf.Variable(v1.random_normal((3, 4), seed=4), name="weights")
            b = tf.Variable(tf.zeros((4,)), name="bias")
            h = tf.nn.relu(tf.matmul(x, w) + b, name="relu")
        with tf.name_scope("loss"):
            loss = tf.reduce_mean(tf.square(h), name="mean_square")
        summary = v1.summary.merge([v1.summary.scalar("loss", loss), v1.summary.histogram("layer1/weights", w)])
        init = v1.global_variables_initializer()
        writer = v1.summary.FileWriter(logdir, graph)
        writer.add_meta_graph(v1.train.export_meta_graph(graph=graph))
        with v1.Session(graph=graph) as session:
            session.run(init)
            data = np.random.default_rng(4).random((5, 3), dtype=np.float32)
            for step in STEPS:
                writer.add_summary(session.run(summary, {x: data * (step + 1)}), step)
        writer.close()


def write_clu(logdir: str) -> None:
    """clu's ``create_default_writer`` (its SummaryWriter writes through ``tf.summary``)."""
    from clu import metric_writers

    rng = np.random.default_rng(5)
    writer = metric_writers.create_default_writer(logdir, asynchronous=False)
    writer.write_hparams({"learning_rate": 0.01, "model": {"depth": 2, "act": "relu"}, "use_bn": True})
    for step in STEPS:
        writer.write_scalars(step, {"train/loss": 1.0 / (step + 1), "train/lr": 0.01})
        writer.write_images(step, {"samples": rng.random((2, 5, 5, 3), dtype=np.float32)})
        writer.write_histograms(step, {"params/w": rng.normal(size=100)}, num_buckets={"params/w": 8})
        writer.write_texts(step, {"summary": f"step {step}"})
        writer.write_audios(step, {"clips": _clips(rng, 2, 100, 1)}, sample_rate=4000)
    writer.close()


WRITERS = {
    "tf2": write_tf2,
    "hparams": write_hparams,
    "keras": write_keras,
    "tf1graph": write_tf1graph,
    "clu": write_clu,
}


def main(argv: list[str]) -> int:
    force = "--force" in argv
    for name in DIRS:
        path = os.path.join(HERE, name)
        if os.path.exists(path):
            if not force:
                print(f"{path} exists: pass --force to write the logs again", file=sys.stderr)
                return 1
            shutil.rmtree(path)
    tf.random.set_seed(1)
    for name in DIRS:
        WRITERS[name](os.path.join(HERE, name))
        print("wrote", name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
