"""The API of the kinds VisualDL 2.5's writer added: audio, PR/ROC curves, hyperparameters,
custom scalar layouts and the embedding projector, checked value by value against what was
logged (every answer is also checked against the OpenAPI schema by the test client)."""

from __future__ import annotations

import base64
import io
import itertools
import math
import wave
from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest
from kit.apps import build_app
from kit.logdirs import write_kinds_tour
from kit.waiting import wait_until

from visualdl import LogReader


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> tuple[Any, str]:
    logdir = str(tmp_path_factory.mktemp("kinds"))
    write_kinds_tour(logdir)
    app = build_app(logdir)
    return app.test_client(), logdir


def _get(client, path: str, status: int = 200, **params: Any) -> Any:
    response = client.get(f"{path}?{urlencode(params, doseq=True)}")
    assert response.status_code == status, (path, params, response.data[:300])
    return response


def test_audio_lists_clips_and_streams_the_logged_wav(env):
    client, logdir = env
    reader = LogReader(logdir)
    listing = _get(client, "/api/audio", run="a", tag="clip").get_json()
    assert [(e["step"], e["sample_rate"], e["frames"], e["channels"]) for e in listing["entries"]] == [
        (3, 8000, 4000, 1), (7, 16000, 800, 1),
    ]  # fmt: skip
    assert listing["entries"][0]["seconds"] == 0.5
    for index, event in enumerate(reader.audio("a", "clip")):
        by_index = _get(client, "/api/audio/clip", run="a", tag="clip", index=index)
        assert by_index.mimetype == "audio/wav" and by_index.data == reader.read_blob(event)
        assert _get(client, "/api/audio/clip", run="a", tag="clip", step=event.step).data == by_index.data
        with wave.open(io.BytesIO(by_index.data)) as clip:
            assert clip.getframerate() == event.sample_rate
    assert "no clip at step 5" in _get(client, "/api/audio/clip", 404, run="a", tag="clip", step=5).get_json()["error"]
    assert _get(client, "/api/audio/clip", 404, run="a", tag="clip", index=2).get_json()["code"] == "not_found"
    assert _get(client, "/api/audio", 404, run="nope", tag="clip").get_json()["code"] == "not_found"


def _auc(x: list[float | None], y: list[float | None]) -> float:
    points = sorted((a, b) for a, b in zip(x, y, strict=True) if a is not None and b is not None)
    return sum((x1 - x0) * (y0 + y1) / 2 for (x0, y0), (x1, y1) in itertools.pairwise(points))


@pytest.mark.parametrize(("kind", "tag", "x", "y"), [("pr_curves", "pr", "recall", "precision"),
                                                     ("roc_curves", "roc", "fpr", "tpr")])  # fmt: skip
def test_curves_of_many_runs_at_a_step_with_their_area(env, kind, tag, x, y):
    client, logdir = env
    reader = LogReader(logdir)
    answer = _get(client, "/api/curves", kind=kind, tag=tag, run=["a", "b", "emb"]).get_json()
    assert (answer["x"], answer["y"], answer["steps"], answer["missing"]) == (x, y, [0, 10], ["emb"])
    for entry in answer["runs"]:
        logged = getattr(reader, kind)(entry["run"], tag)[-1]  # the newest by default
        assert entry["step"] == 10 and entry["steps"] == [0, 10]
        for field in ("thresholds", "tp", "fp", "tn", "fn", x, y):
            want = [None if math.isnan(v) else v for v in getattr(logged, field).tolist()]
            assert entry[field] == want, field
        assert entry["auc"] == pytest.approx(_auc(entry[x], entry[y]), rel=1e-12)
        assert 0.5 < entry["auc"] <= 1.0  # the scores carry the labels
    at = _get(client, "/api/curves", kind=kind, tag=tag, run="a", step=9).get_json()["runs"][0]
    assert at["step"] == 0  # the nearest step before 9
    assert _get(client, "/api/curves", 404, kind=kind, tag=tag, run="nope").get_json()["code"] == "not_found"
    assert _get(client, "/api/curves", 400, kind="bars", tag=tag, run="a").get_json()["code"] == "invalid_argument"


def test_hparams_keep_types_and_take_metrics_from_the_scalars(env):
    client, _ = env
    answer = _get(client, "/api/hparams").get_json()
    assert [r["run"] for r in answer["runs"]] == ["a", "b"]
    columns = {c["name"]: c for c in answer["hparams"]}
    assert columns["lr"]["type"] == "number" and columns["opt"] == {
        "name": "opt",
        "type": "string",
        "values": ["adam", "sgd"],
    }
    assert columns["warm"] == {"name": "warm", "type": "boolean", "values": [False, True]}
    assert answer["metrics"] == ["loss", "acc", "never"]
    a = answer["runs"][0]
    assert a["hparams"] == {"lr": 0.1, "batch": 32, "opt": "adam", "warm": True}
    loss = a["metrics"]["loss"]
    assert (loss["last"], loss["step"], loss["min"], loss["max"], loss["points"]) == (
        pytest.approx(0.3), 4, pytest.approx(0.3), pytest.approx(1.1), 5,
    )  # fmt: skip
    assert a["metrics"]["never"] is None  # named, never logged
    only_b = _get(client, "/api/hparams", run="b").get_json()
    assert [r["run"] for r in only_b["runs"]] == ["b"]
    assert _get(client, "/api/hparams", 404, run="nope").get_json()["code"] == "not_found"


