"""LogWriter -> files -> DataProvider -> JSON, through Flask's test client, exact values."""

from __future__ import annotations

import io
import math
import os

import numpy as np
import pytest
from kit.apps import build_app
from PIL import Image

from visualdl import LogWriter
from visualdl._kinds.table import KINDS


def _client(*logdirs: tuple[str, str], **settings):
    app = build_app(*logdirs, poll=False, **settings)
    provider = app.extensions["visualdl.provider"]
    provider.poll()
    return app.test_client(), provider


@pytest.fixture
def logs(logdir):
    with LogWriter(os.path.join(logdir, "train")) as w:
        for step in range(10):
            w.add_scalar("loss", 1.0 / (step + 1), step)
        w.add_scalar("loss", float("nan"), 10)
        w.add_scalar("loss", float("inf"), 11)
        w.add_scalar("loss", float("-inf"), 12)
        w.add_image("sample", np.full((3, 5, 3), 200, np.uint8), 4)
        w.add_image("sample", np.full((3, 5, 3), 10, np.uint8), 9)
        w.add_histogram("weights", np.arange(100, dtype=np.float64), 2, buckets=4)
        w.add_text("notes", "<b>not html</b>", 1)
    with LogWriter(os.path.join(logdir, "eval")) as w:
        for step in range(0, 10, 5):
            w.add_scalar("loss", float(step), step)
        w.add_scalar("acc", 0.5, 0)
    return logdir


def test_runs_and_tags(logs):
    client, _ = _client(("", logs))
    runs = client.get("/api/runs").get_json()["runs"]
    assert [r["name"] for r in runs] == ["eval", "train"]
    assert runs[1]["closed"] is True and runs[1]["writers"][0]["pid"] == os.getpid()
    tags = client.get("/api/tags").get_json()
    assert tags["scalars"] == {"acc": ["eval"], "loss": ["eval", "train"]}
    assert tags["images"] == {"sample": ["train"]} and tags["text"] == {"notes": ["train"]}
    assert client.get("/api/tags?run=eval").get_json()["images"] == {}


def test_kinds_count_tags_and_runs_of_every_kind_and_the_jobs(logs):
    with LogWriter(os.path.join(logs, "job"), rank=0, world_size=2) as w:
        w.add_scalar("loss", 1.0, 0)
    with LogWriter(os.path.join(logs, "job"), rank=1, world_size=2) as w:
        w.add_scalar("loss", 2.0, 0)
    client, _ = _client(("", logs))
    kinds = {k["name"]: (k["tags"], k["runs"]) for k in client.get("/api/kinds").get_json()["kinds"]}
    logged = {"scalars": (2, 3), "images": (1, 1), "histograms": (1, 1), "text": (1, 1), "jobs": (0, 1), "runs": (0, 3)}
    # Every kind of the table is listed, those not logged here with no tags and no runs.
    assert kinds == {**dict.fromkeys(KINDS, (0, 0)), **logged}
    # The tabs, in order: the runs table after scalars, the kinds' order, the jobs view before graphs.
    assert list(kinds)[:7] == ["scalars", "runs", "images", "histograms", "text", "jobs", "graphs"]


def test_scalars_exact_values_many_runs_one_request(logs):
    client, _ = _client(("", logs))
    body = client.get("/api/scalars?tag=loss&run=train&run=eval").get_json()
    train, evaluation = body["runs"]
    assert (train["run"], evaluation["run"]) == ("train", "eval")
    assert train["steps"] == list(range(13))
    assert train["values"][:10] == [1.0 / (s + 1) for s in range(10)]
    assert train["values"][10:] == [None, None, None]
    assert train["nonfinite"] == [[10, "nan"], [11, "inf"], [12, "-inf"]]
    assert evaluation["steps"] == [0, 5] and evaluation["values"] == [0.0, 5.0]
    assert len(train["wall_times"]) == 13 and train["total_points"] == 13


