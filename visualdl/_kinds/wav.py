"""A WAV file's shape read from its header: clips whose record does not say their sample
rate, channels and length (TensorFlow 2's ``tf.summary.audio``, a string tensor of encoded
clips) are listed by it without reading their samples."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["WavShape", "wav_shape"]

#: Chunks walked at most before the ``data`` chunk (a WAV has ``fmt ``, maybe ``LIST`` or ``fact``).
_MAX_CHUNKS = 64


@dataclass(frozen=True, slots=True)
class WavShape:
    """What a WAV's header says: frames per second, channels, and frames in its data."""

    sample_rate: int
    channels: int
    frames: int


def wav_shape(wav: bytes) -> WavShape | None:
    """The :class:`WavShape` of a RIFF/WAVE file from its ``fmt `` and ``data`` chunks;
    None when ``wav`` is not one (another encoding, or no ``fmt `` chunk before ``data``).
    A ``data`` chunk longer than the bytes there are (a stream whose header was written
    before its length was known) counts the frames that are there."""
    if len(wav) < 12 or wav[:4] != b"RIFF" or wav[8:12] != b"WAVE":
        return None
    pos, rate, channels, align = 12, 0, 0, 0
    for _ in range(_MAX_CHUNKS):
        if pos + 8 > len(wav):
            return None
        chunk, size = wav[pos : pos + 4], int.from_bytes(wav[pos + 4 : pos + 8], "little")
        body = pos + 8
        if chunk == b"fmt ":
            if size < 16 or body + 16 > len(wav):
                return None
            channels = int.from_bytes(wav[body + 2 : body + 4], "little")
            rate = int.from_bytes(wav[body + 4 : body + 8], "little")
            align = int.from_bytes(wav[body + 12 : body + 14], "little")
        elif chunk == b"data":
            if not (rate and channels and align):
                return None
            return WavShape(rate, channels, min(size, len(wav) - body) // align)
        pos = body + size + (size & 1)  # chunks are padded to an even length
    return None
