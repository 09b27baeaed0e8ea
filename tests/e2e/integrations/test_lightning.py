"""VisualDLLogger in real Lightning fits on the CPU, read back with LogReader.

A tiny module is fitted with three loggers side by side: ours, Lightning's
``TensorBoardLogger`` and a recorder of what Lightning hands its loggers. What the reader
returns is exactly what Lightning reported (every value, at its step), under the tags
TensorBoard's logger wrote (its float32 values equal to ours rounded); the hyperparameters
are TensorBoard's, with their metrics; the graph is there. A fit that raises is recorded
as the writer's end; a DDP fit on two CPU processes writes each rank's file with its rank.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import onnx
import pytest
from kit.requirements import require

from visualdl import LogReader

require(importlib.util.find_spec("lightning") is not None, "lightning", "pip install -e '.[e2e]'")

if TYPE_CHECKING:
    from lightning_recorder import Recorder

# Lightning, torch and the logger are imported by each test (lightning_tiny.py holds what
# they fit), not at collection: Lightning alone takes seconds to import.
pytestmark = [
    pytest.mark.e2e,
    # Lightning's own warnings on a tiny CPU run (few workers, few batches, its pytree shim).
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
]

HERE = Path(__file__).parent
RUN = "lightning_logs/version_0"


def _reported(recorder: Recorder) -> dict[str, list[tuple[int, float]]]:
    out: dict[str, list[tuple[int, float]]] = {}
    for step, metrics in recorder.metrics:
        for tag, value in metrics.items():
            out.setdefault(tag, []).append((0 if step is None else step, value))
    return out


def _ours(reader: LogReader, run: str) -> dict[str, list[tuple[int, float]]]:
    out = {}
    for tag in reader.tags(run)["scalars"]:
        series = reader.scalars(run, tag)
        out[tag] = list(zip(series.steps.tolist(), series.values.tolist(), strict=True))
    return out


def test_lightning_logger_logs_fit_as_lightning_reported_and_as_tensorboard_wrote(tmp_path):
    from lightning.pytorch.loggers import TensorBoardLogger
    from lightning_recorder import Recorder
    from lightning_tiny import Tiny, data, trainer
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData

    from visualdl.integrations.lightning import VisualDLLogger

    ours, theirs, recorder = VisualDLLogger(tmp_path / "vdl", log_graph=True), None, Recorder()
    theirs = TensorBoardLogger(tmp_path / "tb", log_graph=True)
    model = Tiny(schedule={"warmup": 2, "kind": "cosine"})
    fitting = trainer([ours, theirs, recorder])
    fitting.fit(model, data(), data())
    fitting.test(model, data())  # after fit's finalize: a second file of the same run
    assert ours.log_dir == str(tmp_path / "vdl" / RUN)

    reader = LogReader(tmp_path / "vdl")
    assert reader.runs() == [RUN] and reader.problems == []
    got = _ours(reader, RUN)
    # Lightning's values at their steps, exactly; and the metrics of log_hyperparams at step 0.
    expected = _reported(recorder)
    expected["hp_metric"] = [(0, -1.0)]
    expected["hp/val_loss"] = sorted([(0, 0.0), *expected["hp/val_loss"]])
    assert {"train_loss", "val_loss", "test_loss", "epoch"} <= set(got)
    assert {tag: sorted(points) for tag, points in got.items()} == {t: sorted(p) for t, p in expected.items()}

    # TensorBoard's logger wrote the same tags, steps and values (as float32). test's start
    # logs hp_metric at step 0 again, in its own file: the reader shows the newer file's point
    # there, TensorBoard's both (the same value).
    events = EventAccumulator(str(tmp_path / "tb" / RUN), size_guidance={"scalars": 0})
    events.Reload()
    assert set(events.Tags()["scalars"]) == set(got)
    for tag, points in got.items():
        tb = sorted({(e.step, e.value) for e in events.Scalars(tag)})
        assert tb == sorted({(step, float(np.float32(value))) for step, value in points}), tag

    # Hyperparameters: Lightning's, flattened as TensorBoard's logger writes them, with the
    # metrics of both calls (TensorBoard keeps the last call's alone).
    hparams = reader.hparams(RUN)
    assert hparams is not None
    assert hparams.hparams == {
        "lr": 0.05, "hidden": 8, "optimizer": "sgd", "schedule/warmup": 2, "schedule/kind": "cosine", "fail_at": -1,
    }  # fmt: skip
    assert hparams.metrics == ("hp_metric", "hp/val_loss")
    tb_start = HParamsPluginData.FromString(events.PluginTagToContent("hparams")["_hparams_/session_start_info"])
    tb_values = {k: v.number_value if v.HasField("number_value") else v.string_value
                 for k, v in tb_start.session_start_info.hparams.items()}  # fmt: skip
    assert tb_values == hparams.hparams
    assert (tmp_path / "vdl" / RUN / "hparams.yaml").read_text() == (tmp_path / "tb" / RUN / "hparams.yaml").read_text()

    # The graph: ONNX of the module, on its example input (TensorBoard's: a GraphDef).
    (graph,) = reader.graphs(RUN)
    model_proto = onnx.load_from_string(reader.read_blob(graph))
    shape = [d.dim_value for d in model_proto.graph.input[0].type.tensor_type.shape.dim]
    assert graph.name == "Tiny" and shape == [2, 4]
    assert {n.op_type for n in model_proto.graph.node} >= {"Gemm", "Relu"}
    assert events.Tags()["graph"]

    # fit's writer and test's, each closed cleanly, unranked (one process).
    writers = reader.writers(RUN)
    ends = [(w.rank, w.world_size, w.closed, w.ended and w.ended.how) for w in writers]
    assert ends == [(-1, -1, True, "closed")] * 2


def test_lightning_logger_records_the_exception_that_ended_fit(tmp_path):
    from lightning_tiny import Tiny, data, trainer

    from visualdl.integrations.lightning import VisualDLLogger

    logger = VisualDLLogger(tmp_path, name="", version="crashed")
    with pytest.raises(RuntimeError, match="moon"):
        trainer([logger]).fit(Tiny(fail_at=3), data())
    reader = LogReader(tmp_path)
    assert reader.runs() == ["crashed"]
    (writer,) = reader.writers("crashed")
    assert writer.ended is not None
    assert (writer.ended.how, writer.ended.exception_type, writer.ended.message) == (
        "exception", "RuntimeError", "loss went to the moon",
    )  # fmt: skip
    assert writer.ended.step == 2 and reader.scalars("crashed", "train_loss").steps.tolist() == [0, 1, 2]


def test_lightning_logger_versions_rank_zero_and_arguments(tmp_path, monkeypatch):
    import torch

    from visualdl.integrations.lightning import VisualDLLogger

    first = VisualDLLogger(tmp_path)
    first.log_metrics({"a": 1.0}, step=0)
    first.finalize("success")
    second = VisualDLLogger(tmp_path, sub_dir="inner", prefix="val")
    assert (second.version, second.log_dir) == (1, str(tmp_path / "lightning_logs" / "version_1" / "inner"))
    second.log_metrics({"loss": torch.tensor(0.5), "pair": {"x": 1, "y": np.float32(2.0)}}, step=3)
    with pytest.raises(ValueError, match=r"metric 'val-bad'.*could not log 'text'"):
        second.log_metrics({"bad": "text"}, step=4)
    # Hyperparameters of any type, made bools, numbers or text; no metric: none declared.
    second.log_hyperparams(
        {"t": torch.tensor(3), "half": np.float32(0.5), "cls": torch.nn.Linear, "none": None, "big": 2**70,
         "vec": torch.tensor([1, 2]), "flag": True, "nested": {"list": [1, 2]}}, metrics={},
    )  # fmt: skip
    second.finalize("success")
    reader = LogReader(tmp_path)
    run = "lightning_logs/version_1/inner"
    assert sorted(reader.tags(run)["scalars"]) == ["val-loss", "val-pair/x", "val-pair/y"]
    assert reader.scalars(run, "val-pair/y").values.tolist() == [2.0]
    hparams = reader.hparams(run)
    assert hparams is not None and hparams.metrics == ()
    assert hparams.hparams == {
        "t": 3, "half": 0.5, "cls": "Linear", "none": "None", "big": str(2**70), "vec": "tensor([1, 2])",
        "flag": True, "nested/list": "[1, 2]",
    }  # fmt: skip

    # A graph the exporter cannot take, or without an example input: a warning, no graph.
    graph = VisualDLLogger(tmp_path, version="graph", log_graph=True)
    with pytest.warns(UserWarning, match="logged no graph: could not export Linear to ONNX"):
        graph.log_graph(torch.nn.Linear(4, 1), torch.zeros(2, 5))
    with pytest.warns(UserWarning, match="set model.example_input_array or pass input_array"):
        graph.log_graph(torch.nn.Linear(4, 1))
    graph.finalize("success")
    assert LogReader(graph.log_dir).tags(".")["graphs"] == []

    # Another rank, in Lightning's default: nothing is written, experiment ignores every call.
    from lightning_utilities.core.rank_zero import rank_zero_only

    monkeypatch.setattr(rank_zero_only, "rank", 1)
    quiet = VisualDLLogger(tmp_path, version="rank1")
    quiet.log_metrics({"a": 1.0}, step=0)
    quiet.log_hyperparams({"lr": 0.1})
    quiet.experiment.add_scalar("b", 1.0, 0)
    quiet.finalize("success")
    assert not os.path.exists(quiet.log_dir)

    with pytest.raises(TypeError, match=r"\['logdir'\].*sets it from save_dir"):
        VisualDLLogger(tmp_path, logdir="x")
    with pytest.raises(TypeError, match=r"\['flush_sec'\].*LogWriter takes no such argument"):
        VisualDLLogger(tmp_path, flush_sec=1)


def test_lightning_logger_ddp_on_two_cpu_processes_writes_each_rank(tmp_path):
    """Every rank into its own file with its rank (all_ranks=True); rank 0 alone by default."""
    done = subprocess.run(
        [sys.executable, str(HERE / "lightning_ddp.py"), *(str(tmp_path / d) for d in ("all", "zero", "out"))],
        capture_output=True, text=True, timeout=300, cwd=tmp_path, env={**os.environ, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    reported = {}
    for rank in (0, 1):
        out = json.loads((tmp_path / f"out.{rank}.json").read_text())
        assert out["status"] == "success"
        reported[rank] = [(step, m["train_loss"]) for step, m in out["metrics"] if "train_loss" in m]
    assert reported[0] != reported[1]  # each rank its own data

    every = LogReader(tmp_path / "all")
    assert every.runs() == [RUN]  # both ranks took the same version
    writers = sorted(every.writers(RUN), key=lambda w: w.rank)
    assert [(w.rank, w.world_size, w.role, w.closed) for w in writers] == [(r, 2, "trainer", True) for r in (0, 1)]
    for rank in (0, 1):
        series = every.scalars(RUN, "train_loss", rank=rank)
        assert list(zip(series.steps.tolist(), series.values.tolist(), strict=True)) == reported[rank]
        assert every.scalars(RUN, "hp_metric", rank=rank).values.tolist() == [-1.0]

    zero = LogReader(tmp_path / "zero")
    ((writer),) = zero.writers(RUN)
    assert (writer.rank, writer.world_size, writer.closed) == (0, 2, True)
    series = zero.scalars(RUN, "train_loss")
    assert list(zip(series.steps.tolist(), series.values.tolist(), strict=True)) == reported[0]


@dataclasses.dataclass
class _Config:
    lr: float = 0.1
    lock: Any = dataclasses.field(default_factory=threading.Lock)


def test_lightning_logger_hyperparameter_names_refused_are_left_out_not_kept(tmp_path):
    """A name the writer refuses is left out with a warning, and later calls still record;
    a dataclass is read field by field (asdict would deep-copy its lock and raise)."""
    from visualdl.integrations.lightning import VisualDLLogger

    logger = VisualDLLogger(tmp_path, version="names", default_hp_metric=False)
    with pytest.warns(UserWarning, match=r"left out 2 hyperparameter\(s\): .*non-empty.*at most 1024"):
        logger.log_hyperparams({"": 1, "k" * 2000: 2, "ok": 3})
    with pytest.raises(ValueError, match="not valid Unicode"):
        logger.log_hyperparams({"text": "\ud800"})  # refused by the writer: the call raises, nothing is kept
    logger.log_hyperparams({"config": _Config(), "later": 4})
    logger.finalize("success")
    hparams = LogReader(logger.log_dir).hparams(".")
    assert hparams is not None
    assert hparams.hparams == {"ok": 3, "config/lr": 0.1, "config/lock": hparams.hparams["config/lock"], "later": 4}
    assert "lock" in str(hparams.hparams["config/lock"])
