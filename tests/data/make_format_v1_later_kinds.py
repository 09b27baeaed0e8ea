"""Write ``tests/data/format_v1_later_kinds``: one framed record of each kind added to
format version 1 after ``make_format_v1.py`` made its fixture (audio, PR and ROC curves,
hyperparameters, embeddings, scalar layout, meta).

Like ``make_format_v1.py``, run ONCE; never re-run it to "fix" a failing
``tests/test_format_golden_kinds.py``: the records stand for logs already written. A
record that no longer reads, or that today's encoder writes differently, means the
format changed (a renumbered or retyped field): fix the code, or make it a new version.

How it was run: from the repository root (VisualDL 3.0.0.dev0), Python 3.11.7, numpy
2.4.6, protobuf 7.36.2::

    python3 tests/data/make_format_v1_later_kinds.py

It refuses to write over an existing ``tests/data/format_v1_later_kinds``. The writers
run with a clock that stands still at ``T0`` (``time.time`` is replaced before visualdl
is imported), so every wall time in the records is a known value; each record is cut
from the log file the real writers wrote.
"""

from __future__ import annotations

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "format_v1_later_kinds")

#: The fixed clock: 2023-11-14 22:13:20 UTC, as make_format_v1.py's.
T0 = 1_700_000_000.0
KINDS = ("audio", "pr_curve", "roc_curve", "hparams", "embeddings", "scalar_layout", "meta")


def _write(logdir: str) -> None:
    import numpy as np

    from visualdl import LogWriter
    from visualdl.sdk import SummaryWriter

    with LogWriter(os.path.join(logdir, "a"), flush_secs=3600) as w:
        w.add_audio("sound", np.array([0.0, 0.5, -0.5, 1.0, -1.0, 0.25], np.float32), 3, sample_rate=8000)
        labels = np.array([1, 0, 1, 1, 0])
        predictions = np.array([0.9, 0.1, 0.6, 0.4, 0.7])
        w.add_pr_curve("pr", labels, predictions, 4, num_thresholds=3)
        w.add_roc_curve("roc", labels, predictions, 5, num_thresholds=3)
        w.add_hparams({"lr": 0.125, "layers": 3, "optimizer": "adam", "bn": True}, ["acc", "loss"])
        w.add_embeddings(
            "emb", np.array([[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]], np.float32), [["a", "b", "c"], ["x", "y", "z"]],
            ["letter", "other"],
        )  # fmt: skip
        w.add_meta(display_name="golden run")
    with SummaryWriter(os.path.join(logdir, "b"), flush_secs=3600) as s:
        s.add_custom_scalars({"losses": {"both": ["Multiline", ["loss/.*"]], "band": ["Margin", ["m", "lo", "hi"]]}})


def _cut(logdir: str) -> dict[str, bytes]:
    from visualdl._formats import framing
    from visualdl._formats.vdlog.logformat import parse_record

    found: dict[str, bytes] = {}
    for dirpath, _, names in sorted(os.walk(logdir)):
        for name in sorted(names):
            with open(os.path.join(dirpath, name), "rb") as f:
                data = f.read()
            for item in framing.scan(data):
                if isinstance(item, framing.Frame):
                    kind = parse_record(item.payload).WhichOneof("kind")
                    if kind in KINDS and kind not in found:
                        found[kind] = data[item.offset : item.offset + 16 + len(item.payload)]
    return found


def main() -> None:
    if os.path.exists(OUT):
        sys.exit(f"{OUT} exists: it is never regenerated (see this script's docstring)")
    import time

    time.time = lambda: T0
    sys.path.insert(0, ROOT)
    with tempfile.TemporaryDirectory() as logdir:
        _write(logdir)
        records = _cut(logdir)
    missing = [k for k in KINDS if k not in records]
    if missing:
        sys.exit(f"no record of {missing}")
    os.makedirs(OUT)
    for kind in KINDS:
        with open(os.path.join(OUT, f"{kind}.bin"), "wb") as f:
            f.write(records[kind])


if __name__ == "__main__":
    main()
