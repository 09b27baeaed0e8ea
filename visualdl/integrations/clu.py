"""A ``clu.metric_writers`` writer for JAX training loops, writing with LogWriter.

``VisualDLWriter(logdir)`` takes what clu's writers take (jax and numpy arrays, Python
numbers) through clu's ``MetricWriter`` interface, so it goes wherever clu's
``SummaryWriter`` goes: alone, in ``MultiWriter`` beside a ``LoggingWriter``, or behind
``AsyncWriter``. It subclasses clu's ``MetricWriter`` when ``clu.metric_writers`` imports
(clu 0.0.12's package imports TensorFlow for its own summary writer); without it, it is a
class of the same methods, which clu's combinators take as they are.

As clu's TensorFlow writer writes them: scalars, images (``[N, H, W, C]`` or
``[H, W, C]``; uint8, or floats scaled as ``tf.summary.image`` scales them: clipped to
[0, 1], times 255.5, truncated), the N images of a batch as N images of one tag at one
step; histograms in ``num_buckets[key]`` equal buckets (30 when not given, as
``tf.summary.histogram``); texts; audio clips (``[N, T, C]``, floats in [-1, 1]) as 16-bit
WAV, a clip of C channels as one WAV of them (more than 16 channels, or not fewer than its
frames: C mono clips at its step, with a warning); hyperparameters,
nested ones flattened as clu flattens them (``model.depth``, ``layers.0``).
Videos and raw summaries (``write_summaries``: tensors with TensorFlow plugin metadata) are
not written: a warning says so, once.

Unlike clu's writer, the hyperparameters are written with their metrics: every scalar key
written so far, updated at each ``flush`` and at ``close`` (the newest hparams record of a
run wins), so the runs table compares trials by them.
"""

from __future__ import annotations

import abc
import os
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from visualdl import LogWriter
from visualdl.sdk._audio import MAX_CHANNELS

__all__ = ["VisualDLWriter", "flatten_hparams"]

#: ``tf.summary.histogram``'s bucket count, clu's when ``num_buckets`` names none.
HISTOGRAM_BUCKETS = 30


class _Interface(abc.ABC):
    """``clu.metric_writers.MetricWriter``'s methods, for when clu's package cannot be imported."""

    @abc.abstractmethod
    def write_summaries(self, step: int, values: Mapping[str, Any], metadata: Mapping[str, Any] | None = None) -> None:
        """Write tensors with TensorFlow summary metadata."""

    @abc.abstractmethod
    def write_scalars(self, step: int, scalars: Mapping[str, Any]) -> None:
        """Write scalars at ``step``."""

    @abc.abstractmethod
    def write_images(self, step: int, images: Mapping[str, Any]) -> None:
        """Write images at ``step``."""

    @abc.abstractmethod
    def write_videos(self, step: int, videos: Mapping[str, Any]) -> None:
        """Write videos at ``step``."""

    @abc.abstractmethod
    def write_audios(self, step: int, audios: Mapping[str, Any], *, sample_rate: int) -> None:
        """Write audio clips at ``step``."""

    @abc.abstractmethod
    def write_texts(self, step: int, texts: Mapping[str, str]) -> None:
        """Write texts at ``step``."""

    @abc.abstractmethod
    def write_histograms(
        self, step: int, arrays: Mapping[str, Any], num_buckets: Mapping[str, int] | None = None
    ) -> None:
        """Write histograms at ``step``."""

    @abc.abstractmethod
    def write_hparams(self, hparams: Mapping[str, Any]) -> None:
        """Write hyperparameters."""

    @abc.abstractmethod
    def flush(self) -> None:
        """Write out what is buffered."""

    @abc.abstractmethod
    def close(self) -> None:
        """Flush and close."""


try:
    from clu.metric_writers.interface import MetricWriter as _Base
except ImportError:  # clu absent, or its metric_writers package without TensorFlow
    _Base = _Interface


