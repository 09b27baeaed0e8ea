"""VisualDLCallback in a real Hugging Face Trainer run on the CPU, read back with LogReader.

A tiny BERT classifier (built from its config, nothing downloaded) trains for a few steps
with three callbacks side by side: ours, Transformers' own ``TensorBoardCallback`` and a
recorder of what the Trainer logs. The reader returns exactly what the Trainer logged, at
its global steps, under the tags TensorBoard's callback wrote (float32 values equal to ours
rounded); the arguments and the model's config as text, equal to TensorBoard's; the
arguments as hyperparameters with every scalar tag as a metric. Under torchrun on two CPU
processes each process's file holds its rank.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from kit.requirements import require

from visualdl import LogReader, LogWriter

require(importlib.util.find_spec("transformers") is not None, "transformers", "pip install -e '.[e2e]'")

# transformers, torch and the callback are imported by each test (transformers_tiny.py holds
# what they train), not at collection: transformers and torch take seconds to import.

pytestmark = [
    pytest.mark.e2e,
    # The Trainer's and torch's own warnings on a tiny CPU run.
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
]


HERE = Path(__file__).parent


def test_transformers_callback_logs_training_as_the_trainer_reported_and_as_tensorboard_wrote(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from torch.utils.tensorboard import SummaryWriter
    from transformers.integrations import TensorBoardCallback
    from transformers_tiny import Recorder, trainer

    from visualdl.integrations._hparams import hparam_value
    from visualdl.integrations.transformers import VisualDLCallback, rewrite_logs

    recorder = Recorder()
    training = trainer(
        tmp_path, [VisualDLCallback(tmp_path / "vdl"), TensorBoardCallback(SummaryWriter(tmp_path / "tb")), recorder]
    )
    training.train()
    reader = LogReader(tmp_path / "vdl")
    assert reader.runs() == ["."] and reader.problems == []

    expected: dict[str, list[tuple[int, float]]] = {}
    for step, logs in recorder.logs:
        for tag, value in rewrite_logs(logs).items():
            expected.setdefault(tag, []).append((step, float(value)))
    assert {"train/loss", "train/learning_rate", "eval/loss", "train/train_loss"} <= set(expected)
    got = {}
    for tag in reader.tags(".")["scalars"]:
        series = reader.scalars(".", tag)
        got[tag] = list(zip(series.steps.tolist(), series.values.tolist(), strict=True))
    assert {tag: sorted(points) for tag, points in got.items()} == {t: sorted(p) for t, p in expected.items()}

    events = EventAccumulator(str(tmp_path / "tb"), size_guidance={"scalars": 0, "tensors": 0})
    events.Reload()
    assert set(events.Tags()["scalars"]) == set(got)
    for tag, points in got.items():
        tb = sorted((e.step, e.value) for e in events.Scalars(tag))
        assert tb == sorted((step, float(np.float32(value))) for step, value in points), tag

    # The arguments and the model's config (as it was when training began) as text: the same
    # JSON as TensorBoard's, which torch's writer stores under "<tag>/text_summary".
    texts = {}
    for tag in ("args", "model_config"):
        (event,) = reader.texts(".", tag)
        texts[tag] = event.text
        assert event.text == events.Tensors(f"{tag}/text_summary")[0].tensor_proto.string_val[0].decode()
    assert texts["args"] == training.args.to_json_string()
    assert '"hidden_size": 8' in texts["model_config"]

    hparams = reader.hparams(".")
    assert hparams is not None
    assert hparams.hparams == {k: hparam_value(v) for k, v in training.args.to_sanitized_dict().items()}
    assert hparams.hparams["learning_rate"] == training.args.learning_rate and hparams.hparams["max_steps"] == 4
    assert set(hparams.metrics) == set(got)
    (writer,) = reader.writers(".")
    assert writer.ended is not None
    assert (writer.rank, writer.world_size, writer.closed, writer.ended.how) == (-1, -1, True, "closed")


def test_transformers_callback_logs_evaluate_after_training_into_the_same_run(tmp_path):
    from transformers_tiny import trainer

    from visualdl.integrations.transformers import VisualDLCallback

    training = trainer(tmp_path, [VisualDLCallback(every_process=True)])
    training.train()
    metrics = training.evaluate()
    (run,) = LogReader(tmp_path / "out" / "runs").runs()  # the default: <output_dir>/runs/<time>_<host>
    reader = LogReader(tmp_path / "out" / "runs")
    # The evaluation after training, in a second file, is the newer point at the last step.
    series = reader.scalars(run, "eval/loss")
    assert series.steps.tolist() == [2, 4] and series.values[-1] == metrics["eval_loss"]
    assert reader.texts(run, "args")  # written by the first file
    # every_process: this process's rank and world size from the TrainingArguments.
    writers = reader.writers(run)
    # The evaluate's file is closed after it: the run does not look alive until the process ends.
    assert sorted((w.rank, w.world_size, w.closed) for w in writers) == [(0, 1, True), (0, 1, True)]


def test_transformers_callback_main_process_only_and_arguments(tmp_path):
    from transformers import TrainerState

    from visualdl.integrations.transformers import VisualDLCallback

    callback = VisualDLCallback(tmp_path / "quiet")
    state = TrainerState(is_world_process_zero=False)
    args = SimpleNamespace(world_size=2, process_index=1, local_process_index=1, output_dir=str(tmp_path))
    callback.on_train_begin(args, state, None)
    callback.on_log(args, state, None, logs={"loss": 1.0})
    callback.on_train_end(args, state, None)
    assert not (tmp_path / "quiet").exists()

    every = VisualDLCallback(every_process=True)
    with pytest.raises(ValueError, match=r"every_process=True\) needs logdir= when training on several processes"):
        every.on_log(args, state, None, logs={"loss": 1.0})
    with pytest.raises(TypeError, match=r"\['rank'\].*come from the TrainingArguments"):
        VisualDLCallback(tmp_path, rank=3)
    with pytest.raises(TypeError, match="not both"):
        VisualDLCallback(tmp_path, writer=object())  # type: ignore[arg-type]


def test_transformers_callback_on_two_cpu_processes_logs_each_process_or_the_main_one(tmp_path):
    """torchrun, 2 processes (gloo): every_process writes each process's file with its rank; else rank 0's alone."""
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", str(HERE / "transformers_ddp.py"),
         *(str(tmp_path / d) for d in ("every", "main", "out"))],
        capture_output=True, text=True, timeout=300, cwd=tmp_path, env={**os.environ, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    reported = {}
    for rank in (0, 1):
        out = json.loads((tmp_path / f"out.{rank}.json").read_text())
        assert out["world_size"] == 2
        reported[rank] = [(step, logs["loss"]) for step, logs in out["logs"] if "loss" in logs]
    assert len(reported[0]) == 4

    every = LogReader(tmp_path / "every")
    writers = sorted(every.writers("."), key=lambda w: w.rank)
    assert [(w.rank, w.world_size, w.local_rank, w.closed) for w in writers] == [(0, 2, 0, True), (1, 2, 1, True)]
    for rank in (0, 1):
        series = every.scalars(".", "train/loss", rank=rank)
        assert list(zip(series.steps.tolist(), series.values.tolist(), strict=True)) == reported[rank]
    main = LogReader(tmp_path / "main")
    (writer,) = main.writers(".")
    assert (writer.rank, writer.world_size, writer.closed) == (0, 2, True)
    series = main.scalars(".", "train/loss")
    assert list(zip(series.steps.tolist(), series.values.tolist(), strict=True)) == reported[0]


def test_transformers_callback_pickles_with_its_writer_open(tmp_path):
    """As a Ray trial pickles the Trainer (after an evaluate, the callback's writer is open):
    the copy opens its own writer in the same run; a callback given a writer says why not."""
    from transformers import TrainerState

    from visualdl.integrations.transformers import VisualDLCallback

    callback = VisualDLCallback(tmp_path / "run")
    state = TrainerState(is_world_process_zero=True, global_step=1)
    args = SimpleNamespace(world_size=1, process_index=0, local_process_index=0, output_dir=str(tmp_path))
    callback.on_log(args, state, None, logs={"eval_loss": 1.0})
    copy = pickle.loads(pickle.dumps(callback))
    assert callback.writer is not None and copy.writer is None
    state.global_step = 2
    copy.on_log(args, state, None, logs={"eval_loss": 0.5})
    copy.on_train_end(args, state, None)
    callback.on_train_end(args, state, None)
    series = LogReader(tmp_path / "run").scalars(".", "eval/loss")
    assert (series.steps.tolist(), series.values.tolist()) == ([1, 2], [1.0, 0.5])
    with LogWriter(tmp_path / "given") as writer, pytest.raises(TypeError, match="given a writer cannot be pickled"):
        pickle.dumps(VisualDLCallback(writer=writer))
