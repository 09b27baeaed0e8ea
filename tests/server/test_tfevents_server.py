"""TensorBoard event files through the server's API (Flask test client), and damaged ones."""

from __future__ import annotations

import os
import struct

import numpy as np
import pytest
from kit.apps import build_app
from kit.requirements import require

from visualdl import LogReader

try:
    from tensorboardX import SummaryWriter as XWriter
except ImportError:  # pragma: no cover - CI installs it
    XWriter = None

require(XWriter is not None, "tensorboardX", "pip install -e '.[bench]'")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


def _client(logdir: str):
    app = build_app(logdir, poll=False)
    provider = app.extensions["visualdl.provider"]
    provider.poll()
    return app.test_client()


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


@pytest.fixture
def tb_logs(logdir):
    w = XWriter(os.path.join(logdir, "train"))
    for step in range(0, 20, 2):
        w.add_scalar("loss", 1.0 / (step + 1), step)
    w.add_scalar("loss", float("nan"), 20)
    w.add_scalar("loss", float("inf"), 21)
    w.add_scalars("acc", {"top1": 0.5, "top5": 0.9}, 0)
    w.add_image("sample", np.full((3, 4, 6), 0.5), 3)
    w.add_histogram("weights", np.arange(10.0), 1)
    w.add_text("notes", "hi", 1)
    w.close()
    return logdir


def test_tfevents_api_runs_tags_scalars(tb_logs):
    client = _client(tb_logs)
    runs = client.get("/api/runs").get_json()["runs"]
    assert [r["name"] for r in runs] == ["train", "train/acc/top1", "train/acc/top5"]
    assert runs[0]["files"] == 1 and runs[0]["start_time"] > 1e9
    tags = client.get("/api/tags").get_json()
    assert tags["scalars"] == {"acc": ["train/acc/top1", "train/acc/top5"], "loss": ["train"]}
    assert tags["images"] == {"sample": ["train"]} and tags["histograms"] == {"weights": ["train"]}
    body = client.get("/api/scalars?tag=loss&run=train").get_json()
    (series,) = body["runs"]
    assert series["steps"] == [*range(0, 20, 2), 20, 21]
    assert series["values"][:10] == [_f32(1.0 / (s + 1)) for s in range(0, 20, 2)]
    assert series["values"][10:] == [None, None] and series["nonfinite"] == [[10, "nan"], [11, "inf"]]
    top5 = client.get("/api/scalars?tag=acc&run=train/acc/top5").get_json()["runs"][0]
    assert top5["values"] == [_f32(0.9)]
    image = client.get("/api/image?run=train&tag=sample&index=0")
    assert image.status_code == 200 and image.data[:8] == b"\x89PNG\r\n\x1a\n"
    (entry,) = client.get("/api/histograms?run=train&tag=weights").get_json()["entries"]
    assert entry["count"] == 10 and sum(entry["counts"]) == 10


@pytest.mark.parametrize(
    "damage",
    ["garbage_tail", "torn_tail", "flipped_payload", "bad_length", "garbage_record", "zeros"],
)
def test_tfevents_damaged_file_no_exception_no_500(tb_logs, damage):
    (name,) = [n for n in os.listdir(os.path.join(tb_logs, "train")) if "tfevents" in n]
    path = os.path.join(tb_logs, "train", name)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    if damage == "garbage_tail":
        data += os.urandom(1000)
    elif damage == "torn_tail":
        del data[-9:]
    elif damage == "flipped_payload":
        data[len(data) // 2] ^= 0xFF
    elif damage == "bad_length":
        data[len(data) // 3 : len(data) // 3 + 8] = b"\xff" * 8
    elif damage == "garbage_record":
        from visualdl._formats.framing import frame

        data += frame(b"\x0a\xff\xff\xff\xff\x0f not an event") + frame(b"\x2a\x03\x0a\x01\xff")
    else:
        data[100:400] = bytes(300)
    with open(path, "wb") as f:
        f.write(data)
    reader = LogReader(tb_logs)
    assert "train" in reader.runs()
    client = _client(tb_logs)
    for url in (
        "/api/runs",
        "/api/tags",
        "/api/scalars?tag=loss&run=train",
        "/api/images?run=train&tag=sample",
        "/api/image?run=train&tag=sample&index=0",
        "/api/histograms?run=train&tag=weights",
        "/api/text?run=train&tag=notes/text_summary",
    ):
        assert client.get(url).status_code < 500, url


def test_tfevents_jpeg_and_gif_images_are_served_as_what_they_are(logdir):
    import io

    from PIL import Image

    from visualdl._formats import framing as _framing
    from visualdl.proto import tb

    encoded = {}
    for fmt in ("JPEG", "GIF", "PNG"):
        out = io.BytesIO()
        Image.new("RGB", (5, 4), (200, 10, 10)).save(out, format=fmt)
        encoded[fmt] = out.getvalue()
    path = os.path.join(logdir, "run", "events.out.tfevents.1700000000.host")
    os.makedirs(os.path.dirname(path))
    with open(path, "wb") as f:
        f.write(_framing.frame(tb.Event(wall_time=1.7e9, file_version="brain.Event:2").SerializeToString()))
        for step, fmt in enumerate(encoded):
            event = tb.Event(wall_time=1.7e9 + step, step=step)
            event.summary.value.add(tag="pic", image=tb.Summary.Image(height=4, width=5, colorspace=3,
                                                                     encoded_image_string=encoded[fmt]))  # fmt: skip
            f.write(_framing.frame(event.SerializeToString()))
    client = _client(logdir)
    for step, (fmt, mime) in enumerate((("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("PNG", "image/png"))):
        response = client.get("/api/image", query_string={"run": "run", "tag": "pic", "step": step})
        assert response.status_code == 200
        assert response.content_type == mime
        assert response.data == encoded[fmt]


def test_tfevents_runs_say_each_files_format_and_what_it_holds_unshown(logdir):
    from visualdl import LogWriter

    w = XWriter(os.path.join(logdir, "mixed"))
    w.add_scalar("loss", 1.0, 0)
    w.add_mesh("shape", vertices=np.zeros((1, 3, 3)), global_step=0)  # no view for meshes
    w.close()
    with LogWriter(os.path.join(logdir, "mixed")) as ours:
        ours.add_scalar("acc", 0.5, 0)
    (run,) = _client(logdir).get("/api/runs").get_json()["runs"]
    by_format = {w["format"]: w for w in run["writers"]}
    assert set(by_format) == {"tfevents", "visualdl"}
    assert by_format["tfevents"]["unshown"] == [{"tag": "shape_1", "kind": "mesh", "count": 1}]  # the vertices
    assert by_format["visualdl"]["unshown"] == []
