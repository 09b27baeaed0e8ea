"""t-SNE and UMAP of an embedding, in a worker process with memory and time limits.

The libraries are native code that can crash on data they do not expect: scikit-learn's
Barnes-Hut t-SNE segfaults on rows that are all identical. Run in the server's process,
that took the server down. Here each projection runs in a fresh worker process (the
``spawn`` context: a new interpreter, never a fork of the threaded server) whose address
space is capped with ``RLIMIT_AS`` and that is killed after a time limit, so a crash, a
runaway allocation or a hang costs that projection, reported as :class:`ProjectionFailed`
with the cause, never the server. On Linux a worker dies with the server (killed with
SIGKILL too): none outlives it.

The worker gets the rows already reduced by PCA (at most 5,000 x 50 float32) and answers
the coordinates; the limits are set before the library is imported.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import time
import warnings
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from visualdl.errors import CannotShow

__all__ = ["MEMORY_BYTES", "SECONDS", "ProjectionFailed", "embed", "embed_in_worker"]

#: Address space a worker may add to what it holds once started (the interpreter and
#: numpy): scikit-learn or UMAP (numba) take a few hundred MB of it before any data.
MEMORY_BYTES = 4 << 30
#: Seconds a worker may run: t-SNE of 5,000 rows takes about 30 s on one core; the first
#: UMAP compiles its numba code for a minute or two.
SECONDS = 900.0
_POLL = 0.2


class ProjectionFailed(CannotShow):
    """A projection whose worker raised, crashed, ran out of memory or out of time (HTTP 422)."""


def embed(method: str, reduced: np.ndarray, dims: int) -> np.ndarray:
    """``reduced`` (rows x at most 50) projected to ``dims`` by ``"tsne"`` or ``"umap"``, in
    this process (:func:`embed_in_worker` runs it in a worker)."""
    with warnings.catch_warnings():  # the libraries' chatter (umap: "Tensorflow not installed")
        warnings.simplefilter("ignore")
        if method == "tsne":
            from sklearn.manifold import TSNE

            perplexity = float(min(30, max(2, (len(reduced) - 1) / 3)))
            model = TSNE(n_components=dims, perplexity=perplexity, init="pca", random_state=0)
            return np.asarray(model.fit_transform(reduced), np.float32)
        import umap

        neighbours = int(min(15, max(2, len(reduced) - 1)))
        umap_model = umap.UMAP(n_components=dims, n_neighbors=neighbours, random_state=0)
        return np.asarray(umap_model.fit_transform(reduced), np.float32)


def _address_space() -> int:
    """Bytes of address space this process holds (0 where /proc does not say)."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _die_with(parent: int) -> None:
    """Have Linux kill this worker when the thread that started it ends (the server killed
    with SIGKILL included), so that no projection outlives its server."""
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _child(conn: Connection, memory_bytes: int, parent: int = 0) -> None:
    """The worker: cap the address space, then take the call, run it and answer it."""
    import resource

    if parent:
        _die_with(parent)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash leaves no core file
    # On top of what the interpreter and numpy hold already (their thread pools' reservations
    # grow with the machine's cores), so the bound is the projection's own.
    limit = _address_space() + memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        function, args = conn.recv()
        answer: tuple[str, Any] = ("ok", function(*args))
    except BaseException as e:  # noqa: BLE001 - the worker's boundary: every failure is answered
        answer = ("error", f"{type(e).__name__}: {e}" if str(e) else type(e).__name__)
    conn.send(answer)
    conn.close()


def _died(code: int | None, memory_bytes: int) -> str:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"its worker process died of {name} (a crash in the library, or more than {memory_bytes >> 20} MiB)"
    return f"its worker process exited with code {code} without an answer"


def embed_in_worker(
    method: str,
    reduced: np.ndarray,
    dims: int,
    *,
    memory_bytes: int = MEMORY_BYTES,
    seconds: float = SECONDS,
) -> np.ndarray:
    """:func:`embed` run in a new worker process with at most ``memory_bytes`` of address
    space and ``seconds`` of time; raises :class:`ProjectionFailed` naming what went wrong."""
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    worker = context.Process(
        target=_child, args=(theirs, memory_bytes, os.getpid()), name=f"visualdl-{method}", daemon=True
    )
    worker.start()
    theirs.close()
    deadline = time.monotonic() + seconds
    try:
        try:
            ours.send((embed, (method, reduced, dims)))
            while not ours.poll(_POLL):
                if not worker.is_alive() and not ours.poll(0):
                    raise ProjectionFailed(_died(worker.exitcode, memory_bytes))
                if time.monotonic() > deadline:
                    raise ProjectionFailed(f"it took longer than {seconds:g} s and its worker process was stopped")
            status, value = ours.recv()
        except (EOFError, BrokenPipeError, ConnectionResetError):
            worker.join(5)
            raise ProjectionFailed(_died(worker.exitcode, memory_bytes)) from None
        if status != "ok":
            raise ProjectionFailed(f"{value} (in its worker process, limited to {memory_bytes >> 20} MiB)")
        return np.asarray(value, np.float32)
    finally:
        ours.close()
        if worker.is_alive():
            worker.kill()
        worker.join()
