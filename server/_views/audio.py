"""The answers of the audio routes: a tag's clips, and where one clip's WAV bytes lie.

The clips are listed with sample rate, channels, frames and length; a clip's bytes are not
read here but located (file, offset, length, its record checked) to be streamed. A step may
hold several clips (a batch: ``tf.summary.audio`` with ``max_outputs`` above 1): they come
one after another in the order written, ``sample`` numbering each among its step's, which
is what ``/api/audio/clip?step=&sample=`` asks for.
"""

from __future__ import annotations

from typing import Any

from visualdl._kinds.table import AudioEvent
from visualdl.errors import NotFound, VisualDLError
from visualdl.server._provider import DataProvider, pick
from visualdl.server._views.images import samples_of

__all__ = ["audio_answer", "audio_clip"]


def audio_answer(run: str, tag: str, clips: list[AudioEvent]) -> dict[str, Any]:
    """The answer of ``/api/audio``: every clip of a tag, without its bytes."""
    samples = samples_of([e.step for e in clips])
    return {
        "run": run,
        "tag": tag,
        "entries": [
            {
                "step": e.step,
                "wall_time": e.wall_time,
                "sample_rate": e.sample_rate,
                "channels": e.channels,
                "frames": e.length_frames,
                "seconds": e.length_frames / e.sample_rate if e.sample_rate > 0 else 0.0,
                "bytes": e.size,
                "sample": sample,
                "label": e.label,
            }
            for e, sample in zip(clips, samples, strict=True)
        ],
    }


def audio_clip(
    provider: DataProvider,
    *,
    run: str,
    tag: str,
    index: int | None = None,
    step: int | None = None,
    sample: int | None = None,
) -> tuple[str, int, int]:
    """Where the WAV bytes of a clip lie: ``(path, offset, length)``, checked, to stream. The
    ``index``-th clip of the tag, or at ``step`` the ``sample``-th (the last without it)."""
    reader, events = provider.events(run, "audio", tag)
    index = pick(events, index, step, "clip", f"{tag!r} in {run!r}", sample=sample)
    try:
        return reader.open_blob(events[index])
    except (OSError, VisualDLError) as e:
        raise NotFound(f"clip {index} of {tag!r} in {run!r} cannot be read: {e}") from e
