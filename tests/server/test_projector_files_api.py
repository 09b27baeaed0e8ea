"""torch's ``SummaryWriter.add_embedding`` (projector files, no event record) through the
HTTP API, as our own LogWriter's embeddings are: the tag listed, its entries by step, the
projection's labels and the neighbours' labels those written, and PCA of the vectors
written (every answer is also checked against the OpenAPI schema by the test client)."""

from __future__ import annotations

import base64
import os
from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest
from kit.apps import build_app
from kit.writers import import_torch, torch_writer

from visualdl import LogWriter

pytestmark = [
    pytest.mark.e2e,  # torch's writer (torch: an e2e extra)
    pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning"),
]

ROWS, DIM = 40, 6


def _get(client, path: str, status: int = 200, **params: Any) -> Any:
    response = client.get(f"{path}?{urlencode(params)}")
    assert response.status_code == status, (path, params, response.data[:300])
    return response.get_json()


def _get_bytes(client, path: str, **params: Any) -> Any:
    response = client.get(f"{path}?{urlencode(params)}")
    assert response.status_code == 200, (path, params, response.data[:300])
    return response


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> tuple[Any, dict[int, np.ndarray], list[list[str]], str]:
    logdir = str(tmp_path_factory.mktemp("projector"))
    rng = np.random.default_rng(0)
    table = [[f"word{i}", f"class {i % 4}"] for i in range(ROWS)]
    matrices = {step: rng.normal(size=(ROWS, DIM)).astype(np.float32) for step in (0, 50)}
    torch = import_torch()
    w = torch_writer()(os.path.join(logdir, "torch"))
    for step, m in matrices.items():
        w.add_embedding(torch.from_numpy(m), metadata=table, metadata_header=["word", "class"], global_step=step,
                        tag="words", label_img=torch.rand(ROWS, 3, 5, 5))  # fmt: skip
    w.close()
    with LogWriter(os.path.join(logdir, "ours")) as ours:  # the same vectors through our own record
        ours.add_embeddings("words", mat=matrices[50], metadata=[list(c) for c in zip(*table, strict=True)],
                            metadata_header=["word", "class"])  # fmt: skip
    return build_app(logdir).test_client(), matrices, table, logdir


def test_projector_files_api_lists_entries_and_projects_them_as_ours(env):
    client, matrices, table, _ = env
    assert _get(client, "/api/tags")["embeddings"] == {"words": ["ours", "torch"]}
    listing = _get(client, "/api/embeddings", run="torch", tag="words")
    assert [(e["index"], e["step"], e["rows"], e["dimension"], e["metadata_header"]) for e in listing["entries"]] == [
        (0, 0, ROWS, DIM, ["word", "class"]), (1, 50, ROWS, DIM, ["word", "class"]),
    ]  # fmt: skip
    answers = {}
    for run in ("torch", "ours"):
        answers[run] = _get(client, "/api/projection", run=run, tag="words", method="pca", dims=2)
        assert answers[run]["metadata"] == [[row[0] for row in table], [row[1] for row in table]]
        assert (answers[run]["rows"], answers[run]["dimension"], answers[run]["points"]) == (ROWS, DIM, ROWS)
    assert answers["torch"]["coordinates"] == answers["ours"]["coordinates"]  # the same vectors, bit for bit
    first = _get(client, "/api/projection", run="torch", tag="words", method="pca", dims=2, index=0)
    coords = np.frombuffer(base64.b64decode(first["coordinates"]), "<f4").reshape(ROWS, 2)
    centred = matrices[0].astype(np.float64) - matrices[0].mean(axis=0)
    assert coords[:, 0].var(ddof=1) == pytest.approx(np.linalg.eigvalsh(np.cov(centred.T))[-1], rel=1e-3)
    near = _get(client, "/api/neighbors", run="torch", tag="words", point=3, k=4, metric="euclidean")
    d = np.linalg.norm(matrices[50] - matrices[50][3], axis=1)
    d[3] = np.inf
    want = np.argsort(d, kind="stable")[:4].tolist()
    assert [(n["row"], n["labels"]) for n in near["neighbors"]] == [(i, table[i]) for i in want]


def test_projector_files_api_serves_the_label_images_and_their_layout(env):
    client, _, _, logdir = env
    answer = _get(client, "/api/projection", run="torch", tag="words", method="pca", dims=2, index=0)
    # torch's sprite of 40 images of 5 x 5 px: 7 a row (ceil(sqrt(40))), 35 x 35 px
    assert answer["sprite"] == {"width": 35, "height": 35, "image_width": 5, "image_height": 5, "per_row": 7}
    sprite = _get_bytes(client, "/api/projection/sprite", run="torch", tag="words", index=0)
    assert sprite.mimetype == "image/png"
    with open(os.path.join(logdir, "torch", "00000", "words", "sprite.png"), "rb") as f:
        assert sprite.data == f.read()
    assert _get(client, "/api/projection", run="ours", tag="words", method="pca", dims=2)["sprite"] is None
    missing = _get(client, "/api/projection/sprite", 404, run="ours", tag="words")
    assert missing["error"] == "entry 0 of 'words' in 'ours' has no label images"
