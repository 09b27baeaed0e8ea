"""The audio kind: a clip's WAV bytes, with its rate, length and channels beside them so
that clips are listed without reading their bytes (a ``blob`` kind)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from visualdl._kinds.kind import BuiltRecord, Kind, RecordRef
from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = ["KIND", "MAX_SAMPLE_RATE", "AudioEvent", "build_audio", "encode_audio", "sample_rate_of"]

#: The highest sample rate a clip may have (our records hold it in a uint32).
MAX_SAMPLE_RATE = (1 << 32) - 1

_LEN = 2  # protobuf's wire type of length-delimited fields
_RECORD_AUDIO = 8  # Record.audio
_AUDIO_WAV = 7  # Audio.wav, its last field


@dataclass(frozen=True, slots=True)
class AudioEvent:
    """A clip; :meth:`LogReader.read_blob` gives its WAV bytes (``size`` of them). A step
    may hold several clips (a batch, as ``tf.summary.audio`` writes it), in the order
    written; ``label`` is the text a writer gave the clip (TensorBoard's audio plugin
    takes one per clip; ours and the legacy record have none)."""

    step: int
    wall_time: float
    sample_rate: int
    length_frames: int
    channels: int
    size: int
    ref: RecordRef
    label: str = ""


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


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def build_audio(
    tag: str, step: int, wall_time: float, wav: Sequence[bytes | memoryview], sample_rate: int, length_frames: int,
    channels: int,
) -> BuiltRecord:  # fmt: skip
    """The record :func:`encode_audio` makes, byte for byte, from the WAV's parts (its header,
    its samples' buffer), which are copied once: into the record's bytes."""
    head = pb.Audio(
        tag=tag, step=step, wall_time=wall_time, sample_rate=sample_rate, length_frames=length_frames, channels=channels
    ).SerializeToString()
    size = sum(memoryview(part).nbytes for part in wav)
    blob_key = _varint(_AUDIO_WAV << 3 | _LEN) + _varint(size)
    audio_key = _varint(_RECORD_AUDIO << 3 | _LEN) + _varint(len(head) + len(blob_key) + size)
    return BuiltRecord(b"".join([audio_key, head, blob_key, *(memoryview(part).cast("B") for part in wav)]))


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
