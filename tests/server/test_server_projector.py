"""The projector under data that broke it: t-SNE of identical rows (a segfault of scikit-learn),
a worker that dies or runs out of time, PCA of wide embeddings (fewer rows than dimensions),
and concurrent requests for one projection (computed once)."""

from __future__ import annotations

import base64
import importlib.util
import os
import subprocess
import sys
import textwrap
import threading
import tracemalloc
from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest
from kit.apps import build_app
from kit.requirements import require
from kit.servers import get_json, serve_cli
from kit.waiting import wait_until

from visualdl import LogWriter
from visualdl.server._manifold import ProjectionFailed, embed_in_worker
from visualdl.server._views import projector
from visualdl.server._views.projector import Projector, pca


@pytest.fixture
def sklearn() -> None:
    """scikit-learn installed, for the t-SNE workers (an e2e extra; PCA needs none)."""
    require(importlib.util.find_spec("sklearn") is not None, "scikit-learn", "pip install -e '.[e2e]'")


def _write(logdir: str, entries: dict[str, np.ndarray]) -> str:
    with LogWriter(os.path.join(logdir, "emb")) as w:
        for tag, mat in entries.items():
            w.add_embeddings(tag, mat=mat.astype(np.float32))
    return logdir


def _coords(answer: dict[str, Any]) -> np.ndarray:
    return np.frombuffer(base64.b64decode(answer["coordinates"]), "<f4").reshape(answer["points"], answer["dims"])


def _done(fetch: Any, timeout: float, what: str) -> Any:
    """The answer once no longer computing (projections run in the background)."""

    def done() -> Any:
        answer = fetch()
        return None if answer.get("status") == "computing" else answer

    return wait_until(done, timeout, what, interval=0.1)


@pytest.mark.e2e  # scikit-learn's t-SNE (an e2e extra) behind a server process: seconds
def test_projector_tsne_of_identical_rows_answers_and_the_server_lives(tmp_path, sklearn):
    rng = np.random.default_rng(0)
    logdir = _write(str(tmp_path / "logs"), {"constant": np.full((100, 8), 0.5), "zeros": np.zeros((30, 4)),
                                              "normal": rng.normal(size=(60, 8))})  # fmt: skip
    with serve_cli(["--logdir", logdir], str(tmp_path / "server.log")) as base:

        def tsne(tag: str) -> Any:
            query = urlencode({"run": "emb", "tag": tag, "method": "tsne", "dims": 2})
            return get_json(f"{base}api/projection?{query}", timeout=30)

        for tag, rows in (("constant", 100), ("zeros", 30)):
            answer = _done(lambda tag=tag: tsne(tag), 120, f"the t-SNE of {tag}")
            assert answer["status"] == "done" and answer["points"] == rows
            assert not _coords(answer).any()  # nothing to separate: every point at the origin
        assert get_json(base + "api/health")["loaded"]  # the server lives
        normal = _done(lambda: tsne("normal"), 120, "the t-SNE of a normal embedding")
        coords = _coords(normal)
        assert coords.shape == (60, 2) and np.isfinite(coords).all() and coords.std(axis=0).min() > 0


@pytest.mark.e2e  # scikit-learn's t-SNE (an e2e extra) crashing its worker process
def test_projector_worker_crash_is_that_projections_error_not_the_servers(sklearn):
    with pytest.raises(ProjectionFailed, match=r"^its worker process died of SIGSEGV"):
        embed_in_worker("tsne", np.ones((100, 8), np.float32), 2)  # scikit-learn's Barnes-Hut t-SNE segfaults


def test_projector_worker_out_of_time_is_stopped():
    rows = np.random.default_rng(1).normal(size=(500, 8)).astype(np.float32)
    with pytest.raises(ProjectionFailed, match=r"took longer than 0\.5 s and its worker process was stopped"):
        embed_in_worker("tsne", rows, 2, seconds=0.5)  # starting the interpreter alone takes longer


_SERVER_KILLED = textwrap.dedent(
    """
    import sys, time
    import numpy as np
    from visualdl.server import _manifold

    sys.path.insert(0, sys.argv[1])
    import hang  # a projection that never ends, importable by the worker as by this process

    _manifold.embed = hang.embed
    _manifold.embed_in_worker("tsne", np.zeros((10, 2), np.float32), 2)  # killed while it runs
    """
)


