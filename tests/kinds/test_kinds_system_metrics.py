"""The system-metrics record: its table of samples, its columns declared once, its bounds."""

from __future__ import annotations

import numpy as np
import pytest

from visualdl._formats.vdlog.decoder import RecordDecoder
from visualdl._kinds.table import SystemMetric, decode_system_metrics, encode_system_metrics
from visualdl.errors import LogFormatError
from visualdl.proto import pb

COLUMNS = (SystemMetric("rss", "process", "bytes"), SystemMetric("power", "gpu", "W", 0, "A100", "GPU-1"))


def test_system_metrics_round_trip_keeps_values_nan_and_gpu_zero():
    values = np.array([[1.0, np.nan], [2.0, np.inf], [3.0, 250.5]])
    record = encode_system_metrics(np.array([1.0, 2.0, 3.0]), values, COLUMNS, ("x",))
    batch = decode_system_metrics(pb.Record.FromString(record.SerializeToString()).system_metrics, (), "f", 0)
    assert batch.metrics == COLUMNS and batch.metrics[1].gpu == 0 and batch.metrics[0].gpu == -1
    np.testing.assert_array_equal(batch.values, values)
    assert batch.skipped == ("x",)


def test_system_metrics_undeclared_record_takes_the_writers_last_declaration():
    decoder = RecordDecoder()
    header = pb.Record(header=pb.Header(format_version=1))
    first = encode_system_metrics(np.array([1.0]), np.array([[1.0, 2.0]]), COLUMNS)
    later = encode_system_metrics(np.array([2.0]), np.array([[3.0, 4.0]]))
    decoder.decode("f", [(0, header), (10, first), (20, later)])
    assert [b.metrics for b in decoder.system] == [COLUMNS, COLUMNS]
    assert decoder.system[1].values.tolist() == [[3.0, 4.0]]
    decoder.system.clear()
    decoder.decode("f", [(30, header), (40, later)])  # a new writer's stretch: nothing declared
    assert decoder.system == [] and "before any metric is declared" in decoder.problems[0][1]


@pytest.mark.parametrize(
    "change",
    [{"values": b"\0" * 8}, {"wall_times": b"\0" * 7}],
)
def test_system_metrics_sizes_that_do_not_match_are_a_format_error(change):
    message = encode_system_metrics(np.array([1.0]), np.array([[1.0, 2.0]]), COLUMNS).system_metrics
    for field, value in change.items():
        setattr(message, field, value)
    with pytest.raises(LogFormatError, match="system metrics"):
        decode_system_metrics(message, (), "f", 0)


def test_system_metrics_encoder_refuses_an_unknown_scope():
    with pytest.raises(ValueError, match="scope 'rack'"):
        encode_system_metrics(np.array([1.0]), np.array([[1.0]]), (SystemMetric("x", "rack", "count"),))
