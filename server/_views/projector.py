"""The embedding projector's computations: projections and nearest neighbours.

* **PCA**, always: the vectors centred, and the smaller eigenproblem of the two: the d x d
  covariance when there are at least as many rows as dimensions (100,000 x 256 in a
  fraction of a second), the n x n Gram matrix of the rows when there are fewer (500 x
  10,000: a 500 x 500 problem), accumulated over blocks so memory stays near the vectors'
  own; and the share of variance each component explains.
* **t-SNE** (scikit-learn) and **UMAP** (umap-learn), where installed (the ``projector``
  extra): on at most :data:`SAMPLE` rows, chosen evenly with a fixed seed, after PCA to 50
  dimensions, in a worker process with memory and time limits (:mod:`visualdl.server._manifold`):
  a crash of the library is that projection's error, not the server's end. Rows that are
  all identical are placed at the origin without the library.
* Every projection is computed once, in a background thread, however many requests ask
  for it at the same time; a request waits up to :data:`WAIT` seconds for it, then is
  answered ``"computing"`` (ask again).
* **Neighbours** of a row in the original space, by cosine or euclidean distance, computed
  in chunks of rows (100,000 x 256 never makes a 100,000 x 100,000 matrix).

Vectors and projections are cached by (run, tag, entry[, method, dimensions]) with a bound
on the bytes they hold (least recently used dropped first). Coordinates are answered as
base64 of little-endian float32, row after row: 100,000 x 3 is 1.6 MB, not 6 MB of JSON.
"""

from __future__ import annotations

import base64
import importlib.util
import logging
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import numpy as np

from visualdl._index.cache import ByteCache
from visualdl._kinds.table import EmbeddingsEvent
from visualdl.errors import CannotShow, InvalidArgument, NotFound, VisualDLError
from visualdl.server._data import Embedding
from visualdl.server._manifold import MEMORY_BYTES, SECONDS, ProjectionFailed, embed_in_worker
from visualdl.server._provider import DataProvider

__all__ = ["METHODS", "SAMPLE", "WAIT", "Projector", "embeddings_answer", "pca"]

log = logging.getLogger(__name__)

#: Rows t-SNE and UMAP project at most (PCA projects every row).
SAMPLE = 5_000
#: The packages of the methods other than PCA, and how to install them.
METHODS = {"pca": None, "tsne": ("sklearn", "scikit-learn"), "umap": ("umap", "umap-learn")}
_NAMES = {"pca": "PCA", "tsne": "t-SNE", "umap": "UMAP"}
#: Seconds a request waits for its projection before it answers "computing" (ask again).
WAIT = 1.0
_CACHE_BYTES = 512 << 20
#: Bytes of one block of float64 rows or columns that PCA and the neighbours work on.
_BLOCK = 32 << 20
#: The smaller side of a matrix at most for an exact PCA (an EXACT x EXACT eigenproblem:
#: 32 MB, seconds); above it, a randomized SVD.
EXACT = 2048
_POWER = 4


