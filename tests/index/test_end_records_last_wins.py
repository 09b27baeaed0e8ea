"""A writer's end is its last end record that is not an event; the events are what it lived
on after (``WriterInfo.events``), and the run's status follows the end: a thread's exception that the
process lived on after, then a clean close, is a finished run. A reader polling the file
between the two sees the change (the index's generation follows the count of end records)."""

from __future__ import annotations

import time

from visualdl import LogReader, LogWriter
from visualdl._kinds.table import ProcessEnd


def _status(reader: LogReader, run: str) -> str:
    for status in ("crashed", "killed", "live", "finished"):
        if run in reader.runs(where=f'status == "{status}"'):
            return status
    raise AssertionError(f"{run} has no status")


def test_end_records_last_wins_an_event_then_the_close(tmp_path):
    w = LogWriter(str(tmp_path / "run"))
    w.add_scalar("loss", 1.0, 1)
    event = ProcessEnd("exception", time.time(), "ValueError", "bad shard", "Traceback ...", thread="loader")
    w._sink.record_event(event)
    w.flush()
    reader = LogReader(str(tmp_path))
    (writer,) = reader.writers("run")
    assert writer.ended is None  # an event is never the end: a kill now would read killed
    assert [(e.how, e.exception_type) for e in writer.events] == [("exception", "ValueError")]
    assert _status(reader, "run") == "live"

    w.add_scalar("loss", 0.5, 2)
    w.close()
    reader.poll()
    (writer,) = reader.writers("run")
    assert writer.ended is not None and (writer.ended.how, writer.ended.step) == ("closed", 2)
    assert [(e.how, e.exception_type, e.thread, e.step) for e in writer.events] == [
        ("exception", "ValueError", "loader", 1)
    ]
    assert _status(reader, "run") == "finished"
    assert _status(LogReader(str(tmp_path)), "run") == "finished"


def test_end_records_last_wins_no_event_after_the_end(tmp_path):
    w = LogWriter(str(tmp_path / "run"))
    w.add_scalar("loss", 1.0, 1)
    w._sink.record_end(ProcessEnd("signal", time.time(), signal="SIGTERM", thread="MainThread"))
    w._sink.record_event(ProcessEnd("exception", time.time(), "ValueError", thread="loader"))  # too late: ignored
    w.close()  # its "closed" too: the end is recorded already
    (writer,) = LogReader(str(tmp_path)).writers("run")
    assert writer.ended is not None and (writer.ended.how, writer.ended.signal) == ("signal", "SIGTERM")
    assert writer.events == ()
