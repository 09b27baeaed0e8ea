"""Several clips at one step (``tf.summary.audio`` with ``max_outputs`` above 1) in a real
browser: one card with a player per clip of the step, each with its index (and label), and
a slider over the steps, not the clips. The log is the one TensorFlow 2 wrote
(``tests/data/tflogs/tf2``), plus a run whose clips carry labels."""

from __future__ import annotations

import io
import os
import shutil
import wave

import numpy as np
import pytest
from kit.foreign import WALL, write_tfevents
from kit.pages import card, open_tab, wait_for
from kit.servers import serve_cli

from visualdl.proto import tb

TF2 = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "data", "tflogs", "tf2")
MOVE_JS = "(el, index) => { el.value = index; el.dispatchEvent(new Event('input')); }"
#: Per clip shown: [index text, index shown, label, its index= in the URL, duration once loaded].
ROWS_JS = """(el) => Array.from(el.querySelectorAll('.clip')).map((c) => {
  const a = c.querySelector('audio');
  const index = c.querySelector('.clip-index');
  const label = c.querySelector('.clip-label');
  return [index.textContent, !index.hidden, label.hidden ? null : label.textContent,
          new URL(a.src).searchParams.get('index'), a.readyState >= 1 ? a.duration : null];
})"""


def _wav(frames: int, rate: int) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.zeros(frames, "<i2").tobytes())
    return buf.getvalue()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("audio_batch_logs")
    shutil.copytree(TF2, logdir / "tf2")
    # What TensorBoard's audio summary.pb writes with labels: a [k, 2] tensor of WAV and label.
    meta = tb.SummaryMetadata(plugin_data=tb.SummaryMetadata.PluginData(plugin_name="audio"))
    strings = [_wav(800, 16000), b"first *clip*", _wav(1600, 16000), b"second"]
    tensor = tb.TensorProto(dtype=tb.DataType.DT_STRING, string_val=strings)
    tensor.tensor_shape.dim.add(size=2)
    tensor.tensor_shape.dim.add(size=2)
    value = tb.Summary.Value(tag="voice", tensor=tensor, metadata=meta)
    write_tfevents(logdir / "labelled", [tb.Event(wall_time=WALL, step=5, summary=tb.Summary(value=[value]))])
    with serve_cli(["--logdir", str(logdir)], str(logdir / "server.log")) as base:
        yield base


def _rows_at(audio_card, step: int, count: int):
    """The rows once the card shows ``step`` with ``count`` clips, each with its duration; None before."""
    if audio_card.get_attribute("data-step") != str(step):
        return None
    rows = audio_card.evaluate(ROWS_JS)
    return rows if len(rows) == count and all(r[4] is not None for r in rows) else None


def test_audio_batch_card_shows_a_player_per_clip_of_the_step(page, server):
    open_tab(page, server, "audio")
    speech = card(page, "audio/speech", "tf2")
    # The newest step: its 3 clips of 200 frames at 8 kHz, numbered 0 to 2, list indexes 6 to 8.
    rows = wait_for(lambda: _rows_at(speech, 2, 3), "the clips of step 2")
    assert speech.get_attribute("data-clips") == "3"
    assert [r[:4] for r in rows] == [[str(k), True, None, str(6 + k)] for k in range(3)]
    assert all(r[4] == pytest.approx(200 / 8000, abs=0.002) for r in rows)
    assert "3 clips" in speech.locator(".caption").inner_text()
    assert speech.locator(".clip-facts").first.inner_text() == "0.03 s · 8 kHz · mono"
    # A position per step on the slider, not per clip.
    slider = speech.locator(".step-slider")
    assert slider.get_attribute("max") == "2"
    slider.evaluate(MOVE_JS, "0")
    rows = wait_for(lambda: _rows_at(speech, 0, 3), "the clips of step 0")
    assert [r[3] for r in rows] == ["0", "1", "2"]
    assert "step 0" in speech.locator(".caption").inner_text()
    # The stereo tag at 22.05 kHz: two clips a step.
    music = card(page, "audio/music", "tf2")
    rows = wait_for(lambda: _rows_at(music, 2, 2), "the music clips of step 2")
    assert all(r[4] == pytest.approx(300 / 22050, abs=0.002) for r in rows)
    assert music.locator(".clip-facts").first.inner_text() == "0.01 s · 22.05 kHz · 2 channels"
    assert not page.errors, page.errors


def test_audio_batch_card_shows_each_clips_label(page, server):
    open_tab(page, server, "audio")
    voice = card(page, "voice", "labelled")
    rows = wait_for(lambda: _rows_at(voice, 5, 2), "the labelled clips")
    assert [(r[0], r[2]) for r in rows] == [("0", "first *clip*"), ("1", "second")]
    assert [r[4] for r in rows] == [pytest.approx(0.05, abs=0.002), pytest.approx(0.1, abs=0.002)]
    # A single step: the slider has nothing to move over.
    assert voice.locator(".step-slider").is_disabled()
    assert not page.errors, page.errors
