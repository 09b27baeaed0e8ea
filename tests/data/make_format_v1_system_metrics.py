"""Write ``tests/data/format_v1_later_kinds/system_metrics.bin``: a system-metrics record,
added to format version 1 after ``make_format_v1_process_end.py``.

Like the other fixture scripts, run ONCE; never re-run it to "fix" a failing
``tests/formats/test_format_golden_kinds.py``: the record stands for logs already
written. How it was run: from the repository root (VisualDL 3.0.0.dev0), Python 3.11::

    python3 tests/data/make_format_v1_system_metrics.py

It refuses to write over an existing file. The writer's sink is given the record of two
samples of three metrics (a process's RSS, its host's CPU, a GPU's utilisation, one of
them not measured: NaN) with what its sampler skipped, as ``sdk/_sysmetrics.py`` builds
it, and the record is cut from the log file it wrote.
"""

from __future__ import annotations

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "format_v1_later_kinds", "system_metrics.bin")

#: The fixed clock: 2023-11-14 22:13:20 UTC, as make_format_v1.py's.
T0 = 1_700_000_000.0


def main() -> None:
    if os.path.exists(OUT):
        sys.exit(f"{OUT} exists: it is never regenerated (see this script's docstring)")
    sys.path.insert(0, ROOT)
    import numpy as np

    from visualdl import LogWriter
    from visualdl._formats import framing
    from visualdl._formats.vdlog.logformat import parse_record
    from visualdl._kinds.table import SystemMetric, encode_system_metrics
    from visualdl.sdk._sink import Sink

    metrics = (
        SystemMetric("rss", "process", "bytes"),
        SystemMetric("cpu", "host", "percent"),
        SystemMetric("utilization", "gpu", "percent", 1, "NVIDIA A100-SXM4-80GB", "GPU-0001"),
    )
    values = np.array([[1.5e9, 12.5, 97.0], [1.625e9, 25.0, float("nan")]])
    record = encode_system_metrics(np.array([T0, T0 + 5.0]), values, metrics, ("no pynvml",))
    with tempfile.TemporaryDirectory() as logdir:
        with LogWriter(logdir, flush_secs=3600, system_metrics=False) as w:
            sink = w._sink
            assert isinstance(sink, Sink)
            sink.put_item(lambda: record, record.ByteSize())
        (name,) = os.listdir(logdir)
        with open(os.path.join(logdir, name), "rb") as f:
            data = f.read()
    for item in framing.scan(data):
        if isinstance(item, framing.Frame) and parse_record(item.payload).WhichOneof("kind") == "system_metrics":
            with open(OUT, "wb") as f:
                f.write(data[item.offset : item.offset + 16 + len(item.payload)])
            return
    sys.exit("no system_metrics record")


if __name__ == "__main__":
    main()
