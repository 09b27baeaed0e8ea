"""The decoders under structure-aware mutants: a valid record of every kind each format
holds (TensorBoard's, VisualDL 2's, ours), with fields inside it set to what no writer
makes (:mod:`kit.mutants`), framed between good scalar records and decoded as the reader
decodes a read (now and then also written to a file and read by a ``LogReader``).

Whatever the mutant says: nothing is raised out of the decoder, every good neighbour's
point is read, what cannot be read is a problem at the mutant's offset, and every event
the decoder gives can be written as JSON (no integer past 64 bits: the API's encoder
refuses those). Seeded: a failure names its case. The unit tier runs a few thousand
mutants; ``VISUALDL_FUZZ_MUTANTS`` runs more, as the e2e test does.
"""

from __future__ import annotations

import dataclasses
import io
import os
import random
import struct
import tempfile
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import orjson
import pytest
from google.protobuf.message import Message
from kit.foreign import scalar_event, scalar_value
from kit.logdirs import WRITERS, write_kinds
from kit.mutants import mutate
from PIL import Image

from visualdl import LogReader
from visualdl._formats import framing
from visualdl._formats.format import Format
from visualdl._formats.framebatch import Batch
from visualdl._formats.framing import frame
from visualdl._formats.table import FORMATS
from visualdl._formats.vdlog.logformat import FORMAT_VERSION, parse_record
from visualdl._kinds.table import ScalarBlock, encode_scalars
from visualdl.errors import LogFormatError
from visualdl.proto import pb, tb, vdl2

UNIT_MUTANTS = 2500
E2E_MUTANTS = int(os.environ.get("VISUALDL_FUZZ_MUTANTS", "100000"))
NEIGHBOURS = 10  # good scalar records on each side of the mutant (a batch needs 16)
GOOD = "good/neighbour"
_FORMATS = {f.name: f for f in FORMATS}


def _png() -> bytes:
    out = io.BytesIO()
    Image.fromarray(np.zeros((2, 3, 3), np.uint8)).save(out, format="PNG")
    return out.getvalue()


def _wav() -> bytes:
    data = np.zeros(8, "<i2").tobytes()
    head = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(data), b"WAVE", b"fmt ", 16, 1, 1, 8000, 16000, 2, 16,
                       b"data", len(data))  # fmt: skip
    return head + data


# -- TensorBoard -------------------------------------------------------------------------


def _plugin(name: str, content: bytes = b"") -> tb.SummaryMetadata:
    return tb.SummaryMetadata(plugin_data=tb.SummaryMetadata.PluginData(plugin_name=name, content=content))


def _shape(*dims: int) -> tb.TensorShapeProto:
    return tb.TensorShapeProto(dim=[tb.TensorShapeProto.Dim(size=d) for d in dims])


def _hparams_start() -> tb.HParamsPluginData:
    entry, value = tb.HParamsSessionStartInfo.Entry, tb.HParamValue
    hparams = [entry(key="lr", value=value(number_value=0.1)), entry(key="opt", value=value(string_value="adam")),
               entry(key="bn", value=value(bool_value=True))]  # fmt: skip
    info = tb.HParamsSessionStartInfo(start_time_secs=1.0, hparams=hparams)
    return tb.HParamsPluginData(version=0, session_start_info=info)


def _hparams_experiment() -> tb.HParamsPluginData:
    metric = tb.HParamsMetricInfo(name=tb.HParamsMetricName(tag="loss"))
    return tb.HParamsPluginData(experiment=tb.HParamsExperiment(metric_infos=[metric]))


def _layout() -> tb.Layout:
    chart = tb.LayoutChart(title="c", multiline=tb.LayoutMultiline(tag=["loss.*"]))
    margin = tb.LayoutChart(
        title="m", margin=tb.LayoutMargin(series=[tb.LayoutMargin.Series(value="a", lower="b", upper="c")])
    )
    return tb.Layout(category=[tb.LayoutCategory(title="t", chart=[chart, margin])])


