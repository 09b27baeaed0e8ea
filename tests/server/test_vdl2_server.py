"""VisualDL 2 log files (tests/data/vdl2) through the server's API (Flask test client): every
value written, image bytes, and no 500 on torn or garbage files."""

from __future__ import annotations

import json
import math
import os
import shutil
import struct
from typing import Any
from urllib.parse import urlencode

import pytest
from kit.apps import build_app
from kit.paths import DATA

from visualdl import LogReader
from visualdl._formats.vdl2 import decode as _vdl2

DATA = os.path.join(DATA, "vdl2")
LOGDIR = os.path.join(DATA, "logdir")
with open(os.path.join(DATA, "expected.json"), encoding="utf-8") as _file:
    EXPECTED: dict[str, Any] = json.load(_file)


def _client(logdir: str):
    app = build_app(logdir)
    return app.test_client()


def _get(client, path: str, **params: Any) -> Any:
    response = client.get(f"{path}?{urlencode(params)}")
    assert response.status_code == 200, (path, params, response.data[:300])
    return response


def _records(run: str) -> list[dict[str, Any]]:
    files = EXPECTED["runs"][run]["files"]
    return [r for name in sorted(files) for r in files[name]["records"]]


@pytest.fixture(scope="module")
def client():
    return _client(LOGDIR)


def test_vdl2_api_runs_and_display_names(client):
    runs = client.get("/api/runs").get_json()["runs"]
    assert [r["name"] for r in runs] == sorted(EXPECTED["runs"])
    for entry in runs:
        files = EXPECTED["runs"][entry["name"]]["files"]
        assert entry["files"] == len(files) and not entry["closed"] and entry["start_time"] > 1e9
        want = []
        for name in sorted(files):
            names = [
                r["display_name"] for r in files[name]["records"] if r["kind"] == "meta_data" and r["display_name"]
            ]
            want.append(names[-1] if names else "")
        assert [w["display_name"] for w in entry["writers"]] == want


@pytest.mark.parametrize("run", [run for run in EXPECTED["runs"] if run != "torn"])
def test_vdl2_api_serves_every_value(client, run):
    records = _records(run)
    tags = client.get("/api/tags").get_json()
    points: dict[str, list[tuple[int, float, float]]] = {}
    for r in records:
        if r["kind"] in ("value", "tag_value"):
            tag = r["tag"] if r["kind"] == "value" else f"{r['tag']}/{r['sub_tag']}"
            points.setdefault(tag, []).append((r["step"], float(r["value"]), r["walltime_ms"] / 1000))
    for tag, want in points.items():
        assert run in tags["scalars"][tag]
        want.sort(key=lambda p: p[0])
        (series,) = _get(client, "/api/scalars", tag=tag, run=run, max_points=10_000).get_json()["runs"]
        assert series["steps"] == [s for s, _, _ in want] and series["wall_times"] == [w for _, _, w in want]
        values = [v for _, v, _ in want]
        assert series["values"] == [v if math.isfinite(v) else None for v in values]
        assert series["nonfinite"] == [
            [i, "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")]
            for i, v in enumerate(values)
            if not math.isfinite(v)
        ]
        # The float32 stored, exactly, as JSON carries a float64.
        assert all(struct.unpack("<f", struct.pack("<f", v))[0] == v for v in values if math.isfinite(v))

    images: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        if r["kind"] == "image":
            images.setdefault(r["tag"], []).append(r)
    reader = LogReader(LOGDIR)
    for tag, rs in images.items():
        listing = _get(client, "/api/images", run=run, tag=tag).get_json()
        assert listing["steps"] == [r["step"] for r in rs]
        assert [[h, w] for h, w in zip(listing["heights"], listing["widths"], strict=True)] == [
            r["png_shape"][:2] for r in rs
        ]
        for index, (event, r) in enumerate(zip(reader.images(run, tag), rs, strict=True)):
            png = reader.read_blob(event)
            assert _get(client, "/api/image", run=run, tag=tag, index=index).data == png
            assert _get(client, "/api/image", run=run, tag=tag, step=r["step"]).data == png
            with open(event.ref.path, "rb") as f:
                data = f.read()
            offset = event.ref.offset
            payload = data[offset + 8 : offset + 8 + int.from_bytes(data[offset : offset + 8], "little")]
            assert png == _vdl2.png_of(payload)

    for r_kind, endpoint in (("histogram", "/api/histograms"), ("text", "/api/text")):
        by_tag: dict[str, list[dict[str, Any]]] = {}
        for r in records:
            if r["kind"] == r_kind:
                by_tag.setdefault(r["tag"], []).append(r)
        for tag, rs in by_tag.items():
            rs.sort(key=lambda r: r["step"])
            entries = _get(client, endpoint, run=run, tag=tag).get_json()["entries"]
            assert [(e["step"], e["wall_time"]) for e in entries] == [(r["step"], r["walltime_ms"] / 1000) for r in rs]
            if r_kind == "histogram":
                assert [(e["counts"], e["edges"]) for e in entries] == [(r["hist"], r["bin_edges"]) for r in rs]
                _get(client, "/api/distribution", run=run, tag=tag)
            else:
                assert [e["text"] for e in entries] == [r["text"] for r in rs]
    _get(client, "/api/job", run=run)


