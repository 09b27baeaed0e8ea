"""The audio kind: a clip's WAV bytes, with its rate, length and channels beside them so
that clips are listed without reading their bytes (a ``blob`` kind)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from visualdl._kinds.kind import Kind, RecordRef
from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = ["KIND", "MAX_SAMPLE_RATE", "AudioEvent", "encode_audio", "sample_rate_of"]

#: The highest sample rate a clip may have (our records hold it in a uint32).
MAX_SAMPLE_RATE = (1 << 32) - 1


@dataclass(frozen=True, slots=True)
class AudioEvent:
    """A clip; :meth:`LogReader.read_blob` gives its WAV bytes (``size`` of them)."""

    step: int
    wall_time: float
    sample_rate: int
    length_frames: int
    channels: int
    size: int
    ref: RecordRef


def sample_rate_of(rate: float) -> int:
    """A sample rate that a foreign format stores as a float (TensorBoard's and VisualDL 2's
    ``Audio``), as the whole number of frames per second it must be; :class:`LogFormatError`
    when it is not one from 1 to :data:`MAX_SAMPLE_RATE` (infinite, NaN, fractional, huge)."""
    if not (math.isfinite(rate) and 0 < rate <= MAX_SAMPLE_RATE and rate == int(rate)):
        raise LogFormatError(f"audio with a sample rate of {rate}, not a whole number from 1 to {MAX_SAMPLE_RATE}")
    return int(rate)


def encode_audio(
    tag: str, step: int, wall_time: float, wav: bytes, sample_rate: int, length_frames: int, channels: int
) -> pb.Record:
    audio = pb.Audio(
        tag=tag,
        step=step,
        wall_time=wall_time,
        sample_rate=sample_rate,
        length_frames=length_frames,
        channels=channels,
        wav=wav,
    )
    return pb.Record(audio=audio)


def _decode_audio(msg: pb.Audio, path: str, offset: int) -> list[tuple[str, AudioEvent]]:
    ref = RecordRef(path, offset)
    event = AudioEvent(msg.step, msg.wall_time, msg.sample_rate, msg.length_frames, msg.channels, len(msg.wav), ref)
    return [(msg.tag, event)]


KIND = Kind(
    "audio",
    "audio",
    _decode_audio,
    event=AudioEvent,
    encode=encode_audio,
    storage="blob",
    title="Audio",
    blob_field="wav",
    media_type="audio/wav",
)
