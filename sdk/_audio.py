"""Audio clips as LogWriter takes them: checked on the caller's thread, encoded as WAV
(16-bit PCM, the stdlib ``wave`` module) on the writer's thread.

As VisualDL 2: the clip is squeezed to one dimension; float samples are amplitudes in
[-1, 1] (louder ones are clipped, with a warning) and become ``int(32767 * x)``.
Unlike VisualDL 2, an ``int16`` array is taken as PCM samples and stored as it is.
"""

from __future__ import annotations

import io
import numbers
import warnings
import wave
from typing import Any

import numpy as np

from visualdl.sdk._convert import MAX_PAYLOAD_BYTES, describe, number_array

__all__ = ["MAX_SAMPLE_RATE", "check_audio", "check_sample_rate", "encode_wav"]

#: WAV stores the sample rate in 32 bits; no recorder goes near this.
MAX_SAMPLE_RATE = 2**31 - 1
#: Header bytes of a WAV file the ``wave`` module writes.
_WAV_HEADER = 44


def check_sample_rate(sample_rate: Any) -> int:
    if (
        isinstance(sample_rate, bool | np.bool_)
        or not isinstance(sample_rate, numbers.Integral)
        or not 1 <= int(sample_rate) <= MAX_SAMPLE_RATE
    ):
        raise ValueError(
            f"sample_rate must be a positive integer number of frames per second (e.g. 16000); "
            f"got {describe(sample_rate)}"
        )
    return int(sample_rate)


def check_audio(audio_array: Any) -> np.ndarray:
    """A one-dimensional owned copy of the clip: ``int16`` PCM samples, or float64
    amplitudes (clipped to [-1, 1] by :func:`encode_wav`, with a warning here)."""
    arr = number_array(audio_array, "audio_array", "an array of samples")
    squeezed = arr.squeeze() if arr.ndim != 1 else arr
    if squeezed.ndim != 1:
        raise ValueError(
            f"audio_array must be one-dimensional (one channel) once squeezed; got shape {arr.shape} "
            "(log one channel at a time, e.g. audio_array[:, 0])"
        )
    if squeezed.size == 0:
        raise ValueError("audio_array must not be empty; got 0 samples")
    if squeezed.size * 2 + _WAV_HEADER > MAX_PAYLOAD_BYTES:
        raise ValueError(
            f"audio_array of {squeezed.size:,} samples is above the limit of one record "
            f"({(MAX_PAYLOAD_BYTES - _WAV_HEADER) // 2:,} 16-bit samples); log it in pieces"
        )
    if squeezed.dtype == np.int16:
        return np.array(squeezed, dtype="<i2")
    samples = np.array(squeezed, dtype=np.float64)
    if not np.isfinite(samples).all():
        raise ValueError("audio_array must hold finite amplitudes; got NaN or infinite samples")
    peak = float(np.abs(samples).max())
    if peak > 1.0:
        warnings.warn(
            f"audio_array has amplitudes up to {peak:g}, outside [-1, 1]: they are clipped "
            "(scale the clip, or pass int16 PCM samples)",
            stacklevel=3,
        )
    return samples


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """A mono 16-bit PCM WAV file of samples from :func:`check_audio`."""
    if samples.dtype != np.dtype("<i2"):
        samples = np.trunc(np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2")
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        wav.writeframes(samples.tobytes())
    return out.getvalue()
