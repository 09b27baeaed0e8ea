"""Logs written by the real TensorFlow 2, Keras, the hparams plugin, TF1 graph mode and clu
(``tests/data/tflogs``, see its README) read by our ``LogReader`` and by TensorBoard's own
reader (``plugin_event_multiplexer``, which needs no TensorFlow), value by value.

Where we differ from TensorBoard on purpose, the test says so where it checks it."""

from __future__ import annotations

import os
from collections import defaultdict

import numpy as np
import pytest
from kit.requirements import require

from visualdl import LogReader
from visualdl._formats.tfevents.values import markdown_table
from visualdl._kinds.wav import wav_shape

try:
    from tensorboard.backend.event_processing import plugin_event_multiplexer
    from tensorboard.plugins.custom_scalar import layout_pb2
    from tensorboard.plugins.hparams import plugin_data_pb2 as hparams_pb2
    from tensorboard.util import tensor_util
except ImportError:  # pragma: no cover - the test extra installs it
    plugin_event_multiplexer = None

require(plugin_event_multiplexer is not None, "tensorboard", "pip install -e '.[test]'")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

LOGS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "tflogs")
#: TensorBoard's tag of each plugin whose tag is not the user's, and ours for it.
OUR_TAG = {"_hparams_/experiment": "hparams", "_hparams_/session_start_info": "hparams"}
OUR_TAG_OF_PLUGIN = {"custom_scalars": "layout", "hparams": "hparams"}
#: TensorBoard's plugin -> our kind.
KIND_OF_PLUGIN = {
    "scalars": "scalars",
    "images": "images",
    "audio": "audio",
    "histograms": "histograms",
    "text": "text",
    "pr_curves": "pr_curves",
    "custom_scalars": "scalar_layouts",
    "hparams": "hparams",
}

#: TensorBoard's plugins of graphs: a GraphDef (its ``__run_graph__`` tag), Keras' model config.
GRAPH_PLUGINS = ("graphs", "graph_keras_model")


@pytest.fixture(scope="module")
def tensorboard():
    """TensorBoard's reader over every log, keeping every value (no reservoir sampling)."""
    guidance = {kind: 0 for kind in ("tensors", "scalars", "images", "audio", "histograms", "compressedHistograms")}
    mux = plugin_event_multiplexer.EventMultiplexer(size_guidance=guidance)
    mux.AddRunsFromDirectory(LOGS)
    mux.Reload()
    return mux


@pytest.fixture(scope="module")
def ours():
    return LogReader(LOGS)


def _plugin_tags(tb, plugin: str) -> dict[str, list[str]]:
    """run -> the tags TensorBoard gives ``plugin``."""
    return {run: sorted(tags) for run, tags in tb.PluginRunToTagToContent(plugin).items() if tags}


def _unshown(ours, run: str) -> dict[str, str]:
    """tag -> plugin of what our reader lists as not shown in ``run``."""
    return {tag: plugin for w in ours.writers(run) for tag, plugin, _ in w.unshown}


def _array(event) -> np.ndarray:
    return tensor_util.make_ndarray(event.tensor_proto)


def _by_step(events) -> dict[int, list]:
    out: dict[int, list] = defaultdict(list)
    for e in events:
        out[e.step].append(e)
    return dict(out)


def test_tflogs_runs_are_tensorboards(tensorboard, ours):
    expected = {"clu", "hparams", "hparams/run-0", "hparams/run-1", "hparams/run-2"}
    expected |= {"keras/train", "keras/validation", "tf1graph", "tf2"}
    assert set(tensorboard.Runs()) == expected
    assert set(ours.runs()) == expected
    assert ours.problems == []


def test_tflogs_every_tag_tensorboard_reads_is_read_or_listed(tensorboard, ours):
    """A tag of each plugin TensorBoard reads is one of ours of the matching kind; a tag of
    a plugin we do not read is listed as not shown. Graphs (TensorBoard's ``__run_graph__``
    tag, Keras' model config) are checked apart, below."""
    for run, tags in tensorboard.Runs().items():
        ours_tags = ours.tags(run)
        unshown = _unshown(ours, run)
        for tag in tags["tensors"]:
            plugin = tensorboard.SummaryMetadata(run, tag).plugin_data.plugin_name
            if plugin in GRAPH_PLUGINS:
                continue
            kind = KIND_OF_PLUGIN.get(plugin)
            if kind is None:
                assert unshown.get(tag) == plugin, (run, tag, plugin)
            else:
                name = OUR_TAG_OF_PLUGIN.get(plugin, tag)
                assert name in ours_tags[kind], (run, tag, plugin)


