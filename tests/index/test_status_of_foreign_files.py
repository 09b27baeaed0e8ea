"""A file of another writer (TensorBoard's: Ray Tune's trials, Lightning's TensorBoardLogger,
torch's SummaryWriter) records no end: its run is "live" while it grows and "finished" once
its last record is ``SILENT_AFTER`` seconds old (the reader's idle rule), its end then that
record's time; a runs table built while it was live is built again when it turns, though no
file changed."""

from __future__ import annotations

import time

import pytest
from kit.writers import tensorboardx_writer

from visualdl import LogReader
from visualdl._index.ends import SILENT_AFTER


def _trial(logdir: str, name: str, age: float, monkeypatch: pytest.MonkeyPatch) -> float:
    """A tensorboardX run written as if ``age`` seconds ago (its clock set back, as the file's
    first record takes the time of day); its last record's wall time."""
    summary_writer = tensorboardx_writer()
    real = time.time
    last = real() - age
    with monkeypatch.context() as m:
        m.setattr(time, "time", lambda: real() - age - 10.0)
        with summary_writer(f"{logdir}/{name}") as w:
            for step in range(10):
                w.add_scalar("loss", 1.0 / (step + 1), step, walltime=last - (9 - step))
    return last


def test_status_of_a_foreign_file_is_finished_once_idle_and_live_while_it_grows(tmp_path, monkeypatch):
    old = _trial(str(tmp_path), "done", 3 * SILENT_AFTER, monkeypatch)
    _trial(str(tmp_path), "growing", 0.0, monkeypatch)
    reader = LogReader(str(tmp_path))
    assert reader.runs(where='status == "finished"') == ["done"]
    assert reader.runs(where='status == "live"') == ["growing"]
    assert reader.runs(where="end_time > 0") == ["done"]
    assert reader.runs(where=f"end_time > {old - 0.01} and end_time < {old + 0.01}") == ["done"]


def test_status_of_a_foreign_file_turns_finished_without_a_change_of_its_file(tmp_path, monkeypatch):
    _trial(str(tmp_path), "trial", SILENT_AFTER - 20.0, monkeypatch)  # 10 s within the rule
    reader = LogReader(str(tmp_path))
    assert reader.runs(where='status == "live"') == ["trial"]
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 20.0)  # 20 s later: past the rule
    assert reader.runs(where='status == "finished"') == ["trial"]


def test_status_of_a_foreign_file_in_the_servers_runs_table(tmp_path, monkeypatch):
    from visualdl.server._provider import DataProvider
    from visualdl.server._settings import Settings

    _trial(str(tmp_path), "trial", SILENT_AFTER - 20.0, monkeypatch)
    provider = DataProvider(Settings(logdirs=(("", str(tmp_path)),), background=False))
    provider.poll()

    def status() -> str:
        provider.poll()  # what the reload thread does: nothing changed in the logdir
        table = provider.runs_table()
        return str(table.meta["status"][table.names.index("trial")])

    assert status() == "live"
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 20.0)
    assert status() == "finished"
