"""Columnar series of scalar points, in memory or spilled to a scratch file.

A :class:`Series` grows by whole chunks. In memory, into preallocated numpy columns
(capacity grows by half, so appends are amortised O(1) and memory stays within 1.5x of
24 bytes per point). With a :class:`SpillFile`, each chunk goes to that file at once
(its steps, values and wall times, 24 bytes per point) and only the chunk's place stays
in memory: what the reader holds does not grow with the points read, and a view reads
the chunks back (from the OS's page cache, as a rule). Views handed out are read-only
arrays, never changed afterwards.
"""

from __future__ import annotations

import mmap
import os
import tempfile
import threading
import weakref
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

__all__ = ["GATHER_POINTS", "ScalarSeries", "Series", "SpillFile", "gather", "merge", "pieces"]

_MIN_CAPACITY = 64
#: Spilled chunks are merged up to this many points (1.5 MiB); larger ones are read as they are.
MERGED_POINTS = 1 << 16
#: :func:`gather` copies this many points per round at most (its index arrays stay bounded).
GATHER_POINTS = 1 << 20
#: The environment variable that names the directory of the scratch file, read where the
#: configuration comes in (:class:`~visualdl._logreader.LogReader`, the server's
#: ``Settings``) and passed down from there as ``cache_dir``.
CACHE_DIR_ENV = "VISUALDL_CACHE_DIR"


class SpillFile:
    """An append-only scratch file of column chunks, outside any logdir: created unlinked
    (nothing is left behind, even by a killed process) in ``directory`` (None or "": the
    system's temporary directory). Thread-safe."""

    def __init__(self, directory: str | None = None) -> None:
        fd, path = tempfile.mkstemp(prefix="visualdl-series-", dir=directory or None)
        os.unlink(path)
        #: The directory the file is in (unlinked, it has no name of its own).
        self.directory = os.path.dirname(path)
        self._fd = fd
        self._close = weakref.finalize(self, os.close, fd)  # when the reader is gone
        self._end = 0
        self._lock = threading.Lock()
        #: Bytes of chunks rewritten elsewhere or forgotten: the file's garbage.
        self.garbage = 0
        self._mapped: np.ndarray | None = None  # words(): kept while the file keeps its size

    @property
    def size(self) -> int:
        """Bytes written so far (garbage included)."""
        return self._end

    def free(self, nbytes: int) -> None:
        with self._lock:
            self.garbage += nbytes

    def _reserve(self, nbytes: int) -> int:
        with self._lock:
            offset = self._end
            self._end += nbytes
        return offset

    def _write_at(self, data: bytes | memoryview, at: int) -> None:
        view = memoryview(data)
        while view:
            n = os.pwrite(self._fd, view, at)
            view, at = view[n:], at + n

    def append(self, data: bytes | memoryview) -> int:
        """Write ``data`` at the end; its offset (``OSError``: as :meth:`append_arrays`)."""
        offset = self._reserve(len(data))
        try:
            self._write_at(data, offset)
        except OSError:
            self.free(len(data))
            raise
        return offset

    def append_arrays(self, arrays: list[np.ndarray]) -> int:
        """Write the arrays' bytes one after the other at the end, without copying them; the
        offset. ``OSError`` (a full disk: ``ENOSPC``) when they cannot all be written; the
        space reserved for them is then garbage."""
        nbytes = sum(a.nbytes for a in arrays)
        offset = self._reserve(nbytes)
        try:
            written = os.pwritev(self._fd, [a.data for a in arrays], offset)
            if written < nbytes:  # a short write (a disk filling up): the rest, copied once
                self._write_at(memoryview(b"".join(a.tobytes() for a in arrays))[written:], offset + written)
        except OSError:
            self.free(nbytes)
            raise
        return offset

    def read(self, offset: int, nbytes: int) -> bytes:
        parts = []
        left = nbytes
        while left:
            part = os.pread(self._fd, left, offset + nbytes - left)
            if not part:
                raise OSError(f"the series spill file is shorter than written ({offset}+{nbytes})")
            parts.append(part)
            left -= len(part)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def words(self) -> np.ndarray:
        """The file as written so far, mapped read-only as 8-byte words (every chunk starts at
        a multiple of 8: its columns are 8-byte values). Mapped again once the file has grown
        (a finished job's file is mapped once, its pages faulted in once); valid while the
        array lives."""
        size = os.fstat(self._fd).st_size // 8 * 8
        with self._lock:
            mapped = self._mapped
            if mapped is None or mapped.nbytes != size:
                mapped = self._mapped = (
                    np.frombuffer(mmap.mmap(self._fd, size, access=mmap.ACCESS_READ), np.int64)
                    if size
                    else np.empty(0, np.int64)
                )
        return mapped

    def close(self) -> None:
        self._close()