def _tf_values() -> list[tb.Summary.Value]:
    png, wav = _png(), _wav()
    V, T, S = tb.Summary.Value, tb.TensorProto, tb.DT_STRING
    pr = [1, 0, 1, 0, 0, 1, 0, 1, 1, 0.5, 1, 0]
    start, experiment = _hparams_start().SerializeToString(), _hparams_experiment().SerializeToString()
    histo = tb.HistogramProto(min=0, max=2, num=3, sum=3, sum_squares=5, bucket_limit=[1, 2], bucket=[1, 2])
    return [
        V(tag="s", simple_value=1.5),
        V(tag="t", tensor=T(dtype=tb.DT_FLOAT, float_val=[2.0]), metadata=_plugin("scalars")),
        V(tag="ti", tensor=T(dtype=tb.DT_INT8, tensor_shape=_shape(), int_val=[3]), metadata=_plugin("scalars")),
        V(tag="i", image=tb.Summary.Image(height=2, width=3, colorspace=3, encoded_image_string=png)),
        V(tag="j", tensor=T(dtype=S, tensor_shape=_shape(3), string_val=[b"3", b"2", png]), metadata=_plugin("images")),
        V(tag="h", histo=histo),
        V(
            tag="ht",
            tensor=T(dtype=tb.DT_DOUBLE, tensor_shape=_shape(2, 3), double_val=[0, 1, 2, 1, 2, 1]),
            metadata=_plugin("histograms"),
        ),
        V(tag="x", tensor=T(dtype=S, string_val=[b"hi"]), metadata=_plugin("text")),
        V(tag="a", audio=tb.Summary.Audio(sample_rate=8000, num_channels=1, length_frames=8, encoded_audio_string=wav)),
        V(tag="p", tensor=T(dtype=tb.DT_FLOAT, tensor_shape=_shape(6, 2), float_val=pr), metadata=_plugin("pr_curves")),
        V(tag="_hparams_/session_start_info", metadata=_plugin("hparams", start)),
        V(tag="_hparams_/experiment", metadata=_plugin("hparams", experiment)),
        V(
            tag="layout",
            tensor=T(dtype=S, string_val=[_layout().SerializeToString()]),
            metadata=_plugin("custom_scalars"),
        ),
    ]


def _tf_seeds() -> list[Message]:
    events: list[Message] = [tb.Event(wall_time=2.0, step=3, summary=tb.Summary(value=[v])) for v in _tf_values()]
    events.append(tb.Event(wall_time=3.0, step=1, session_log=tb.SessionLog(status=tb.SessionLog.START)))
    return events


def _tf_mutant(rng: random.Random, seed: Message) -> bytes:
    """A mutated event; now and then, the message inside its plugin content mutated instead."""
    event = cast("tb.Event", mutate(rng, seed))
    if seed.WhichOneof("what") == "summary" and rng.random() < 0.2:
        value = event.summary.value[0] if event.summary.value else None
        plugin = value.metadata.plugin_data if value is not None else None
        if plugin is not None and plugin.plugin_name == "hparams":
            plugin.content = mutate(rng, rng.choice([_hparams_start(), _hparams_experiment()])).SerializeToString()
        elif plugin is not None and plugin.plugin_name == "custom_scalars" and value is not None:
            del value.tensor.string_val[:]
            value.tensor.string_val.append(mutate(rng, _layout()).SerializeToString())
    return event.SerializeToString()


def _tf_file(payloads: list[bytes]) -> tuple[bytes, list[int]]:
    frames = [frame(p) for p in payloads]
    return b"".join(frames), np.cumsum([0] + [len(f) for f in frames]).tolist()


# -- VisualDL 2 --------------------------------------------------------------------------


def _vdl2_seeds() -> list[Message]:
    R = vdl2.Record
    hparam = R.HParam(
        hparamInfos=[R.HParam.HparamInfo(name="lr", float_value=0.1), R.HParam.HparamInfo(name="n", int_value=3),
                     R.HParam.HparamInfo(name="opt", string_value="adam")],
        metricInfos=[R.HParam.HparamInfo(name="loss", float_value=0.0)],
    )  # fmt: skip
    rows = [R.Embedding(label=["a"], vectors=[1.0, 2.0]), R.Embedding(label=["b"], vectors=[3.0, 4.0])]
    values = [
        R.Value(id=3, tag="s", timestamp=1_700_000_000_000, value=1.5),
        R.Value(id=3, tag="m", timestamp=1_700_000_000_000, tag_value=R.TagValue(tag="sub", value=2.5)),
        R.Value(id=3, tag="i", timestamp=1_700_000_000_000, image=R.Image(encoded_image_string=_png())),
        R.Value(id=3, tag="h", timestamp=1_700_000_000_000, histogram=R.Histogram(hist=[1, 2], bin_edges=[0, 1, 2])),
        R.Value(id=3, tag="x", timestamp=1_700_000_000_000, text=R.Text(encoded_text_string="hi")),
        R.Value(id=3, tag="a", timestamp=1_700_000_000_000,
                audio=R.Audio(sample_rate=8000, num_channels=1, length_frames=8, encoded_audio_string=_wav())),
        R.Value(id=3, tag="e", timestamp=1_700_000_000_000, embeddings=R.Embeddings(embeddings=rows)),
        R.Value(id=3, tag="p", timestamp=1_700_000_000_000,
                pr_curve=R.PRCurve(TP=[2, 1], FP=[2, 0], TN=[0, 2], FN=[0, 1], precision=[0.5, 1], recall=[1, 0.5])),
        R.Value(id=3, tag="r", timestamp=1_700_000_000_000,
                roc_curve=R.ROC_Curve(TP=[2, 1], FP=[2, 0], TN=[0, 2], FN=[0, 1], tpr=[1, 0.5], fpr=[1, 0])),
        R.Value(id=3, tag="hp", timestamp=1_700_000_000_000, hparam=hparam),
        R.Value(id=0, tag="", timestamp=1_700_000_000_000, meta_data=R.MetaData(display_name="name")),
    ]  # fmt: skip
    return [R(values=[v]) for v in values]