def test_vdl2_api_health_names_the_garbage_with_its_offset(client):
    problems = client.get("/api/health").get_json()["problems"]
    assert [(p["file"], p["offset"]) for p in problems] == [("torn/vdlrecords.1700000403.log", 248)]


_ENDPOINTS = (
    "/api/runs",
    "/api/tags",
    "/api/health",
    "/api/job?run={run}",
    "/api/scalars?tag=torn/loss&run={run}",
    "/api/scalars?tag=train/loss&run={run}",
    "/api/images?run={run}&tag=samples/rgb",
    "/api/image?run={run}&tag=samples/rgb&index=0",
    "/api/image?run={run}&tag=samples/rgb&index=2",
    "/api/image?run={run}&tag=samples/gray&step=1",
    "/api/histograms?run={run}&tag=weights/w1",
    "/api/distribution?run={run}&tag=weights/w1",
    "/api/text?run={run}&tag=notes/log",
)


def _all_answer(client, run: str) -> None:
    for url in _ENDPOINTS:
        url = url.format(run=run)
        assert client.get(url).status_code < 500, url


def test_vdl2_api_torn_fixtures_no_500(client):
    _all_answer(client, "torn")


@pytest.mark.parametrize(
    "damage", ["garbage_tail", "torn_tail", "torn_prefix", "flipped", "bad_length", "zeros", "huge_length", "png"]
)
@pytest.mark.parametrize("source", ["kinds", "scalars"])
def test_vdl2_api_damaged_file_no_exception_no_500(logdir, source, damage):
    (name,) = EXPECTED["runs"][source]["files"]
    with open(os.path.join(LOGDIR, source, name), "rb") as f:
        data = bytearray(f.read())
    offsets = [o for o, _ in _vdl2.scan(bytes(data)).frames]
    middle = offsets[len(offsets) // 2]
    if damage == "garbage_tail":
        data += bytes(range(7, 250))
    elif damage == "torn_tail":
        del data[-9:]
    elif damage == "torn_prefix":
        data += struct.pack("<Q", 300)[:5]
    elif damage == "flipped":
        data[len(data) // 2] ^= 0xFF
    elif damage == "bad_length":
        data[middle : middle + 8] = b"\xff" * 8
    elif damage == "zeros":
        data[middle : middle + 300] = bytes(300)
    elif damage == "huge_length":
        data[middle : middle + 8] = struct.pack("<Q", (1 << 31) - 1)
    else:  # an image's PNG bytes overwritten on disk
        data[len(data) - 200 : len(data) - 100] = b"\x00" * 100
    run = os.path.join(logdir, "run")
    os.makedirs(run)
    with open(os.path.join(run, name), "wb") as f:
        f.write(data)
    shutil.copy(os.path.join(LOGDIR, "torn", "vdlrecords.1700000403.log"), run)
    reader = LogReader(logdir)
    assert reader.runs() == ["run"]
    assert all(0 <= p.offset <= len(data) for p in reader.problems)
    _all_answer(_client(logdir), "run")
