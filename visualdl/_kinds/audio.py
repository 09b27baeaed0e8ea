"""The audio kind: a clip's WAV bytes, with its rate, length and channels beside them so
that clips are listed without reading their bytes (a ``blob`` kind)."""

from __future__ import annotations

from dataclasses import dataclass

from visualdl._kinds.kind import Kind, RecordRef
from visualdl.proto import pb

__all__ = ["KIND", "AudioEvent", "encode_audio"]


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