def test_tflogs_scalars_bit_for_bit(tensorboard, ours):
    """Steps, wall times and values, NaN and infinities included, as the same float64 bits.
    A TF2 scalar is a float32 tensor (a float64 given to ``tf.summary.scalar`` is cast), a
    raw ``tf.summary.write`` of a float64 stays DT_DOUBLE; a TF1 ``simple_value`` is float32."""
    runs = _plugin_tags(tensorboard, "scalars")
    assert set(runs) == {"clu", "hparams/run-0", "hparams/run-1", "hparams/run-2", "keras/train"} | {
        "keras/validation",
        "tf1graph",
        "tf2",
    }
    checked = 0
    for run, tags in runs.items():
        assert sorted(ours.tags(run)["scalars"]) == tags
        for tag in tags:
            events = tensorboard.Tensors(run, tag)
            series = ours.scalars(run, tag)
            assert series.steps.tolist() == [e.step for e in events], (run, tag)
            walls = np.array([e.wall_time for e in events], np.float64)
            assert series.wall_times.view(np.int64).tolist() == walls.view(np.int64).tolist(), (run, tag)
            values = np.array([_array(e).item() for e in events], np.float64)
            assert series.values.view(np.int64).tolist() == values.view(np.int64).tolist(), (run, tag)
            checked += len(events)
    special = ours.scalars("tf2", "special").values
    assert np.isnan(special[0]) and special[1] == np.inf and special[2] == -np.inf
    assert _array(tensorboard.Tensors("tf2", "f64/raw")[0]).dtype == np.float64
    assert ours.scalars("tf2", "f64/raw").values[0] == 1.0 / 3.0  # the float64 as written
    assert ours.scalars("tf2", "f64/cast").values[0] == float(np.float32(1.0 / 3.0))
    assert checked > 50


def test_tflogs_images_each_one_of_each_step(tensorboard, ours):
    """Every PNG of every step, in the order written, under the one tag (a batch of
    ``max_outputs`` images at a step is several images of the tag at that step)."""
    runs = _plugin_tags(tensorboard, "images")
    assert set(runs) == {"clu", "keras/train", "tf2"}
    for run, tags in runs.items():
        assert sorted(ours.tags(run)["images"]) == tags
        for tag in tags:
            expected = {e.step: _array(e).tolist() for e in tensorboard.Tensors(run, tag)}
            got = _by_step(ours.images(run, tag))
            assert list(got) == list(expected), (run, tag)
            for step, strings in expected.items():
                width, height, *pngs = strings
                assert [ours.read_blob(e) for e in got[step]] == pngs, (run, tag, step)
                assert {(e.width, e.height) for e in got[step]} == {(int(width), int(height))}
    counts = [len(v) for v in _by_step(ours.images("tf2", "images/batch")).values()]
    assert counts == [3, 2, 3]


def test_tflogs_audio_each_clip_of_each_step(tensorboard, ours):
    """TF2's audio (a [k, 2] tensor of WAV and label) is every clip of every step, its rate,
    channels and frames those of its WAV header. TensorBoard's reader keeps the clips and
    drops the labels (``dataclass_compat``); we keep them, and TF2 writes them empty."""
    runs = _plugin_tags(tensorboard, "audio")
    assert runs == {"clu": ["clips"], "tf2": ["audio/music", "audio/speech"]}
    for run, tags in runs.items():
        assert sorted(ours.tags(run)["audio"]) == tags
        for tag in tags:
            expected = {e.step: _array(e).tolist() for e in tensorboard.Tensors(run, tag)}
            got = _by_step(ours.audio(run, tag))
            assert list(got) == list(expected), (run, tag)
            for step, clips in expected.items():
                assert [ours.read_blob(e) for e in got[step]] == clips, (run, tag, step)
                assert [e.label for e in got[step]] == [""] * len(clips)
                for e, wav in zip(got[step], clips, strict=True):
                    shape = wav_shape(wav)
                    assert shape is not None and e.size == len(wav)
                    assert (e.sample_rate, e.channels, e.length_frames) == tuple(
                        [shape.sample_rate, shape.channels, shape.frames]
                    )
    music, speech = ours.audio("tf2", "audio/music"), ours.audio("tf2", "audio/speech")
    assert {(e.sample_rate, e.channels, e.length_frames) for e in music} == {(22050, 2, 300)}
    assert {(e.sample_rate, e.channels, e.length_frames) for e in speech} == {(8000, 1, 200)}
    assert [len(v) for v in _by_step(speech).values()] == [3, 3, 3]
    assert {(e.sample_rate, len(ours.audio("clu", "clips"))) for e in ours.audio("clu", "clips")} == {(4000, 6)}