def test_scalars_range_with_x_min_above_x_max_holds_no_points(logs):
    client, _ = _client(("", logs))
    response = client.get("/api/scalars?tag=loss&run=train&x_min=5&x_max=1")
    assert response.status_code == 200
    (run,) = response.get_json()["runs"]
    assert run["steps"] == [] and run["range_points"] == 0 and run["total_points"] == 13


def test_scalars_run_without_the_tag_is_listed_missing(logs):
    client, _ = _client(("", logs))
    body = client.get("/api/scalars?tag=acc&run=train&run=eval").get_json()
    assert [r["run"] for r in body["runs"]] == ["eval"] and body["missing"] == ["train"]


def test_scalars_downsampled_and_zoomed_to_full_resolution(logdir):
    values = np.random.default_rng(0).standard_normal(50_000)
    values[31_337] = 40.0
    with LogWriter(logdir) as w:
        for step, value in enumerate(values.tolist()):
            w.add_scalar("x", value, step)
    client, _ = _client(("", logdir))
    run = client.get("/api/scalars?tag=x&run=.&max_points=500").get_json()["runs"][0]
    assert len(run["steps"]) <= 500 and 31_337 in run["steps"]
    assert run["values"][run["steps"].index(31_337)] == 40.0
    assert run["steps"][0] == 0 and run["steps"][-1] == 49_999
    zoom = client.get("/api/scalars?tag=x&run=.&max_points=500&x_min=1000&x_max=1399").get_json()["runs"][0]
    assert zoom["steps"] == list(range(1000, 1400))
    assert zoom["values"] == values[1000:1400].tolist() and zoom["range_points"] == 400


def test_images_list_and_bytes(logs):
    client, _ = _client(("", logs))
    listing = client.get("/api/images?run=train&tag=sample").get_json()
    assert listing["steps"] == [4, 9] and listing["widths"] == [5, 5] and listing["heights"] == [3, 3]
    response = client.get("/api/image?run=train&tag=sample&index=1")
    assert response.status_code == 200 and response.content_type == "image/png"
    assert np.asarray(Image.open(io.BytesIO(response.data)))[0, 0].tolist() == [10, 10, 10]
    by_step = client.get("/api/image?run=train&tag=sample&step=9")
    assert by_step.status_code == 200 and by_step.data == response.data
    missing = client.get("/api/image?run=train&tag=sample&step=5")
    assert missing.status_code == 404 and "no image at step 5" in missing.get_json()["error"]


def test_histograms_and_distribution(logs):
    client, _ = _client(("", logs))
    body = client.get("/api/histograms?run=train&tag=weights").get_json()
    (entry,) = body["entries"]
    assert entry["step"] == 2 and entry["counts"] == [25.0, 25.0, 25.0, 25.0]
    assert entry["edges"] == [0.0, 24.75, 49.5, 74.25, 99.0] and entry["count"] == 100
    dist = client.get("/api/distribution?run=train&tag=weights").get_json()
    assert dist["steps"] == [2] and dist["percentiles"][4] == 50.0
    (band,) = dist["bands"]
    assert band[0] == 0.0 and band[-1] == 99.0 and math.isclose(band[4], 49.5)


def test_text_is_returned_verbatim(logs):
    client, _ = _client(("", logs))
    (entry,) = client.get("/api/text?run=train&tag=notes").get_json()["entries"]
    assert entry == {"step": 1, "wall_time": entry["wall_time"], "text": "<b>not html</b>"}


def test_named_logdirs_prefix_runs(logs, tmp_path):
    other = tmp_path / "other"
    with LogWriter(str(other)) as w:
        w.add_scalar("loss", 3.0, 0)
    client, _ = _client(("mine", logs), ("theirs", str(other)))
    names = [r["name"] for r in client.get("/api/runs").get_json()["runs"]]
    assert names == ["mine/eval", "mine/train", "theirs"]
    body = client.get("/api/scalars?tag=loss&run=theirs&run=mine/eval").get_json()
    assert [r["values"] for r in body["runs"]] == [[3.0], [0.0, 5.0]]


