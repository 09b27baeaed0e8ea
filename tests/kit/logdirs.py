"""A logdir holding given kinds, written by the real LogWriter.

One small, deterministic record set per kind (named as in the kinds table), so a test asks
for what it needs (``write_kinds(path, ["scalars", "images"])``) instead of writing its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

import numpy as np

from visualdl import LogWriter


def _scalars(w: LogWriter) -> None:
    for step in range(5):
        w.add_scalar("loss", 1.0 / (step + 1), step)


def _images(w: LogWriter) -> None:
    for step in (0, 10):
        w.add_image("sample", np.full((4, 6, 3), step * 10, np.uint8), step)


def _histograms(w: LogWriter) -> None:
    rng = np.random.default_rng(0)
    for step in (0, 10):
        w.add_histogram("weights", rng.normal(step / 10.0, 1.0, 200), step, buckets=10)


def _text(w: LogWriter) -> None:
    w.add_text("notes", "first note", 0)


def _audio(w: LogWriter) -> None:
    w.add_audio("clip", np.sin(np.arange(800) / 10) * 0.5, 0, sample_rate=8000)


def _curve_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 2, 100)
    return labels, np.clip(labels * 0.6 + rng.random(100) * 0.4, 0, 1)


def _pr_curves(w: LogWriter) -> None:
    labels, scores = _curve_data()
    w.add_pr_curve("pr", labels, scores, 0, num_thresholds=10)


def _roc_curves(w: LogWriter) -> None:
    labels, scores = _curve_data()
    w.add_roc_curve("roc", labels, scores, 0, num_thresholds=10)


def _hparams(w: LogWriter) -> None:
    w.add_hparams({"lr": 0.1, "opt": "adam"}, ["loss"])


def _embeddings(w: LogWriter) -> None:
    rng = np.random.default_rng(2)
    w.add_embeddings("vectors", mat=rng.normal(size=(20, 4)).astype(np.float32), metadata=[str(i) for i in range(20)])


WRITERS: dict[str, Callable[[LogWriter], None]] = {
    "scalars": _scalars,
    "images": _images,
    "histograms": _histograms,
    "text": _text,
    "audio": _audio,
    "pr_curves": _pr_curves,
    "roc_curves": _roc_curves,
    "hparams": _hparams,
    "embeddings": _embeddings,
}


def write_kinds(logdir: str | os.PathLike[str], kinds: Iterable[str] = ("scalars",), run: str = "run") -> str:
    """Write one small record set of each of ``kinds`` into ``logdir/run``; returns the logdir."""
    kinds = list(kinds)
    unknown = [k for k in kinds if k not in WRITERS]
    if unknown:
        raise ValueError(f"write_kinds knows no kind {unknown[0]!r}; use one of {sorted(WRITERS)!r}")
    with LogWriter(os.path.join(logdir, run)) as w:
        for kind in kinds:
            WRITERS[kind](w)
    return str(logdir)
