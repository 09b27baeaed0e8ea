"""Fits a tiny Keras model with VisualDLCallback and keras.callbacks.TensorBoard side by side.

Run by ``test_keras.py`` in a process of its own, since Keras picks its backend once, at
import: ``python keras_fit.py BACKEND LOGDIR OUT.json``. TensorBoard's callback writes
through ``tensorflow.summary``, which cannot be installed beside this test environment;
here it writes into :class:`SummaryRecorder`, which keeps what each call would have written
(run, tag, step, value), honouring ``as_default`` and ``record_if`` as TensorFlow does, so
the test compares our log with exactly what Keras's own callback asks TensorFlow to write.
OUT.json also holds what ``fit`` reported (History, each batch's logs) and the warnings.

``python keras_fit.py BACKEND LOGDIR OUT.json odd`` makes it 3 batches an epoch (see ``ODD``).
``python keras_fit.py BACKEND LOGDIR tflogs`` instead fits the model, data and callback
arguments with which ``tests/data/tflogs/make_tflogs.py`` wrote ``tests/data/tflogs/keras``
through the real TensorFlow, with VisualDLCallback alone.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from typing import Any

BACKEND, LOGDIR, OUT = sys.argv[1:4]
#: "odd": 3 training batches an epoch with update_freq=2, where Keras's epoch summaries
#: depend on the epoch's last batch being a multiple of update_freq.
ODD = sys.argv[4:] == ["odd"]
os.environ["KERAS_BACKEND"] = BACKEND

import keras  # noqa: E402 -- after KERAS_BACKEND
import numpy as np  # noqa: E402

from visualdl.integrations.keras import VisualDLCallback  # noqa: E402


class SummaryRecorder:
    """The part of ``tensorflow.summary`` that ``keras.callbacks.TensorBoard`` calls."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.writers: list[str] = []
        self.conditions: list[Any] = []

    def create_file_writer(self, logdir: str) -> _Writer:
        return _Writer(self, os.path.basename(logdir))

    def record_if(self, condition: Any) -> _Stack:
        return _Stack(self.conditions, condition)

    def _record(self, kind: str, name: str, step: int, **values: Any) -> bool:
        if not self.writers:  # no default writer: tf.summary writes nothing
            return False
        condition = self.conditions[-1] if self.conditions else True
        if not (condition() if callable(condition) else condition):
            return False
        self.records.append({"run": self.writers[-1], "kind": kind, "tag": name, "step": int(step), **values})
        return True

    def scalar(self, name: str, data: Any, step: int) -> bool:
        return self._record("scalar", name, step, value=float(keras.ops.convert_to_numpy(data)))

    def histogram(self, name: str, data: Any, step: int, buckets: int | None = None) -> bool:
        values = np.asarray(keras.ops.convert_to_numpy(data), dtype=np.float64).ravel()
        return self._record("histogram", name, step, values=values.tolist())

    def image(self, name: str, data: Any, step: int, max_outputs: int = 3) -> bool:
        pixels = np.asarray(data, dtype=np.float64)
        return self._record("image", name, step, data=pixels.tolist(), max_outputs=max_outputs)


class _Stack:
    def __init__(self, stack: list[Any], item: Any) -> None:
        self.stack, self.item = stack, item

    def __enter__(self) -> None:
        self.stack.append(self.item)

    def __exit__(self, *exc: object) -> None:
        self.stack.pop()


class _Writer:
    def __init__(self, recorder: SummaryRecorder, run: str) -> None:
        self.recorder, self.run = recorder, run

    def as_default(self, step: int | None = None) -> _Stack:
        return _Stack(self.recorder.writers, self.run)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


class Reported(keras.callbacks.Callback):
    """What fit and evaluate report to their callbacks."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[dict[str, float]] = []
        self.evaluations: list[dict[str, Any]] = []
        self.weights: dict[str, list[float]] = {}

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self.batches.append({k: float(v) for k, v in (logs or {}).items()})

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        step = int(keras.ops.convert_to_numpy(self.model.optimizer.iterations))
        self.evaluations.append({"step": step, "logs": {k: float(v) for k, v in (logs or {}).items()}})


def main() -> None:
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.random((30 if ODD else 40, 6, 6, 1)).astype("float32")
    y = x.mean(axis=(1, 2, 3))[:, None] * 2.0
    model = keras.Sequential(
        [
            keras.Input((6, 6, 1)),
            keras.layers.Conv2D(4, 3, activation="relu"),
            keras.layers.Flatten(),
            keras.layers.Dense(3, activation="tanh"),
            keras.layers.Dense(1),
        ]
    )
    schedule = keras.optimizers.schedules.ExponentialDecay(0.05, decay_steps=2, decay_rate=0.5)
    model.compile(keras.optimizers.SGD(schedule), "mse", metrics=["mae"])
    options: dict[str, Any] = {
        "histogram_freq": 2,
        "write_images": True,
        "update_freq": 2,
        "write_steps_per_second": True,
    }
    ours = VisualDLCallback(LOGDIR, **options)
    theirs = keras.callbacks.TensorBoard(os.path.join(LOGDIR, "keras"), write_graph=False, **options)
    recorder = SummaryRecorder()
    theirs._summary_module = recorder  # what `import tensorflow.summary` would have given it
    reported = Reported()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # 32 training examples in 4 batches of 8, 8 for validation in 2 batches of 4 (odd:
        # 24 in 3 batches, 6 in 2).
        history = model.fit(
            x,
            y,
            batch_size=8,
            validation_split=0.2,
            validation_batch_size=4,
            epochs=3,
            callbacks=[ours, theirs, reported],
            verbose=0,
        )
        model.evaluate(x[:8], y[:8], batch_size=4, callbacks=[ours, theirs, reported], verbose=0)
    weights = {w.path: np.asarray(keras.ops.convert_to_numpy(w), dtype=np.float64).tolist() for w in model.weights}
    out = {
        "backend": keras.backend.backend(),
        "history": history.history,
        "batches": reported.batches,
        "evaluations": reported.evaluations,
        "records": recorder.records,
        "final_weights": weights,
        "warnings": [str(w.message) for w in caught if "VisualDLCallback" in str(w.message)],
    }
    with open(OUT, "w") as f:
        json.dump(out, f)


def fit_as_tflogs() -> None:
    """``write_keras`` of ``tests/data/tflogs/make_tflogs.py``, with VisualDLCallback."""
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
    callback = VisualDLCallback(LOGDIR, histogram_freq=1, write_images=True, write_graph=True, update_freq="epoch")
    model.fit(x, y, batch_size=16, epochs=2, validation_split=0.25, callbacks=[callback], verbose=0)


if OUT == "tflogs":
    fit_as_tflogs()
else:
    main()