@pytest.mark.parametrize(
    ("url", "status", "message"),
    [("/api/scalars?run=train", 400, "missing query parameter 'tag'"),
     ("/api/scalars?tag=loss&where=lr%20%3C", 400, "expected a value"),
     ("/api/scalars?tag=loss&run=nope", 404, "unknown run 'nope'"),
     ("/api/scalars?tag=nope&run=train", 200, ""),
     ("/api/scalars?tag=loss&run=train&max_points=abc", 400, "must be an integer"),
     ("/api/scalars?tag=loss&run=train&max_points=2", 400, "between 5 and 100000"),
     ("/api/scalars?tag=loss&run=train&x_min=nan", 400, "must be finite"),
     ("/api/scalars?tag=loss&run=train&max_points=\u0665\u0660", 400, "must be an integer"),
     ("/api/scalars?tag=loss&run=train&max_points=%205", 400, "must be an integer"),
     ("/api/scalars?tag=loss&run=train&max_points=1_000", 400, "must be an integer"),
     ("/api/scalars?tag=loss&run=train&max_points=" + "9" * 60, 400, "between 5 and 100000"),
     ("/api/scalars?tag=loss&run=train&x_min=\u0661", 400, "must be a number"),
     ("/api/scalars?tag=loss&run=train&x_min=1e999", 400, "must be finite"),
     ("/api/image?run=train&tag=sample&step=²", 400, "must be an integer"),
     ("/api/scalars?tag=loss&run=train&max_points=", 400, "must be an integer"),
     ("/api/scalars?tag=loss&run=train&ranks=", 400, "'mean' or 'each'"),
     ("/api/text?run=train&tag=", 400, "must not be empty"),
     ("/api/tags?run=", 400, "must not be empty"),
     ("/api/tags?run=train&run=nope", 404, "unknown run 'nope'"),
     ("/api/job?run=nope", 404, "unknown run 'nope'"),
     ("/api/images?run=train&tag=nope", 404, "has no images tag 'nope'"),
     ("/api/image?run=train&tag=sample&index=99", 404, "out of range"),
     ("/api/image?run=train&tag=sample&index=-1", 400, "between 0 and"),
     ("/api/image?run=../../etc&tag=passwd&index=0", 404, "unknown run '../../etc'"),
     ("/api/text?run=train&tag=%00", 400, "NUL"),
     ("/api/histograms?run=train&tag=weights&max_entries=0", 400, "between 1 and 10000"),
     ("/static/../../../etc/passwd", 404, ""),
     ("/static/%2e%2e/%2e%2e/setup.py", 404, ""),
     ("/api/nothing", 404, "")],
)  # fmt: skip
def test_bad_requests_get_4xx_json(logs, url, status, message):
    client, _ = _client(("", logs))
    response = client.get(url)
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert body is not None
    if status == 200:
        assert body["runs"] == [] and body["missing"] == ["train"]
    else:
        assert message in body["error"]
        assert body["code"] == {400: "invalid_argument", 404: "not_found"}[status]


def test_an_internal_error_reading_scalars_is_a_500_not_a_missing_run(logs, monkeypatch):
    """A KeyError inside the reader is a fault of the server: never a 200 listing the run as missing."""
    from visualdl._index.index import Index

    def broken(self, run: str, tag: str) -> dict[str, int]:
        inner: dict[str, dict[str, int]] = {}
        return inner[tag]

    monkeypatch.setattr(Index, "job_scalars", broken)
    client, _ = _client(("", logs))
    response = client.get("/api/scalars?tag=loss&run=train")
    assert response.status_code == 500
    assert response.get_json() == {"error": "internal error: KeyError", "code": "internal_error"}
    assert client.get("/api/scalars?tag=acc&run=train&run=eval").status_code == 500
    assert client.get("/api/scalars?tag=acc&run=train").get_json()["missing"] == ["train"]  # no tag: still missing


