"""The embedding projector's computations: projections and nearest neighbours.

* **PCA**, always: the vectors centred, the covariance's eigenvectors (a d x d symmetric
  eigenproblem, one pass of BLAS over the n x d matrix: 100,000 x 256 in a fraction of a
  second), and the share of variance each component explains.
* **t-SNE** (scikit-learn) and **UMAP** (umap-learn), where installed (the ``projector``
  extra): on at most :data:`SAMPLE` rows, chosen evenly with a fixed seed, after PCA to 50
  dimensions; in a background thread, since they take seconds: the first request starts
  the work and is answered ``"computing"``, later ones get the result.
* **Neighbours** of a row in the original space, by cosine or euclidean distance, computed
  in chunks of rows (100,000 x 256 never makes a 100,000 x 100,000 matrix).

Vectors and projections are cached by (run, tag, entry[, method, dimensions]) with a bound
on the bytes they hold (least recently used dropped first). Coordinates are answered as
base64 of little-endian float32, row after row: 100,000 x 3 is 1.6 MB, not 6 MB of JSON.
"""

from __future__ import annotations

import base64
import importlib.util
import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from visualdl._index.cache import ByteCache
from visualdl._kinds.table import EmbeddingsEvent
from visualdl.errors import CannotShow, InvalidArgument, NotFound, VisualDLError
from visualdl.server._provider import DataProvider

__all__ = ["METHODS", "SAMPLE", "Projector", "embeddings_answer"]

#: Rows t-SNE and UMAP project at most (PCA projects every row).
SAMPLE = 5_000
#: The packages of the methods other than PCA, and how to install them.
METHODS = {"pca": None, "tsne": ("sklearn", "scikit-learn"), "umap": ("umap", "umap-learn")}
_CACHE_BYTES = 512 << 20
_CHUNK = 4096


