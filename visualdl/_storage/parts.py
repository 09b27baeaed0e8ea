"""A log file made of parts (a remote object, or a writer's segments) read as one file.

A reader asks for the bytes of a log by the path a listing gave it; when that log is
several objects or files, :class:`PartsSource` keeps them as the latest listing found
them and :class:`RangeFile` reads across them, so nothing after the reading of bytes
knows about segments.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any, BinaryIO

__all__ = ["PartsSource", "RangeFile"]


class RangeFile(io.RawIOBase):
    """Parts (objects or files, each ``(name, size)``) read as one file: ``read`` asks
    ``read_range(name, start, end)`` for the bytes of each part it spans (one ranged GET
    per part for a remote store). Seekable; the parts must not change under it."""

    def __init__(self, parts: list[tuple[str, int]], read_range: Callable[[str, int, int], bytes]) -> None:
        super().__init__()
        self._parts = parts
        self._read_range = read_range
        self._starts = [0]
        for _, size in parts:
            self._starts.append(self._starts[-1] + size)
        self.size = self._starts[-1]
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._pos, 2: self.size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def tell(self) -> int:
        return self._pos

    def read(self, n: int | None = -1) -> bytes:
        end = self.size if n is None or n < 0 else min(self.size, self._pos + n)
        out = []
        pos = self._pos
        i = 0
        while pos < end:
            while self._starts[i + 1] <= pos:
                i += 1
            name, _ = self._parts[i]
            lo = pos - self._starts[i]
            hi = min(end, self._starts[i + 1]) - self._starts[i]
            chunk = self._read_range(name, lo, hi)
            out.append(chunk)
            pos += len(chunk)
            if len(chunk) < hi - lo:
                break  # the part is shorter than listed (replaced meanwhile): the caller sees a short read
        self._pos = pos
        return b"".join(out)

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)


class PartsSource:
    """A log file made of parts: a remote object (one part, which may grow by being
    replaced), or a writer's segments (local or remote). :meth:`update` sets the parts
    as the latest listing found them."""

    __slots__ = ("identity", "parts", "appended", "_generation", "_read_range", "__weakref__")

    def __init__(self, identity: str, read_range: Callable[[str, int, int], bytes]) -> None:
        self.identity = identity
        self.parts: list[tuple[str, int]] = []
        #: Grows only by new parts (a writer's segments): its start is never rewritten.
        self.appended = False
        self._generation = 0  # counts the times the segments changed other than at their end
        self._read_range = read_range

    def update(self, parts: list[tuple[str, int]], *, segments: bool = False) -> None:
        """The parts as listed; ``segments``: they are a writer's segments, in order. When
        segments change other than by new ones at the end (one listed late between two
        already read, one deleted), the log is another file to its readers, read again
        from its start: offsets into the old parts no longer point at the same bytes."""
        old = self.parts
        self.appended = segments and (not old or parts[: len(old)] == old)
        if segments and old and not self.appended:
            self._generation += 1
        self.parts = parts

    def stat(self) -> tuple[object, int]:
        """``(identity, size)``, as the latest listing found them; no request."""
        return (self.identity, self._generation), sum(size for _, size in self.parts)

    def open(self) -> tuple[BinaryIO, object, int]:
        f = RangeFile(list(self.parts), self._read_range)
        return f, (self.identity, self._generation), f.size  # type: ignore[return-value]