def test_health_reports_bad_files_with_offsets(logs):
    with open(os.path.join(logs, "train", "junk.vdlog"), "wb") as f:
        f.write(os.urandom(100))
    client, _ = _client(("", logs))
    health = client.get("/api/health").get_json()
    assert health["loaded"] is True and health["status"] == "ok"
    (problem,) = health["problems"]
    assert problem["file"] == os.path.join("train", "junk.vdlog") and problem["offset"] == 0
    assert "checksum" in problem["message"]
    assert client.get("/api/scalars?tag=loss&run=train").status_code == 200


def test_new_points_runs_and_removed_runs_after_poll(logs):
    import shutil

    client, provider = _client(("", logs))
    with LogWriter(os.path.join(logs, "train")) as w:
        w.add_scalar("loss", 42.0, 100)
    with LogWriter(os.path.join(logs, "late")) as w:
        w.add_scalar("loss", 1.0, 0)
    shutil.rmtree(os.path.join(logs, "eval"))
    provider.poll()
    assert [r["name"] for r in client.get("/api/runs").get_json()["runs"]] == ["late", "train"]
    run = client.get("/api/scalars?tag=loss&run=train").get_json()["runs"][0]
    assert run["steps"][-1] == 100 and run["values"][-1] == 42.0


def test_static_files_and_plotly_with_explicit_content_types(logs):
    client, _ = _client(("", logs))
    with client.get("/") as index:
        assert index.status_code == 200 and index.content_type.startswith("text/html")
        assert b"vendor/plotly.min.js" in index.data
        assert "default-src 'self'" in index.headers["Content-Security-Policy"]
    with client.get("/vendor/plotly.min.js") as plotly_js:
        assert plotly_js.status_code == 200 and plotly_js.content_type == "text/javascript; charset=utf-8"
        assert b"plotly" in plotly_js.data[:2000].lower()
    with client.get("/static/app.js") as app_js:
        assert app_js.status_code == 200 and app_js.content_type == "text/javascript; charset=utf-8"


def test_path_prefix(logs):
    client, _ = _client(("", logs), path_prefix="/visualdl")
    assert client.get("/visualdl/api/runs").status_code == 200
    with client.get("/visualdl/") as index:
        assert index.status_code == 200
    assert client.get("/api/runs").status_code == 404


def test_openapi_lists_every_api_route(logs):
    client, _ = _client(("", logs))
    spec = client.get("/api/openapi.json").get_json()
    app_routes = {r.rule for r in client.application.url_map.iter_rules() if r.rule.startswith("/api/")}
    assert set(spec["paths"]) == app_routes - {"/api/openapi.json"}