@dataclass(frozen=True, slots=True)
class ScalarSeries:
    """Points of one tag ordered by step (ties keep the order they were written in)."""

    steps: np.ndarray  # int64
    values: np.ndarray  # float64
    wall_times: np.ndarray  # float64

    def __len__(self) -> int:
        return int(self.steps.size)


def _readonly(arr: np.ndarray) -> np.ndarray:
    view = arr.view()
    view.flags.writeable = False
    return view


_NO_STEPS = np.empty(0, np.int64)
_NO_FLOATS = np.empty(0, np.float64)


class Series:
    """A growing series of (step, value, wall_time) points; in memory, or in ``spill``."""

    __slots__ = ("_steps", "_values", "_walls", "_n", "_sorted", "_spill", "_chunks", "_last")

    def __init__(self, spill: SpillFile | None = None) -> None:
        self._steps = _NO_STEPS  # shared empty columns until the first in-memory append
        self._values = _NO_FLOATS
        self._walls = _NO_FLOATS
        self._n = 0
        self._sorted = True
        self._spill = spill
        self._chunks: list[tuple[int, int]] = []  # spilled: (offset, points) per chunk
        self._last = 0  # spilled: the last step appended

    def __len__(self) -> int:
        return self._n

    @property
    def nbytes(self) -> int:
        """Bytes held in memory."""
        return self._steps.nbytes + self._values.nbytes + self._walls.nbytes + 16 * len(self._chunks)

    def extend(self, steps: np.ndarray, values: np.ndarray, walls: np.ndarray) -> None:
        k = steps.size
        if k == 0:
            return
        if self._spill is not None:
            self._spill_chunk(steps, values, walls)
            return
        n = self._n
        if n + k > self._steps.size:
            capacity = max(_MIN_CAPACITY, n + k, (n * 3) // 2)
            self._steps = self._grow(self._steps, capacity)
            self._values = self._grow(self._values, capacity)
            self._walls = self._grow(self._walls, capacity)
        if self._sorted and ((n and steps[0] < self._steps[n - 1]) or (k > 1 and (np.diff(steps) < 0).any())):
            self._sorted = False
        self._steps[n : n + k] = steps
        self._values[n : n + k] = values
        self._walls[n : n + k] = walls
        self._n = n + k

    def _grow(self, arr: np.ndarray, capacity: int) -> np.ndarray:
        out = np.empty(capacity, arr.dtype)
        out[: self._n] = arr[: self._n]
        return out

    def _spill_chunk(self, steps: np.ndarray, values: np.ndarray, walls: np.ndarray) -> None:
        assert self._spill is not None
        k = steps.size
        steps = np.ascontiguousarray(steps, np.int64)
        if self._sorted and ((self._n and steps[0] < self._last) or (k > 1 and (np.diff(steps) < 0).any())):
            self._sorted = False
        values = np.ascontiguousarray(values, np.float64)
        walls = np.ascontiguousarray(walls, np.float64)
        self._chunks.append((self._spill.append_arrays([steps, values, walls]), k))
        self._last = int(steps[-1])
        self._n += k
        # Small chunks (a live log's polls) halve from the oldest to the newest, merged when
        # they do not, up to MERGED_POINTS: O(log n) of them, each point rewritten O(log n)
        # times. Chunks of that size or more (a cold read's rounds) stay as they are.
        last = self._chunks[-1][1]
        if len(self._chunks) >= 2 and self._chunks[-2][1] < 2 * last and self._chunks[-2][1] + last <= MERGED_POINTS:
            self._merge_tail()

    def _merge_tail(self) -> None:
        assert self._spill is not None
        first = len(self._chunks) - 2
        n = sum(k for _, k in self._chunks[first:])
        while first > 0 and self._chunks[first - 1][1] < 2 * n and self._chunks[first - 1][1] + n <= MERGED_POINTS:
            first -= 1
            n += self._chunks[first][1]
        parts = self._read_chunks(self._chunks[first:], n)
        merged = self._spill.append_arrays(list(parts))
        self._spill.free(24 * n)
        self._chunks[first:] = [(merged, n)]

    def _read_chunks(self, chunks: list[tuple[int, int]], n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        assert self._spill is not None
        steps, values, walls = np.empty(n, np.int64), np.empty(n), np.empty(n)
        at = 0
        for offset, k in chunks:
            raw = self._spill.read(offset, 24 * k)
            steps[at : at + k] = np.frombuffer(raw, np.int64, k)
            values[at : at + k] = np.frombuffer(raw, np.float64, k, 8 * k)
            walls[at : at + k] = np.frombuffer(raw, np.float64, k, 16 * k)
            at += k
        return steps, values, walls

    def _read_spilled(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self._read_chunks(self._chunks, self._n)

    def checkpoint(self) -> tuple[list[tuple[int, int]], int, int, bool]:
        """What :meth:`restore` takes to undo the points appended after this call."""
        return list(self._chunks), self._n, self._last, self._sorted

    def restore(self, mark: tuple[list[tuple[int, int]], int, int, bool]) -> None:
        """Undo the points appended since :meth:`checkpoint` gave ``mark`` (a write failed):
        the chunks written since are garbage, those merged since are the series' again."""
        chunks, n, last, in_order = mark
        if self._spill is not None:
            before, now = dict(chunks), dict(self._chunks)
            written = sum(k for offset, k in now.items() if offset not in before)
            merged = sum(k for offset, k in before.items() if offset not in now)
            self._spill.free(24 * (written - merged))
        self._chunks, self._n, self._last, self._sorted = chunks, n, last, in_order

    def forget(self) -> None:
        """Give the spilled chunks back as garbage (the series is dropped)."""
        if self._spill is not None:
            self._spill.free(24 * self._n)
            self._chunks = []

    def copy_to(self, spill: SpillFile) -> list[tuple[int, int]] | None:
        """Copy the spilled points into ``spill`` (a fresh file, without the old one's
        garbage): the chunks there, for :meth:`moved`; None for a series in memory.
        ``OSError`` when they cannot be written (the series is as it was)."""
        if self._spill is None:
            return None
        return [(spill.append(self._spill.read(offset, 24 * k)), k) for offset, k in self._chunks]

    def moved(self, spill: SpillFile, chunks: list[tuple[int, int]] | None) -> None:
        """The series is in ``spill`` from now on, at ``chunks`` (what :meth:`copy_to` gave)."""
        if chunks is not None:
            self._spill, self._chunks = spill, chunks

    def spilled_chunks(self) -> tuple[SpillFile, list[tuple[int, int]]] | None:
        """The scratch file and the chunks of a spilled series in step order (None for one in
        memory, or out of order): what :func:`pieces` reads it back from, a piece at a time,
        without the index's lock (chunks are never rewritten in place)."""
        if self._spill is None or not self._sorted:
            return None
        return self._spill, list(self._chunks)

    def view(self) -> ScalarSeries:
        """The points so far, ordered by step."""
        if self._spill is not None:
            return self._view_spilled()
        n = self._n
        if not self._sorted:
            order = np.argsort(self._steps[:n], kind="stable")
            capacity = self._steps.size
            for name in ("_steps", "_values", "_walls"):
                old = getattr(self, name)
                new = np.empty(capacity, old.dtype)
                np.take(old[:n], order, out=new[:n])
                setattr(self, name, new)
            self._sorted = True
        return ScalarSeries(_readonly(self._steps[:n]), _readonly(self._values[:n]), _readonly(self._walls[:n]))

    def _view_spilled(self) -> ScalarSeries:
        assert self._spill is not None
        steps, values, walls = self._read_spilled()
        if not self._sorted:  # one chunk in step order from now on
            order = np.argsort(steps, kind="stable")
            steps, values, walls = steps[order], values[order], walls[order]
            try:
                chunk = self._spill.append_arrays([steps, values, walls])
            except OSError:
                pass  # a full disk: sorted again by the next view
            else:
                self._spill.free(24 * self._n)
                self._chunks, self._last, self._sorted = [(chunk, self._n)], int(steps[-1]), True
        return ScalarSeries(_readonly(steps), _readonly(values), _readonly(walls))


def pieces(
    spill: SpillFile, chunks: list[tuple[int, int]], size: int, *, steps_only: bool = False
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The points of ``chunks`` of ``spill`` (from :meth:`Series.spilled_chunks`) in order,
    ``size`` at a time at most: steps, values and wall times (``steps_only``: the steps, and
    empty values and wall times)."""
    for offset, k in chunks:
        for lo in range(0, k, size):
            n = min(size, k - lo)
            steps = np.frombuffer(spill.read(offset + 8 * lo, 8 * n), np.int64)
            if steps_only:
                yield steps, _NO_FLOATS, _NO_FLOATS
                continue
            values = np.frombuffer(spill.read(offset + 8 * (k + lo), 8 * n), np.float64)
            walls = np.frombuffer(spill.read(offset + 8 * (2 * k + lo), 8 * n), np.float64)
            yield steps, values, walls


def gather(
    series: list[Series], after: list[ScalarSeries] | tuple[ScalarSeries, ...] = ()
) -> tuple[ScalarSeries, np.ndarray]:
    """Every series' points laid end to end, each in step order, then the points of ``after``
    (views already read), and how many each of them has: one allocation per column.

    Series spilled to one scratch file are read with one gather per column from a memory
    map of it, :data:`GATHER_POINTS` points per round, not one read per series: the points
    of 10,000 ranks' files cost what copying them costs. Others are viewed one by one. The
    caller holds the index's lock (or knows that no series is being sorted or dropped)."""
    sources = [s.spilled_chunks() for s in series]
    spill = sources[0][0] if sources and sources[0] is not None else None
    if spill is None or any(source is None or source[0] is not spill for source in sources):
        views = [s.view() for s in series]
        return _concatenated([*views, *after]), np.fromiter((len(v) for v in (*views, *after)), np.int64)
    lengths = np.fromiter((len(s) for s in (*series, *after)), np.int64, len(series) + len(after))
    table = np.array([chunk for source in sources if source is not None for chunk in source[1]], np.int64)
    table = table.reshape(-1, 2)
    offsets, sizes = table[:, 0], table[:, 1]
    if (offsets % 8).any():  # not this file's layout: read as views
        return _concatenated([*(s.view() for s in series), *after]), lengths
    total = int(lengths.sum())
    steps, values, walls = np.empty(total, np.int64), np.empty(total), np.empty(total)
    words = spill.words()
    starts = np.cumsum(sizes) - sizes
    c0 = 0
    rows: dict[int, np.ndarray] = {}  # chunk size -> the words as overlapping rows of that size
    while c0 < sizes.size:  # a round of whole chunks, GATHER_POINTS points or one chunk
        c1 = max(c0 + 1, int(np.searchsorted(starts, starts[c0] + GATHER_POINTS, side="right")))
        k = sizes[c0:c1]
        lo, hi = int(starts[c0]), int(starts[c0] + k.sum())
        if k[0] and (k == k[0]).all() and words.size >= 3 * k[0]:
            # Chunks of one size (a sweep's runs, a job's ranks at the same steps): each column
            # of each chunk is a row of the words seen as overlapping rows of that size, so
            # the round is one row gather per column, a copy per row, not an index per point.
            size = int(k[0])
            grid = rows.get(size)
            if grid is None:
                grid = np.lib.stride_tricks.as_strided(
                    words, shape=(words.size - size + 1, size), strides=(8, 8), writeable=False
                )
                rows[size] = grid
            first = offsets[c0:c1] // 8
            for column, out in enumerate((steps, values.view(np.int64), walls.view(np.int64))):
                out[lo:hi].reshape(-1, size)[...] = grid[first + column * size]
            c0 = c1
            continue
        at = np.repeat(offsets[c0:c1] // 8 - starts[c0:c1], k)
        at += np.arange(lo, hi)
        np.take(words, at, out=steps[lo:hi])
        step = np.repeat(k, k)
        at += step
        np.take(words, at, out=values[lo:hi].view(np.int64))
        at += step
        np.take(words, at, out=walls[lo:hi].view(np.int64))
        c0 = c1
    put = int(sizes.sum())
    for view in after:
        n = len(view)
        steps[put : put + n], values[put : put + n], walls[put : put + n] = view.steps, view.values, view.wall_times
        put += n
    return ScalarSeries(_readonly(steps), _readonly(values), _readonly(walls)), lengths


def _concatenated(views: list[ScalarSeries]) -> ScalarSeries:
    if not views:
        return ScalarSeries(_NO_STEPS, _NO_FLOATS, _NO_FLOATS)
    return ScalarSeries(
        _readonly(np.concatenate([v.steps for v in views])),
        _readonly(np.concatenate([v.values for v in views])),
        _readonly(np.concatenate([v.wall_times for v in views])),
    )


def merge(parts: list[ScalarSeries]) -> ScalarSeries:
    """Several step-ordered series as one, ordered by step; ties keep the order of ``parts``."""
    parts = [p for p in parts if len(p)]
    if not parts:
        empty = np.empty(0, np.int64)
        return ScalarSeries(_readonly(empty), _readonly(np.empty(0)), _readonly(np.empty(0)))
    if len(parts) == 1:
        return parts[0]
    steps = np.concatenate([p.steps for p in parts])
    order = np.argsort(steps, kind="stable")
    return ScalarSeries(
        _readonly(steps[order]),
        _readonly(np.concatenate([p.values for p in parts])[order]),
        _readonly(np.concatenate([p.wall_times for p in parts])[order]),
    )
