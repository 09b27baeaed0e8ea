"""NVML never stops the training nor the other metrics (``sdk/_gpumetrics.py``'s
``GpuSource``): an unexpected error, a slow initialisation or a hung read of a fake NVML
(the kit's ``fake_nvml`` with one call changed) leaves ``LogWriter()`` returning at once,
the process's and host's metrics sampled, the failure said once."""

from __future__ import annotations

import logging
import sys
import threading
import types
from typing import Any

import numpy as np
import pytest
from kit import fake_nvml
from kit.waiting import wait_until

from visualdl import LogReader, LogWriter
from visualdl.sdk._gpumetrics import NVML_THREAD_NAME
from visualdl.sdk._sampler import Subscription

RELEASE_SECS = 60.0  # a blocked fake call gives up by itself after this, whatever the test does


@pytest.fixture
def nvml(monkeypatch):
    """``pynvml`` answered by a copy of the kit's fake, whose calls a test replaces."""
    module = types.ModuleType("pynvml")
    module.__dict__.update({k: v for k, v in vars(fake_nvml).items() if not k.startswith("__")})
    monkeypatch.setitem(sys.modules, "pynvml", module)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    return module


@pytest.fixture
def release():
    """Set at the end of the test: a fake call blocked on it returns."""
    event = threading.Event()
    yield event
    event.set()
    wait_until(lambda: NVML_THREAD_NAME not in [t.name for t in threading.enumerate()], timeout=60,
               what="NVML's thread ended")  # fmt: skip


def _writer(logdir: str) -> LogWriter:
    return LogWriter(logdir, system_metrics=True, system_metrics_secs=0.5)


def _sampler(w: LogWriter) -> Subscription:
    assert w._sampler is not None
    return w._sampler


def _sampled(w: LogWriter, at_least: int) -> None:
    wait_until(lambda: _sampler(w).samples >= at_least, timeout=120, what=f"{at_least} samples")


def _system(logdir: str) -> Any:
    reader = LogReader(logdir)
    (run,) = reader.runs()
    (system,) = reader.system_metrics(run)
    return system


def _series(system: Any, scope: str, name: str, gpu: int = -1) -> Any:
    (m,) = [m for m in system.metrics if (m.scope, m.name, m.gpu) == (scope, name, gpu)]
    return m


def _said(caplog: pytest.LogCaptureFixture, text: str) -> int:
    return sum(text in r.getMessage() for r in caplog.records if r.name == "visualdl.writer")


def test_sdk_gpu_an_unexpected_nvml_error_is_said_once_and_the_writer_samples_on(tmp_path, nvml, caplog):
    def init() -> None:
        raise RuntimeError("the driver library is of another version")

    nvml.nvmlInit = init
    caplog.set_level(logging.INFO, logger="visualdl.writer")
    w = _writer(str(tmp_path))  # raised here before
    try:
        _sampled(w, 3)
    finally:
        w.close()
    system = _system(str(tmp_path))
    assert {m.scope for m in system.metrics} == {"process", "host"}
    assert _series(system, "process", "rss").values.size >= 3
    note = "NVML failed while opening the GPUs (RuntimeError: the driver library is of another version)"
    assert [s for s in system.skipped if s.startswith(note)] == [note + ": no GPU metrics"]
    assert _said(caplog, note) == 1
    assert any(r.levelno == logging.WARNING for r in caplog.records if note in r.getMessage())


def test_sdk_gpu_an_unexpected_error_of_one_read_is_nan_there_and_said_once(tmp_path, nvml, caplog):
    calls = {"n": 0}
    real = fake_nvml.nvmlDeviceGetTemperature

    def temperature(handle: Any, sensor: int) -> int:
        calls["n"] += 1
        if calls["n"] > 2:  # both GPUs answer when opened, then fail
            raise ValueError("a garbled answer")
        return real(handle, sensor)

    nvml.nvmlDeviceGetTemperature = temperature
    caplog.set_level(logging.INFO, logger="visualdl.writer")
    w = _writer(str(tmp_path))
    try:
        _sampled(w, 4)
    finally:
        w.close()
    system = _system(str(tmp_path))
    assert np.isnan(_series(system, "gpu", "temperature", 0).values).all()
    assert (_series(system, "gpu", "utilization", 0).values == 87).all()  # the other reads go on
    note = "GPU 0 (NVIDIA A100-SXM4-80GB): temperature failed (ValueError: a garbled answer): NaN where it fails"
    assert note in system.skipped
    assert _said(caplog, note) == 1


def test_sdk_gpu_a_slow_nvml_start_never_blocks_the_writer(tmp_path, nvml, release):
    entered, returned = threading.Event(), threading.Event()
    real = fake_nvml.nvmlInit

    def init() -> None:
        entered.set()
        release.wait(RELEASE_SECS)  # NVML starting for a long time
        real()
        returned.set()

    nvml.nvmlInit = init
    w = _writer(str(tmp_path))
    try:
        assert not returned.is_set()  # LogWriter() returned while NVML was still starting
        _sampled(w, 3)  # the process's and host's metrics meanwhile
        assert entered.is_set() and not returned.is_set()
        release.set()
        wait_until(lambda: any(c.scope == "gpu" for c in _sampler(w).columns), timeout=60, what="GPU columns")
        at = _sampler(w).samples
        _sampled(w, at + 2)
    finally:
        w.close()
    system = _system(str(tmp_path))
    rss = _series(system, "process", "rss")
    util = _series(system, "gpu", "utilization", 0)
    assert rss.values.size >= at + 2
    assert 2 <= util.values.size <= rss.values.size - 3  # declared once NVML started
    assert (util.values == 87).all()
    assert util.wall_times[0] > rss.wall_times[2]
    assert any(s.startswith("NVML did not start within") for s in system.skipped)


def test_sdk_gpu_a_hung_read_leaves_the_other_metrics_sampled(tmp_path, nvml, caplog, release):
    calls = {"n": 0}
    hung = threading.Event()
    real = fake_nvml.nvmlDeviceGetUtilizationRates

    def utilization(handle: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 5:  # opened (2 reads) and sampled once (2 more): then the driver hangs
            hung.set()
            release.wait(RELEASE_SECS)
        return real(handle)

    nvml.nvmlDeviceGetUtilizationRates = utilization
    caplog.set_level(logging.INFO, logger="visualdl.writer")
    w = _writer(str(tmp_path))
    try:
        wait_until(hung.is_set, timeout=60, what="the hung read")
        at = _sampler(w).samples
        _sampled(w, at + 4)  # CPU and memory go on
        assert calls["n"] == 5  # no other read asked of a hung NVML
    finally:
        release.set()
        w.close()
    system = _system(str(tmp_path))
    rss = _series(system, "process", "rss")
    util = _series(system, "gpu", "utilization", 0)
    assert util.values.size == rss.values.size >= at + 4
    assert util.values[0] == 87 and np.isnan(util.values[at : at + 4]).all()
    assert np.isfinite(rss.values).all()
    note = "NVML did not answer a read of the GPUs within"
    assert sum(s.startswith(note) for s in system.skipped) == 1
    assert _said(caplog, note) == 1
