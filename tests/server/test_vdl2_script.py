"""A VisualDL 2.5 training script, unchanged, on this project's LogWriter.

``tests/data/vdl2/every_method.py`` calls every public method of VisualDL 2.5.3's
``LogWriter`` (but ``add_graph``, which needs PaddlePaddle). The real 2.5.3 ran it once;
its log is ``tests/data/vdl2/script/``. Here the same file runs as a script with
this project's package, and both logs are read back, through ``LogReader`` and through
the API, and compared value by value.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import wave
from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest
from kit.paths import DATA, ROOT
from PIL import Image

from visualdl import LogReader

DATA = os.path.join(DATA, "vdl2")
SCRIPT = os.path.join(DATA, "every_method.py")
THEIRS = os.path.join(DATA, "script")


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """``vdl2/``: the log 2.5.3 wrote; ``ours/``: the same script run now, as a script."""
    root = tmp_path_factory.mktemp("script")
    shutil.copytree(THEIRS, root / "vdl2")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (ROOT, os.environ.get("PYTHONPATH"))))}
    done = subprocess.run(
        [sys.executable, SCRIPT, str(root / "ours")], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert os.listdir(root / "ours") == ["vdlrecords.1700000500.log.vdlog"]  # 2.5.3's name, read as ours
    return str(root)


@pytest.fixture(scope="module")
def reader(logdir: str) -> LogReader:
    reader = LogReader(logdir)
    assert reader.problems == []
    return reader


def _pixels(reader: LogReader, event: Any) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(reader.read_blob(event))).convert("RGB"))


def test_vdl2_script_writes_the_same_tags(reader):
    assert reader.runs() == ["ours", "vdl2"]
    assert reader.tags("ours") == reader.tags("vdl2")
    tags = reader.tags("ours")
    for kind in ("scalars", "images", "histograms", "text", "audio", "pr_curves", "roc_curves", "embeddings"):
        assert tags[kind], kind  # every method wrote something
    assert [w.display_name for w in reader.writers("ours")] == ["script, renamed"]
    assert [w.display_name for w in reader.writers("vdl2")] == ["script, renamed"]


def test_vdl2_script_scalars_equal_the_float32_of_2_5(reader):
    for tag in reader.tags("vdl2")["scalars"]:
        theirs, ours = reader.scalars("vdl2", tag), reader.scalars("ours", tag)
        assert ours.steps.tolist() == theirs.steps.tolist(), tag
        assert ours.wall_times.tolist() == theirs.wall_times.tolist(), tag  # milliseconds given, as 2.5.3
        # 2.5.3 stores float32; this project keeps the float64 given.
        assert ours.values.astype(np.float32).tolist() == theirs.values.tolist(), tag


def test_vdl2_script_images_matrices_and_figures_are_the_same_pictures(reader):
    for tag in ("samples/rgb", "samples/matrix"):
        (theirs,), (ours,) = reader.images("vdl2", tag), reader.images("ours", tag)
        assert (ours.step, ours.wall_time) == (theirs.step, theirs.wall_time)
        assert np.array_equal(_pixels(reader, ours), _pixels(reader, theirs)), tag
    (theirs,), (ours,) = reader.images("vdl2", "samples/figure"), reader.images("ours", "samples/figure")
    a, b = _pixels(reader, ours), _pixels(reader, theirs)
    assert a.shape == b.shape == (75, 100, 3)  # 2 x 1.5 inches at 50 dpi
    # Another matplotlib version draws the same figure: a few anti-aliased pixels may differ.
    assert np.mean(np.abs(a.astype(int) - b.astype(int)) > 8) < 0.02


def test_vdl2_script_histograms_texts_and_hparams_are_equal(reader):
    for theirs, ours in zip(reader.histograms("vdl2", "weights"), reader.histograms("ours", "weights"), strict=True):
        assert (ours.step, ours.wall_time) == (theirs.step, theirs.wall_time)
        assert np.array_equal(ours.edges, theirs.edges) and np.array_equal(ours.counts, theirs.counts)
    assert reader.texts("ours", "notes") == reader.texts("vdl2", "notes")
    assert reader.hparams("ours") == reader.hparams("vdl2")
    hparams = reader.hparams("ours")
    assert hparams is not None and hparams.hparams == {"lr": 0.001, "batch_size": 64, "optimizer": "adam"}


def test_vdl2_script_pr_curves_are_equal_at_every_threshold(reader):
    theirs, ours = reader.pr_curves("vdl2", "pr/classifier"), reader.pr_curves("ours", "pr/classifier")
    assert [(c.step, c.wall_time) for c in ours] == [(c.step, c.wall_time) for c in theirs] and len(ours) == 2
    for a, b in zip(ours, theirs, strict=True):
        for field in ("thresholds", "tp", "fp", "tn", "fn", "precision", "recall"):
            assert np.array_equal(getattr(a, field), getattr(b, field)), field


def test_vdl2_script_weighted_roc_curves_keep_fractions_where_2_5_truncates(reader):
    """With weights, 2.5.3 truncates the weighted counts to its int64 fields and divides
    weighted true positives by a count that is not theirs: a TPR above 1. The counts kept
    here are the exact weighted sums; their floor is what 2.5.3 stored."""
    theirs, ours = reader.roc_curves("vdl2", "roc/classifier"), reader.roc_curves("ours", "roc/classifier")
    assert [(c.step, c.wall_time) for c in ours] == [(c.step, c.wall_time) for c in theirs] and len(ours) == 2
    for a, b in zip(ours, theirs, strict=True):
        assert np.array_equal(a.thresholds, b.thresholds)
        for field in ("tp", "fp", "tn", "fn"):
            assert np.array_equal(np.floor(getattr(a, field)), getattr(b, field)), field
        assert np.any(a.tp != np.floor(a.tp))  # the weights made fractions
        assert np.allclose(a.fpr, b.fpr, rtol=0, atol=1e-12)
        assert np.allclose(a.tpr, a.tp / (a.tp + a.fn), equal_nan=True) and np.nanmax(a.tpr) == 1.0
        assert np.nanmax(b.tpr) > 1.0


def test_vdl2_script_audio_is_the_same_wav(reader):
    (theirs,), (ours,) = reader.audio("vdl2", "audio/tone"), reader.audio("ours", "audio/tone")
    assert (ours.step, ours.wall_time, ours.sample_rate, ours.length_frames) == (3, 1700000503.0, 8000, 8000)
    assert reader.read_blob(ours) == reader.read_blob(theirs)
    with wave.open(io.BytesIO(reader.read_blob(ours))) as clip:
        assert (clip.getnchannels(), clip.getsampwidth(), clip.getframerate()) == (1, 2, 8000)


def test_vdl2_script_embeddings_are_equal(reader):
    (theirs,), (ours,) = reader.embeddings("vdl2", "embedding/items"), reader.embeddings("ours", "embedding/items")
    assert (ours.rows, ours.dimension, ours.metadata_header) == (30, 5, ("name", "parity"))
    assert (ours.step, ours.metadata) == (theirs.step, theirs.metadata)
    assert ours.metadata[3] == ("item 3", "odd")
    assert reader.read_blob(ours) == reader.read_blob(theirs)


def _answers(client: Any, run: str, tags: dict[str, dict[str, list[str]]]) -> dict[str, Any]:
    """Every answer of the API about ``run``'s data, by route and tag, wall times kept."""
    out: dict[str, Any] = {}

    def get(path: str, **params: Any) -> Any:
        response = client.get(f"{path}?{urlencode(params)}")
        assert response.status_code == 200, (path, params, response.data[:300])
        return response if response.mimetype.startswith(("image/", "audio/")) else response.get_json()

    for tag in tags["scalars"]:
        (series,) = get("/api/scalars", tag=tag, run=run, max_points=10_000)["runs"]
        series.pop("run")
        series["values"] = np.asarray(series["values"], dtype=np.float64).astype(np.float32).tolist()
        out[f"scalars {tag}"] = series
    for tag in tags["images"]:
        listing = get("/api/images", run=run, tag=tag)
        out[f"images {tag}"] = {k: v for k, v in listing.items() if k != "run"}
    for tag in tags["audio"]:
        listing = get("/api/audio", run=run, tag=tag)
        out[f"audio {tag}"] = listing["entries"]
        out[f"audio clip {tag}"] = get("/api/audio/clip", run=run, tag=tag, index=0).data
    for tag in tags["pr_curves"]:  # (2.5.3's weighted ROC counts are truncated: compared by LogReader above)
        (curve,) = get("/api/curves", kind="pr_curves", tag=tag, run=run)["runs"]
        curve.pop("run")
        out[f"pr_curves {tag}"] = curve
    for tag in tags["embeddings"]:
        projection = get("/api/projection", run=run, tag=tag, method="pca", dims=2)
        for key in ("run", "index"):
            projection.pop(key)
        out[f"embeddings {tag}"] = projection
    (entry,) = get("/api/hparams", run=run)["runs"]
    entry.pop("run")
    entry.pop("wall_time")
    for metric in entry["metrics"].values():  # 2.5.3 keeps float32
        for key in ("last", "min", "max"):
            metric[key] = float(np.float32(metric[key]))
    out["hparams"] = entry
    for route in ("histograms", "distribution", "text"):
        for tag in tags["histograms" if route == "distribution" else route]:
            answer = get(f"/api/{route}", run=run, tag=tag)
            answer.pop("run")
            if route == "histograms":  # 2.5.3 keeps no min, max, sum or count: this project does
                keep = ("step", "wall_time", "edges", "counts")
                answer["entries"] = [{k: e[k] for k in keep} for e in answer["entries"]]
            out[f"{route} {tag}"] = answer
    return out


def test_vdl2_script_api_answers_equal_for_both_logs(logdir, make_app):
    app = make_app(logdir)
    client = app.test_client()
    tags = client.get("/api/tags").get_json()
    for kind, by_tag in tags.items():
        for tag, runs in by_tag.items():
            assert runs == ["ours", "vdl2"], (kind, tag)
    ours, theirs = _answers(client, "ours", tags), _answers(client, "vdl2", tags)
    assert ours.keys() == theirs.keys() and len(ours) >= 14
    for key in ours:
        if key != "images samples/figure":  # another matplotlib: same size, see above
            assert ours[key] == theirs[key], key
