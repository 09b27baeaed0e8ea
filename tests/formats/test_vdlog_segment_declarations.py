"""The system metrics' columns across the segments of one log: each segment an object store
holds starts with its writer's header again, and the columns its writer declared before
still hold (``visualdl/_formats/vdlog/decoder.py``); another writer's header starts anew."""

from __future__ import annotations

import numpy as np

from visualdl._formats.vdlog.decoder import RecordDecoder
from visualdl._kinds.table import SystemMetric, encode_system_metrics
from visualdl.proto import pb

COLUMNS = (SystemMetric("rss", "process", "bytes"), SystemMetric("threads", "process", "count"))


def _header(writer_id: str) -> pb.Record:
    return pb.Record(header=pb.Header(format_version=1, writer_id=writer_id, pid=7))


def _sample(wall: float, declare: bool) -> pb.Record:
    return encode_system_metrics(np.array([wall]), np.array([[wall * 10, 3.0]]), COLUMNS if declare else ())


def _read(records: list[pb.Record]) -> tuple[RecordDecoder, np.ndarray]:
    decoder = RecordDecoder()
    offset = 0
    for record in records:  # one record per read, as a live log is followed
        decoder.decode("run/log.vdlog", [(offset, record)])
        offset += record.ByteSize() + 16
    walls = np.concatenate([b.wall_times for b in decoder.system]) if decoder.system else np.empty(0)
    return decoder, walls


def test_vdlog_segments_of_one_writer_keep_its_declared_columns():
    records = [_header("a" * 32), _sample(1.0, True), _sample(2.0, False)]
    for wall in (3.0, 4.0, 5.0):  # a segment each: the header again, then samples undeclared
        records += [_header("a" * 32), _sample(wall, False)]
    decoder, walls = _read(records)
    assert decoder.problems == []
    assert walls.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert all(b.metrics == COLUMNS for b in decoder.system)
    assert np.concatenate([b.values[:, 0] for b in decoder.system]).tolist() == [10.0, 20.0, 30.0, 40.0, 50.0]


def test_vdlog_another_writers_header_forgets_the_columns():
    records = [_header("a" * 32), _sample(1.0, True), _header("b" * 32), _sample(2.0, False)]
    decoder, walls = _read(records)
    assert walls.tolist() == [1.0]
    assert [m for _, m in decoder.problems] == ["system metrics: values before any metric is declared"]


def test_vdlog_a_header_without_a_writer_id_forgets_the_columns():
    records = [_header(""), _sample(1.0, True), _header(""), _sample(2.0, False)]
    _, walls = _read(records)
    assert walls.tolist() == [1.0]
