"""What the index holds of one run: :class:`Run` (its files, each tag's data per file, the
versions its cached results are checked against), how far each writer got
(:class:`Progress`), and how a read's scalar blocks are split per tag before they are stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from visualdl._index.cache import ByteCache, VersionedView
from visualdl._index.consensus import Consensus
from visualdl._index.firsts import Firsts
from visualdl._index.series import Series
from visualdl._index.system import SystemStore
from visualdl._index.tail import LogFile
from visualdl._kinds.table import ScalarBlock

__all__ = [
    "CACHE_BYTES",
    "FREE_POINTS",
    "POINTS_PER_BYTE",
    "Progress",
    "Run",
    "Stream",
    "series_of",
    "split_blocks",
    "stream_of",
]

#: Bytes of merged results (series resolved across a run's files, job aggregates, event
#: lists) that a reader keeps for its queries, the least recently used dropped first.
CACHE_BYTES = 64 << 20
#: Scalar points a log file may hold per byte of it read, beyond :data:`FREE_POINTS`. Our
#: writer stores at most 14.3 points a byte (a constant value with constant wall times, its
#: columns deflated at level 1; with real clocks 7.3 at most), and the TensorBoard and
#: VisualDL 2 formats, which do not compress, less than one; deflate at its best lets a
#: crafted file claim 64, which would make a 1.6 MB file 100M points (a 2.5 GB scratch file).
#: Points past the budget are not read, and the file is named in a problem.
POINTS_PER_BYTE = 16
#: Scalar points any file may hold, whatever its size.
FREE_POINTS = 1 << 20


@dataclass(slots=True)
class Run:
    """What the index holds of one run: its files, its data per tag and file, and how far each file got."""

    files: dict[str, LogFile] = field(default_factory=dict)
    #: (kind, tag) -> path -> per-file storage (Series for scalars, list of events otherwise)
    data: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    #: (kind, tag) -> a number that changes whenever that tag's data changes
    versions: dict[tuple[str, str], int] = field(default_factory=dict)
    #: (kind, tag) -> (version, merged result), in the reader's bounded cache
    cache: VersionedView = field(default_factory=lambda: VersionedView(ByteCache[Any](CACHE_BYTES)))
    #: path -> the file's progress: (wall time, highest step so far) once per scalar record
    progress: dict[str, Progress] = field(default_factory=dict)
    #: A TensorBoard file's session starts: (wall time, step, scalar points of the file before it).
    starts: dict[str, list[tuple[float, int, int]]] = field(default_factory=dict)
    #: tag -> path -> that file's first non-finite point of the tag (visualdl._index.wrong)
    firsts: dict[str, dict[str, Firsts]] = field(default_factory=dict)
    #: tag -> the paths whose ``firsts`` of the tag hold a non-finite point
    nonfinite: dict[str, set[str]] = field(default_factory=dict)
    #: (role, tag) -> the ranks' agreement on the tag, step by step (visualdl._index.wrong),
    #: once a second ranked file of the role holds the tag
    consensus: dict[tuple[str, str], Consensus] = field(default_factory=dict)
    #: (role, tag) -> the one ranked file of the role that holds the tag so far (no agreement
    #: to keep yet: a run of one process costs nothing per step)
    solo: dict[tuple[str, str], str] = field(default_factory=dict)
    #: path -> the file's system-metrics samples (kept apart from the tags)
    system: dict[str, SystemStore] = field(default_factory=dict)
    #: counts the rounds that read bytes of its files (and files forgotten): what a view
    #: built from everything the run holds (the job page) is cached by
    changes: int = 0


class Progress:
    """How far a writer got, over time: one ``(wall, max step)`` entry per scalar record (and,
    first, one for its first point when the first record holds later ones too), and the
    lowest step it logged."""

    __slots__ = ("walls", "steps", "points", "first", "refused")

    def __init__(self) -> None:
        self.walls: list[float] = []
        self.steps: list[int] = []
        self.points = 0
        self.first: int | None = None
        #: Points not read: past the file's budget (:data:`POINTS_PER_BYTE`).
        self.refused = 0

    def admit(self, blocks: list[ScalarBlock], file_bytes: int) -> tuple[list[ScalarBlock], int]:
        """The blocks (whole records, in order) that keep the file within its budget of
        points for ``file_bytes`` bytes read, and the points of the others."""
        room = FREE_POINTS + POINTS_PER_BYTE * file_bytes - self.points
        sizes = np.cumsum([block.steps.size for block in blocks])
        take = int(np.searchsorted(sizes, room, side="right"))
        return blocks[:take], int(sizes[-1]) - (int(sizes[take - 1]) if take else 0)

    def add(self, blocks: list[ScalarBlock]) -> None:
        for block in blocks:
            if block.steps.size:
                if not self.steps:
                    self._start(block)
                low = int(block.steps.min())
                self.first = low if self.first is None else min(self.first, low)
                top = int(block.steps.max())
                if self.steps and self.steps[-1] > top:
                    top = self.steps[-1]
                self.steps.append(top)
                self.walls.append(float(block.wall_times.max()))
                self.points += int(block.steps.size)

    def _start(self, block: ScalarBlock) -> None:
        """An entry for the file's first point when its first record also holds later ones
        (one flush of many steps): where a file's logging began, not only where its first
        record ended (a rate needs two entries; a killed attempt may leave one record)."""
        walls = block.wall_times
        earliest = float(walls.min())
        if earliest < float(walls.max()):  # NaN compares false: no entry
            self.steps.append(int(block.steps[walls == earliest].max()))
            self.walls.append(earliest)


#: A place in a job: ``(role, rank)``; rank -1 for writers that do not know theirs.
Stream = tuple[str, int]


def stream_of(header: Any) -> Stream:
    if header is None:
        return ("", -1)
    return (header.role, int(header.rank) if header.rank >= 0 else -1)


def split_blocks(blocks: list[ScalarBlock]) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """Points of several blocks as ``(tag, steps, values, wall_times)`` per tag, in written order."""
    if not blocks:
        return []
    if len(blocks) == 1:
        block = blocks[0]
        bounds = np.concatenate(([0], np.cumsum(block.counts)))
        out = []
        for i, tag in enumerate(block.tags):
            lo, hi = int(bounds[i]), int(bounds[i + 1])
            out.append((tag, block.steps[lo:hi], block.values[lo:hi], block.wall_times[lo:hi]))
        return out
    ids: dict[str, int] = {}
    tag_ids = np.concatenate(
        [np.repeat(np.array([ids.setdefault(t, len(ids)) for t in b.tags], np.int64), b.counts) for b in blocks]
    )
    order = np.argsort(tag_ids, kind="stable")
    steps = np.concatenate([b.steps for b in blocks])[order]
    values = np.concatenate([b.values for b in blocks])[order]
    walls = np.concatenate([b.wall_times for b in blocks])[order]
    bounds = np.searchsorted(tag_ids[order], np.arange(len(ids) + 1))
    return [
        (tag, steps[bounds[i] : bounds[i + 1]], values[bounds[i] : bounds[i + 1]], walls[bounds[i] : bounds[i + 1]])
        for tag, i in ids.items()
    ]


def series_of(states: Iterable[Run]) -> Iterator[Series]:
    """Every scalar series stored for the runs ``states``."""
    for state in states:
        for per_file in state.data.values():
            for store in per_file.values():
                if isinstance(store, Series):
                    yield store