class VisualDLWriter(_Base):  # type: ignore[misc]  # clu ships no types
    """A clu ``MetricWriter`` that writes a VisualDL log in ``logdir`` (or
    ``logdir/collection``, as clu's ``create_default_writer`` names it); ``writer_options``
    go to the LogWriter (``flush_secs``, ``max_queue``, ...)."""

    def __init__(
        self,
        logdir: str | os.PathLike[str],
        *,
        collection: str | None = None,
        writer_options: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        path = os.fspath(logdir)
        if collection:
            path = f"{path.rstrip('/')}/{collection}"
        self._writer = LogWriter(path, **dict(writer_options or {}))
        self._hparams: dict[str, Any] | None = None
        self._metrics: list[str] = []  # every scalar key written, in order
        self._known: set[str] = set()
        self._metrics_written = 0
        self._warned: set[str] = set()

    @property
    def logdir(self) -> str:
        return self._writer.logdir

    def write_summaries(self, step: int, values: Mapping[str, Any], metadata: Mapping[str, Any] | None = None) -> None:
        if values:
            self._warn_once(
                "summaries",
                f"VisualDLWriter.write_summaries: {sorted(values)!r} not written (raw tensors with TensorFlow "
                "plugin metadata have no record here); use write_scalars, write_images, write_histograms or "
                "write_texts",
            )

    def write_scalars(self, step: int, scalars: Mapping[str, Any]) -> None:
        step = _step(step)
        add = self._writer.add_scalar
        for key, value in scalars.items():
            add(key, _scalar(key, value), step)
            if key not in self._known:
                self._known.add(key)
                self._metrics.append(key)

    def write_images(self, step: int, images: Mapping[str, Any]) -> None:
        step = _step(step)
        for key, value in images.items():
            for image in _image_batch(key, value):
                self._writer.add_image(key, image, step)

    def write_videos(self, step: int, videos: Mapping[str, Any]) -> None:
        if videos:
            self._warn_once(
                "videos",
                f"VisualDLWriter.write_videos: {sorted(videos)!r} not written (no video record; clu's "
                "TensorFlow writer does not write them either); write frames with write_images",
            )

    def write_audios(self, step: int, audios: Mapping[str, Any], *, sample_rate: int) -> None:
        step = _step(step)
        for key, value in audios.items():
            clips = _array(key, value)
            if clips.ndim != 3:
                raise ValueError(
                    f"audios[{key!r}] must have shape [N, T, C] (clips, frames, channels); got shape {clips.shape}"
                )
            frames, channels = clips.shape[1], clips.shape[2]
            for clip in clips:
                if channels == 1:
                    self._writer.add_audio(key, clip[:, 0], step, sample_rate=sample_rate)
                elif channels < frames and channels <= MAX_CHANNELS:
                    self._writer.add_audio(key, clip, step, sample_rate=sample_rate)  # one WAV of C channels
                else:
                    self._warn_once(
                        f"channels:{key}",
                        f"VisualDLWriter.write_audios: audios[{key!r}] has {channels} channels of {frames} frames "
                        f"(one WAV holds at most {MAX_CHANNELS}, fewer than its frames); each channel is written "
                        "as a mono clip at its step",
                    )
                    for channel in clip.T:
                        self._writer.add_audio(key, channel, step, sample_rate=sample_rate)

    def write_texts(self, step: int, texts: Mapping[str, str]) -> None:
        step = _step(step)
        for key, text in texts.items():
            self._writer.add_text(key, text, step)

    def write_histograms(
        self, step: int, arrays: Mapping[str, Any], num_buckets: Mapping[str, int] | None = None
    ) -> None:
        step = _step(step)
        for key, value in arrays.items():
            buckets = num_buckets.get(key) if num_buckets else None
            self._writer.add_histogram(key, _array(key, value), step, buckets=buckets or HISTOGRAM_BUCKETS)

    def write_hparams(self, hparams: Mapping[str, Any]) -> None:
        if not hasattr(hparams, "items"):
            raise TypeError(f"hparams must be a mapping of name -> value; got {type(hparams).__name__}")
        self._hparams = {name: _hparam(value) for name, value in flatten_hparams(hparams).items()}
        self._writer.add_hparams(self._hparams, list(self._metrics))
        self._metrics_written = len(self._metrics)

    def flush(self) -> None:
        self._update_metrics()
        self._writer.flush()

    def close(self) -> None:
        self._update_metrics()
        self._writer.close()

    def _update_metrics(self) -> None:
        if self._hparams is not None and len(self._metrics) != self._metrics_written:
            self._writer.add_hparams(self._hparams, list(self._metrics))
            self._metrics_written = len(self._metrics)

    def _warn_once(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            warnings.warn(message, stacklevel=3)

    def __enter__(self) -> VisualDLWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _array(key: str, value: Any) -> np.ndarray:
    """A numpy array of a jax array, numpy array or nested list; bfloat16 and other
    ml_dtypes as float32."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError, RuntimeError) as e:
        raise TypeError(f"{key!r}: expected an array (jax or numpy); got {type(value).__name__}: {e}") from e
    if array.dtype.kind == "V" or array.dtype.kind not in "biufcUSO":
        array = array.astype(np.float32)  # ml_dtypes (bfloat16, float8) are kind "V"
    return array


def _scalar(key: str, value: Any) -> Any:
    if isinstance(value, float | int):
        return value
    array = _array(key, value)
    if array.size != 1:
        raise ValueError(f"scalars[{key!r}] must hold one value; got shape {array.shape}")
    return array.reshape(()).item()


def _step(step: Any) -> int:
    if isinstance(step, int):
        return step
    array = np.asarray(step)
    if array.shape != () or array.dtype.kind not in "iu":
        raise TypeError(f"step must be a whole number; got {step!r}")
    return int(array)


def _image_batch(key: str, value: Any) -> list[np.ndarray]:
    """The images of ``[N, H, W, C]`` or ``[H, W, C]`` as uint8 HWC arrays, in order."""
    images = _array(key, value)
    if images.ndim == 3:
        images = images[None]
    if images.ndim != 4:
        raise ValueError(f"images[{key!r}] must have shape [N, H, W, C] or [H, W, C]; got shape {images.shape}")
    kind = images.dtype.kind
    if kind == "f":  # tf.image.convert_image_dtype(saturate=True): x * 255.5, clipped, truncated
        with np.errstate(invalid="ignore"):
            images = np.clip(np.nan_to_num(images, nan=0.0) * 255.5, 0, 255).astype(np.uint8)
    elif images.dtype != np.uint8:
        raise TypeError(f"images[{key!r}] must be uint8 or floats in [0, 1]; got {images.dtype} (scale it to uint8)")
    return list(images)


def flatten_hparams(hparams: Any, prefix: str = "") -> dict[str, Any]:
    """Nested hyperparameters as clu's writer flattens them: a mapping (or a ``ConfigDict``)
    by dotted keys, a list or tuple by index (``layers.0``), None as ``""``."""
    flat: dict[str, Any] = {}
    for key, value in hparams.items():
        name = f"{prefix}{key}"
        if hasattr(value, "items"):
            flat.update(flatten_hparams(value, f"{name}."))
        elif isinstance(value, list | tuple):
            flat.update(flatten_hparams(dict(enumerate(value)), f"{name}."))
        else:
            flat[name] = "" if value is None else value
    return flat


def _hparam(value: Any) -> Any:
    if isinstance(value, bool | int | float | str):
        return value
    if hasattr(value, "shape") and np.shape(value) == ():  # a jax or numpy scalar
        return np.asarray(value).item()
    return value  # LogWriter.add_hparams names what it refuses
