"""Hyperparameter searches as TensorBoard's hparams plugin writes them: the experiment declared
once in the logdir's root, each trial's values in its own run, metrics read in a run below the
trial (Keras' ``validation``), and, with no declaration, every scalar tag of the trials.

The logs are written by TensorBoard's own summary functions and event file writer; which
metrics each trial gets is checked against the plugin's documented rule and, for the pure
part, against the example of its own ``_compute_metric_names``.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlencode

import pytest
from kit.apps import build_app
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.plugins.hparams import summary_v2 as hp
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from visualdl import LogReader
from visualdl._index.experiments import Metric, trial_metrics
from visualdl._kinds.table import HParamsEvent


def _write(logdir: str, summaries: list[tuple[int, summary_pb2.Summary]]) -> None:
    os.makedirs(logdir, exist_ok=True)
    writer = EventFileWriter(logdir)
    for step, summary in summaries:
        writer.add_event(event_pb2.Event(wall_time=1000.0 + step, step=step, summary=summary))
    writer.close()


def _scalar(tag: str, value: float) -> summary_pb2.Summary:
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)])


def _get(client: Any, path: str, **params: Any) -> Any:
    response = client.get(f"{path}?{urlencode(params, doseq=True)}")
    assert response.status_code == 200, response.data[:300]
    return response.get_json()


def test_an_experiment_in_the_root_gives_its_metrics_to_the_trials_below(tmp_path):
    logdir = str(tmp_path)
    lr, units = hp.HParam("lr"), hp.HParam("units")
    config = hp.hparams_config_pb(
        hparams=[lr, units],
        metrics=[hp.Metric("epoch_accuracy", group="validation"), hp.Metric("loss")],
    )
    _write(logdir, [(0, config)])
    for i in range(3):
        trial = os.path.join(logdir, f"run-{i}")
        _write(
            trial,
            [(0, hp.hparams_pb({lr: 0.1 * (i + 1), units: 16 << i}))]
            + [(s, _scalar("loss", 1.0 / (s + i + 1))) for s in range(3)],
        )
        if i < 2:  # the last trial never evaluated
            _write(
                os.path.join(trial, "validation"),
                [(s, _scalar("epoch_accuracy", 0.5 + 0.1 * s + i / 100)) for s in range(2)],
            )
    client = build_app(logdir).test_client()
    answer = _get(client, "/api/hparams")
    # The root declares and is no trial; a trial's validation run is not one either.
    assert [r["run"] for r in answer["runs"]] == ["run-0", "run-1", "run-2"]
    assert answer["metrics"] == ["validation/epoch_accuracy", "loss"]  # as declared
    assert answer["metric_sources"] == [
        {"name": "validation/epoch_accuracy", "tag": "epoch_accuracy", "group": "validation"},
        {"name": "loss", "tag": "loss", "group": ""},
    ]
    runs = {r["run"]: r for r in answer["runs"]}
    assert runs["run-1"]["hparams"] == {"lr": pytest.approx(0.2), "units": 32}
    accuracy = runs["run-1"]["metrics"]["validation/epoch_accuracy"]
    assert (accuracy["last"], accuracy["step"], accuracy["points"]) == (pytest.approx(0.61), 1, 2)
    assert runs["run-2"]["metrics"]["loss"]["last"] == pytest.approx(1 / 5)
    assert runs["run-2"]["metrics"]["validation/epoch_accuracy"] is None  # declared, never logged
    # Asking for one trial still finds the experiment above it.
    one = _get(client, "/api/hparams", run="run-0")
    assert [r["run"] for r in one["runs"]] == ["run-0"] and one["metrics"] == answer["metrics"]
    assert one["runs"][0]["metrics"]["loss"]["last"] == pytest.approx(1 / 3)
    # The reader keeps the declaration apart from the trials.
    reader = LogReader(logdir)
    root = reader.hparams(".")
    assert (
        root is not None
        and not root.trial
        and root.metric_sources() == [("validation", "epoch_accuracy"), ("", "loss")]
    )
    first = reader.hparams("run-0")
    assert first is not None and first.trial


def test_without_a_declaration_every_scalar_tag_of_the_trials_is_a_metric(tmp_path):
    logdir = str(tmp_path)
    for i in range(2):
        trial = os.path.join(logdir, f"trial{i}")
        _write(trial, [(0, hp.hparams_pb({"seed": i}))] + [(s, _scalar("train/loss", 2.0 - s)) for s in range(2)])
        _write(os.path.join(trial, "eval"), [(1, _scalar("acc", 0.7 + i / 10))])
    _write(os.path.join(logdir, "baseline"), [(0, _scalar("train/loss", 9.0))])  # no trial: not a metric source
    client = build_app(logdir).test_client()
    answer = _get(client, "/api/hparams")
    assert [r["run"] for r in answer["runs"]] == ["trial0", "trial1"]
    assert answer["metrics"] == ["eval/acc", "train/loss"]
    runs = {r["run"]: r for r in answer["runs"]}
    assert runs["trial1"]["metrics"]["eval/acc"]["last"] == pytest.approx(0.8)
    assert runs["trial0"]["metrics"]["train/loss"]["last"] == pytest.approx(1.0)


def test_own_metrics_win_over_the_experiment_above():
    declared = HParamsEvent(1.0, {}, ("acc",), trial=False)
    events = {
        ".": declared,
        "a": HParamsEvent(2.0, {"lr": 1}, ()),
        "b": HParamsEvent(2.0, {"lr": 2}, ("loss",)),  # add_hparams with its metrics
        "sub/exp": HParamsEvent(1.0, {}, ("f1",), ("eval",), trial=False),
        "sub/exp/t": HParamsEvent(2.0, {"lr": 3}, ()),
    }
    got = trial_metrics(events, {})
    assert got == {
        "a": [Metric("acc", "a", "acc", "")],
        "b": [Metric("loss", "b", "loss", "")],
        "sub/exp/t": [Metric("eval/f1", "sub/exp/t/eval", "f1", "eval")],  # the nearest experiment
    }


def test_found_metrics_follow_tensorboards_own_example():
    """The example of the hparams plugin's ``_compute_metric_names``: the runs below a trial
    are groups of it; a run below no trial gives none."""
    events = {"exp/session1": HParamsEvent(1.0, {"x": 1}, ()), "exp/session2": HParamsEvent(1.0, {"x": 2}, ())}
    scalars = {
        "exp/session1": ["loss"],
        "exp/session2": ["loss"],
        "exp/session2/eval": ["loss"],
        "exp/session2/validation": ["accuracy"],
        "exp/no-session": ["loss_2"],
    }
    got = trial_metrics(events, scalars)
    names = [(m.tag, m.group) for m in got["exp/session1"]]
    assert sorted(names) == sorted([("loss", ""), ("loss", "eval"), ("accuracy", "validation")])
    assert [m.run for m in got["exp/session2"] if m.group == "validation"] == ["exp/session2/validation"]
    assert [m.run for m in got["exp/session1"] if m.group == "eval"] == ["exp/session1/eval"]  # null there


def test_a_trial_in_the_root_reads_groups_below_it():
    events = {".": HParamsEvent(1.0, {"x": 1}, ())}
    got = trial_metrics(events, {".": ["loss"], "validation": ["acc"]})
    assert got == {".": [Metric("loss", ".", "loss", ""), Metric("validation/acc", "validation", "acc", "validation")]}
