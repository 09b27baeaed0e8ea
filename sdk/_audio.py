"""Audio clips as LogWriter takes them: checked and converted to 16-bit PCM on the caller's
thread, a piece at a time; the WAV's header is put in front of the samples on the writer's
thread, as the record is built (the samples copied once, into the record).

As VisualDL 2: the clip is squeezed; float samples are amplitudes in [-1, 1] (louder ones
are clipped, with a warning) and become ``int(32767 * x)``. Unlike VisualDL 2 (mono only),
a clip of several channels is one WAV of them.
Unlike VisualDL 2, an ``int16`` array is taken as PCM samples and stored as it is.
"""

from __future__ import annotations

import numbers
import struct
import warnings
from typing import Any

import numpy as np

from visualdl.sdk._convert import MAX_PAYLOAD_BYTES, describe, number_array

__all__ = ["MAX_CHANNELS", "MAX_SAMPLE_RATE", "check_audio", "check_sample_rate", "encode_wav", "wav_header"]

#: WAV stores the sample rate in 32 bits; no recorder goes near this.
MAX_SAMPLE_RATE = 2**31 - 1
#: Channels of one clip at most (7.1 surround is 8; third-order ambisonics 16); more is taken
#: for a mistake, such as an image passed as a clip.
MAX_CHANNELS = 16
#: Header bytes of a WAV file the ``wave`` module writes.
_WAV_HEADER = 44
#: Float samples checked and converted at a time (8 MB of float64).
_PIECE = 1 << 20


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
    """The clip as an owned ``(frames, channels)`` array of 16-bit PCM samples (``<i2``, C
    order: the channels of a frame side by side, as WAV interleaves them): ``int16`` samples
    as they are, float amplitudes clipped to [-1, 1] (with a warning) and scaled as
    VisualDL 2 does. Floats are checked and converted :data:`_PIECE` samples at a time, so
    that what this holds beside the caller's array is the PCM copy (2 bytes a sample).

    Squeezed to one dimension it is one channel. Two dimensions are frames and channels in
    either order, the channels being the shorter one (``(frames, channels)`` as
    ``tf.summary.audio`` and soundfile take it, ``(channels, frames)`` as torchaudio and
    librosa give it), at most :data:`MAX_CHANNELS` of them."""
    arr = number_array(audio_array, "audio_array", "an array of samples")
    squeezed = arr.squeeze() if arr.ndim != 1 else arr
    if squeezed.ndim == 2:
        frames, channels = max(squeezed.shape), min(squeezed.shape)
        if frames == channels or channels > MAX_CHANNELS:
            raise ValueError(
                f"audio_array of shape {arr.shape} is not a clip: two dimensions are frames and channels "
                f"(at most {MAX_CHANNELS} channels, fewer than frames)"
            )
        if squeezed.shape[0] == channels:
            squeezed = squeezed.T  # channels first: frames first, as WAV interleaves them
    elif squeezed.ndim == 1:
        pass
    else:
        raise ValueError(
            f"audio_array must be a clip of one dimension (mono) or two (frames and channels) once "
            f"squeezed; got shape {arr.shape}"
        )
    if squeezed.size == 0:
        raise ValueError("audio_array must not be empty; got 0 samples")
    if squeezed.size * 2 + _WAV_HEADER > MAX_PAYLOAD_BYTES:
        raise ValueError(
            f"audio_array of {squeezed.size:,} samples is above the limit of one record "
            f"({(MAX_PAYLOAD_BYTES - _WAV_HEADER) // 2:,} 16-bit samples); log it in pieces"
        )
    shape = (squeezed.shape[0], squeezed.shape[1] if squeezed.ndim == 2 else 1)
    if squeezed.dtype == np.int16:
        return np.array(squeezed, dtype="<i2", order="C").reshape(shape)
    flat = squeezed.reshape(-1) if squeezed.ndim == 1 or squeezed.flags.c_contiguous else None
    if flat is None:
        flat = np.ascontiguousarray(squeezed).reshape(-1)  # a transposed or strided clip: once in its dtype
    pcm = np.empty(flat.size, "<i2")
    peak = 0.0
    for lo in range(0, flat.size, _PIECE):
        piece = np.asarray(flat[lo : lo + _PIECE], dtype=np.float64)
        if not np.isfinite(piece).all():
            raise ValueError("audio_array must hold finite amplitudes; got NaN or infinite samples")
        peak = max(peak, float(np.abs(piece).max()))
        pcm[lo : lo + _PIECE] = np.trunc(np.clip(piece, -1.0, 1.0) * 32767.0)
    if peak > 1.0:
        warnings.warn(
            f"audio_array has amplitudes up to {peak:g}, outside [-1, 1]: they are clipped "
            "(scale the clip, or pass int16 PCM samples)",
            stacklevel=3,
        )
    return pcm.reshape(shape)


def wav_header(frames: int, sample_rate: int, channels: int = 1) -> bytes:
    """The 44 bytes in front of ``frames`` frames of ``channels`` interleaved 16-bit PCM
    samples in a WAV file, as the ``wave`` module writes them."""
    data = 2 * frames * channels
    return b"RIFF" + struct.pack(
        "<L4s4sLHHLLHH4sL",
        36 + data,
        b"WAVE",
        b"fmt ",
        16,
        1,
        channels,
        sample_rate,
        2 * channels * sample_rate,
        2 * channels,
        16,
        b"data",
        data,
    )


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """A 16-bit PCM WAV file of a clip from :func:`check_audio` (``(frames, channels)``)."""
    frames, channels = samples.shape if samples.ndim == 2 else (samples.size, 1)
    return wav_header(frames, sample_rate, channels) + samples.astype("<i2", copy=False).tobytes()
