"""A ``ProcessEnd`` record with ``event`` set is an event of its writer's timeline, never its
end: the end is the last record without it, and a writer whose records are all events has no
end record (the reader infers one: killed, a fatal signal). Records without the flag (written
before it existed) keep their reading: the last one is the end. Bytes of records built with
the proto classes, framed as a log holds them, read by the format's decoder."""

from __future__ import annotations

from visualdl._formats import framing
from visualdl._formats.vdlog.decoder import RecordDecoder
from visualdl._formats.vdlog.logformat import FORMAT_VERSION, parse_record
from visualdl._formats.writerstate import MAX_EVENTS, WriterState
from visualdl.proto import pb

T0 = 1_700_000_000.0
HEADER = pb.Record(header=pb.Header(format_version=FORMAT_VERSION, writer_id="ab" * 16, pid=7, start_time=T0))


def _thread_exception(at: float, *, event: bool = False) -> pb.Record:
    return pb.Record(
        process_end=pb.ProcessEnd(
            how="exception",
            wall_time=at,
            exception_type="ValueError",
            message="bad shard",
            thread="loader",
            event=event,
        )
    )


def _sigterm(at: float, *, event: bool = False) -> pb.Record:
    return pb.Record(
        process_end=pb.ProcessEnd(how="signal", wall_time=at, signal="SIGTERM", thread="MainThread", event=event)
    )


def _closed(at: float) -> pb.Record:
    return pb.Record(process_end=pb.ProcessEnd(how="closed", wall_time=at, thread="MainThread", last_step=2))


def _read(*records: pb.Record) -> WriterState:
    data = b"".join(framing.frame(r.SerializeToString()) for r in (HEADER, *records))
    items = [
        (item.offset, parse_record(item.payload)) for item in framing.scan(data) if isinstance(item, framing.Frame)
    ]
    assert len(items) == 1 + len(records)
    decoder = RecordDecoder()
    assert decoder.decode("run.vdlog", items) == []
    assert decoder.problems == []
    return decoder.writer


def test_process_end_event_flag_an_event_then_nothing_is_no_end():
    state = _read(_thread_exception(T0 + 1, event=True))
    assert state.end is None
    assert [(e.how, e.exception_type, e.thread, e.wall_time) for e in state.events] == [
        ("exception", "ValueError", "loader", T0 + 1)
    ]


def test_process_end_event_flag_events_then_nothing_is_no_end():
    state = _read(_thread_exception(T0 + 1, event=True), _sigterm(T0 + 2, event=True))
    assert state.end is None
    assert [e.how for e in state.events] == ["exception", "signal"]


def test_process_end_event_flag_an_event_then_the_end_is_the_end():
    state = _read(_sigterm(T0 + 1, event=True), _thread_exception(T0 + 2, event=True), _closed(T0 + 3))
    assert state.end is not None and (state.end.how, state.end.wall_time, state.end.step) == ("closed", T0 + 3, 2)
    assert [(e.how, e.wall_time) for e in state.events] == [("signal", T0 + 1), ("exception", T0 + 2)]


def test_process_end_event_flag_an_end_then_a_late_event_stays_the_end():
    state = _read(_sigterm(T0 + 1), _thread_exception(T0 + 2, event=True))
    assert state.end is not None and state.end.how == "signal"
    assert [e.how for e in state.events] == ["exception"]


def test_process_end_event_flag_records_without_it_the_last_wins():
    state = _read(_thread_exception(T0 + 1), _closed(T0 + 2))
    assert state.end is not None and (state.end.how, state.end.wall_time) == ("closed", T0 + 2)
    assert [(e.how, e.wall_time) for e in state.events] == [("exception", T0 + 1)]
    alone = _read(_thread_exception(T0 + 1))  # an older writer's event, then a kill: its last word
    assert alone.end is not None and alone.end.how == "exception" and alone.events == ()


def test_process_end_event_flag_events_kept_are_bounded():
    state = _read(*(_thread_exception(T0 + i, event=True) for i in range(MAX_EVENTS + 5)))
    assert state.end is None
    assert [e.wall_time for e in state.events] == [T0 + i for i in range(5, MAX_EVENTS + 5)]


def test_process_end_event_flag_a_new_header_starts_without_events():
    other = pb.Record(header=pb.Header(format_version=FORMAT_VERSION, writer_id="cd" * 16, pid=8, start_time=T0 + 5))
    state = _read(_thread_exception(T0 + 1, event=True), other)
    assert state.end is None and state.events == ()


def test_process_end_event_flag_the_next_segment_of_the_writer_keeps_its_events_and_end():
    """An object store's segments each start with the writer's header again: what the writer
    said before (its events, its end) holds across them; a crash then the footer written in
    the next segment is still a crash."""
    state = _read(_thread_exception(T0 + 1, event=True), HEADER, _sigterm(T0 + 2, event=True), HEADER)
    assert state.end is None and [e.how for e in state.events] == ["exception", "signal"]
    crashed = _read(_thread_exception(T0 + 3), HEADER, pb.Record(footer=pb.Footer(wall_time=T0 + 4)))
    assert crashed.end is not None and crashed.end.how == "exception"
