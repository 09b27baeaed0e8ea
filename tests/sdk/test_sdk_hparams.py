"""Hyperparameters: LogWriter -> file -> LogReader with each value's type kept, bad
input refused on the caller's thread."""

from __future__ import annotations

import numpy as np
import pytest

from visualdl import LogReader, LogWriter


def _read(logdir: str) -> LogReader:
    reader = LogReader(logdir)
    reader.poll()
    assert reader.problems == []
    return reader


def test_sdk_hparams_round_trip_with_types(logdir):
    values = {"lr": 0.1, "batch": 64, "opt": "sgd", "bn": True, "seed": np.int64(7), "wd": np.float32(0.5)}
    with LogWriter(logdir) as writer:
        writer.add_hparams({**values, "skipped": None}, ["eval/acc", "train/loss"], walltime=1_700_000_000_000)
    event = _read(logdir).hparams(".")
    assert event is not None
    assert event.hparams == {"lr": 0.1, "batch": 64, "opt": "sgd", "bn": True, "seed": 7, "wd": 0.5}
    assert [type(v) for v in event.hparams.values()] == [float, int, str, bool, int, float]
    assert event.metrics == ("eval/acc", "train/loss")
    assert event.wall_time == 1_700_000_000.0  # milliseconds, as VisualDL 2 passes them


def test_sdk_hparams_newest_wins_and_none_when_absent(logdir):
    with LogWriter(logdir + "/a") as writer:
        writer.add_hparams({"lr": 0.1}, [], walltime=100.0)
        writer.add_hparams({"lr": 0.2}, ("acc",), walltime=200.0)  # type: ignore[arg-type]  # a tuple works too
    with LogWriter(logdir + "/b") as writer:
        writer.add_scalar("acc", 1.0, 0)
    reader = _read(logdir)
    newest = reader.hparams("a")
    assert newest is not None and (newest.hparams, newest.metrics) == ({"lr": 0.2}, ("acc",))
    assert reader.hparams("b") is None


@pytest.mark.parametrize(
    ("hparams_dict", "metrics_list", "error", "match"),
    [
        ([("lr", 0.1)], [], TypeError, "hparams_dict must be a dict"),
        ({"lr": 0.1}, "acc", TypeError, "metrics_list must be a list of scalar tags; got str 'acc'"),
        ({"lr": [0.1, 0.2]}, [], TypeError, r"hparams_dict\['lr'\] must be a number, a string or a bool; got list"),
        ({"big": 2**70}, [], ValueError, r"hparams_dict\['big'\] must fit in 64 bits"),
        ({1: 0.1}, [], TypeError, "hparams_dict key must be a non-empty string"),
        ({"": 0.1}, [], ValueError, "hparams_dict key"),
        ({"lr": 0.1}, ["acc", 3], TypeError, "metrics_list item must be a non-empty string"),
        ({"s": "\ud800"}, [], ValueError, "not valid Unicode"),
    ],
)
def test_sdk_hparams_refuse_bad_input_and_lose_nothing(logdir, hparams_dict, metrics_list, error, match):
    with LogWriter(logdir) as writer:
        writer.add_hparams({"lr": 0.1}, ["acc"])
        with pytest.raises(error, match=match):
            writer.add_hparams(hparams_dict, metrics_list)
    event = _read(logdir).hparams(".")
    assert event is not None and event.hparams == {"lr": 0.1}
