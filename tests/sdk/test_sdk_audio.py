"""Audio: LogWriter -> WAV in the file -> LogReader, the same WAV bytes VisualDL 2.5.3
writes for the same clip (tests/data/vdl2/curves.json), bad input refused on the
caller's thread."""

from __future__ import annotations

import base64
import io
import json
import os
import tracemalloc
import wave

import numpy as np
import pytest
from kit.paths import DATA

from visualdl import LogReader, LogWriter
from visualdl._kinds.table import build_audio, encode_audio
from visualdl.sdk._audio import wav_header

CURVES = os.path.join(DATA, "vdl2", "curves.json")


def _read(logdir: str) -> LogReader:
    reader = LogReader(logdir)
    reader.poll()
    assert reader.problems == []
    return reader


def _frames(wav_bytes: bytes) -> tuple[int, int, int, np.ndarray]:
    with wave.open(io.BytesIO(wav_bytes), "rb") as wav:
        pcm = np.frombuffer(wav.readframes(wav.getnframes()), "<i2")
        return wav.getnchannels(), wav.getsampwidth(), wav.getframerate(), pcm


def test_sdk_audio_wav_equals_visualdl2s(logdir):
    with open(CURVES, encoding="utf-8") as f:
        theirs = json.load(f)["audio"]
    with LogWriter(logdir) as writer:
        writer.add_audio("clip", theirs["samples"], 4, sample_rate=theirs["sample_rate"])
    reader = _read(logdir)
    (event,) = reader.audio(".", "clip")
    assert (event.step, event.sample_rate, event.length_frames, event.channels) == (4, 16000, 56, 1)
    assert event.length_frames == theirs["length_frames"]
    assert reader.read_blob(event) == base64.b64decode(theirs["wav_base64"])
    assert event.size == len(base64.b64decode(theirs["wav_base64"]))


def test_sdk_audio_int16_is_stored_losslessly(logdir):
    pcm = np.array([-32768, -1, 0, 1, 32767, 1234], dtype=np.int16)
    with LogWriter(logdir) as writer:
        writer.add_audio("pcm", pcm.reshape(1, -1, 1), 0)  # squeezed, as VisualDL 2 does
    reader = _read(logdir)
    (event,) = reader.audio(".", "pcm")
    channels, width, rate, frames = _frames(reader.read_blob(event))
    assert (channels, width, rate, event.sample_rate) == (1, 2, 8000, 8000)
    assert frames.tolist() == pcm.tolist()


def test_sdk_audio_clips_loud_amplitudes_with_a_warning(logdir):
    with LogWriter(logdir) as writer:
        with pytest.warns(UserWarning, match=r"amplitudes up to 3, outside \[-1, 1\]"):
            writer.add_audio("loud", np.array([2.0, -3.0, 0.5]), 0)
    reader = _read(logdir)
    assert _frames(reader.read_blob(reader.audio(".", "loud")[0]))[3].tolist() == [32767, -32767, 16383]


