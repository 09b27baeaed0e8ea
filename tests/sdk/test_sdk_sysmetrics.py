"""System metrics sampled by the SDK (``sdk/_sysmetrics.py``, ``sdk/_gpumetrics.py``), in real
child processes, read back by ``LogReader``: plausible values, host metrics once per host,
the fake NVML's two GPUs exactly, a missing library said once."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading

import psutil
import pytest
from kit import fake_nvml
from kit.paths import TESTS

from visualdl import LogReader, LogWriter
from visualdl.sdk import _sampler
from visualdl.sdk._gpumetrics import visible_indices
from visualdl.sdk._sampler import THREAD_NAME as THREAD

KIT = os.path.join(TESTS, "kit")


def _child(logdir: str, child_env: dict[str, str], body: str, *, before: str = "", **kwargs: object):
    """Run a process that writes with system metrics every 0.5 s until 3 samples are taken."""
    code = (
        textwrap.dedent(
            f"""
        import sys, time
        sys.path.insert(0, {KIT!r})
        {before}
        from visualdl import LogWriter
        w = LogWriter(sys.argv[1], system_metrics=True, system_metrics_secs=0.5, **{kwargs!r})
        w.add_scalar("loss", 1.0, 0)
        """
        )
        + textwrap.dedent(body)
        + textwrap.dedent(
            """
        while w._sampler.samples < 3 and (w._sampler.columns or w._sampler.gpus.opening):  # polled
            sum(range(20000))
        w.close()
        import threading
        assert "visualdl-system-metrics" not in [t.name for t in threading.enumerate()]
        """
        )
    )
    argv = [sys.executable, "-c", code, logdir]
    done = subprocess.run(argv, env=child_env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def _by_file(logdir: str):
    reader = LogReader(logdir)
    (run,) = reader.runs()
    return reader, run, reader.system_metrics(run)


def _metric(writer, scope: str, name: str, gpu: int = -1):
    (m,) = [m for m in writer.metrics if (m.scope, m.name, m.gpu) == (scope, name, gpu)]
    return m


@pytest.mark.e2e  # a writer process sampling for seconds: a CPU second or more
def test_sdk_sysmetrics_process_and_host_values_are_plausible(tmp_path, child_env):
    body = """
    ballast = bytearray(b"x" * (150 << 20))
    import psutil
    """
    done = _child(str(tmp_path), child_env, body + "print(psutil.Process().memory_info().rss, flush=True)\n")
    said_rss = int(done.stdout.split()[0])
    reader, run, (writer,) = _by_file(str(tmp_path))
    rss = _metric(writer, "process", "rss")
    assert rss.unit == "bytes" and rss.values.size >= 3
    assert abs(rss.values[-1] - said_rss) <= 0.2 * said_rss
    assert (_metric(writer, "process", "threads").values >= 2).all()  # its own thread and the sampler's
    cpu = _metric(writer, "process", "cpu_user")
    assert cpu.unit == "percent" and ((cpu.values >= 0) & (cpu.values <= 100 * (os.cpu_count() or 1) + 1)).all()
    assert (_metric(writer, "host", "memory_total").values == psutil.virtual_memory().total).all()
    used = _metric(writer, "host", "memory_used").values
    assert ((used > 0) & (used < psutil.virtual_memory().total)).all()
    assert ((_metric(writer, "host", "cpu").values >= 0) & (_metric(writer, "host", "cpu").values <= 100)).all()
    assert _metric(writer, "host", "net_recv").unit == "bytes/s"
    assert (cpu.wall_times[1:] > cpu.wall_times[:-1]).all()
    memory = reader.last_host_memory(run, writer.path)
    assert memory is not None and memory.wall_time == cpu.wall_times[-1] and memory.used == used[-1]
    assert reader.tags(run)["scalars"] == ["loss"]  # apart from the user's tags


@pytest.mark.e2e  # two writer processes sampling for seconds: seconds of CPU
def test_sdk_sysmetrics_host_metrics_only_from_local_rank_zero(tmp_path, child_env):
    for rank in (0, 1):
        _child(str(tmp_path), child_env, "", rank=rank, local_rank=rank, world_size=2, role="trainer")
    _, _, writers = _by_file(str(tmp_path))
    scopes = {w.local_rank: {m.scope for m in w.metrics} for w in writers}
    assert scopes == {0: {"process", "host"}, 1: {"process"}}


GPU_VALUES: dict[int, dict[str, float]] = {
    0: {"utilization": 87, "memory_used": 61_203_283_968, "memory_total": 80 << 30, "power": 312.5,
        "temperature": 64, "sm_clock": 1410, "throttle_reasons": 0x4, "ecc_corrected": 0, "ecc_uncorrected": 0},
    1: {"utilization": 35, "memory_used": 20 << 30, "memory_total": 40 << 30, "temperature": 71, "sm_clock": 1095,
        "throttle_reasons": 0x40, "ecc_corrected": 1, "ecc_uncorrected": 0},
}  # fmt: skip


@pytest.mark.e2e  # a writer process sampling for seconds: a CPU second or more
def test_sdk_sysmetrics_fake_nvml_two_gpus_read_back_exactly(tmp_path, child_env):
    env = {k: v for k, v in child_env.items() if k != "CUDA_VISIBLE_DEVICES"}
    _child(str(tmp_path), env, "", before="import fake_nvml; fake_nvml.install()")
    _, _, (writer,) = _by_file(str(tmp_path))
    for gpu, expected in GPU_VALUES.items():
        got = {m.name: m for m in writer.metrics if m.gpu == gpu}
        assert sorted(got) == sorted(expected)  # GPU 1 has no power: not supported there
        for name, value in expected.items():
            assert (got[name].values == value).all(), (gpu, name)
            assert got[name].gpu_name == fake_nvml.GPUS[gpu]["name"]
            assert got[name].gpu_uuid == fake_nvml.GPUS[gpu]["uuid"]
    assert _metric(writer, "gpu", "power", 0).unit == "W"
    assert "GPU 1 (NVIDIA A100-PCIE-40GB): power is not supported by NVML" in writer.skipped


@pytest.mark.e2e  # a writer process sampling for seconds: a CPU second or more
def test_sdk_sysmetrics_local_rank_picks_its_gpu_among_all_visible(tmp_path, child_env):
    env = {k: v for k, v in child_env.items() if k != "CUDA_VISIBLE_DEVICES"}
    _child(str(tmp_path), env, "", before="import fake_nvml; fake_nvml.install()", rank=1, local_rank=1)
    _, _, (writer,) = _by_file(str(tmp_path))
    assert {m.gpu for m in writer.metrics if m.scope == "gpu"} == {1}
    assert {m.scope for m in writer.metrics} == {"process", "gpu"}  # local rank 1: not the host's


def test_sdk_sysmetrics_visible_gpus():
    uuids = ["GPU-aaaa", "GPU-bbbb", "GPU-cccc"]
    assert visible_indices({}, 3, uuids, -1) == [0, 1, 2]
    assert visible_indices({}, 3, uuids, 2) == [2]
    assert visible_indices({"CUDA_VISIBLE_DEVICES": "2"}, 3, uuids, 0) == [2]  # one GPU per rank
    assert visible_indices({"CUDA_VISIBLE_DEVICES": "2,0"}, 3, uuids, 1) == [0]
    assert visible_indices({"CUDA_VISIBLE_DEVICES": "GPU-bb"}, 3, uuids, -1) == [1]
    assert visible_indices({"CUDA_VISIBLE_DEVICES": ""}, 3, uuids, -1) == []
    assert visible_indices({"CUDA_VISIBLE_DEVICES": "0,7,1"}, 3, uuids, -1) == [0]  # CUDA stops at a bad one
    assert visible_indices({}, 2, uuids[:2], 5) == []


@pytest.mark.e2e  # a writer process sampling for seconds: a CPU second or more
def test_sdk_sysmetrics_without_psutil_records_the_gpus_and_says_so_once(tmp_path, child_env):
    before = "sys.modules['psutil'] = None; import fake_nvml; fake_nvml.install()"
    env = {k: v for k, v in child_env.items() if k != "CUDA_VISIBLE_DEVICES"}
    done = _child(str(tmp_path), env, "", before=before)
    assert done.stderr.count("psutil is not installed") == 1
    _, _, (writer,) = _by_file(str(tmp_path))
    assert {m.scope for m in writer.metrics} == {"gpu"}
    assert any(s.startswith("psutil is not installed") for s in writer.skipped)


@pytest.mark.e2e  # a writer process sampling: a CPU second
def test_sdk_sysmetrics_nothing_to_measure_is_a_note_in_the_log(tmp_path, child_env):
    before = "sys.modules['psutil'] = None; sys.modules['pynvml'] = None"
    done = _child(str(tmp_path), child_env, "", before=before)
    assert done.stderr.count("pynvml is not installed") == 1
    _, _, (writer,) = _by_file(str(tmp_path))
    assert writer.metrics == ()
    assert [s.split(":")[0] for s in writer.skipped] == ["psutil is not installed", "pynvml is not installed"]


def test_sdk_sysmetrics_on_by_default_only_for_ranked_or_role_writers(tmp_path):
    hub = _sampler.process_sampler()
    # A writer of an earlier test still open keeps the thread: then this test's writers must leave it as they found it.
    running_before = hub is not None and hub.alive
    subscribers_before = len(hub._subs) if hub is not None else 0
    writers = [LogWriter(tmp_path / "a"), LogWriter(tmp_path / "b", rank=0), LogWriter(tmp_path / "c", role="pserver")]
    try:
        assert [w._sampler is not None for w in writers] == [False, True, True]
        off = LogWriter(tmp_path / "d", rank=0, system_metrics=False)
        off.close()
        assert off._sampler is None
    finally:
        for w in writers:
            w.close()
    if running_before:
        hub = _sampler.process_sampler()
        assert hub is not None and len(hub._subs) == subscribers_before  # each writer unsubscribed
    else:
        assert THREAD not in [t.name for t in threading.enumerate()]  # the last one out ends the thread


@pytest.mark.parametrize("secs", [0.49, 0, -1, float("nan")])
def test_sdk_sysmetrics_period_below_half_a_second_is_refused(tmp_path, secs):
    with pytest.raises(ValueError, match="system_metrics_secs"):
        LogWriter(tmp_path, system_metrics=True, system_metrics_secs=secs)


def test_sdk_sysmetrics_switch_must_be_a_bool(tmp_path):
    with pytest.raises(TypeError, match="system_metrics must be True, False or None"):
        LogWriter(tmp_path, system_metrics="yes")  # type: ignore[arg-type]


@pytest.mark.e2e  # writer processes forked and sampling: a CPU second
def test_sdk_sysmetrics_neither_keeps_the_process_alive_nor_breaks_fork(tmp_path, child_env):
    """A writer never closed: the process still ends, its file closed with samples; a forked
    child (no sampler of its own) logs and exits while the parent's sampler goes on."""
    body = """
    import os
    pid = os.fork()
    if pid == 0:
        w.add_scalar("child", 1.0, 0)
        w.flush()
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0
    while w._sampler.samples < 2:
        sum(range(20000))
    """
    code = textwrap.dedent(
        """
        import sys
        from visualdl import LogWriter
        w = LogWriter(sys.argv[1], system_metrics=True, system_metrics_secs=0.5)
        """
    ) + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=child_env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    reader = LogReader(str(tmp_path))
    (run,) = reader.runs()
    parent = [w for w in reader.writers(run) if w.closed]
    assert len(parent) == 1  # closed at exit, with its footer
    (writer,) = reader.system_metrics(run)
    assert writer.path == parent[0].path and _metric(writer, "process", "rss").values.size >= 2
    assert reader.tags(run)["scalars"] == ["child"]


def test_host_cpu_percent_stays_within_0_and_100_through_float_rounding():
    from visualdl.sdk._sysmetrics import HostCounters, host_row

    # busy = total - idle - iowait: an idle host's busy seconds can go down by a rounding error
    last = HostCounters(0.0, 1000.1, 200.30000000000001, (), ())
    idle = HostCounters(1.0, 1002.1, 200.29999999999998, (), ())
    assert host_row(last, idle, 1) == [0.0]
    full = HostCounters(1.0, 1002.1, 202.30000000000004, (), ())
    assert host_row(last, full, 1)[0] == pytest.approx(100.0) and host_row(last, full, 1)[0] <= 100.0
    half = HostCounters(1.0, 1002.1, 201.3, (), ())
    assert host_row(last, half, 1)[0] == pytest.approx(50.0)
