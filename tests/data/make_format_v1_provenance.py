"""Write ``tests/data/format_v1_later_kinds/provenance.bin``: the provenance record (where a
writer's process came from), in format version 1 since before its golden bytes were made.

Like the other fixture scripts, run ONCE; never re-run it to "fix" a failing
``tests/formats/test_format_golden_kinds.py``: the record stands for logs already
written. How it was run: from the repository root (VisualDL 3.0.0.dev0), Python 3.11.7::

    python3 tests/data/make_format_v1_provenance.py

It refuses to write over an existing file. The writer runs with a clock that stands
still at ``T0``, and the process it describes is the one spelled out below (as
``sdk/_provenance.py`` builds it: a command line, an interpreter, a working directory, a
clean git work tree, one key package), not the machine it ran on; the writer's own
thread writes the record after its header, and the record is cut from the log file it wrote.
"""

from __future__ import annotations

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "format_v1_later_kinds", "provenance.bin")

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
    from visualdl.proto import pb
    from visualdl.sdk import _provenance

    process = pb.Provenance(
        argv=["train.py", "--lr", "0.1"],
        executable="/usr/bin/python3",
        cwd="/home/user/project",
        python="3.11.7 (CPython)",
        git_commit="0123456789abcdef0123456789abcdef01234567",
        git_branch="main",
        git_dirty=False,
        packages={"torch": "2.3.1"},
    )
    _provenance._cached = (process, os.getpid())  # the process above, as built once per process
    with tempfile.TemporaryDirectory() as logdir:
        with LogWriter(logdir, flush_secs=3600, system_metrics=False):
            pass
        (name,) = os.listdir(logdir)
        with open(os.path.join(logdir, name), "rb") as f:
            data = f.read()
    for item in framing.scan(data):
        if isinstance(item, framing.Frame) and parse_record(item.payload).WhichOneof("kind") == "provenance":
            with open(OUT, "wb") as f:
                f.write(data[item.offset : item.offset + 16 + len(item.payload)])
            return
    sys.exit("the writer wrote no provenance record")


if __name__ == "__main__":
    main()
