"""Several clips at one step (``tf.summary.audio`` with ``max_outputs`` above 1, clu's
``write_audios``): one tag with the step's clips, numbered and served one by one by the API.

The first test reads the log TensorFlow 2 wrote (``tests/data/tflogs/tf2``, see its README);
the second writes what TensorBoard's audio ``summary.pb`` writes with labels (a ``[k, 2]``
string tensor of WAV and label under the audio plugin), built here from its messages since
that function needs TensorFlow to encode."""

from __future__ import annotations

import io
import os
import shutil
import wave

import numpy as np
import pytest
from kit.apps import build_app
from kit.foreign import WALL, write_tfevents
from kit.requirements import require

from visualdl import LogReader
from visualdl.proto import tb

try:
    from tensorboard.plugins.audio import metadata as audio_metadata
except ImportError:  # pragma: no cover - the test extra installs it
    audio_metadata = None

require(audio_metadata is not None, "tensorboard", "pip install -e '.[test]'")

TF2 = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "tflogs", "tf2")


def _client(logdir: str):
    app = build_app(logdir, poll=False)
    app.extensions["visualdl.provider"].poll()
    return app.test_client()


def _tf2_clips(tag: str) -> dict[int, list[bytes]]:
    """step -> the WAVs of ``tag`` in the TF2 log, read from its events with our schema."""
    (name,) = os.listdir(TF2)
    with open(os.path.join(TF2, name), "rb") as f:
        data = f.read()
    out: dict[int, list[bytes]] = {}
    pos = 0
    while pos < len(data):
        n = int.from_bytes(data[pos : pos + 8], "little")
        event = tb.Event.FromString(data[pos + 12 : pos + 12 + n])
        pos += 16 + n
        for value in event.summary.value:
            if value.tag == tag:
                out[event.step] = list(value.tensor.string_val[::2])
    return out


def test_audio_batches_tf2_clips_listed_by_sample_and_served_each(tmp_path):
    logdir = tmp_path / "logs"
    shutil.copytree(TF2, logdir / "tf2")
    client = _client(str(logdir))
    assert client.get("/api/tags").get_json()["audio"] == {"audio/music": ["tf2"], "audio/speech": ["tf2"]}
    for tag, rate, channels, frames in (("audio/speech", 8000, 1, 200), ("audio/music", 22050, 2, 300)):
        clips = _tf2_clips(tag)
        entries = client.get(f"/api/audio?run=tf2&tag={tag}").get_json()["entries"]
        assert [e["step"] for e in entries] == [step for step, wavs in clips.items() for _ in wavs]
        assert [e["sample"] for e in entries] == [k for wavs in clips.values() for k in range(len(wavs))]
        assert {(e["sample_rate"], e["channels"], e["frames"], e["label"]) for e in entries} == {
            (rate, channels, frames, "")
        }
        assert {e["seconds"] for e in entries} == {frames / rate}
        for step, wavs in clips.items():
            for k, wav in enumerate(wavs):
                answer = client.get(f"/api/audio/clip?run=tf2&tag={tag}&step={step}&sample={k}")
                assert answer.status_code == 200 and answer.mimetype == "audio/wav"
                assert answer.data == wav, (tag, step, k)
        # By index in the list: the same clips; a step alone is its last clip, as for images.
        flat = [wav for wavs in clips.values() for wav in wavs]
        assert client.get(f"/api/audio/clip?run=tf2&tag={tag}&index=4").data == flat[4]
        assert client.get(f"/api/audio/clip?run=tf2&tag={tag}&step=2").data == clips[2][-1]
    missing = client.get("/api/audio/clip?run=tf2&tag=audio/music&step=1&sample=2")
    assert missing.status_code == 404 and "sample 2" in missing.get_json()["error"]


def _wav(samples: np.ndarray, rate: int) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(samples.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((samples * 32767).astype("<i2").tobytes())
    return buf.getvalue()


def test_audio_batches_labels_and_a_batch_that_shrinks(logdir):
    """Each clip's label, as TensorBoard's ``summary.pb(labels=...)`` writes it; a step of
    three clips, then one of a single clip."""
    rng = np.random.default_rng(3)
    batches = {0: ["**one**", "two", "three"], 1: ["alone"]}
    meta = audio_metadata.create_summary_metadata(
        display_name="voice", description="", encoding=audio_metadata.Encoding.Value("WAV")
    )
    wavs: dict[int, list[bytes]] = {}
    events = []
    for step, labels in batches.items():
        wavs[step] = [_wav(rng.uniform(-1, 1, (50 + 10 * k, 1)), 16000) for k in range(len(labels))]
        strings = [s for wav, label in zip(wavs[step], labels, strict=True) for s in (wav, label.encode())]
        tensor = tb.TensorProto(dtype=tb.DataType.DT_STRING, string_val=strings)
        tensor.tensor_shape.dim.add(size=len(labels))
        tensor.tensor_shape.dim.add(size=2)
        value = tb.Summary.Value(tag="voice", tensor=tensor)
        if step == 0:  # only a tag's first value names its plugin, as TensorFlow writes it
            value.metadata.ParseFromString(meta.SerializeToString())
        events.append(tb.Event(wall_time=WALL + step, step=step, summary=tb.Summary(value=[value])))
    write_tfevents(os.path.join(logdir, "run"), events)
    client = _client(logdir)
    entries = client.get("/api/audio?run=run&tag=voice").get_json()["entries"]
    assert [(e["step"], e["sample"], e["label"]) for e in entries] == [
        (0, 0, "**one**"),
        (0, 1, "two"),
        (0, 2, "three"),
        (1, 0, "alone"),
    ]
    assert [e["frames"] for e in entries] == [50, 60, 70, 50]
    assert [e["bytes"] for e in entries] == [len(w) for step in batches for w in wavs[step]]
    assert client.get("/api/audio/clip?run=run&tag=voice&step=0&sample=2").data == wavs[0][2]
    assert client.get("/api/audio/clip?run=run&tag=voice&step=1&sample=0").data == wavs[1][0]


@pytest.mark.parametrize(
    ("strings", "shape", "problem"),
    [
        ([b"not a wav", b""], [1, 2], "audio clip 0 is not a WAV file"),
        ([b"RIFF"], [1, 2], "audio tensor of shape [1, 2] with 1 strings"),
        ([], [3, 0], "audio tensor of shape [3, 0] with 0 strings"),
    ],
)
def test_audio_batches_a_bad_clip_is_a_problem_named(logdir, strings, shape, problem):
    meta = audio_metadata.create_summary_metadata(display_name="", description="", encoding=11)
    tensor = tb.TensorProto(dtype=tb.DataType.DT_STRING, string_val=strings)
    for size in shape:
        tensor.tensor_shape.dim.add(size=size)
    value = tb.Summary.Value(tag="voice", tensor=tensor)
    value.metadata.ParseFromString(meta.SerializeToString())
    write_tfevents(os.path.join(logdir, "run"), [tb.Event(wall_time=WALL, step=0, summary=tb.Summary(value=[value]))])
    reader = LogReader(logdir)
    assert reader.tags("run")["audio"] == []
    assert any(problem in p.message for p in reader.problems), reader.problems
