"""Answers built from files full of non-finite numbers say what the OpenAPI document says.

Every record of every kind gets a NaN or infinite wall time (our own files, rewritten record
by record; TensorBoard event files; a job of ranked writers), histograms get NaN edges and
counts, embeddings NaN vectors. Every route that shows them is then asked, and the tests'
client checks each answer against the document: a ``null`` where the document says
``number`` fails (JSON has no NaN; the API writes ``null`` for it).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest
from kit.apps import build_app
from kit.foreign import write_tfevents, write_vdl2
from kit.logdirs import WRITERS, write_kinds
from kit.onnx_models import conv_model

from visualdl import LogWriter
from visualdl._formats import framing
from visualdl._formats.vdlog.logformat import parse_record
from visualdl._kinds.columns import encode_float_column
from visualdl.proto import pb, tb, vdl2

NONFINITE = (math.nan, math.inf, -math.inf)


def _rewrite(path: str, change: Any) -> None:
    """Each record of our file at ``path`` changed in place by ``change(record, number)``."""
    with open(path, "rb") as f:
        data = f.read()
    out = []
    for number, item in enumerate(framing.scan(data, file_end=len(data), stopped=True)):
        if isinstance(item, framing.Frame):
            record = parse_record(item.payload)
            change(record, number)
            out.append(framing.frame(record.SerializeToString()))
    with open(path, "wb") as f:
        f.write(b"".join(out))


def _nonfinite_times(record: pb.Record, number: int) -> None:
    """Every wall time of ``record`` non-finite; histograms' edges and embeddings' vectors too."""
    field = record.WhichOneof("kind")
    bad = NONFINITE[number % 3]
    if field == "header":
        record.header.start_time = bad
    if field in (None, "header", "footer"):
        return
    message = getattr(record, field)
    if field == "scalars":
        walls = np.full(sum(message.counts), bad)
        walls[::2] = 1_700_000_000.0  # some finite, some not
        message.wall_times.CopyFrom(encode_float_column(walls))
    elif "wall_time" in message.DESCRIPTOR.fields_by_name:
        message.wall_time = bad
    if field == "histogram" and number % 2:
        edges = np.frombuffer(message.edges, "<f8").copy()
        edges[1] = math.nan
        message.edges = edges.tobytes()
    if field == "embeddings":
        vectors = np.frombuffer(message.vectors, "<f4").copy()
        vectors[: message.dimension] = math.nan  # row 0
        message.vectors = vectors.tobytes()


def _ours(logdir: str) -> None:
    write_kinds(logdir, list(WRITERS), run="ours")
    with LogWriter(os.path.join(logdir, "ours")) as w:
        w.add_graph(conv_model(), name="convnet")
    for name in os.listdir(os.path.join(logdir, "ours")):
        _rewrite(os.path.join(logdir, "ours", name), _nonfinite_times)


def _job(logdir: str) -> None:
    run = os.path.join(logdir, "job")
    for rank in range(2):
        with LogWriter(run, rank=rank, world_size=2, role="trainer", job="j", flush_secs=3600) as w:
            for step in range(6):
                w.add_scalar("loss", float(step), step, walltime=1_700_000_000.0 + step)
                if step % 2:
                    w.flush()  # records of two points: the last one's wall time not finite
    for name in os.listdir(run):
        _rewrite(os.path.join(run, name), _nonfinite_times)


def _tfevents(logdir: str) -> None:
    V, T = tb.Summary.Value, tb.TensorProto
    text = tb.SummaryMetadata(plugin_data=tb.SummaryMetadata.PluginData(plugin_name="text"))
    values = [
        V(tag="loss", simple_value=1.0),
        V(tag="hist", histo=tb.HistogramProto(min=0, max=2, num=3, bucket_limit=[1, 2], bucket=[1, 2])),
        V(tag="hist", histo=tb.HistogramProto(min=0, max=2, num=3, bucket_limit=[math.nan, 2], bucket=[1, 2])),
        V(tag="hist", histo=tb.HistogramProto(min=0, max=2, num=3, bucket_limit=[1, 2], bucket=[math.nan, 2])),
        V(tag="note", tensor=T(dtype=tb.DT_STRING, string_val=[b"hi"]), metadata=text),
        V(tag="clip", audio=tb.Summary.Audio(sample_rate=8000, num_channels=1, length_frames=8)),
    ]
    events = [tb.Event(wall_time=NONFINITE[i % 3], step=i, summary=tb.Summary(value=[v])) for i, v in enumerate(values)]
    write_tfevents(os.path.join(logdir, "tb"), events)


def _vdl2(logdir: str) -> None:
    R = vdl2.Record
    rows = [R.Embedding(label=["a"], vectors=[math.nan, 1.0]), R.Embedding(label=["b"], vectors=[1.0, 2.0])]
    value = R.Value(id=0, tag="emb", timestamp=1, embeddings=R.Embeddings(embeddings=rows))
    write_vdl2(os.path.join(logdir, "v2"), [value])


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("nonfinite"))
    for write in (_ours, _job, _tfevents, _vdl2):
        write(logdir)
    return build_app(logdir).test_client()


_ROUTES: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "scalars": [("/api/scalars", {}), ("/api/scalars", {"ranks": "each"})],
    "images": [("/api/images", {})],
    "histograms": [("/api/histograms", {}), ("/api/distribution", {})],
    "text": [("/api/text", {})],
    "audio": [("/api/audio", {})],
    "pr_curves": [("/api/curves", {"kind": "pr_curves"})],
    "roc_curves": [("/api/curves", {"kind": "roc_curves"})],
    "hparams": [("/api/hparams", {})],
    "embeddings": [("/api/embeddings", {}), ("/api/projection", {"index": 0}), ("/api/neighbors", {"point": 0})],
    "scalar_layouts": [("/api/scalar_layout", {})],
    "graphs": [],
}


def _asked(client) -> Iterator[tuple[str, dict[str, Any]]]:
    for path in ("/api/health", "/api/runs", "/api/kinds", "/api/tags", "/api/graphs"):
        yield path, {}
    yield "/api/job", {"run": "job"}
    for kind, by_tag in client.get("/api/tags").get_json().items():
        for tag, runs in by_tag.items():
            for run in runs:
                for path, params in _ROUTES[kind]:
                    yield path, {"run": run, "tag": tag, **params}


def _nulls(value: Any) -> int:
    if value is None:
        return 1
    if isinstance(value, dict):
        return sum(_nulls(v) for v in value.values())
    if isinstance(value, list):
        return sum(_nulls(v) for v in value)
    return 0


def test_nonfinite_numbers_in_answers_are_what_the_document_says(client):
    nulls: dict[str, int] = {}
    for path, params in _asked(client):
        response = client.get(f"{path}?{urlencode(params)}")  # the client checks it against the document
        assert response.status_code == 200, (path, params, response.status_code, response.get_data()[:300])
        nulls[path] = nulls.get(path, 0) + _nulls(response.get_json())
    # The files did put nulls into the answers (else the document was not put to the test).
    for path in ("/api/scalars", "/api/images", "/api/histograms", "/api/text", "/api/audio", "/api/job"):
        assert nulls[path], (path, nulls)
    assert nulls["/api/curves"] and nulls["/api/embeddings"] and nulls["/api/neighbors"], nulls
    assert nulls["/api/graphs"] and nulls["/api/hparams"], nulls


def test_nonfinite_histogram_edges_and_counts_are_problems(client):
    problems = [p["message"] for p in client.get("/api/health").get_json()["problems"]]
    assert sum("not finite" in p for p in problems) >= 3, problems
    for run, tag in (("ours", "weights"), ("tb", "hist")):
        for entry in client.get(f"/api/histograms?run={run}&tag={tag}").get_json()["entries"]:
            assert all(np.isfinite(entry["edges"])) and all(np.isfinite(entry["counts"])), entry