def test_sdk_audio_channels_in_either_order_are_one_interleaved_wav(logdir):
    t = np.arange(800) / 8000
    left, right = np.sin(2 * np.pi * 440 * t) * 0.5, np.sin(2 * np.pi * 660 * t) * 0.25
    with LogWriter(logdir) as writer:
        writer.add_audio("stereo", np.stack([left, right], axis=1), 0)  # (frames, channels): tf.summary.audio's
        writer.add_audio("stereo", np.stack([left, right]).astype(np.float32), 1)  # (channels, frames): torchaudio's
        writer.add_audio("pcm", (np.stack([left, right], axis=1) * 32767).astype(np.int16)[::2], 2)  # strided
    reader = _read(logdir)
    expected = np.trunc(np.stack([left, right], axis=1) * 32767).astype(np.int16)
    for event in reader.audio(".", "stereo"):
        assert (event.channels, event.length_frames) == (2, 800)
        channels, width, rate, pcm = _frames(reader.read_blob(event))
        assert (channels, width, rate) == (2, 2, 8000)
        # float32 rounds the amplitudes before they are scaled: at most one step of 16 bits apart
        assert np.abs(pcm.reshape(-1, 2).astype(int) - expected).max() <= (0 if event.step == 0 else 1)
    (strided,) = reader.audio(".", "pcm")
    channels, _, _, pcm = _frames(reader.read_blob(strided))
    assert (
        channels == 2
        and pcm.reshape(-1, 2).tolist() == (np.stack([left, right], axis=1) * 32767).astype(np.int16)[::2].tolist()
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"audio_array": np.zeros((5, 5))}, ValueError, r"shape \(5, 5\) is not a clip: .*frames and channels"),
        ({"audio_array": np.zeros((40, 100))}, ValueError, r"at most 16 channels"),
        ({"audio_array": np.zeros((2, 3, 5))}, ValueError, r"one dimension \(mono\) or two .*got shape \(2, 3, 5\)"),
        ({"audio_array": []}, ValueError, "must not be empty"),
        ({"audio_array": [0.1, float("nan")]}, ValueError, "finite"),
        ({"audio_array": "noise"}, TypeError, "audio_array must be an array of samples"),
        ({"audio_array": np.array(["a"])}, TypeError, "dtype <U1"),
        ({"sample_rate": 0}, ValueError, "sample_rate must be a positive integer"),
        ({"sample_rate": 44100.0}, ValueError, "sample_rate"),
        ({"step": "one"}, TypeError, "step"),
        ({"walltime": -5}, ValueError, "walltime"),
    ],
)
def test_sdk_audio_refuses_bad_input_and_loses_nothing(logdir, kwargs, error, match):
    args = {"tag": "a", "audio_array": [0.0, 0.5], "step": 1, **kwargs}
    with LogWriter(logdir) as writer:
        writer.add_audio("a", [0.25], 0)
        with pytest.raises(error, match=match):
            writer.add_audio(**args)
    assert [e.step for e in _read(logdir).audio(".", "a")] == [0]


@pytest.mark.parametrize("frames", [0, 1, 60, 70_000])  # WAV lengths with 1-, 2- and 3-byte varints
def test_sdk_audio_record_built_from_parts_equals_the_message(frames):
    pcm = np.arange(frames, dtype="<i2")
    parts: list[bytes | memoryview] = [wav_header(frames, 22050), pcm.data]
    built = build_audio("a/b", 7, 1.5e9, parts, 22050, frames, 1).SerializeToString()
    assert built == encode_audio("a/b", 7, 1.5e9, b"".join(parts), 22050, frames, 1).SerializeToString()
    with wave.open(io.BytesIO(b"".join(parts)), "rb") as wav:  # the stdlib reads the header back
        assert (wav.getnframes(), wav.getframerate(), wav.getsampwidth()) == (frames, 22050, 2)


def test_sdk_audio_memory_is_a_small_multiple_of_the_wav(logdir):
    """A long float clip is converted a piece at a time and copied once into its record:
    what add_audio and close() hold at their peak stays a few times the WAV (it was 12
    times with a float64 copy, the clipped and scaled temporaries, the message and its
    serialization), and the WAV read back is the one written."""
    samples = 4_000_000
    clip = np.sin(np.linspace(0.0, 1000.0, samples))
    wav_bytes = 2 * samples + 44
    writer = LogWriter(logdir)
    tracemalloc.start()
    try:
        writer.add_audio("long", clip, 0, sample_rate=16000)
        writer.close()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 6 * wav_bytes, f"add_audio peaked at {peak / wav_bytes:.1f} times the WAV"
    reader = _read(logdir)
    (event,) = reader.audio(".", "long")
    assert event.size == wav_bytes and event.length_frames == samples
    assert np.array_equal(_frames(reader.read_blob(event))[3], np.trunc(clip * 32767.0).astype("<i2"))