def _b64(array: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")


def pca(vectors: np.ndarray, dims: int) -> tuple[np.ndarray, list[float]]:
    """The rows projected on the ``dims`` first principal components (float32), and the
    share of the total variance each component explains."""
    x = vectors.astype(np.float64, copy=False)
    # A row with a NaN or an infinity is data, shown where it cannot be placed: the axes
    # are fitted on the finite rows, and such a row's coordinates are NaN (not drawn).
    finite: np.ndarray = np.asarray(np.isfinite(x).all(axis=1))
    if not finite.all():
        x = np.where(finite[:, None], x, 0.0)
    fitted = x[finite] if not finite.all() else x
    mean = fitted.mean(axis=0) if len(fitted) else np.zeros(x.shape[1])
    centred = x - mean
    fit_centred = centred[finite] if not finite.all() else centred
    cov = fit_centred.T @ fit_centred / max(len(fit_centred) - 1, 1)
    values, vecs = np.linalg.eigh(cov)
    order = np.argsort(values)[::-1][:dims]
    total = float(values.sum())
    components = vecs[:, order]
    # A fixed sign per component (its largest loading positive): the same data, the same picture.
    components *= np.where(components[np.abs(components).argmax(axis=0), range(components.shape[1])] < 0, -1, 1)
    shares = [float(values[i]) / total if total > 0 else 0.0 for i in order]
    out = (centred @ components).astype(np.float32)
    out[~finite] = np.nan
    if out.shape[1] < dims:  # fewer dimensions than asked: the rest is 0
        out = np.hstack([out, np.zeros((len(out), dims - out.shape[1]), np.float32)])
        shares += [0.0] * (dims - len(shares))
    return out, shares


def _sample(rows: int) -> np.ndarray:
    if rows <= SAMPLE:
        return np.arange(rows, dtype=np.int32)
    return np.sort(np.random.default_rng(0).choice(rows, SAMPLE, replace=False)).astype(np.int32)


def _embed(method: str, vectors: np.ndarray, dims: int) -> np.ndarray:
    reduced = pca(vectors, min(50, vectors.shape[1]))[0] if vectors.shape[1] > 50 else vectors.astype(np.float32)
    if method == "tsne":
        from sklearn.manifold import TSNE

        perplexity = float(min(30, max(2, (len(reduced) - 1) / 3)))
        model = TSNE(n_components=dims, perplexity=perplexity, init="pca", random_state=0)
        return np.asarray(model.fit_transform(reduced), np.float32)
    import umap

    neighbours = int(min(15, max(2, len(reduced) - 1)))
    return np.asarray(
        umap.UMAP(n_components=dims, n_neighbors=neighbours, random_state=0).fit_transform(reduced), np.float32
    )


def embeddings_answer(run: str, tag: str, found: list[EmbeddingsEvent]) -> dict[str, Any]:
    """The answer of ``/api/embeddings``: the entries of a tag, without their vectors."""
    return {
        "run": run,
        "tag": tag,
        "entries": [
            {
                "index": i,
                "step": e.step,
                "wall_time": e.wall_time,
                "rows": e.rows,
                "dimension": e.dimension,
                "metadata_header": list(e.metadata_header),
            }
            for i, e in enumerate(found)
        ],
    }


class Projector:
    def __init__(self, provider: DataProvider) -> None:
        self.provider = provider
        self._lock = threading.Lock()
        self._cache: ByteCache[Any] = ByteCache(_CACHE_BYTES, keep=1)
        self._running: dict[tuple[Any, ...], str] = {}  # key -> "" (running) or an error message

    # -- cache -----------------------------------------------------------------------------

    def _get(self, key: tuple[Any, ...]) -> Any:
        return self._cache.get(key)

    def _put(self, key: tuple[Any, ...], value: Any, size: int) -> None:
        self._cache.put(key, value, size)

    # -- data ------------------------------------------------------------------------------

    def _event(self, run: str, tag: str, index: int | None) -> tuple[int, EmbeddingsEvent, Callable[[], bytes]]:
        reader, events = self.provider.events(run, "embeddings", tag)
        if not events:
            raise NotFound(f"{tag!r} in {run!r} holds no embeddings")
        at = len(events) - 1 if index is None else index
        if not 0 <= at < len(events):
            raise NotFound(f"{tag!r} in {run!r} has {len(events)} embeddings entries; there is no entry {index}")
        event = events[at]
        return at, event, lambda: reader.read_blob(event)

    def vectors(self, run: str, tag: str, index: int | None) -> tuple[int, EmbeddingsEvent, np.ndarray]:
        at, event, read = self._event(run, tag, index)
        key = ("vectors", run, tag, at, event.ref)
        hit = self._get(key)
        if hit is None:
            try:
                data = read()
            except (OSError, VisualDLError) as e:
                raise NotFound(f"the embeddings of {tag!r} in {run!r} cannot be read: {e}") from e
            hit = np.frombuffer(data, "<f4").reshape(event.rows, event.dimension)
            self._put(key, hit, hit.nbytes)
        return at, event, hit

    # -- projections -------------------------------------------------------------------------

    def projection(self, *, run: str, tag: str, index: int | None, method: str, dims: int) -> dict[str, Any]:
        if method not in METHODS:
            raise InvalidArgument(f"method must be one of {', '.join(METHODS)}; got {method!r}")
        needs = METHODS[method]
        if needs is not None and importlib.util.find_spec(needs[0]) is None:
            raise CannotShow(
                f"{method} needs {needs[1]}, which is not installed: pip install {needs[1]} "
                "(or pip install 'visualdl[projector]'); PCA needs nothing more"
            )
        at, event, vectors = self.vectors(run, tag, index)
        columns = [list(col) for col in zip(*event.metadata, strict=True)] if event.metadata else []
        head = {
            "run": run,
            "tag": tag,
            "index": at,
            "method": method,
            "dims": dims,
            "rows": event.rows,
            "dimension": event.dimension,
            "metadata_header": list(event.metadata_header),
            "metadata": columns,
        }
        key = ("projection", run, tag, at, event.ref, method, dims)
        hit = self._get(key)
        if hit is None and method == "pca":
            coords, shares = pca(vectors, dims)
            hit = {"coordinates": _b64(coords), "explained_variance": shares, "sample": None}
            self._put(key, hit, coords.nbytes)
        if hit is None:
            self._start(key, method, vectors, dims)
            with self._lock:
                error = self._running.get(key)
            if error:
                raise CannotShow(f"{method} failed on {tag!r} of {run!r}: {error}")
            return {**head, "status": "computing", "points": min(event.rows, SAMPLE)}
        points = event.rows if hit["sample"] is None else min(event.rows, SAMPLE)
        return {**head, "status": "done", "points": points, **hit}

    def _start(self, key: tuple[Any, ...], method: str, vectors: np.ndarray, dims: int) -> None:
        with self._lock:
            if key in self._running:
                return
            self._running[key] = ""

        def work() -> None:
            try:
                rows = _sample(len(vectors))
                with warnings.catch_warnings():  # the libraries' chatter (umap: "Tensorflow not installed")
                    warnings.simplefilter("ignore")
                    coords = _embed(method, vectors[rows], dims)
                sample = None if len(rows) == len(vectors) else _b64(rows)
                self._put(
                    key, {"coordinates": _b64(coords), "explained_variance": None, "sample": sample}, coords.nbytes
                )
                with self._lock:
                    self._running.pop(key, None)
            except Exception as e:  # noqa: BLE001 - any failure of the library is reported on the next request
                with self._lock:
                    self._running[key] = f"{type(e).__name__}: {e}"

        threading.Thread(target=work, name=f"visualdl-{method}", daemon=True).start()

    # -- neighbors ---------------------------------------------------------------------------

    def neighbors(self, *, run: str, tag: str, index: int | None, point: int, k: int, metric: str) -> dict[str, Any]:
        at, event, vectors = self.vectors(run, tag, index)
        if not 0 <= point < len(vectors):
            raise NotFound(f"{tag!r} in {run!r} has {len(vectors)} rows; there is no row {point}")
        query = vectors[point].astype(np.float64)
        distances = np.empty(len(vectors), np.float64)
        if metric == "cosine":
            qn = np.linalg.norm(query) or 1.0
            for start in range(0, len(vectors), _CHUNK):
                block = vectors[start : start + _CHUNK].astype(np.float64)
                norms = np.linalg.norm(block, axis=1)
                norms[norms == 0] = 1.0
                distances[start : start + len(block)] = 1.0 - block @ query / (norms * qn)
        else:
            for start in range(0, len(vectors), _CHUNK):
                block = vectors[start : start + _CHUNK].astype(np.float64)
                distances[start : start + len(block)] = np.sqrt(((block - query) ** 2).sum(axis=1))
        distances[point] = np.inf  # the point itself is not its neighbour
        k = min(k, len(vectors) - 1)
        nearest = np.argpartition(distances, k)[:k] if k < len(vectors) else np.arange(len(vectors))
        nearest = nearest[np.lexsort((nearest, distances[nearest]))]
        return {
            "run": run,
            "tag": tag,
            "index": at,
            "point": point,
            "metric": metric,
            "neighbors": [
                {
                    "row": int(i),
                    "distance": float(distances[i]),
                    "labels": list(event.metadata[i]) if event.metadata else [],
                }
                for i in nearest.tolist()
            ],
        }
