"""A Keras 3 callback that logs what ``keras.callbacks.TensorBoard`` logs, with LogWriter.

The same runs (``<log_dir>/train`` and ``<log_dir>/validation``), tags and steps, so a
user who swaps the callback sees the same charts:

- ``epoch_<metric>`` at step ``epoch`` (0-based), the validation metrics in the
  ``validation`` run without their ``val_`` prefix; ``epoch_learning_rate`` (one
  ``epoch_learning_rate_<name>`` per optimizer of a multi-optimizer); with
  ``write_steps_per_second``, ``epoch_steps_per_second``;
- with ``update_freq`` ``"batch"`` or N, ``batch_<metric>`` (and
  ``batch_steps_per_second``) at every Nth training batch, counted from 1 over the fit;
- ``evaluation_<metric>_vs_iterations`` in ``validation`` at the optimizer's iteration,
  after each evaluation;
- every ``histogram_freq`` epochs, each weight as ``<weight.path>/histogram`` (30 equal
  buckets, as ``tf.summary.histogram``) and, with ``write_images``, as
  ``<weight.path>/image``: Keras's own reshaping, several images at one step when it
  makes several (at most ``max_images``, ``tf.summary.image``'s ``max_outputs``);
- with ``write_graph``, the model as ONNX (``model.export(format="onnx")``) named
  ``keras`` in ``train``, written after the first batch; where the backend in use
  cannot export it, a warning says why, once.

On purpose unlike Keras's: a weight image spans the weight's own range (its minimum black,
its maximum white) where ``tf.summary.image`` clips to [0, 1], which draws every negative
weight black; the epoch, weight and evaluation summaries are written whatever
``update_freq`` is, where Keras's fall under the ``record_if`` of the last batch (with
``update_freq=2`` and 3 batches an epoch, Keras writes no ``epoch_*`` for epochs 0 and 2).
Profiling and embeddings (``profile_batch``, ``embeddings_freq``) write TensorFlow
profiler traces and checkpoints: they are taken and warned about, not written.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
import warnings
from collections.abc import Mapping
from typing import Any

import keras
import numpy as np

from visualdl import LogWriter

__all__ = ["VisualDLCallback"]

#: ``tf.summary.histogram``'s bucket count.
HISTOGRAM_BUCKETS = 30
#: ``tf.summary.image``'s ``max_outputs``: images kept of a weight that makes several.
MAX_IMAGES = 3


class VisualDLCallback(keras.callbacks.Callback):  # type: ignore[misc]  # keras ships no types
    """``keras.callbacks.TensorBoard``'s logging through :class:`visualdl.LogWriter`.

    ``model.fit(x, y, validation_split=0.2, callbacks=[VisualDLCallback("logs")])``, then
    ``visualdl --logdir logs``. The arguments are Keras's; ``max_images`` is how many
    images of one weight are kept, and ``writer_options`` go to each run's LogWriter
    (``flush_secs``, ``max_queue``, ...).
    """

    def __init__(
        self,
        log_dir: str | os.PathLike[str] = "logs",
        histogram_freq: int = 0,
        write_graph: bool = True,
        write_images: bool = False,
        write_steps_per_second: bool = False,
        update_freq: str | int = "epoch",
        profile_batch: int | str | tuple[int, int] = 0,
        embeddings_freq: int = 0,
        embeddings_metadata: Any = None,
        *,
        max_images: int = MAX_IMAGES,
        writer_options: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.log_dir = os.fspath(log_dir)
        if not isinstance(self.log_dir, str) or not self.log_dir:
            raise ValueError(f"log_dir must be a non-empty path; got {log_dir!r}")
        self.histogram_freq = _count("histogram_freq", histogram_freq)
        self.write_graph = bool(write_graph)
        self.write_images = bool(write_images)
        self.write_steps_per_second = bool(write_steps_per_second)
        self.update_freq = update_freq
        self._every = _batch_period(update_freq)
        self.max_images = _count("max_images", max_images)
        self._options = dict(writer_options or {})
        if profile_batch not in (0, "0", (0, 0), None):
            warnings.warn(
                f"VisualDLCallback: profile_batch={profile_batch!r} is not written (Keras's profiler writes "
                "TensorFlow profiler traces, which this log holds no record for)",
                stacklevel=2,
            )
        if embeddings_freq or embeddings_metadata is not None:
            warnings.warn(
                "VisualDLCallback: embeddings_freq and embeddings_metadata are not written (Keras saves a "
                "weights checkpoint for TensorBoard's projector); log a layer's embeddings with "
                "LogWriter.add_embeddings",
                stacklevel=2,
            )
        self._writers: dict[str, LogWriter] = {}
        self._training = False
        self._train_batch = 0
        self._graph_due = False
        self._batch_start = 0.0
        self._epoch_start = 0.0
        self._epoch_iterations = 0
        self._warned: set[str] = set()

    # -- runs ------------------------------------------------------------------------

    def _writer(self, run: str) -> LogWriter:
        writer = self._writers.get(run)
        if writer is None:
            writer = self._writers[run] = LogWriter(f"{self.log_dir.rstrip('/')}/{run}", **self._options)
        return writer

    def _close(self) -> None:
        writers, self._writers = self._writers, {}
        for writer in writers.values():
            writer.close()

    def _scalars(self, run: str, prefix: str, logs: Mapping[str, Any], step: int, suffix: str = "") -> None:
        writer = self._writer(run)
        for name, value in logs.items():
            number = self._number(name, value)
            if number is not None:
                writer.add_scalar(f"{prefix}{name}{suffix}", number, step)

    def _number(self, name: str, value: Any) -> float | None:
        if isinstance(value, float | int) and not isinstance(value, bool):
            return float(value)
        array = np.asarray(keras.ops.convert_to_numpy(value))
        if array.size == 1 and array.dtype.kind == "V":  # bfloat16 and other ml_dtypes, as tf.summary casts them
            array = array.astype(np.float32)
        if array.size == 1 and array.dtype.kind in "biuf":
            return float(array.reshape(()))
        self._warn_once(
            f"log:{name}",
            f"VisualDLCallback: logs[{name!r}] is not written: a scalar is needed, got shape {array.shape} "
            f"of {array.dtype} (log it with LogWriter.add_histogram or add_text)",
        )
        return None

    def _warn_once(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            warnings.warn(message, stacklevel=3)

    # -- Keras's hooks ---------------------------------------------------------------

    def on_train_begin(self, logs: Mapping[str, Any] | None = None) -> None:
        self._training = True
        self._train_batch = 0
        self._graph_due = self.write_graph

    def on_train_end(self, logs: Mapping[str, Any] | None = None) -> None:
        self._training = False
        self._close()

    def on_train_batch_begin(self, batch: int, logs: Mapping[str, Any] | None = None) -> None:
        self._train_batch += 1
        if self.write_steps_per_second:
            self._batch_start = time.perf_counter()

    def on_train_batch_end(self, batch: int, logs: Mapping[str, Any] | None = None) -> None:
        if self._graph_due:
            self._graph_due = False
            self._log_graph()
        step = self._train_batch
        if self._every is None or step % self._every:
            return
        if self.write_steps_per_second:
            seconds = time.perf_counter() - self._batch_start
            rate = 1.0 / seconds if seconds > 0 else math.inf
            self._writer("train").add_scalar("batch_steps_per_second", rate, step)
        if logs:
            self._scalars("train", "batch_", logs, step)

    def on_test_end(self, logs: Mapping[str, Any] | None = None) -> None:
        optimizer = getattr(self.model, "optimizer", None)
        if logs and optimizer is not None and hasattr(optimizer, "iterations"):
            iterations = int(keras.ops.convert_to_numpy(optimizer.iterations))
            self._scalars("validation", "evaluation_", logs, iterations, "_vs_iterations")
        if not self._training and "validation" in self._writers:  # model.evaluate on its own
            self._writers.pop("validation").close()

    def on_epoch_begin(self, epoch: int, logs: Mapping[str, Any] | None = None) -> None:
        if self.write_steps_per_second:
            self._epoch_iterations = self._iterations()
            self._epoch_start = time.perf_counter()

    def on_epoch_end(self, epoch: int, logs: Mapping[str, Any] | None = None) -> None:
        logs = dict(logs or {})
        train = {name: value for name, value in logs.items() if not name.startswith("val_")}
        validation = {name[4:]: value for name, value in logs.items() if name.startswith("val_")}
        if logs:  # Keras writes nothing for an epoch without logs, not even the learning rate
            train.update(self._learning_rates())
            if self.write_steps_per_second:
                seconds = time.perf_counter() - self._epoch_start
                steps = self._iterations() - self._epoch_iterations
                train["steps_per_second"] = steps / seconds if seconds > 0 else math.inf
        if train:
            self._scalars("train", "epoch_", train, epoch)
        if validation:
            self._scalars("validation", "epoch_", validation, epoch)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        for writer in self._writers.values():
            writer.flush()

    # -- what Keras's callback computes ----------------------------------------------

    def _iterations(self) -> int:
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is None or not hasattr(optimizer, "iterations"):
            return 0
        return int(keras.ops.convert_to_numpy(optimizer.iterations))

    def _learning_rates(self) -> dict[str, float]:
        optimizer: Any = getattr(self.model, "optimizer", None)
        if hasattr(optimizer, "inner_optimizer"):  # LossScaleOptimizer
            optimizer = optimizer.inner_optimizer
        if hasattr(optimizer, "optimizers"):
            return {
                f"learning_rate_{inner.name}": float(keras.ops.convert_to_numpy(inner.learning_rate))
                for inner in optimizer.optimizers
            }
        if isinstance(optimizer, keras.optimizers.Optimizer):
            return {"learning_rate": float(keras.ops.convert_to_numpy(optimizer.learning_rate))}
        return {}

    def _log_weights(self, epoch: int) -> None:
        writer = self._writer("train")
        for layer in self.model.layers:
            for weight in layer.weights:
                name = weight.path.replace(":", "_")
                values = np.asarray(keras.ops.convert_to_numpy(weight))
                if values.dtype.kind not in "biuf":  # bfloat16 and other ml_dtypes
                    values = values.astype(np.float32)
                writer.add_histogram(f"{name}/histogram", values, epoch, buckets=HISTOGRAM_BUCKETS)
                if self.write_images:
                    for image in weight_images(values, keras.backend.image_data_format())[: self.max_images]:
                        writer.add_image(f"{name}/image", image, epoch)

    def _log_graph(self) -> None:
        model = self.model
        backend = keras.backend.backend()
        try:
            with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the exporter's tracer warnings
                path = os.path.join(folder, "model.onnx")
                model.export(path, format="onnx", verbose=False)
                with open(path, "rb") as f:
                    data = f.read()
        except Exception as e:  # noqa: BLE001 -- the backend's exporter: any failure skips the graph
            self._warn_once(
                "graph",
                f"VisualDLCallback: the model graph is not written: Keras could not export model "
                f"{model.name!r} to ONNX on the {backend} backend ({type(e).__name__}: {e}); "
                "pass write_graph=False to silence this",
            )
            return
        self._writer("train").add_graph(data, name="keras")


def weight_images(values: np.ndarray, data_format: str = "channels_last") -> list[np.ndarray]:
    """The images ``keras.callbacks.TensorBoard`` makes of a weight, as uint8 HWC arrays
    spanning the weight's range: a bias is one row, a kernel one image with its longer side
    as width, a 3-D kernel one image per channel; none for other shapes or channels."""
    img = np.squeeze(values)
    if img.ndim == 1:
        img = img.reshape(1, img.shape[0], 1, 1)
    elif img.ndim == 2:
        if img.shape[0] > img.shape[1]:
            img = img.T
        img = img.reshape(1, img.shape[0], img.shape[1], 1)
    elif img.ndim == 3:
        if data_format == "channels_last":
            img = img.transpose(2, 0, 1)
        img = img.reshape(*img.shape, 1)
    if img.ndim != 4 or img.shape[-1] not in (1, 3, 4) or img.size == 0:
        return []
    pixels = np.nan_to_num(img.astype(np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    low, high = float(pixels.min()), float(pixels.max())
    scaled = (pixels - low) * (255.0 / (high - low)) if high > low else np.zeros_like(pixels)
    return list(np.rint(scaled).astype(np.uint8))


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise ValueError(f"{name} must be a whole number of 0 or more; got {value!r}")
    return int(value)


def _batch_period(update_freq: Any) -> int | None:
    """Every how many training batches the batch scalars are written (None: never)."""
    if update_freq == "epoch":
        return None
    if update_freq == "batch":
        return 1
    if isinstance(update_freq, bool) or not isinstance(update_freq, int | np.integer) or update_freq < 1:
        raise ValueError(f'update_freq must be "batch", "epoch" or a whole number of batches; got {update_freq!r}')
    return int(update_freq)
