"""The one interface to where logs live: a :class:`Store` for readers and writers.

A logdir becomes a store once, at the edge (:func:`visualdl._storage.open_store`), and
the store is passed along; nothing deeper turns a string back into a place, so a URL
can never be taken for a local path (``$PWD/s3:/bucket/x``). Like an HTTP client's
transports, the implementations (:mod:`~visualdl._storage.local`,
:mod:`~visualdl._storage.objects`) are swapped by tests: ``memory://`` is a store in
this process's memory.

Readers list what the logdir holds, then open and stat a log by the path the listing
gave it; a writer's segments read as one file. Writers get an :class:`Appender` per
log file, the same to the sink whether it appends to a local file or uploads segments.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO, ClassVar

from visualdl._storage.parts import PartsSource

__all__ = ["Appender", "Listing", "Store"]


@dataclass(frozen=True, slots=True)
class Listing:
    """What a logdir holds: ``directories`` (path of each directory with log files -> {log
    path: size}; a writer's segments are one log, their sizes summed) and ``problems``
    (path -> what is wrong with it: a directory that could not be listed, an entry that is
    not a regular file)."""

    directories: dict[str, dict[str, int]] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)


class Appender(abc.ABC):
    """One log file being written, as its sink sees it: bytes are appended whole, and
    reach the store when the appender says (a local file: at once; an object store: as
    the next segment, when :meth:`due` or asked by :meth:`flush`)."""

    #: Bytes reach the store only at :meth:`flush` (segments): close's last flush carries
    #: the footer (one upload, not two), and SIGTERM and the interpreter's exit flush.
    buffered: ClassVar[bool] = False

    def __init__(self, path: str) -> None:
        #: The path readers give this log (a local path, or a URL).
        self.path = path

    @abc.abstractmethod
    def begin(self, header: bytes) -> None:
        """Start the log with ``header`` (a framed record): written now, or kept to start
        every segment."""

    @abc.abstractmethod
    def write(self, data: bytes) -> None:
        """Append ``data`` whole (a partial write is undone); ``OSError`` when it failed."""

    @property
    def waiting(self) -> int:
        """Bytes appended that have not reached the store yet (they count toward the
        writer's memory bound)."""
        return 0

    def due(self) -> bool:
        """Whether a flush is due now (enough bytes or time waiting)."""
        return False

    def flush(self, deadline: float | None = None) -> None:  # noqa: B027 - a hook: bytes written at once
        """Make what was appended reach the store; ``OSError`` when it failed (kept to retry),
        at the latest at ``deadline`` (``time.monotonic()``; None: the store's own bound)."""

    def stop_by(self, deadline: float) -> None:  # noqa: B027 - a hook: nothing waits where bytes are written
        """No attempt to reach the store starts or lasts past ``deadline``
        (``time.monotonic()``): the writer is closing, for at most its ``close_timeout``."""

    def sync(self) -> None:  # noqa: B027 - a hook: nothing to do where there is no fsync
        """Make what reached the store durable (``fsync``), where that means anything."""

    def gone(self) -> bool:
        """Whether the log was removed under the writer (the sink then opens a new one)."""
        return False

    def close(self) -> None:  # noqa: B027 - a hook: nothing to release by default
        """Release the file; what waits is not flushed (call :meth:`flush` first)."""

    def abandon(self) -> None:
        """In a forked child: forget the parent's log (the parent writes what waits)."""
        self.close()


class Store(abc.ABC):
    """A logdir: a local directory or a prefix in an object store."""

    #: Whether files are appended to in place; when not (objects), a writer's bytes wait
    #: in memory for their upload and count toward its memory bound.
    appends: ClassVar[bool] = True
    #: Counts of requests made, by kind (``LIST``, ``HEAD``, ``GET``); benchmarks read them.
    requests: dict[str, int]

    def __init__(self, logdir: str, location: str) -> None:
        #: The logdir as it was named (``file://`` taken off).
        self.logdir = logdir
        #: The absolute local path or the URL: what names this logdir in caches and servers.
        self.location = location

    # -- readers ---------------------------------------------------------------------

    @abc.abstractmethod
    def exists(self) -> bool:
        """Whether the logdir exists (a prefix of objects: whether anything is under it)."""

    def listed_exists(self) -> bool:
        """:meth:`exists` where asking is cheap (a local directory); where it costs a request
        (objects), as the latest :meth:`list` found it (False before the first), so a
        server's health answer costs nothing."""
        return self.exists()

    @abc.abstractmethod
    def list(self, wanted: Callable[[str], bool], *, sizes: bool = True) -> Listing:
        """The log files under the logdir whose name is ``wanted``, by directory; hidden
        names (``.x``) are skipped. Each log's parts are kept for :meth:`open` and
        :meth:`stat` until the next listing.

        ``sizes=False``: a size that would cost a request or a system call of its own (a
        local file's ``stat``) is not asked and listed as -1; a reader that stats only the
        files it reads lists a logdir of 10,000 finished runs at the cost of the listing."""

    @abc.abstractmethod
    def source(self, path: str) -> PartsSource | None:
        """Where the bytes of a listed log are when it is not one local file; None when it is."""

    @abc.abstractmethod
    def open(self, path: str) -> BinaryIO:
        """A listed log's bytes (segments read as one file), or those of a file :meth:`resolve`
        gave; ``OSError`` when unreadable."""

    @abc.abstractmethod
    def stat(self, path: str) -> tuple[object, int]:
        """``(identity, size)`` of a listed log (or of a file :meth:`resolve` gave, as the
        latest listing found it where asking costs a request); an identity changes when
        the file is replaced."""

    def modified(self, path: str) -> float | None:
        """When a listed file was last written (seconds since the epoch), where a store tells
        it at no extra request; None where it does not."""
        return None

    @abc.abstractmethod
    def relative(self, directory: str) -> str:
        """A listed directory as a run name: ``.`` for the logdir, ``a/b`` below it."""

    @abc.abstractmethod
    def resolve(self, path: str, name: str) -> str:
        """The path of a file that the file ``path`` names by ``name`` (relative to the
        directory of ``path``, or absolute), for :meth:`open` and :meth:`stat`, which take it
        like a listed log's (a side file the logs point to: a projector's tensors).
        ``ValueError`` when it lies outside the logdir (``../../etc/passwd``, an absolute
        path elsewhere, a symbolic link out of it): a store reads only its own files."""

    # -- writers ---------------------------------------------------------------------

    @abc.abstractmethod
    def appender(
        self,
        directory: str,
        log_name: str,
        *,
        exclusive: bool,
        upload_secs: float,
        upload_bytes: int,
        upload_timeout: float = 60.0,
    ) -> Appender:
        """A log file ``log_name`` in ``directory`` (relative to the logdir; ``""`` is the
        logdir), created with its directories. ``exclusive``: ``FileExistsError`` when it
        exists already; otherwise an existing log is appended to. ``upload_secs`` and
        ``upload_bytes`` pace the uploads of a store that cannot append; a segment not
        uploaded within ``upload_timeout`` seconds of its first attempt is reported."""
