"""A logdir holding given kinds, written by the real LogWriter.

One small, deterministic record set per kind (named as in the kinds table), so a test asks
for what it needs (``write_kinds(path, ["scalars", "images"])``) instead of writing its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

import numpy as np

from visualdl import LogWriter, SummaryWriter


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


def write_kinds_tour(logdir: str) -> None:
    """Runs a and b (scalars, hyperparameters, PR and ROC curves, audio), emb (embeddings) and
    layout (custom scalar layouts, by SummaryWriter): what the kinds API and views are checked on."""
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 2, 300)
    scores = np.clip(labels * 0.35 + rng.random(300) * 0.65, 0, 1)
    for run, lr in (("a", 0.1), ("b", 0.01)):
        with LogWriter(os.path.join(logdir, run)) as w:
            for step in range(5):
                w.add_scalar("loss", 1.0 / (step + 1) + lr, step)
            w.add_scalar("acc", 0.5 + lr, 4)
            w.add_hparams({"lr": lr, "batch": 32, "opt": "adam" if run == "a" else "sgd", "warm": run == "a"},
                          ["loss", "acc", "never"])  # fmt: skip
            for step in (0, 10):
                w.add_pr_curve("pr", labels, scores ** (1 + step / 10), step, num_thresholds=30)
                w.add_roc_curve("roc", labels, scores, step, num_thresholds=20)
            w.add_audio("clip", np.sin(np.arange(4000) / 10) * 0.5, 3, sample_rate=8000)
            w.add_audio("clip", np.zeros(800), 7, sample_rate=16000)
    low_rank = rng.normal(size=(500, 2)) @ rng.normal(size=(2, 8)) * np.array([5, 5, 5, 5, 5, 5, 5, 5])
    noise = rng.normal(size=(500, 8)) * 0.01
    with LogWriter(os.path.join(logdir, "emb")) as w:
        w.add_embeddings("vectors", mat=(low_rank + noise).astype(np.float32),
                         metadata=[[f"p{i}" for i in range(500)], [str(i % 3) for i in range(500)]],
                         metadata_header=["name", "class"])  # fmt: skip
        w.add_scalar("other/x", 1.0, 0)
    with SummaryWriter(os.path.join(logdir, "layout")) as sw:
        loss = {"both": ["Multiline", ["^lo", "acc$"]], "band": ["Margin", ["loss", "acc", "loss"]]}
        sw.add_custom_scalars({"Loss": loss, "Broken": {"bad": ["Multiline", ["(unclosed"]]}})