def _vdl2_mutant(rng: random.Random, seed: Message) -> bytes:
    record = cast("vdl2.Record", mutate(rng, seed))
    if not record.values:  # VisualDL 2 never writes a record without a value: keep one, emptied
        record.values.add()
    return record.SerializeToString()


def _vdl2_file(payloads: list[bytes]) -> tuple[bytes, list[int]]:
    frames = [struct.pack("<Q", len(p)) + p for p in payloads]
    return b"".join(frames), np.cumsum([0] + [len(f) for f in frames]).tolist()


# -- ours ----------------------------------------------------------------------------------


def _vdlog_seeds() -> list[Message]:
    """A record of every kind, as our writer writes them (structure-aware fuzzing of our own
    format over whole files is ``tests/index/test_fuzz_reader.py``'s; here, value by value)."""
    with tempfile.TemporaryDirectory() as logdir:
        write_kinds(logdir, list(WRITERS), run="run")
        (name,) = os.listdir(os.path.join(logdir, "run"))
        with open(os.path.join(logdir, "run", name), "rb") as f:
            data = f.read()
    records = [parse_record(i.payload) for i in framing.scan(data) if isinstance(i, framing.Frame)]
    return [r for r in records if r.WhichOneof("kind") not in ("header", "footer")]


def _vdlog_mutant(rng: random.Random, seed: Message) -> bytes:
    record = cast("pb.Record", mutate(rng, seed))
    if record.WhichOneof("kind") == "header" and record.header.format_version > FORMAT_VERSION:
        record.header.format_version = FORMAT_VERSION  # a newer writer's records are skipped, by design
    return record.SerializeToString()


def _vdlog_good(i: int) -> bytes:
    steps, values = np.array([i]), np.array([float(i)])
    return encode_scalars([GOOD], [1], steps, values, values + 1_700_000_000.0).SerializeToString()


def _vdlog_file(payloads: list[bytes]) -> tuple[bytes, list[int]]:
    """A header first, then ``payloads``: their offsets."""
    header = pb.Record(header=pb.Header(format_version=FORMAT_VERSION, start_time=1_700_000_000.0))
    head = frame(header.SerializeToString())
    data, offsets = _tf_file(payloads)
    return head + data, [len(head) + o for o in offsets]


# -- the harness --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Case:
    format: str
    seeds: Callable[[], list[Message]]
    mutant: Callable[[random.Random, Message], bytes]
    good: Callable[[int], bytes]
    file: Callable[[list[bytes]], tuple[bytes, list[int]]]


CASES = {
    "tfevents": Case(
        "tfevents", _tf_seeds, _tf_mutant, lambda i: scalar_event(GOOD, i, float(i)).SerializeToString(), _tf_file
    ),
    "vdl2": Case(
        "vdl2",
        _vdl2_seeds,
        _vdl2_mutant,
        lambda i: vdl2.Record(values=[scalar_value(GOOD, i, float(i))]).SerializeToString(),
        _vdl2_file,
    ),
    "visualdl": Case("visualdl", _vdlog_seeds, _vdlog_mutant, _vdlog_good, _vdlog_file),
}