def test_tflogs_histograms_buckets(tensorboard, ours):
    """TF2's [k, 3] buckets as written. A TF1 ``HistogramProto`` TensorBoard converts (its
    empty outer buckets dropped, the outer edges moved to the values' min and max), and so
    do we: the same edges and counts. On purpose unlike TensorBoard, whose conversion makes
    the proto's float64 edges float32 (``make_tensor_proto`` of a list of floats), we keep
    them as written: equal once rounded to float32."""
    runs = _plugin_tags(tensorboard, "histograms")
    assert set(runs) == {"clu", "keras/train", "tf1graph", "tf2"}
    for run, tags in runs.items():
        assert sorted(ours.tags(run)["histograms"]) == tags
        for tag in tags:
            events = tensorboard.Tensors(run, tag)
            got = ours.histograms(run, tag)
            assert [h.step for h in got] == [e.step for e in events], (run, tag)
            assert [h.wall_time for h in got] == [e.wall_time for e in events], (run, tag)
            for h, e in zip(got, events, strict=True):
                buckets = _array(e)
                edges = np.concatenate((buckets[:, 0], buckets[-1:, 1]))
                assert np.array_equal(h.edges.astype(edges.dtype), edges), (run, tag, h.step)
                assert np.array_equal(h.counts, buckets[:, 2].astype(np.float64)), (run, tag, h.step)
                if buckets.dtype == np.float64:  # TF2's tensor: the edges bit for bit
                    assert np.array_equal(h.edges, edges), (run, tag, h.step)
    assert len(ours.histograms("tf2", "weights/few")[0].counts) == 5


def test_tflogs_text_as_tensorboard_reads_it(tensorboard, ours):
    """A text of one string is that string; a tensor of several is the table TensorBoard's
    text plugin draws (a column for rank 1, rows by the last dimension above), in Markdown
    with an empty header row, each cell's ``|`` escaped (``markdown.js`` reads it back)."""
    runs = _plugin_tags(tensorboard, "text")
    assert runs == {"clu": ["summary"], "tf2": ["notes", "table"]}
    for run, tags in runs.items():
        for tag in tags:
            events = tensorboard.Tensors(run, tag)
            got = ours.texts(run, tag)
            assert [(t.step, t.wall_time) for t in got] == [(e.step, e.wall_time) for e in events]
            for t, e in zip(got, events, strict=True):
                array = _array(e)
                strings = [s.decode() for s in np.atleast_1d(array).ravel().tolist()]
                if len(strings) == 1:
                    assert t.text == strings[0]
                else:
                    columns = array.shape[-1] if array.ndim >= 2 else 1
                    assert t.text == markdown_table(strings, columns)
    assert _array(tensorboard.Tensors("tf2", "table")[1]).shape == (2, 2)
    assert ours.texts("tf2", "table")[1].text == "|  |  |\n| --- | --- |\n| a | b |\n| 1 | x y |"


def test_markdown_table_keeps_each_string_in_its_cell():
    assert markdown_table(["a|b", "", "x\ny", "c\\|d"], 2) == "|  |  |\n| --- | --- |\n| a\\|b |  |\n| x y | c\\\\|d |"
    assert markdown_table(["p", "q", "r"], 1) == "|  |\n| --- |\n| p |\n| q |\n| r |"


def test_tflogs_pr_curves(tensorboard, ours):
    runs = _plugin_tags(tensorboard, "pr_curves")
    assert runs == {"tf2": ["pr/curve/pr_curves"]}
    events = tensorboard.Tensors("tf2", "pr/curve/pr_curves")
    got = ours.pr_curves("tf2", "pr/curve/pr_curves")
    assert [(c.step, c.wall_time) for c in got] == [(e.step, e.wall_time) for e in events]
    for c, e in zip(got, events, strict=True):
        rows = _array(e).astype(np.float64)
        assert rows.shape == (6, 11)
        for i, column in enumerate((c.tp, c.fp, c.tn, c.fn, c.precision, c.recall)):
            assert column.view(np.int64).tolist() == rows[i].view(np.int64).tolist()
        assert np.array_equal(c.thresholds, np.arange(11) / 10)