def _b64(array: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")


def _blocks(total: int, width: int) -> list[slice]:
    """Slices of ``total`` rows (or columns) ``width`` float64 wide, ``_BLOCK`` bytes each at most."""
    step = max(1, _BLOCK // (8 * max(width, 1)))
    return [slice(start, start + step) for start in range(0, total, step)]


def _fit_rows(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows the axes are fitted on (every row, or a copy of the finite ones) and the mask
    of finite rows."""
    finite = np.ones(len(vectors), bool)
    for rows in _blocks(len(vectors), vectors.shape[1]):
        finite[rows] = np.isfinite(vectors[rows]).all(axis=1)
    return (vectors if finite.all() else vectors[finite]), finite


def _randomized(fit: np.ndarray, mean: np.ndarray, dims: int) -> tuple[np.ndarray, np.ndarray, float]:
    """The ``dims`` first components (d x dims), their eigenvalues and the total, by a
    randomized SVD (Halko, Martinsson and Tropp, with power iterations; a fixed seed): for
    matrices whose smaller side is above :data:`EXACT`, in memory of (n + d) x (dims + 10)."""
    n, d = fit.shape
    width = min(dims + 10, n, d)

    def times(m: np.ndarray) -> np.ndarray:  # X m, X the centred rows
        out = np.empty((n, m.shape[1]))
        for rows in _blocks(n, d):
            out[rows] = (fit[rows].astype(np.float64) - mean) @ m
        return out

    def times_t(m: np.ndarray) -> np.ndarray:  # X^T m
        out = np.zeros((d, m.shape[1]))
        for rows in _blocks(n, d):
            out += (fit[rows].astype(np.float64) - mean).T @ m[rows]
        return out

    basis = np.linalg.qr(times(np.random.default_rng(0).normal(size=(d, width))))[0]
    for _ in range(_POWER):
        basis = np.linalg.qr(times(np.linalg.qr(times_t(basis))[0]))[0]
    _, singular, vt = np.linalg.svd(times_t(basis).T, full_matrices=False)
    total = 0.0
    for rows in _blocks(n, d):
        total += float(((fit[rows].astype(np.float64) - mean) ** 2).sum())
    return vt[:dims].T, singular[:dims] ** 2, total


def pca(vectors: np.ndarray, dims: int) -> tuple[np.ndarray, list[float]]:
    """The rows projected on the ``dims`` first principal components (float32), and the
    share of the total variance each component explains.

    With n rows of d dimensions, the eigenproblem is the smaller of the two: the d x d
    covariance when d <= n, the n x n Gram matrix of the centred rows when n < d (the same
    nonzero eigenvalues; the components are its eigenvectors mapped back through the rows).
    Both are accumulated over blocks of rows or columns in float64, so the memory is the
    vectors, that matrix and one block: 500 x 10,000 needs a 500 x 500 matrix, not
    10,000 x 10,000. When both sides are above :data:`EXACT` (20,000 x 20,000), a
    randomized SVD finds the first components without either matrix.
    """
    # A row with a NaN or an infinity is data, shown where it cannot be placed: the axes
    # are fitted on the finite rows, and such a row's coordinates are NaN (not drawn).
    fit, finite = _fit_rows(vectors)
    n, d = fit.shape
    mean = np.zeros(d)
    for rows in _blocks(n, d):
        mean += fit[rows].sum(axis=0, dtype=np.float64)
    mean /= max(n, 1)
    if min(n, d) > EXACT:
        components, top, total = _randomized(fit, mean, dims)
    elif d <= n:
        cov = np.zeros((d, d))
        for rows in _blocks(n, d):
            block = fit[rows].astype(np.float64) - mean
            cov += block.T @ block
        values, vecs = np.linalg.eigh(cov)
        values = np.clip(values, 0, None)
        order = np.argsort(values)[::-1][:dims]
        components, top, total = vecs[:, order], values[order], float(values.sum())
    else:
        gram = np.zeros((n, n))
        for cols in _blocks(d, n):
            block = fit[:, cols].astype(np.float64) - mean[cols]
            gram += block @ block.T
        values, vecs = np.linalg.eigh(gram)
        values = np.clip(values, 0, None)
        order = np.argsort(values)[::-1][:dims]
        top, total = values[order], float(values.sum())
        # Component k is X^T u_k / sqrt(lambda_k), a unit vector: accumulated per block of columns.
        components = np.zeros((d, len(order)))
        scale = np.sqrt(top)
        scale[scale == 0] = np.inf  # a zero eigenvalue: no direction, a zero component
        for cols in _blocks(d, n):
            block = fit[:, cols].astype(np.float64) - mean[cols]
            components[cols] = block.T @ vecs[:, order] / scale
    # A fixed sign per component (its largest loading positive): the same data, the same picture.
    if components.size:
        components *= np.where(components[np.abs(components).argmax(axis=0), range(components.shape[1])] < 0, -1, 1)
    shares = [float(v) / total if total > 0 else 0.0 for v in top]
    out = np.full((len(vectors), dims), np.nan, np.float32)
    for rows in _blocks(len(vectors), d):
        out[rows, : components.shape[1]] = (vectors[rows].astype(np.float64) - mean) @ components
    out[finite, components.shape[1] :] = 0.0  # fewer dimensions than asked: the rest is 0
    shares += [0.0] * (dims - len(shares))
    out[~finite] = np.nan
    return out, shares


def _sample(rows: int) -> np.ndarray:
    if rows <= SAMPLE:
        return np.arange(rows, dtype=np.int32)
    return np.sort(np.random.default_rng(0).choice(rows, SAMPLE, replace=False)).astype(np.int32)


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
    """The projector's service: vectors and projections cached, one computation per projection.

    A projection is computed once however many requests ask for it: the first starts it in
    a background thread (PCA there; t-SNE and UMAP in a worker process, :mod:`~visualdl.server._manifold`)
    and every request waits on the same future for at most ``wait`` seconds, then answers
    ``"computing"``. A failure is kept and answered for that projection (HTTP 422).
    ``worker_memory`` and ``worker_seconds`` bound each t-SNE or UMAP worker.
    """

    def __init__(
        self,
        provider: DataProvider,
        *,
        wait: float = WAIT,
        worker_memory: int = MEMORY_BYTES,
        worker_seconds: float = SECONDS,
    ) -> None:
        self.provider = provider
        self.wait = wait
        self.worker_memory = worker_memory
        self.worker_seconds = worker_seconds
        self._lock = threading.Lock()
        self._cache: ByteCache[Any] = ByteCache(_CACHE_BYTES, keep=1)
        self._futures: dict[tuple[Any, ...], Future[dict[str, Any]]] = {}  # running or failed

    # -- cache -----------------------------------------------------------------------------

    def _get(self, key: tuple[Any, ...]) -> Any:
        return self._cache.get(key)

    def _put(self, key: tuple[Any, ...], value: Any, size: int) -> None:
        self._cache.put(key, value, size)

    # -- data ------------------------------------------------------------------------------

    def vectors(self, run: str, tag: str, index: int | None) -> tuple[Embedding, np.ndarray]:
        """Entry ``index`` of ``tag`` (the newest without it) and its vectors, rows x dimension."""
        entry = self.provider.read_embedding(run=run, tag=tag, index=index)
        event = entry.event
        key = ("vectors", run, tag, entry.index, event.ref)
        hit = self._get(key)
        if hit is None:
            try:
                data = entry.read_vectors()
            except (OSError, VisualDLError) as e:
                raise NotFound(f"the embeddings of {tag!r} in {run!r} cannot be read: {e}") from e
            hit = np.frombuffer(data, "<f4").reshape(event.rows, event.dimension)
            self._put(key, hit, hit.nbytes)
        return entry, hit

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
        entry, vectors = self.vectors(run, tag, index)
        at, event = entry.index, entry.event
        columns = [list(col) for col in zip(*event.metadata, strict=True)] if event.metadata else []
        sprite = None
        if entry.sprite is not None:
            s = entry.sprite
            sprite = {"width": s.width, "height": s.height, "image_width": s.image_width,
                      "image_height": s.image_height, "per_row": s.per_row}  # fmt: skip
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
            "sprite": sprite,
        }
        points = event.rows if method == "pca" else min(event.rows, SAMPLE)
        key = ("projection", run, tag, at, event.ref, method, dims)
        hit = self._get(key)
        if hit is None:
            future = self._start(key, method, vectors, dims)
            try:
                hit = future.result(timeout=self.wait)
            except FutureTimeout:
                return {**head, "status": "computing", "points": points}
            except ProjectionFailed as e:
                raise CannotShow(f"{_NAMES[method]} of {tag!r} in {run!r} failed: {e}") from e
        return {**head, "status": "done", "points": points, **hit}

    def _start(self, key: tuple[Any, ...], method: str, vectors: np.ndarray, dims: int) -> Future[dict[str, Any]]:
        """The future of ``key``'s projection: the running (or failed) one, or a new one."""
        with self._lock:
            future = self._futures.get(key)
            if future is not None:
                return future
            future = self._futures[key] = Future()

        def work() -> None:
            try:
                value, size = self._compute(method, vectors, dims)
            except ProjectionFailed as e:
                future.set_exception(e)  # kept: the same data fails the same way
                return
            except Exception as e:  # the thread's boundary: the failure is the projection's answer
                log.exception("%s of %s failed", method, key[1:4])
                future.set_exception(ProjectionFailed(f"{type(e).__name__}: {e}"))
                return
            self._put(key, value, size)
            with self._lock:
                self._futures.pop(key, None)  # cached from now on
            future.set_result(value)

        threading.Thread(target=work, name=f"visualdl-{method}", daemon=True).start()
        return future

    def _compute(self, method: str, vectors: np.ndarray, dims: int) -> tuple[dict[str, Any], int]:
        """The answer's fields of a projection, and the bytes they hold."""
        if method == "pca":
            coords, shares = pca(vectors, dims)
            return {"coordinates": _b64(coords), "explained_variance": shares, "sample": None}, coords.nbytes
        rows = _sample(len(vectors))
        picked = vectors[rows]
        reduced = pca(picked, 50)[0] if picked.shape[1] > 50 else picked.astype(np.float32)
        finite = np.isfinite(reduced).all(axis=1)
        coords = np.full((len(rows), dims), np.nan, np.float32)
        placed = reduced[finite]
        if len(placed) >= 2 and np.ptp(placed, axis=0).any():
            coords[finite] = embed_in_worker(
                method, placed, dims, memory_bytes=self.worker_memory, seconds=self.worker_seconds
            )
        else:  # nothing to separate (the libraries divide by the zero spread, or crash): the origin
            coords[finite] = 0.0
        sample = None if len(rows) == len(vectors) else _b64(rows)
        return {"coordinates": _b64(coords), "explained_variance": None, "sample": sample}, coords.nbytes

    # -- label images ------------------------------------------------------------------------

    def sprite(self, *, run: str, tag: str, index: int | None) -> tuple[bytes, str]:
        """The image of an entry's label images (TensorBoard's sprite: one per row of vectors,
        laid as ``sprite`` in :meth:`projection` says) and its media type."""
        entry = self.provider.read_embedding(run=run, tag=tag, index=index)
        if entry.sprite is None or entry.read_sprite is None:
            raise NotFound(f"entry {entry.index} of {tag!r} in {run!r} has no label images")
        try:
            return entry.read_sprite(), entry.sprite.media_type
        except (OSError, VisualDLError) as e:
            raise NotFound(f"the label images of {tag!r} in {run!r} cannot be read: {e}") from e

    # -- neighbors ---------------------------------------------------------------------------

    def neighbors(self, *, run: str, tag: str, index: int | None, point: int, k: int, metric: str) -> dict[str, Any]:
        entry, vectors = self.vectors(run, tag, index)
        at, event = entry.index, entry.event
        if not 0 <= point < len(vectors):
            raise NotFound(f"{tag!r} in {run!r} has {len(vectors)} rows; there is no row {point}")
        query = vectors[point].astype(np.float64)
        distances = np.empty(len(vectors), np.float64)
        if metric == "cosine":
            qn = np.linalg.norm(query) or 1.0
            for rows in _blocks(len(vectors), vectors.shape[1]):
                block = vectors[rows].astype(np.float64)
                norms = np.linalg.norm(block, axis=1)
                norms[norms == 0] = 1.0
                distances[rows] = 1.0 - block @ query / (norms * qn)
        else:
            for rows in _blocks(len(vectors), vectors.shape[1]):
                block = vectors[rows].astype(np.float64)
                distances[rows] = np.sqrt(((block - query) ** 2).sum(axis=1))
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
