"""A hyperparameter sweep as a user's script writes it: one run per (lr, seed), each with its
hparams and a few scalar tags, in ``lr{lr}/seed{seed}`` folders; values known in advance."""

from __future__ import annotations

import os

import numpy as np

from visualdl import LogWriter

TAGS = ("train/loss", "eval/loss", "eval/acc", "lr")


def sweep_value(tag: str, lr: float, seed: int, step: int) -> float:
    """What the sweep logged for ``tag`` at ``step`` of run (lr, seed): distinct per run and step."""
    base = {"train/loss": 2.0, "eval/loss": 2.5, "eval/acc": 0.1, "lr": lr}[tag]
    if tag == "lr":
        return lr
    return float(base / (1.0 + lr * step) + 0.001 * seed + (0.01 * step if tag == "eval/acc" else 0.0))


def write_sweep(
    logdir: str | os.PathLike[str],
    lrs: tuple[float, ...] = (0.01, 0.03, 0.1, 0.3),
    seeds: int = 3,
    steps: int = 20,
    tags: tuple[str, ...] = TAGS,
) -> list[str]:
    """The runs written, in natural order (``seed2`` before ``seed10``)."""
    names = []
    step_values = np.arange(steps)
    for lr in lrs:
        for seed in range(seeds):
            name = f"lr{lr}/seed{seed}"
            with LogWriter(os.path.join(logdir, name)) as w:
                w.add_hparams({"lr": lr, "seed": seed, "opt": "adam" if seed % 2 else "sgd"}, list(tags))
                for tag in tags:
                    for step in step_values.tolist():
                        w.add_scalar(tag, sweep_value(tag, lr, seed, step), step)
            names.append(name)
    return names
