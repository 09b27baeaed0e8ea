"""A writer killed without a trace (SIGKILL, the OOM killer) is "live" only until the reader's
idle rule says it is gone: no end record and nothing written for ``SILENT_AFTER`` (60) seconds
makes its end "killed". A runs table (``LogReader.runs(where=...)``, the server's) built
while it looked alive is built again once it falls silent, though no file changed.

The writer runs in a process of its own whose clock is 58 s behind, then is SIGKILLed: its
file's last sign of life is 58 s old, 2 s before the idle rule's limit."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from kit.waiting import wait_until

from visualdl import LogReader
from visualdl._index.ends import SILENT_AFTER

_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, time
    real = time.time
    time.time = lambda: real() - float(sys.argv[2])
    from visualdl import LogWriter
    w = LogWriter(sys.argv[1], provenance=False)
    for step in range(10):
        w.add_scalar("loss", 1.0 / (step + 1), step)
    w.flush()
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def _killed_writer(logdir: str, child_env: dict[str, str]) -> None:
    behind = SILENT_AFTER - 2.0
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, os.path.join(logdir, "run"), str(behind)], env=child_env, timeout=60
    )
    assert done.returncode == -9


@pytest.mark.e2e  # a writer in a process of its own, SIGKILLed; then seconds of waiting (no CPU)
def test_status_of_a_silent_writer_turns_killed_without_a_change_of_its_file(tmp_path, child_env):
    _killed_writer(str(tmp_path), child_env)
    reader = LogReader(str(tmp_path))
    assert reader.runs(where='status == "live"') == ["run"]  # 58 s of silence: still within the rule
    wait_until(lambda: reader.runs(where='status == "killed"') == ["run"], timeout=60, what="the run to read killed")
    (writer,) = reader.writers("run")
    assert writer.ended is not None and writer.ended.how == "killed"
    assert writer.last_seen <= writer.ended.wall_time + 1e-6


@pytest.mark.e2e  # a writer in a process of its own, SIGKILLed; then seconds of waiting (no CPU)
def test_status_of_a_silent_writer_in_the_servers_runs_table(tmp_path, child_env):
    from visualdl.server._provider import DataProvider
    from visualdl.server._settings import Settings

    _killed_writer(str(tmp_path), child_env)
    provider = DataProvider(Settings(logdirs=(("", str(tmp_path)),), background=False))
    provider.poll()

    def status() -> str:
        provider.poll()  # what the reload thread does: nothing changed in the logdir
        table = provider.runs_table()
        return str(table.meta["status"][table.names.index("run")])

    assert status() == "live"
    wait_until(lambda: status() == "killed", timeout=60, what="the server's runs table to say killed")
    ((writer,),) = [run.writers for run in provider.list_runs() if run.name == "run"]
    assert writer.ended is not None and writer.ended.how == "killed"
