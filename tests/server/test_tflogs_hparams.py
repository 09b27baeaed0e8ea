"""The hparams plugin's logs TensorFlow wrote (``tests/data/tflogs``, see its README) through
``/api/hparams``, as TensorBoard's hparams plugin shows them: the experiment declared in the
root (``hp.hparams_config``) names the metrics of the trials below it (``hparams/run-N``),
and clu's run, which declares none, offers every scalar tag of its trial as a metric. Each
metric's last value is the last point TensorBoard's reader holds for that tag."""

from __future__ import annotations

import os

import numpy as np
from kit.apps import build_app
from kit.requirements import require

try:
    from tensorboard.backend.event_processing import plugin_event_multiplexer
    from tensorboard.util import tensor_util
except ImportError:  # pragma: no cover - the test extra installs it
    plugin_event_multiplexer = None

require(plugin_event_multiplexer is not None, "tensorboard", "pip install -e '.[test]'")

LOGS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "tflogs")
TRIALS = ("hparams/run-0", "hparams/run-1", "hparams/run-2")


def test_tflogs_hparams_trials_show_the_experiments_metrics_with_tensorboards_values():
    mux = plugin_event_multiplexer.EventMultiplexer(size_guidance={"tensors": 0})
    mux.AddRunsFromDirectory(LOGS)
    mux.Reload()
    app = build_app(LOGS, poll=False)
    app.extensions["visualdl.provider"].poll()
    body = app.test_client().get("/api/hparams").get_json()
    runs = {r["run"]: r for r in body["runs"]}
    assert set(runs) == {*TRIALS, "clu"}  # the root holds the experiment, no trial
    declared, found = ["accuracy", "loss"], ["train/loss", "train/lr"]
    assert sorted(body["metrics"]) == sorted(declared + found)
    for run, metrics in [*((t, declared) for t in TRIALS), ("clu", found)]:
        for tag in metrics:
            events = mux.Tensors(run, tag)
            last = float(np.float64(tensor_util.make_ndarray(events[-1].tensor_proto).item()))
            got = runs[run]["metrics"][tag]
            assert got is not None, (run, tag)
            assert (got["last"], got["step"], got["points"]) == (last, events[-1].step, len(events)), (run, tag)
        # The other search's metrics are not this run's.
        assert [m for m, v in runs[run]["metrics"].items() if v is not None] == metrics, run
    assert runs["hparams/run-1"]["hparams"] == {"units": 16.0, "dropout": 0.2, "optimizer": "sgd", "batchnorm": True}