def _items(fmt: Format, buf: bytes) -> list[tuple[int, Any]]:
    """The records of ``buf`` as the reader hands them to the decoder (``tail.LogFile._scan``)."""
    out: list[tuple[int, Any]] = []
    for item in fmt.framing.scan(buf, file_end=len(buf), stopped=True):
        if isinstance(item, framing.Frame):
            try:
                out.append((item.offset, fmt.parse(item.payload)))
            except LogFormatError:
                continue
        elif isinstance(item, Batch):
            out.append((item.offset, item))
    return out


def _json(event: object) -> None:
    """The event as the API's encoder writes numbers: orjson, numpy natively."""
    orjson.dumps(event, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS, default=repr)


#: A file of each format's name, for the mutants read by a ``LogReader``.
_NAMES = {
    "tfevents": "events.out.tfevents.1700000000.fuzz",
    "vdl2": "vdlrecords.1700000000.log",
    "visualdl": "vdl.1700000000.fuzz.1.00000000.vdlog",
}


def _read(directory: str, name: str, buf: bytes, where: str) -> None:
    """``buf`` as a file of format ``name`` read by a ``LogReader``: every neighbour, no decoder failure."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, _NAMES[name]), "wb") as f:
        f.write(buf)
    reader = LogReader(directory)
    # A mutant session start supersedes points before it (``replaced``): still there, set apart.
    kept, replaced = (reader.scalars(".", GOOD, replaced=r).steps.tolist() for r in (False, True))
    assert sorted(kept + replaced) == list(range(2 * NEIGHBOURS)), where
    failed = [p.message for p in reader.problems if "reading failed" in p.message or "not be decoded" in p.message]
    assert not failed, (failed, where)


def run_mutants(name: str, count: int, seed: int, directory: str, read_every: int = 25) -> dict[str, int]:
    """Decode ``count`` mutants of format ``name`` (every ``read_every``-th also as a file in
    ``directory`` read by a ``LogReader``); what the decoder made of them, by outcome."""
    case, fmt = CASES[name], _FORMATS[name]
    seeds = case.seeds()
    good = [case.good(i) for i in range(2 * NEIGHBOURS)]
    rng = random.Random(seed)
    outcomes = {"problems": 0, "events": 0}
    for number in range(count):
        origin = rng.randrange(len(seeds))
        mutant = case.mutant(rng, seeds[origin])
        buf, offsets = case.file([*good[:NEIGHBOURS], mutant, *good[NEIGHBOURS:]])
        decoder = fmt.decoder()
        where = f"case {number} of seed {seed} (mutant of seed message {origin}: {mutant!r:.300})"
        try:
            decoded = decoder.decode("f", _items(fmt, buf))
        except Exception as e:  # the failure this test is for: say which mutant
            raise AssertionError(f"the {name} decoder raised {e!r} on {where}") from e
        steps: list[int] = []
        for kind, _, event in decoded:
            if isinstance(event, ScalarBlock):
                ends = np.cumsum(event.counts).tolist()
                for tag, end, count in zip(event.tags, ends, event.counts.tolist(), strict=True):
                    if tag == GOOD:
                        steps += event.steps[end - count : end].tolist()
            else:
                outcomes["events"] += 1
            try:
                _json(event)
            except orjson.JSONEncodeError as e:
                raise AssertionError(f"a {kind} event JSON cannot say ({e}) from {where}") from e
        assert sorted(steps) == list(range(2 * NEIGHBOURS)), f"good neighbours lost with {where}"
        at = offsets[NEIGHBOURS]
        assert all(offset == at for offset, _ in decoder.problems), (decoder.problems, where)
        outcomes["problems"] += bool(decoder.problems)
        if number % read_every == 0:
            _read(os.path.join(directory, str(number)), name, buf, where)
    return outcomes


@pytest.mark.parametrize("name", sorted(CASES))
def test_decoder_fuzz_structure_aware_mutants(name, tmp_path):
    outcomes = run_mutants(name, UNIT_MUTANTS, seed=20261125, directory=str(tmp_path))
    # The mutants reach the values: many are reported, many still give events.
    assert outcomes["problems"] > UNIT_MUTANTS // 20 and outcomes["events"] > UNIT_MUTANTS // 4, outcomes


@pytest.mark.e2e
@pytest.mark.parametrize("name", sorted(CASES))
def test_decoder_fuzz_structure_aware_mutants_many(name, tmp_path):
    seed = int(os.environ.get("VISUALDL_FUZZ_SEED", "0")) or random.SystemRandom().randrange(1, 2**31)
    run_mutants(name, E2E_MUTANTS, seed=seed, directory=str(tmp_path), read_every=500)
