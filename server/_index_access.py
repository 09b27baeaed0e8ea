"""The server's only door into a reader's internals, one line per question.

The data provider needs five things a :class:`~visualdl._index.reader.LogReader` does not
offer publicly yet: its generation counters, a way to have a run read first, whether its
logdir exists and each file's lowest step. Each is asked here, and nowhere else in
``server/``, so that when the index offers them as public methods of ``Index`` —
``generation(*, runs_only=False)``, ``prioritize(run, timeout=10.0)``, ``exists()`` and
the progress call with the lowest step — switching over is an edit of this module only.
"""

from __future__ import annotations

import numpy as np

from visualdl._index.reader import LogReader, WriterInfo

__all__ = ["Progress", "exists", "generation", "prioritize", "progress"]

#: Per file of a run: its writer, wall times, highest steps by then, points, lowest step.
Progress = list[tuple[WriterInfo, np.ndarray, np.ndarray, int, int | None]]


def generation(reader: LogReader, *, runs_only: bool = False) -> int:
    """A number that changes whenever the reader's runs change (``runs_only``), or whenever
    its runs, files, writers or tags change; becomes ``Index.generation``."""
    return reader._runs_generation if runs_only else reader._generation


def prioritize(reader: LogReader, run: str, timeout: float = 10.0) -> None:
    """Have a first read of the logdir read ``run`` next and wait for it (up to ``timeout``);
    returns at once between polls. Becomes ``Index.prioritize``."""
    reader._await_run(run, timeout)


def exists(reader: LogReader) -> bool:
    """Whether the reader's logdir exists, as its latest listing found it; becomes ``Index.exists``."""
    return reader._exists()


def progress(reader: LogReader, run: str) -> Progress:
    """:meth:`LogReader.progress` of ``run`` with each file's lowest step last (None: no
    scalars); becomes the index's progress call."""
    return reader._progress(run)
