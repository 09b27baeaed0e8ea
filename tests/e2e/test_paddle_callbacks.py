"""PaddlePaddle's own ``paddle.callbacks.VisualDL`` runs unchanged on this package.

The callback imports ``visualdl``, makes ``LogWriter(log_dir)`` on the first batch, calls
``add_scalar(tag=..., step=..., value=...)`` with ``train/<metric>`` at each training batch
(steps from 1) and ``eval/<metric>`` at each evaluation (the epoch as the step), and
``close()`` at the end of ``fit`` (or of a standalone ``evaluate``). These tests train a
tiny ``paddle.Model`` with it and read back what it wrote, by the reader and by the API.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from kit.apps import build_app
from kit.requirements import require

from visualdl import LogReader


def _paddle() -> Any:
    """paddle, imported by the test that trains (seconds to import: not at collection)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # paddle warns at import when ccache is missing
            import paddle
    except ImportError:  # pragma: no cover - CI installs it
        require(False, "paddlepaddle", "pip install -e '.[e2e]'")
    return paddle


# paddle.Model's own batching copies a tensor with to_tensor, which paddle warns about.
pytestmark = pytest.mark.filterwarnings("ignore:To copy construct from a tensor:UserWarning")


def _model(paddle: Any) -> Any:
    class Points(paddle.io.Dataset):
        def __init__(self, n: int) -> None:
            rng = np.random.default_rng(n)
            self.x = rng.standard_normal((n, 4)).astype("float32")
            self.y = rng.integers(0, 3, (n, 1)).astype("int64")

        def __getitem__(self, i):
            return self.x[i], self.y[i]

        def __len__(self) -> int:
            return len(self.x)

    paddle.seed(0)
    net = paddle.nn.Linear(4, 3)
    model = paddle.Model(
        net,
        [paddle.static.InputSpec([None, 4], "float32", "x")],
        [paddle.static.InputSpec([None, 1], "int64", "y")],
    )
    model.prepare(
        paddle.optimizer.SGD(0.1, parameters=net.parameters()), paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy()
    )
    return model, Points(24), Points(16)


def _recorder(paddle: Any) -> Any:
    class Recorder(paddle.callbacks.Callback):
        """What fit reports to its callbacks: each training batch's logs, each evaluation's."""

        def __init__(self) -> None:
            super().__init__()
            self.train: list[dict] = []
            self.eval: list[dict] = []

        def on_train_batch_end(self, step, logs=None):
            self.train.append(dict(logs))

        def on_eval_end(self, logs=None):
            self.eval.append(dict(logs))

    return Recorder()


def _value(logged) -> float:
    return float(logged[0] if isinstance(logged, (list, tuple)) else logged)


def test_paddle_callback_visualdl_logs_fit_as_reported(tmp_path):
    paddle = _paddle()
    model, train, evaluation = _model(paddle)
    recorder = _recorder(paddle)
    logdir = tmp_path / "paddle"
    model.fit(
        train,
        evaluation,
        batch_size=8,
        epochs=2,
        verbose=0,
        callbacks=[paddle.callbacks.VisualDL(log_dir=str(logdir)), recorder],
    )
    assert len(recorder.train) == 6 and len(recorder.eval) == 2  # 3 batches a epoch, 2 epochs

    reader = LogReader(str(logdir))
    assert reader.runs() == ["."]
    assert reader.tags(".")["scalars"] == ["eval/acc", "eval/loss", "train/acc", "train/loss"]
    for metric in ("loss", "acc"):
        series = reader.scalars(".", f"train/{metric}")
        assert series.steps.tolist() == [1, 2, 3, 4, 5, 6]
        assert series.values.tolist() == [_value(logs[metric]) for logs in recorder.train]
        series = reader.scalars(".", f"eval/{metric}")
        assert series.steps.tolist() == [0, 1]
        assert series.values.tolist() == [_value(logs[metric]) for logs in recorder.eval]
    (writer,) = reader.writers(".")
    assert writer.closed  # on_train_end closed it

    client = build_app(str(logdir)).test_client()
    (run,) = client.get("/api/scalars?tag=train/loss&run=.").get_json()["runs"]
    assert run["steps"] == [1, 2, 3, 4, 5, 6]
    assert run["values"] == [_value(logs["loss"]) for logs in recorder.train]


def test_paddle_callback_visualdl_logs_a_standalone_evaluate(tmp_path):
    paddle = _paddle()
    model, _, evaluation = _model(paddle)
    logdir = tmp_path / "paddle"
    result = model.evaluate(evaluation, batch_size=8, verbose=0, callbacks=[paddle.callbacks.VisualDL(str(logdir))])

    reader = LogReader(str(logdir))
    assert reader.tags(".")["scalars"] == ["eval/acc", "eval/loss"]
    for metric in ("loss", "acc"):
        series = reader.scalars(".", f"eval/{metric}")
        assert series.steps.tolist() == [0]
        assert series.values.tolist() == [_value(result[metric])]
    (writer,) = reader.writers(".")
    assert writer.closed  # without fit, on_eval_end closes it
