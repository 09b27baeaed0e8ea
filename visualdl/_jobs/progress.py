"""What every job analysis reads: one log file's writer and its progress trace.

:meth:`visualdl._index.index.Index.file_progress` gives, per log file of a run, a
:data:`FileProgress`: the file's :class:`~visualdl._index.writers.WriterInfo` (role, rank,
attempt, start time, footer, end), its trace (one ``(wall time, highest step so far)``
entry per scalar record, about one per flush: two arrays), its points and its lowest step.
Nothing here reads points, so a job of 1,000 ranks costs a few thousand small numpy calls.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from visualdl._index.writers import WriterInfo

__all__ = ["FileProgress", "by_place", "role_order"]

#: Per file of a run: its writer, wall times, highest steps by then, points, lowest step.
FileProgress = tuple[WriterInfo, np.ndarray, np.ndarray, int, int | None]


def by_place(progress: Sequence[FileProgress]) -> list[FileProgress]:
    """The files in the order every analysis takes them: role, rank, attempt, start time."""
    return sorted(progress, key=lambda p: (p[0].role, p[0].rank, p[0].attempt, p[0].start_time))


def role_order(role: str) -> tuple[bool, str]:
    """The sort key of roles: trainers first, then the others by name."""
    return (role != "trainer", role)
