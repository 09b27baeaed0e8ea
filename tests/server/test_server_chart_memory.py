"""A chart of one long series is downsampled as it is read back from the scratch file: its
memory does not grow with the series, and it shows what downsampling the whole series shows."""

from __future__ import annotations

import os
import tracemalloc

import numpy as np
import pytest

from visualdl._formats.framing import frame
from visualdl._index.downsample import downsample, select_range
from visualdl._kinds.scalars import MAX_POINTS_PER_RECORD, encode_scalars
from visualdl.proto import pb

RECORDS = 3  # 3M points: 75 MB read back for a chart of the whole series


def _long_log(logdir: str) -> tuple[np.ndarray, np.ndarray]:
    n = MAX_POINTS_PER_RECORD
    rng = np.random.default_rng(5)
    steps = np.arange(RECORDS * n, dtype=np.int64) * 2
    values = np.cumsum(rng.normal(size=steps.size))
    values[rng.integers(0, steps.size, 50)] = np.nan
    values[123_457] = 1e9  # a spike
    walls = 1.7e9 + steps / 10.0
    with open(os.path.join(logdir, "vdl.1700000000.host.1.0000beef.vdlog"), "wb") as f:
        f.write(frame(pb.Record(header=pb.Header(format_version=1, writer_id="w")).SerializeToString()))
        for lo in range(0, steps.size, n):
            part = slice(lo, lo + n)
            record = encode_scalars(["loss"], [n], steps[part], values[part], walls[part])
            f.write(frame(record.SerializeToString()))
    return steps, values


@pytest.mark.e2e  # a long series written and read under tracemalloc: seconds
def test_chart_of_a_long_series_holds_a_piece_of_it(logdir, make_app):
    steps, values = _long_log(logdir)
    app = make_app(logdir)
    provider = app.extensions["visualdl.provider"]
    tracemalloc.start()
    try:
        chart = provider.read_scalars(run=".", tag="loss", max_points=1000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # About 5 MB whatever the length; the series itself is 72 MB (24 bytes a point).
    assert peak < 24 * steps.size // 4, f"a chart of {steps.size:,} points held {peak:,} bytes"
    line = chart.line
    keep = downsample(steps, values, 1000)
    assert line.range_points == steps.size and chart.total_points == steps.size
    assert line.steps.tolist() == steps[keep].tolist()
    assert np.array_equal(line.values, values[keep], equal_nan=True) and 1e9 in line.values

    zoom = provider.read_scalars(run=".", tag="loss", max_points=500, x_min=200_001, x_max=5_000_000)
    start, stop = select_range(steps, 200_001, 5_000_000)
    keep = downsample(steps[start:stop], values[start:stop], 500)
    assert zoom.line.range_points == stop - start
    assert zoom.line.steps.tolist() == steps[start:stop][keep].tolist()
