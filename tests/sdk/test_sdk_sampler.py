"""The process's one system-metrics sampling thread (``sdk/_sampler.py``), shared by its
writers: real writers in real child processes, read back by ``LogReader``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from kit.paths import TESTS

from visualdl import LogReader
from visualdl.sdk._sysmetrics import HostCounters, ProcessCounters, host_row, process_row

KIT = os.path.join(TESTS, "kit")

_PRELUDE = f"""
import json, os, sys, threading
sys.path.insert(0, {os.path.join(TESTS, "kit")!r})
from waiting import wait_until
from visualdl import LogWriter

def samplers():
    return [t.name for t in threading.enumerate()].count("visualdl-system-metrics")

def open_writers(n, **kwargs):
    return [LogWriter(sys.argv[1], system_metrics=True, system_metrics_secs=0.5, display_name=f"w{{i}}", **kwargs)
            for i in range(n)]

def sampled(writers, at_least):
    wait_until(lambda: min(w._sampler.samples for w in writers) >= at_least, timeout=60,
               what=f"{{at_least}} samples of each writer")
"""


def _run(logdir: str, child_env: dict[str, str], body: str) -> dict:
    code = _PRELUDE + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", code, logdir], env=child_env, capture_output=True, text=True,
                          timeout=180)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _systems(logdir: str):
    reader = LogReader(logdir)
    (run,) = reader.runs()
    names = {w.path: w.display_name for w in reader.writers(run)}
    return {names[s.path]: s for s in reader.system_metrics(run)}


def _scopes(system) -> set[str]:
    return {m.scope for m in system.metrics}


def _series(system, scope: str, name: str):
    (m,) = [m for m in system.metrics if (m.scope, m.name) == (scope, name)]
    return m


@pytest.mark.e2e  # fifty writers sampling in a process of their own: a CPU second
def test_sdk_sampler_fifty_writers_share_one_thread_and_one_host_record(tmp_path, child_env):
    said = _run(str(tmp_path), child_env, """
    ws = open_writers(50)
    sampled(ws, 2)
    running = samplers()
    for w in ws:
        w.close()
    print(json.dumps({"running": running, "after": samplers()}))
    """)  # fmt: skip
    assert said == {"running": 1, "after": 0}  # one thread for 50 writers, gone with the last
    systems = _systems(str(tmp_path))
    assert len(systems) == 50
    for system in systems.values():  # each writer's log has its process's samples
        assert _series(system, "process", "rss").values.size >= 2
        assert (_series(system, "process", "threads").values >= 50).all()
    with_host = [name for name, system in systems.items() if "host" in _scopes(system)]
    assert with_host == ["w0"]  # no local rank given: one writer of the process, the first


@pytest.mark.e2e  # writer processes sampling: a CPU second
def test_sdk_sampler_writers_due_together_share_their_reads(tmp_path, child_env):
    """Periods of 0.5 s and 1 s: every sample of the slower writer is taken at a tick of the
    faster one, from the same reads (the same wall time, the same RSS and thread count)."""
    _run(str(tmp_path), child_env, """
    fast = LogWriter(sys.argv[1], system_metrics=True, system_metrics_secs=0.5, display_name="fast")
    slow = LogWriter(sys.argv[1], system_metrics=True, system_metrics_secs=1.0, display_name="slow")
    sampled([slow], 4)
    slow.close()
    fast.close()
    print("{}")
    """)  # fmt: skip
    systems = _systems(str(tmp_path))
    fast, slow = (_series(systems[n], "process", "rss") for n in ("fast", "slow"))
    shared = np.isin(slow.wall_times, fast.wall_times)
    assert shared[1:-1].all(), (slow.wall_times, fast.wall_times)  # the first and the last are each's own
    at = np.searchsorted(fast.wall_times, slow.wall_times[1:-1])
    assert (fast.values[at] == slow.values[1:-1]).all()
    assert fast.values.size > slow.values.size


@pytest.mark.e2e  # writer processes sampling: a CPU second
def test_sdk_sampler_close_of_one_leaves_the_others_sampling_and_hands_on_the_host(tmp_path, child_env):
    said = _run(str(tmp_path), child_env, """
    first, second, third = open_writers(3)
    sampled([first, second, third], 2)
    first.close()
    before = [second._sampler.samples, third._sampler.samples]
    sampled([second, third], max(before) + 3)
    running = samplers()
    second.close(); third.close()
    print(json.dumps({"running": running, "after": samplers()}))
    """)  # fmt: skip
    assert said == {"running": 1, "after": 0}
    systems = _systems(str(tmp_path))
    assert _scopes(systems["w0"]) == {"process", "host"}
    assert _scopes(systems["w2"]) == {"process"}
    # the second writer records the host from the first's close on, its columns declared anew
    heir = systems["w1"]
    assert _scopes(heir) == {"process", "host"}
    process, host = _series(heir, "process", "rss"), _series(heir, "host", "memory_total")
    assert host.wall_times.size >= 2 and host.wall_times.size < process.wall_times.size
    assert host.wall_times[0] > _series(systems["w0"], "host", "memory_total").wall_times[-1]
    cpu = _series(heir, "host", "cpu").values
    assert np.isfinite(cpu).all() and ((cpu >= 0) & (cpu <= 100)).all()  # its rates from the handover on


@pytest.mark.e2e  # writer processes sampling: a CPU second
def test_sdk_sampler_local_rank_zero_records_the_host_beside_writers_without_one(tmp_path, child_env):
    _run(str(tmp_path), child_env, """
    ranked = [LogWriter(sys.argv[1], system_metrics=True, system_metrics_secs=0.5, display_name=f"rank{r}",
                        rank=r, local_rank=r, world_size=2) for r in (0, 1)]
    plain = open_writers(2)
    sampled(ranked + plain, 2)
    for w in ranked + plain:
        w.close()
    print("{}")
    """)  # fmt: skip
    scopes = {name: _scopes(s) for name, s in _systems(str(tmp_path)).items()}
    assert scopes == {"rank0": {"process", "host"}, "rank1": {"process"}, "w0": {"process", "host"}, "w1": {"process"}}


@pytest.mark.e2e  # writer processes sampling: a CPU second
def test_sdk_sampler_writers_of_the_same_gpus_share_one_nvml_probe(tmp_path, child_env):
    env = {k: v for k, v in child_env.items() if k != "CUDA_VISIBLE_DEVICES"}
    said = _run(str(tmp_path), env, """
    import fake_nvml
    fake_nvml.install()
    from visualdl.sdk._sampler import process_sampler
    opened = fake_nvml.CALLS["nvmlDeviceGetUtilizationRates"]
    ws = open_writers(2)  # NVML opens on its own thread, reading each GPU once to see what it has
    sampled(ws, 3)
    for w in ws:
        w.close()
    hub = process_sampler()
    print(json.dumps({"reads": fake_nvml.CALLS["nvmlDeviceGetUtilizationRates"] - opened, "ticks": hub.ticks,
                      "samples": [w._sampler.samples for w in ws], "init": fake_nvml.CALLS["nvmlInit"],
                      "shutdown": fake_nvml.CALLS["nvmlShutdown"]}))
    """)  # fmt: skip
    assert (said["init"], said["shutdown"]) == (1, 1)  # one probe for both, closed with the last
    assert said["reads"] == 2 * (said["ticks"] + 1)  # each GPU read once per tick, whoever is due
    assert said["ticks"] < sum(said["samples"])  # and the ticks shared
    for system in _systems(str(tmp_path)).values():
        util = [m for m in system.metrics if m.name == "utilization"]
        assert [(m.gpu, set(m.values)) for m in util] == [(0, {87.0}), (1, {35.0})]


@pytest.mark.e2e  # a forked child sampling for seconds: a CPU second
def test_sdk_sampler_a_forked_child_samples_on_its_own(tmp_path, child_env):
    said = _run(str(tmp_path), child_env, """
    (parent,) = open_writers(1)
    sampled([parent], 1)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        inherited = samplers()
        (child,) = open_writers(1, filename_suffix=".child")
        sampled([child], 3)
        report = {"inherited": inherited, "running": samplers(), "parent_sampler": parent._sampler.samples}
        child.close()
        report["after"] = samplers()
        os.write(write, json.dumps(report).encode())
        os._exit(0)
    os.close(write)
    assert os.waitpid(pid, 0)[1] == 0
    child = json.loads(os.read(read, 65536))
    at_fork = parent._sampler.samples
    sampled([parent], at_fork + 2)  # the parent's thread goes on
    parent.close()
    print(json.dumps(child))
    """)  # fmt: skip
    # the child has no thread of its parent's; its writer starts its own, gone at its close
    assert (said["inherited"], said["running"], said["after"]) == (0, 1, 0)
    reader = LogReader(str(tmp_path))
    (run,) = reader.runs()
    systems = reader.system_metrics(run)
    assert len(systems) == 2 and len({s.pid for s in systems}) == 2
    for s in systems:
        assert _series(s, "process", "rss").values.size >= 3
        assert _scopes(s) == {"process", "host"}  # each process's first writer records the host


def test_sdk_sampler_rates_are_over_each_writers_own_interval():
    p0, p1, p2 = (ProcessCounters(t, user, 0.0, 1e6, 4) for t, user in ((10.0, 1.0), (11.0, 1.5), (12.0, 3.0)))
    assert process_row(p1, p2)[:2] == [150.0, 0.0]  # a writer sampled at 11 and 12
    assert process_row(p0, p2)[:2] == [100.0, 0.0]  # one sampled at 10 and 12: the same reads
    assert process_row(None, p2)[2:] == [1e6, 4]
    h0 = HostCounters(10.0, 100.0, 20.0, (0.0, 1000.0), (1.0, 2.0, 3.0, 0.5))
    h1 = HostCounters(12.0, 300.0, 120.0, (4000.0, 1000.0), (1.0, 2.0, 3.0, 0.5))
    assert host_row(h0, h1, 7) == [50.0, 1.0, 2.0, 3.0, 0.5, 2000.0, 0.0]
    row = host_row(None, h1, 7)
    assert np.isnan(row[0]) and row[1:5] == [1.0, 2.0, 3.0, 0.5] and np.isnan(row[5:]).all()
    assert np.isnan(host_row(h0, None, 7)).all()