def test_every_listed_run_and_tag_is_taken_by_the_endpoints(logdir, monkeypatch):
    """What /api/runs and /api/tags list, the other endpoints take: tags up to MAX_TAG_LENGTH,
    runs (paths) up to MAX_RUN_LENGTH; longer tags from older writers are named in /api/health."""
    from visualdl._formats.vdlog.logformat import MAX_TAG_LENGTH
    from visualdl.server._provider import MAX_RUN_LENGTH

    deep = os.path.join(*["d" * 200] * 6)  # a run name of 1,205 characters: a path, longer than a tag
    with LogWriter(os.path.join(logdir, deep)) as w:
        w.add_scalar("t" * MAX_TAG_LENGTH, 1.0, 0)
        w.add_image("i" * MAX_TAG_LENGTH, np.zeros((2, 2, 3), np.uint8), 0)
        w.add_histogram("h" * MAX_TAG_LENGTH, np.arange(10.0), 0)
        w.add_text("x" * MAX_TAG_LENGTH, "hello", 0)
    monkeypatch.setattr("visualdl.sdk._convert.MAX_TAG_LENGTH", 10 * MAX_TAG_LENGTH)  # an older writer
    with LogWriter(os.path.join(logdir, "old")) as w:
        w.add_scalar("u" * (MAX_TAG_LENGTH + 1), 2.0, 0)
        w.add_scalar("ok", 3.0, 0)
    client, _ = _client(("", logdir))
    runs = [r["name"] for r in client.get("/api/runs").get_json()["runs"]]
    assert sorted(runs) == sorted([deep, "old"]) and MAX_TAG_LENGTH < len(deep) <= MAX_RUN_LENGTH
    tags = client.get("/api/tags").get_json()
    assert sorted(tags["scalars"]) == ["ok", "t" * MAX_TAG_LENGTH]
    urls = {
        "scalars": "/api/scalars?tag={tag}&run={run}",
        "images": "/api/images?tag={tag}&run={run}",
        "histograms": "/api/histograms?tag={tag}&run={run}",
        "text": "/api/text?tag={tag}&run={run}",
    }
    checked = 0
    for kind, url in urls.items():
        for tag, tag_runs in tags[kind].items():
            for run in tag_runs:
                response = client.get(url.format(tag=tag, run=run))
                assert response.status_code == 200, (kind, len(tag), response.get_json())
                checked += 1
    assert checked == 5
    (skipped,) = client.get("/api/health").get_json()["not_served"]
    assert skipped["run"] == "old" and skipped["length"] == MAX_TAG_LENGTH + 1
    assert f"1 to {MAX_TAG_LENGTH} characters" in skipped["message"]
    too_long = client.get(f"/api/scalars?tag={'u' * (MAX_TAG_LENGTH + 1)}&run=old")
    assert too_long.status_code == 400
    assert f"'tag' must be at most {MAX_TAG_LENGTH} characters" in too_long.get_json()["error"]


def test_image_is_streamed_from_the_log_file_with_its_length(logdir):
    rng = np.random.default_rng(1)
    big = rng.integers(0, 256, (700, 900, 3), dtype=np.uint8)  # a PNG of ~1.9 MB: two chunks
    with LogWriter(os.path.join(logdir, "r")) as w:
        w.add_image("big", big, 0)
    client, _ = _client(("", logdir))
    response = client.get("/api/image?run=r&tag=big&index=0")
    assert response.status_code == 200
    assert response.is_streamed
    body = response.get_data()
    assert int(response.headers["Content-Length"]) == len(body) > (1 << 20)
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(body))), big)


def test_image_whose_record_changed_on_disk_is_404_not_500(logdir):
    with LogWriter(os.path.join(logdir, "r")) as w:
        w.add_image("img", np.zeros((8, 8, 3), np.uint8), 0)
    client, _ = _client(("", logdir))
    assert client.get("/api/tags?run=r").status_code == 200
    (name,) = os.listdir(os.path.join(logdir, "r"))
    path = os.path.join(logdir, "r", name)
    with open(path, "r+b") as f:  # flip a byte inside the PNG: the record's checksum fails
        data = f.read()
        at = data.index(b"IHDR")
        f.seek(at)
        f.write(b"X")
    response = client.get("/api/image?run=r&tag=img&index=0")
    assert response.status_code == 404 and "cannot be read" in response.get_json()["error"]


def test_histogram_of_only_nan_has_no_range(logdir):
    with LogWriter(os.path.join(logdir, "r")) as w:
        w.add_histogram("h", np.array([np.nan, np.nan, np.inf]), 0)
        w.add_histogram("h", np.array([-1.0, 2.0]), 1)
    entries = _client(("", logdir))[0].get("/api/histograms?run=r&tag=h").get_json()["entries"]
    assert [(e["min"], e["max"], e["count"], e["nan_count"], e["pos_inf_count"]) for e in entries] == [
        (None, None, 0, 2, 1),
        (-1.0, 2.0, 2, 0, 0),
    ]
