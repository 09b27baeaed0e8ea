"""Write ``tests/data/format_v1_later_kinds/tag_info.bin``: the tag-info record (a tag
declared replicated), added to format version 1 after the process-end record.

Like the other fixture scripts, run ONCE; never re-run it to "fix" a failing
``tests/formats/test_format_golden_kinds.py``: the record stands for logs already
written. How it was run: from the repository root (VisualDL 3.0.0.dev0), Python 3.11::

    python3 tests/data/make_format_v1_tag_info.py

It refuses to write over an existing file. The writer runs with a clock that stands
still at ``T0``; it logs ``add_scalar("loss", 0.5, 880, replicated=True)``, and the record
is cut from the log file it wrote.
"""

from __future__ import annotations

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "format_v1_later_kinds", "tag_info.bin")

#: The fixed clock: 2023-11-14 22:13:20 UTC, as make_format_v1.py's.
T0 = 1_700_000_000.0


def main() -> None:
    if os.path.exists(OUT):
        sys.exit(f"{OUT} exists: it is never regenerated (see this script's docstring)")
    import time

    time.time = lambda: T0
    sys.path.insert(0, ROOT)
    from visualdl import LogWriter
    from visualdl._formats import framing
    from visualdl._formats.vdlog.logformat import parse_record

    with tempfile.TemporaryDirectory() as logdir:
        with LogWriter(logdir, flush_secs=3600) as w:
            w.add_scalar("loss", 0.5, 880, replicated=True)
        (name,) = os.listdir(logdir)
        with open(os.path.join(logdir, name), "rb") as f:
            data = f.read()
    for item in framing.scan(data):
        if isinstance(item, framing.Frame) and parse_record(item.payload).WhichOneof("kind") == "tag_info":
            with open(OUT, "wb") as f:
                f.write(data[item.offset : item.offset + 16 + len(item.payload)])
            return
    sys.exit("the writer wrote no tag-info record")


if __name__ == "__main__":
    main()
