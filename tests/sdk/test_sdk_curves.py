"""PR and ROC curves: LogWriter -> file -> LogReader, number for number as VisualDL 2.5.3
stores them (tests/data/vdl2/curves.json), bad input refused on the caller's thread."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from kit.paths import DATA

from visualdl import LogReader, LogWriter

CURVES = os.path.join(DATA, "vdl2", "curves.json")


@pytest.fixture(scope="module")
def vdl2():
    with open(CURVES, encoding="utf-8") as f:
        return json.load(f)


def _read(logdir: str):
    reader = LogReader(logdir)
    reader.poll()
    assert reader.problems == []
    return reader


def test_sdk_curves_equal_visualdl2s(logdir, vdl2):
    with LogWriter(logdir) as writer:
        for step, case in enumerate(vdl2["cases"]):
            args = (vdl2["labels"], vdl2["predictions"], step, case["num_thresholds"], case["weights"])
            writer.add_pr_curve("pr", *args, walltime=1_700_000_000 + step)
            writer.add_roc_curve("roc", *args)
    reader = _read(logdir)
    pr, roc = reader.pr_curves(".", "pr"), reader.roc_curves(".", "roc")
    assert [e.step for e in pr] == [e.step for e in roc] == [0, 1, 2]
    assert [e.wall_time for e in pr] == [1_700_000_000.0, 1_700_000_001.0, 1_700_000_002.0]
    for case, ours, our_roc in zip(vdl2["cases"], pr, roc, strict=True):
        theirs = case["pr"]
        n = len(theirs["tp"])
        assert n == min(case["num_thresholds"], 127)
        assert ours.thresholds.tolist() == (np.arange(n) / (n - 1)).tolist()
        for name in ("tp", "fp", "tn", "fn", "precision", "recall"):
            assert getattr(ours, name).tolist() == theirs[name], (case["name"], name)
        for name in ("tp", "fp", "tn", "fn", "fpr"):
            assert getattr(our_roc, name).tolist() == case["roc"][name], (case["name"], name)
        # VisualDL 2.5's "tpr" is tp / (tn + fp); the true positive rate is the recall.
        assert our_roc.tpr.tolist() == theirs["recall"]


def test_sdk_curves_count_predictions_at_or_above_each_threshold(logdir):
    with LogWriter(logdir) as writer:
        writer.add_pr_curve("pr", np.array([True, False, True]), np.array([0.0, 0.5, 1.0]), 0, num_thresholds=3)
    (event,) = _read(logdir).pr_curves(".", "pr")
    assert event.thresholds.tolist() == [0.0, 0.5, 1.0]
    assert (event.tp.tolist(), event.fp.tolist()) == ([2.0, 1.0, 1.0], [1.0, 1.0, 0.0])
    assert (event.tn.tolist(), event.fn.tolist()) == ([0.0, 0.0, 1.0], [0.0, 1.0, 1.0])


def test_sdk_curves_accept_tensors_and_fractional_weights(logdir):
    class Tensor:
        def __init__(self, values):
            self._values = values

        def numpy(self):
            return np.asarray(self._values)

    with LogWriter(logdir) as writer:
        writer.add_roc_curve("roc", Tensor([1, 0]), Tensor([0.9, 0.2]), 0, num_thresholds=2, weights=0.5)
    (event,) = _read(logdir).roc_curves(".", "roc")
    assert (event.tp.tolist(), event.fp.tolist()) == ([0.5, 0.0], [0.5, 0.0])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"labels": [0, 1, 2]}, ValueError, r"labels must be in \[0, 1\] .*got 2.0"),
        ({"labels": [0, -0.5, 1]}, ValueError, "got -0.5"),
        ({"labels": [0, float("nan"), 1]}, ValueError, "got nan"),
        ({"labels": [0, 1]}, ValueError, "got 2 labels and 3 predictions"),
        ({"labels": "abc"}, TypeError, "labels must be an array of numbers"),
        ({"predictions": [0.5, 1.5, 0.1]}, ValueError, r"probabilities in \[0, 1\]; got 1.5"),
        ({"predictions": [0.5, float("nan"), 0.1]}, ValueError, "got nan"),
        ({"labels": [], "predictions": []}, ValueError, "must not be empty"),
        ({"num_thresholds": 1}, ValueError, "num_thresholds must be an integer of at least 2"),
        ({"num_thresholds": 2.5}, ValueError, "num_thresholds"),
        ({"weights": -1.0}, ValueError, "non-negative number; got -1.0"),
        ({"weights": [1.0, 2.0]}, ValueError, "2 weights for 3 examples"),
        ({"weights": True}, TypeError, "weights"),
        ({"step": -1}, ValueError, "step"),
        ({"tag": ""}, ValueError, "tag"),
    ],
)
def test_sdk_curves_refuse_bad_input_and_lose_nothing(logdir, kwargs, error, match):
    args = {"tag": "c", "labels": [0, 1, 1], "predictions": [0.2, 0.7, 0.4], "step": 1, **kwargs}
    with LogWriter(logdir) as writer:
        writer.add_pr_curve("c", [0, 1], [0.1, 0.9], 0)
        writer.add_scalar("loss", 1.0, 0)
        for method in (writer.add_pr_curve, writer.add_roc_curve):
            with pytest.raises(error, match=match):
                method(**args)
    reader = _read(logdir)
    assert [e.step for e in reader.pr_curves(".", "c")] == [0]
    assert reader.tags(".")["roc_curves"] == []
    assert reader.scalars(".", "loss").values.tolist() == [1.0]
