"""The demo run and the command line, end to end, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys

import onnx
from kit.paths import ROOT

from visualdl import LogReader


def test_demo_writes_a_complete_run(tmp_path, child_env):
    logdir = tmp_path / "demo_logs"
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "demo", "train_mlp.py"), "--logdir", str(logdir / "mlp"), "--epochs", "6"],
        env=child_env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "validation accuracy" in result.stdout
    reader = LogReader(str(logdir))
    assert reader.runs() == ["mlp"]
    tags = reader.tags("mlp")
    assert {"train/loss", "train/accuracy", "train/lr", "val/accuracy"} <= set(tags["scalars"])
    steps_per_epoch = 1440 // 32
    loss = reader.scalars("mlp", "train/loss")
    assert loss.steps.tolist() == list(range(6 * steps_per_epoch))
    assert loss.values[-10:].mean() < loss.values[:10].mean()  # it learns
    assert [e.step for e in reader.images("mlp", "decision_regions")] == [steps_per_epoch * k for k in range(1, 7)]
    assert len(reader.histograms("mlp", "weights/fc1.weight")) == 6
    (graph,) = reader.graphs("mlp")
    model = onnx.load_from_string(reader.read_blob(graph))
    onnx.checker.check_model(model)
    assert [n.op_type for n in model.graph.node] == ["Gemm", "Relu", "Gemm", "Softmax"]
    assert reader.writers("mlp")[0].closed and reader.problems == []


def test_cli_summarises_a_logdir_and_refuses_a_missing_one(tmp_path, child_env):
    from visualdl import LogWriter

    with LogWriter(str(tmp_path / "run1")) as w:
        w.add_scalar("loss", 1.0, 0)
        w.add_scalar("loss", 0.5, 1)
    ok = subprocess.run([sys.executable, "-m", "visualdl", "--logdir", str(tmp_path), "--inspect"], env=child_env,
                        capture_output=True, text=True)  # fmt: skip
    assert ok.returncode == 0
    assert "run 'run1': 1 file(s)" in ok.stdout and "scalars    loss: 2 points" in ok.stdout
    missing = subprocess.run(
        [sys.executable, "-m", "visualdl", "--logdir", str(tmp_path / "nope"), "--inspect"],
        env=child_env, capture_output=True, text=True,
    )  # fmt: skip
    assert missing.returncode == 1
    assert "does not exist" in missing.stderr and "Traceback" not in missing.stderr
    usage = subprocess.run([sys.executable, "-m", "visualdl"], env=child_env, capture_output=True, text=True)
    assert usage.returncode == 2 and "usage:" in usage.stderr and "Traceback" not in usage.stderr


def test_cli_inspect_reports_a_corrupt_record_once(tmp_path, child_env):
    from visualdl import LogWriter

    with LogWriter(str(tmp_path / "run1")) as w:
        for step in range(3):
            w.add_text("notes", f"entry {step} " * 50, step)
    (name,) = os.listdir(tmp_path / "run1")
    path = tmp_path / "run1" / name
    data = bytearray(path.read_bytes())
    at = data.index(b"entry 1")
    data[at] ^= 0xFF  # the second text record's checksum fails
    path.write_bytes(bytes(data))
    out = subprocess.run(
        [sys.executable, "-m", "visualdl", "--logdir", str(tmp_path), "--inspect"],
        env=child_env, capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 0
    assert out.stdout.count("checksum") == 1 and "text       notes: 2 entries" in out.stdout
    assert "checksum" not in out.stderr
