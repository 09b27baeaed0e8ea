"""Values of crafted or corrupt files through the API: never a 500. A bad value is left out
of its tag (the tag's other values are answered, 200) and reported in ``/api/health``,
naming its file and the offset of its record. Every answer is checked against the OpenAPI
document by the tests' client."""

from __future__ import annotations

import io
import os
import shutil
import struct
from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest
from kit.apps import build_app
from kit.foreign import write_tfevents, write_vdl2
from kit.paths import DATA
from PIL import Image

from visualdl._formats.vdl2 import decode as _vdl2
from visualdl.proto import tb, vdl2

R = vdl2.Record
#: 44100.0 as a float32 (0x472c4400) with bit 29 flipped: about 8e23, an integer past 64 bits.
FLIPPED_44100 = struct.unpack("<f", struct.pack("<I", 0x472C4400 ^ (1 << 29)))[0]


def _get(client, path: str, **params: Any) -> Any:
    response = client.get(f"{path}?{urlencode(params)}")
    assert response.status_code == 200, (path, params, response.status_code, response.get_data()[:300])
    return response.get_json()


def _problems(client) -> list[dict[str, Any]]:
    return _get(client, "/api/health")["problems"]


def _png() -> bytes:
    out = io.BytesIO()
    Image.fromarray(np.zeros((2, 3, 3), np.uint8)).save(out, format="PNG")
    return out.getvalue()


def _image_tensor(step: int, width: bytes) -> tb.Event:
    meta = tb.SummaryMetadata(plugin_data=tb.SummaryMetadata.PluginData(plugin_name="images"))
    tensor = tb.TensorProto(dtype=tb.DT_STRING, string_val=[width, b"2", _png()])
    value = tb.Summary.Value(tag="img", tensor=tensor, metadata=meta)
    return tb.Event(wall_time=1_700_000_000.0 + step, step=step, summary=tb.Summary(value=[value]))


def test_crafted_image_width_of_30_nines_is_left_out_of_its_tag(logdir, make_app):
    write_tfevents(os.path.join(logdir, "run"), [_image_tensor(0, b"3"), _image_tensor(1, b"9" * 30)])
    client = make_app(logdir).test_client()
    answer = _get(client, "/api/images", run="run", tag="img")
    assert (answer["steps"], answer["widths"], answer["heights"]) == ([0], [3], [2])
    (problem,) = _problems(client)
    assert problem["file"].startswith("run/") and "'999999999999" in problem["message"]


def _clip(step: int, rate: float, fmt: str) -> Any:
    if fmt == "vdl2":
        clip = R.Audio(sample_rate=rate, num_channels=1, length_frames=4, encoded_audio_string=b"RIFF")
        return R.Value(id=step, tag="clip", timestamp=1_700_000_000_000 + step, audio=clip)
    audio = tb.Summary.Audio(sample_rate=rate, num_channels=1, length_frames=4, encoded_audio_string=b"RIFF")
    value = tb.Summary.Value(tag="clip", audio=audio)
    return tb.Event(wall_time=1_700_000_000.0 + step, step=step, summary=tb.Summary(value=[value]))


@pytest.mark.parametrize("fmt", ["vdl2", "tfevents"])
def test_crafted_sample_rates_are_left_out_of_their_tag(logdir, make_app, fmt):
    rates = [3e38, 1e30, FLIPPED_44100, float("inf")]
    clips = [_clip(0, 8000.0, fmt), *(_clip(i + 1, rate, fmt) for i, rate in enumerate(rates))]
    (write_vdl2 if fmt == "vdl2" else write_tfevents)(os.path.join(logdir, "run"), clips)
    client = make_app(logdir).test_client()
    (entry,) = _get(client, "/api/audio", run="run", tag="clip")["entries"]
    assert (entry["step"], entry["sample_rate"], entry["seconds"]) == (0, 8000, 4 / 8000)
    problems = _problems(client)
    assert len(problems) == len(rates) and all("sample rate of" in p["message"] for p in problems)


def _flip_a_histogram_count(data: bytes) -> tuple[bytes, int]:
    """``data`` (a VisualDL 2 log) with one bit of one histogram count flipped so that the
    counts sum past 2**64 (still finite), and the offset of that record."""
    for offset, payload in _vdl2.scan(data).frames:
        (value,) = R.FromString(payload).values
        if value.WhichOneof("one_value") != "histogram":
            continue
        counts = list(value.histogram.hist)
        at = payload.find(struct.pack(f"<{len(counts)}d", *counts))
        assert at > 0
        for k, count in enumerate(counts):
            bits = struct.unpack("<Q", struct.pack("<d", count))[0]
            for bit in range(52, 63):
                flipped = struct.unpack("<d", struct.pack("<Q", bits ^ (1 << bit)))[0]
                if 2.0**64 <= flipped < float("inf"):
                    pos = offset + 8 + at + 8 * k + bit // 8
                    damaged = bytearray(data)
                    damaged[pos] ^= 1 << (bit % 8)
                    return bytes(damaged), offset
    raise AssertionError("no histogram count to flip")


def test_histogram_counts_past_64_bits_by_one_bit_flip_of_a_fixture(tmp_path, make_app):
    source = os.path.join(DATA, "vdl2", "logdir", "kinds")
    run = tmp_path / "logs" / "kinds"
    shutil.copytree(source, run)
    (name,) = os.listdir(run)
    with open(run / name, "rb") as f:
        data, offset = _flip_a_histogram_count(f.read())
    (value,) = R.FromString(dict(_vdl2.scan(data).frames)[offset]).values
    tag = value.tag
    before = _get(build_app(source).test_client(), "/api/histograms", run=".", tag=tag)["total_entries"]
    with open(run / name, "wb") as f:
        f.write(data)
    client = make_app(tmp_path / "logs").test_client()
    assert _get(client, "/api/histograms", run="kinds", tag=tag)["total_entries"] == before - 1
    assert len(_get(client, "/api/distribution", run="kinds", tag=tag)["steps"]) == before - 1
    (problem,) = _problems(client)
    assert (problem["file"], problem["offset"]) == (f"kinds/{name}", offset)
    assert "not below 2**63" in problem["message"]


def test_vdl2_embeddings_without_rows_or_values_are_left_out_of_their_tag(logdir, make_app):
    rows = [R.Embedding(label=["a"], vectors=[1, 2]), R.Embedding(label=["b"], vectors=[3, 4])]
    values = [
        R.Value(id=0, tag="emb", timestamp=1, embeddings=R.Embeddings(embeddings=rows)),
        R.Value(id=1, tag="emb", timestamp=2, embeddings=R.Embeddings(embeddings=[])),
        R.Value(id=2, tag="emb", timestamp=3, embeddings=R.Embeddings(embeddings=[R.Embedding(label=["a"])] * 2)),
    ]
    write_vdl2(os.path.join(logdir, "run"), values)
    client = make_app(logdir).test_client()
    (entry,) = _get(client, "/api/embeddings", run="run", tag="emb")["entries"]
    assert (entry["step"], entry["rows"], entry["dimension"]) == (0, 2, 2)
    assert _get(client, "/api/projection", run="run", tag="emb", index=0, method="pca")["rows"] == 2
    assert len(_get(client, "/api/neighbors", run="run", tag="emb", index=0, point=0)["neighbors"]) == 1
    problems = _problems(client)
    assert [p["message"].split(": ", 1)[1] for p in problems] == [
        "embeddings of 0 rows of 0 values, not at least one of one",
        "embeddings of 2 rows of 0 values, not at least one of one",
    ]