@pytest.mark.e2e  # a process of its own and its projection worker: a CPU second
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_projector_worker_dies_with_a_server_killed_by_sigkill(child_env, tmp_path):
    started = tmp_path / "started"
    (tmp_path / "hang.py").write_text(
        f"import pathlib, time\n\ndef embed(*args):\n    pathlib.Path({str(started)!r}).touch()\n    time.sleep(3600)\n"
    )
    server = subprocess.Popen([sys.executable, "-c", _SERVER_KILLED, str(tmp_path)], env=child_env)
    try:
        children = f"/proc/{server.pid}/task/{server.pid}/children"

        def workers() -> list[int]:  # not multiprocessing's resource tracker
            return [int(pid) for pid in _read(children).split() if "spawn_main" in _read(f"/proc/{pid}/cmdline")]

        wait_until(workers, 60, "the projection's worker process to start")
        (worker,) = workers()
        wait_until(started.exists, 60, "the worker to run its projection")
    finally:
        server.kill()
        server.wait(30)
    wait_until(lambda: not _alive(worker), 30, f"worker {worker} to end with its server")


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, reaped by init soon, does not)."""
    state = _read(f"/proc/{pid}/stat").rpartition(")")[2].split()[:1]
    return state not in ([], ["Z"], ["X"])


@pytest.mark.e2e  # scikit-learn's t-SNE (an e2e extra) out of memory in its worker process
def test_projector_worker_out_of_memory_is_answered_422_for_that_projection(tmp_path, sklearn):
    logdir = _write(str(tmp_path / "logs"), {"vectors": np.random.default_rng(2).normal(size=(50, 8))})
    app = build_app(logdir)
    app.extensions["visualdl.projector"] = Projector(app.extensions["visualdl.provider"], worker_memory=16 << 20)
    client = app.test_client()

    def tsne() -> Any:
        response = client.get("/api/projection?run=emb&tag=vectors&method=tsne")
        assert response.status_code in (200, 422), response.data[:300]
        return response.get_json()

    error = _done(tsne, 120, "the t-SNE worker to fail")
    assert error["code"] == "cannot_show"
    assert error["error"].startswith("t-SNE of 'vectors' in 'emb' failed: ")
    # Out of address space: a MemoryError, or a library that cannot be mapped (ImportError).
    assert error["error"].endswith("(in its worker process, limited to 16 MiB)"), error
    assert tsne() == error  # kept: asked again, the same answer without a new worker
    pca_answer = client.get("/api/projection?run=emb&tag=vectors&method=pca").get_json()
    assert pca_answer["status"] == "done"  # the other projections still work


def _reference(vectors: np.ndarray, dims: int) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates and variance shares by a full SVD, each component's largest loading positive."""
    centred = vectors.astype(np.float64) - vectors.astype(np.float64).mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    components = vt[:dims].T
    components *= np.where(components[np.abs(components).argmax(axis=0), range(dims)] < 0, -1, 1)
    return centred @ components, (s**2 / (s**2).sum())[:dims]


@pytest.mark.parametrize(("rows", "dim"), [(40, 300), (300, 40), (3, 10)])
def test_projector_pca_of_wide_and_tall_matrices_equals_the_svd(rows, dim):
    vectors = np.random.default_rng(rows).normal(size=(rows, dim)).astype(np.float32) * np.linspace(3, 0.1, dim)
    coords, shares = pca(vectors, 3)
    want, want_shares = _reference(vectors, 3)
    assert np.allclose(coords, want, atol=1e-4) and np.allclose(shares, want_shares, atol=1e-9)


def test_projector_pca_randomized_above_the_exact_size_finds_the_same_components(monkeypatch):
    monkeypatch.setattr(projector, "EXACT", 50)  # 300 x 120: both sides above it
    rng = np.random.default_rng(7)
    scales = np.r_[10.0, 6.0, 3.0, np.full(117, 0.1)]  # three components, and noise
    vectors = (rng.normal(size=(300, 120)) * scales).astype(np.float32)
    coords, shares = pca(vectors, 3)
    want, want_shares = _reference(vectors, 3)
    assert np.allclose(coords, want, atol=1e-4 * np.abs(want).max()) and np.allclose(shares, want_shares, rtol=1e-6)


def test_projector_pca_of_a_wide_matrix_stays_near_its_own_size():
    vectors = np.random.default_rng(3).normal(size=(500, 10_000)).astype(np.float32)  # 20 MB
    tracemalloc.start()
    try:
        coords, shares = pca(vectors, 3)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # The covariance alone would be 10,000 x 10,000 float64: 800 MB.
    assert peak < 100 << 20, f"PCA of 500 x 10,000 peaked at {peak >> 20} MiB"
    assert coords.shape == (500, 3) and np.isfinite(coords).all() and 0 < sum(shares) < 1


def test_projector_concurrent_requests_share_one_pca(tmp_path, monkeypatch, serve):
    logdir = _write(str(tmp_path / "logs"), {"wide": np.random.default_rng(4).normal(size=(200, 4000))})
    base = serve(build_app(logdir))
    clients = 4
    entered: list[int] = []
    calls: list[int] = []
    real_pca, real_projection = projector.pca, Projector.projection

    def projection(self: Projector, **kw: Any) -> Any:
        entered.append(1)
        return real_projection(self, **kw)

    def counted_pca(vectors: np.ndarray, dims: int) -> Any:
        calls.append(1)
        # Every request has arrived before the first computation ends: they overlap.
        wait_until(lambda: len(entered) >= clients, 30, "every request to arrive")
        return real_pca(vectors, dims)

    monkeypatch.setattr(Projector, "projection", projection)
    monkeypatch.setattr(projector, "pca", counted_pca)
    answers: list[Any] = []
    url = f"{base}api/projection?run=emb&tag=wide&method=pca&dims=3"
    threads = [threading.Thread(target=lambda: answers.append(_done(lambda: get_json(url, 60), 60, "the PCA")))
               for _ in range(clients)]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(90)
    assert len(answers) == clients and len({a["coordinates"] for a in answers}) == 1
    assert len(calls) == 1, f"{len(calls)} computations of one PCA for {clients} concurrent requests"
