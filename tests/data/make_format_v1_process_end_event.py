"""Write ``tests/data/format_v1_later_kinds/process_end_event.bin``: a process-end record
marked an event (its ``event`` field, added to format version 1 after the process-end
record itself, ``make_format_v1_process_end.py``): what the process lived through and went
on after.

Like the other fixture scripts, run ONCE; never re-run it to "fix" a failing
``tests/formats/test_format_golden_kinds.py``: the record stands for logs already
written. How it was run: from the repository root (VisualDL 3.0.0.dev0), Python 3.11.7::

    python3 tests/data/make_format_v1_process_end_event.py

It refuses to write over an existing file. The writer runs with a clock that stands
still at ``T0``; it logs a scalar at step 1204, then its sink is told of a helper thread's
uncaught exception as an event (the values spelled out below, as ``sdk/_ends.py`` builds
them), and the record is cut from the log file it wrote (its first process-end record:
close() writes the end after it).
"""

from __future__ import annotations

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "format_v1_later_kinds", "process_end_event.bin")

#: The fixed clock: 2023-11-14 22:13:20 UTC, as make_format_v1.py's.
T0 = 1_700_000_000.0
TRACEBACK = (
    'Traceback (most recent call last):\n  File "train.py", line 12, in load\nRuntimeError: CUDA out of memory\n'
)


def main() -> None:
    if os.path.exists(OUT):
        sys.exit(f"{OUT} exists: it is never regenerated (see this script's docstring)")
    import time

    time.time = lambda: T0
    sys.path.insert(0, ROOT)
    from visualdl import LogWriter
    from visualdl._formats import framing
    from visualdl._formats.vdlog.logformat import parse_record
    from visualdl._kinds.table import ProcessEnd
    from visualdl.sdk._sink import Sink

    with tempfile.TemporaryDirectory() as logdir:
        with LogWriter(logdir, flush_secs=3600) as w:
            w.add_scalar("loss", 0.5, 1204)
            end = ProcessEnd("exception", T0, "RuntimeError", "CUDA out of memory", TRACEBACK, "", "loader")
            sink = w._sink
            assert isinstance(sink, Sink)
            sink.record_event(end)
        (name,) = os.listdir(logdir)
        with open(os.path.join(logdir, name), "rb") as f:
            data = f.read()
    for item in framing.scan(data):
        if isinstance(item, framing.Frame) and parse_record(item.payload).WhichOneof("kind") == "process_end":
            with open(OUT, "wb") as f:
                f.write(data[item.offset : item.offset + 16 + len(item.payload)])
            return
    sys.exit("no process_end record")


if __name__ == "__main__":
    main()