def test_scalar_layout_is_merged_with_the_tags_each_chart_draws(env):
    client, _ = env
    categories = {c["title"]: c for c in _get(client, "/api/scalar_layout").get_json()["categories"]}
    assert set(categories) == {"Loss", "Broken"}
    charts = {c["title"]: c for c in categories["Loss"]["charts"]}
    assert charts["both"]["tags"] == ["loss", "acc"] or sorted(charts["both"]["tags"]) == ["acc", "loss"]
    assert charts["band"]["margin"] == [["loss", "acc", "loss"]] and charts["band"]["tags"] == ["loss", "acc"]
    (bad,) = categories["Broken"]["charts"]
    assert bad["tags"] == [] and "does not compile" in bad["errors"][0]


def _floats(text: str, shape: tuple[int, ...]) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), "<f4").reshape(shape)


def test_projector_pca_recovers_a_low_rank_matrix_and_neighbours_are_exact(env):
    client, logdir = env
    listing = _get(client, "/api/embeddings", run="emb", tag="vectors").get_json()
    assert listing["entries"] == [{"index": 0, "step": 0, "wall_time": listing["entries"][0]["wall_time"], "rows": 500,
                                   "dimension": 8, "metadata_header": ["name", "class"]}]  # fmt: skip
    answer = _get(client, "/api/projection", run="emb", tag="vectors", method="pca", dims=3).get_json()
    assert (answer["status"], answer["points"], answer["sample"]) == ("done", 500, None)
    shares = answer["explained_variance"]
    assert sum(shares[:2]) > 0.999 and shares[2] < 1e-3  # two real dimensions, and noise
    coords = _floats(answer["coordinates"], (500, 3))
    (event,) = LogReader(logdir).embeddings("emb", "vectors")
    vectors = np.frombuffer(LogReader(logdir).read_blob(event), "<f4").reshape(500, 8).astype(np.float64)
    centred = vectors - vectors.mean(axis=0)
    # The first component is the direction of largest variance: its variance is the top eigenvalue.
    assert coords[:, 0].var(ddof=1) == pytest.approx(np.linalg.eigvalsh(np.cov(centred.T))[-1], rel=1e-3)
    assert answer["metadata"][0][:2] == ["p0", "p1"] and answer["metadata"][1][:3] == ["0", "1", "2"]
    again = _get(client, "/api/projection", run="emb", tag="vectors", method="pca", dims=3).get_json()
    assert again["coordinates"] == answer["coordinates"]  # the same picture each time
    for metric in ("cosine", "euclidean"):
        near = _get(client, "/api/neighbors", run="emb", tag="vectors", point=7, k=5, metric=metric).get_json()
        if metric == "cosine":
            unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
            d = 1 - unit @ unit[7]
        else:
            d = np.linalg.norm(vectors - vectors[7], axis=1)
        d[7] = np.inf
        want = np.argsort(d, kind="stable")[:5].tolist()
        assert [n["row"] for n in near["neighbors"]] == want
        assert [n["distance"] for n in near["neighbors"]] == pytest.approx(d[want].tolist(), abs=1e-6)
        assert near["neighbors"][0]["labels"] == [f"p{want[0]}", str(want[0] % 3)]
    assert _get(client, "/api/neighbors", 404, run="emb", tag="vectors", point=500).get_json()["code"] == "not_found"


def _projection(client, timeout: float, **query: Any) -> Any:
    """The projection's answer once it is no longer computing (it runs in a background thread)."""

    def done() -> Any:
        answer = _get(client, "/api/projection", **query).get_json()
        return None if answer["status"] == "computing" else answer

    return wait_until(done, timeout, f"the {query['method']} projection", interval=0.2)


@pytest.mark.e2e  # scikit-learn's t-SNE (an e2e extra) in a worker process: seconds
def test_projector_tsne_runs_in_the_background_and_a_missing_package_is_named(env, monkeypatch):
    client, _ = env
    answer = _projection(client, 120, run="emb", tag="vectors", method="tsne", dims=2)
    assert answer["points"] == 500 and _floats(answer["coordinates"], (500, 2)).shape == (500, 2)
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "umap" else real(name, *a))
    error = _get(client, "/api/projection", 422, run="emb", tag="vectors", method="umap").get_json()
    assert "pip install umap-learn" in error["error"] and error["code"] == "cannot_show"


@pytest.mark.e2e  # the first UMAP compiles its numba code: seconds to minutes
def test_projector_umap_projects_in_the_background(env):
    client, _ = env
    query: dict[str, Any] = {"run": "emb", "tag": "vectors", "method": "umap", "dims": 2}
    answer = _projection(client, 300, **query)  # the first UMAP compiles its numba code
    coords = _floats(answer["coordinates"], (500, 2))
    assert answer["points"] == 500 and np.isfinite(coords).all() and coords.std(axis=0).min() > 0


def test_projector_pca_keeps_rows_with_nan_as_unplaced_points():
    from visualdl.server._views.projector import pca

    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(50, 4)).astype(np.float32)
    vectors[7, 2] = np.nan
    vectors[9, 0] = np.inf
    coords, shares = pca(vectors, 2)
    assert np.isnan(coords[[7, 9]]).all() and np.isfinite(np.delete(coords, [7, 9], axis=0)).all()
    assert all(np.isfinite(shares)) and 0 < sum(shares) <= 1 + 1e-9
    clean, _ = pca(np.delete(vectors, [7, 9], axis=0), 2)
    assert np.allclose(np.delete(coords, [7, 9], axis=0), clean, atol=1e-5)  # the same axes as without them
