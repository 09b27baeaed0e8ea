"""Which metrics each trial run of a hyperparameter search shows, and where each is read.

TensorBoard's hparams plugin has two ways to name a trial's metrics, and this module
follows both (pure: run names and events in, metrics out):

* **Declared.** An experiment (``hp.hparams_config``: the hparams and the metrics) is
  written once, usually in the logdir's root, and each trial's session start
  (``hp.hparams``) in its own run directory. A metric is a scalar tag read in a group: a
  run below the trial (``validation`` reads ``<trial>/validation``, as Keras writes) or
  the trial itself (``""``). A trial whose own files declare metrics (our ``add_hparams``,
  tensorboardX's, an experiment in the trial's own file) keeps them; otherwise the
  declaration of its nearest ancestor run (itself included) applies.
* **Found.** With no declaration at all (clu, flax, a bare ``hp.hparams``), every scalar
  tag of a trial run or of a run below one is a metric, its group the run's path below
  the trial, as TensorBoard offers them: the runs of several nested trials belong to the
  nearest.

A metric is named ``tag`` in its trial's own run and ``group/tag`` in a run below it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from visualdl._kinds.table import HParamsEvent

__all__ = ["Metric", "trial_metrics"]

#: The name of a logdir's root run.
ROOT = "."


@dataclass(frozen=True, slots=True)
class Metric:
    """One metric of a trial: its name in the answer and the run and tag it is read from."""

    name: str
    run: str
    tag: str
    group: str


def _parent(run: str) -> str | None:
    """The run a directory up; the root's parent is None. Named logdirs prefix their
    runs (``a/run-1``, root ``a``); an unnamed one has the root ``.``."""
    if run == ROOT:
        return None
    cut = run.rfind("/")
    return run[:cut] if cut > 0 else ROOT


def _ancestors(run: str) -> Iterable[str]:
    """``run`` and each run above it, nearest first."""
    at: str | None = run
    while at is not None:
        yield at
        at = _parent(at)


def _below(trial: str, run: str) -> str | None:
    """The path of ``run`` below ``trial`` (``""``: the trial itself), None if not below it."""
    if run == trial:
        return ""
    if trial == ROOT:
        return run
    return run[len(trial) + 1 :] if run.startswith(trial + "/") else None


def _named(trial: str, group: str, tag: str) -> Metric:
    run = trial if not group else (group if trial == ROOT else f"{trial}/{group}")
    return Metric(f"{group}/{tag}" if group else tag, run, tag, group)


def trial_metrics(
    events: Mapping[str, HParamsEvent], scalar_tags: Mapping[str, Iterable[str]]
) -> dict[str, list[Metric]]:
    """``{trial run: its metrics}`` for every trial among ``events`` (each run's newest
    hparams event), given each run's scalar tags (``scalar_tags``, which may hold runs
    that have no hparams). Metrics in the order declared, found ones sorted by name."""
    experiments = {run: e for run, e in events.items() if not e.trial}
    trials = {run: e for run, e in events.items() if e.trial}
    out: dict[str, list[Metric]] = {}
    undeclared: list[str] = []
    for run, event in trials.items():
        declared: HParamsEvent | None = event if event.metrics else None
        if declared is None:
            declared = next((experiments[a] for a in _ancestors(run) if a in experiments), None)
        if declared is None:
            undeclared.append(run)
            continue
        out[run] = [_named(run, group, tag) for group, tag in declared.metric_sources()]
    if undeclared:
        out.update(_found(undeclared, set(trials), scalar_tags))
    return out


def _found(
    undeclared: list[str], trials: set[str], scalar_tags: Mapping[str, Iterable[str]]
) -> dict[str, list[Metric]]:
    """TensorBoard's metrics without a declaration: each run with scalars belongs to its
    nearest trial (if that trial declares nothing), and every ``(group, tag)`` so found is
    a metric of every such trial, read in its own group (null where it has none)."""
    wanted = set(undeclared)
    names: set[tuple[str, str]] = set()
    for run, tags in scalar_tags.items():
        trial = next((a for a in _ancestors(run) if a in trials), None)
        if trial is None or trial not in wanted:
            continue
        group = _below(trial, run)
        assert group is not None
        names.update((group, tag) for tag in tags)
    ordered = sorted(names, key=lambda gt: (_named(ROOT, *gt).name, gt))
    return {trial: [_named(trial, group, tag) for group, tag in ordered] for trial in undeclared}
