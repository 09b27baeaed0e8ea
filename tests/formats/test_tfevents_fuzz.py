"""Hostile event files: validly framed records whose payloads are mutated events must
not crash, hang or warn; what cannot be read is a reported problem."""

from __future__ import annotations

import io
import os
import random

import numpy as np
from kit.requirements import require
from PIL import Image

from visualdl import LogReader
from visualdl._formats.framing import frame
from visualdl.errors import LogFormatError

try:
    from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2
except ImportError:  # pragma: no cover - CI installs it
    event_pb2 = None

require(event_pb2 is not None, "tensorboard", "pip install -e '.[bench]'")


def _seeds() -> list[bytes]:
    png = io.BytesIO()
    Image.fromarray(np.zeros((2, 2, 3), np.uint8)).save(png, format="PNG")
    meta = summary_pb2.SummaryMetadata
    shape = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=3)])
    values = [
        summary_pb2.Summary.Value(tag="s", simple_value=1.5),
        summary_pb2.Summary.Value(
            tag="t",
            tensor=tensor_pb2.TensorProto(dtype=1, float_val=[2.0]),
            metadata=meta(plugin_data=meta.PluginData(plugin_name="scalars")),
        ),
        summary_pb2.Summary.Value(
            tag="i",
            image=summary_pb2.Summary.Image(height=2, width=2, colorspace=3, encoded_image_string=png.getvalue()),
        ),
        summary_pb2.Summary.Value(
            tag="j",
            tensor=tensor_pb2.TensorProto(dtype=7, tensor_shape=shape, string_val=[b"2", b"2", png.getvalue()]),
            metadata=meta(plugin_data=meta.PluginData(plugin_name="images")),
        ),
        summary_pb2.Summary.Value(
            tag="h", histo=summary_pb2.HistogramProto(min=0, max=2, num=3, bucket_limit=[1, 2], bucket=[1, 2])
        ),
        summary_pb2.Summary.Value(
            tag="x",
            tensor=tensor_pb2.TensorProto(dtype=7, string_val=[b"hi"]),
            metadata=meta(plugin_data=meta.PluginData(plugin_name="text")),
        ),
    ]
    events = [event_pb2.Event(wall_time=1.0, file_version="brain.Event:2")]
    events += [event_pb2.Event(wall_time=2.0, step=3, summary=summary_pb2.Summary(value=[v])) for v in values]
    events.append(event_pb2.Event(wall_time=3.0, step=1, session_log=event_pb2.SessionLog(status=1)))
    return [e.SerializeToString() for e in events]


def _mutate(rng: random.Random, payload: bytes) -> bytes:
    p = bytearray(payload)
    for _ in range(rng.randint(0, 4)):
        if not p:
            break
        i = rng.randrange(len(p))
        op = rng.random()
        if op < 0.5:
            p[i] = rng.randrange(256)
        elif op < 0.75:
            del p[i : i + rng.randint(1, 5)]
        else:
            p[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 5)))
    return bytes(p)


def test_tfevents_mutated_events_never_crash(tmp_path):
    seeds = _seeds()
    rng = random.Random(11)
    for trial in range(60):
        logdir = tmp_path / str(trial)
        logdir.mkdir()
        data = b"".join(frame(_mutate(rng, rng.choice(seeds))) for _ in range(25))
        (logdir / "events.out.tfevents.1.host").write_bytes(data)
        reader = LogReader(str(logdir))
        for run in reader.runs():
            tags = reader.tags(run)
            for tag in tags["scalars"]:
                reader.scalars(run, tag)
                reader.scalars(run, tag, replaced=True)
            for tag in tags["histograms"]:
                reader.histograms(run, tag)
            for tag in tags["text"]:
                reader.texts(run, tag)
            for tag in tags["images"]:
                for event in reader.images(run, tag):
                    try:
                        reader.read_blob(event)
                    except LogFormatError:
                        pass  # an image whose bytes cannot be found: an error the API maps to 404
            reader.writers(run)
        assert not [p for p in reader.problems if "reading failed" in p.message], trial
    assert os.listdir(tmp_path)
