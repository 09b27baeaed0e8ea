"""The answer of ``/api/audio``: a tag's clips, without their bytes.

The clips are listed with sample rate, channels, frames and length; a clip's bytes are
located by the provider (:meth:`~visualdl.server._provider.DataProvider.locate_blob`: file,
offset, length, its record checked) to be streamed. A step may hold several clips (a batch:
``tf.summary.audio`` with ``max_outputs`` above 1): they come one after another in the order
written, ``sample`` numbering each among its step's, which is what
``/api/audio/clip?step=&sample=`` asks for.
"""

from __future__ import annotations

from typing import Any

from visualdl._kinds.table import AudioEvent
from visualdl.server._views.images import samples_of

__all__ = ["audio_answer"]


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