def test_tflogs_custom_scalars_layout(tensorboard, ours):
    (event,) = tensorboard.Tensors("tf2", "custom_scalars__config__")
    layout = layout_pb2.Layout.FromString(_array(event).item())
    got = ours.scalar_layout("tf2")
    assert got is not None
    assert [(c.title, c.closed) for c in got.categories] == [(c.title, c.closed) for c in layout.category]
    for ours_category, category in zip(got.categories, layout.category, strict=True):
        assert [(ch.title, ch.multiline, ch.margin) for ch in ours_category.charts] == [
            (
                ch.title,
                tuple(ch.multiline.tag),
                tuple((s.value, s.lower, s.upper) for s in ch.margin.series),
            )
            for ch in category.chart
        ]
    assert got.categories[0].charts[1].margin == (("metrics/acc", "f64/cast", "f64/raw"),)


def _hparams_data(tensorboard) -> dict[str, dict[str, hparams_pb2.HParamsPluginData]]:
    """run -> tag -> the hparams plugin's data, as TensorBoard's hparams plugin reads it."""
    out: dict[str, dict[str, hparams_pb2.HParamsPluginData]] = {}
    for run, tags in tensorboard.PluginRunToTagToContent("hparams").items():
        out[run] = {tag: hparams_pb2.HParamsPluginData.FromString(content) for tag, content in tags.items()}
    return out


def test_tflogs_hparams_values_and_metrics_per_run(tensorboard, ours):
    """Per run what TensorBoard's reader holds: the experiment's metrics in the root run, each
    trial's values in its own run (a number a float, TensorBoard keeps no integers)."""
    data = _hparams_data(tensorboard)
    assert set(data) == {"hparams", "hparams/run-0", "hparams/run-1", "hparams/run-2", "clu"}
    for run, tags in data.items():
        got = ours.hparams(run)
        assert got is not None, run
        if "_hparams_/experiment" in tags:
            experiment = tags["_hparams_/experiment"].experiment
            assert got.metrics == tuple(m.name.tag for m in experiment.metric_infos)
            assert got.hparams == {}
        if "_hparams_/session_start_info" in tags:
            start = tags["_hparams_/session_start_info"].session_start_info
            expected = {key: getattr(v, v.WhichOneof("kind")) for key, v in start.hparams.items()}
            assert got.hparams == expected, run
            # TensorBoard's reader keeps no metrics in a trial's own run: the experiment above
            # it names them (and with no experiment, as in clu's run, TensorBoard's hparams
            # plugin offers every scalar tag of the trials). That the root experiment's metrics
            # apply to the trial runs below it is the cross-run view (/api/hparams), checked in
            # tests/server/test_tflogs_hparams.py; here only the per-run record is compared.
            assert got.metrics == (), run
    assert ours.hparams("hparams").metrics == ("accuracy", "loss")
    assert ours.hparams("hparams/run-1").hparams == {
        "units": 16.0,
        "dropout": 0.2,
        "optimizer": "sgd",
        "batchnorm": True,
    }
    # clu flattens nested hparams with dots.
    assert ours.hparams("clu").hparams == {
        "learning_rate": 0.01,
        "model.depth": 2.0,
        "model.act": "relu",
        "use_bn": True,
    }


def test_tflogs_graphs_shown_or_listed(tensorboard, ours):
    """Every GraphDef and MetaGraphDef TensorBoard sees, and Keras' model config (the graphs
    plugin's conceptual graph), is either a graph we show or listed as not shown.

    GraphDefs are being converted into the graph model the Graphs tab draws; until each
    kind of graph is shown, listing it as not shown is accepted here too."""
    seen = 0
    for run, tags in tensorboard.Runs().items():
        unshown = _unshown(ours, run)
        shown = ours.tags(run).get("graphs", [])
        if tags["graph"]:
            assert shown or "graph" in unshown, run
            seen += 1
        if tags["meta_graph"]:
            assert shown or "meta_graph" in unshown, run
            seen += 1
        for tag in tags["tensors"]:
            if tensorboard.SummaryMetadata(run, tag).plugin_data.plugin_name == "graph_keras_model":
                assert shown or unshown.get(tag) == "graph_keras_model", (run, tag)
                seen += 1
    assert seen == 4  # tf2's tf.function, tf1graph's GraphDef and MetaGraphDef, Keras' model
