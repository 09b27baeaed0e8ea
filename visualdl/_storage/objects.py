"""A logdir in an object store: any filesystem fsspec knows by a URL.

A logdir may be ``s3://bucket/prefix`` (and S3's kin through ``AWS_ENDPOINT_URL``:
MinIO, Ceph, Baidu BOS), ``gs://``, ``az://``, ``hdfs://`` or ``memory://`` (this
process's memory: the store of tests). The package of each protocol is an optional
extra; a missing one is named with the line that installs it.

Objects cannot be appended to: a writer uploads its log as segments
(:mod:`visualdl._storage.segments`) from its background thread, and readers put them
together again. A killed writer loses at most what it logged since its last upload.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any, BinaryIO

from visualdl._storage.base import Appender, Listing, Store
from visualdl._storage.lister import Lister
from visualdl._storage.parts import PartsSource
from visualdl._storage.segments import group_segments, segment_name, shared_log_name
from visualdl._storage.urls import protocol as url_protocol

__all__ = [
    "DEFAULT_UPLOAD_BYTES",
    "DEFAULT_UPLOAD_SECS",
    "RETRIES",
    "ObjectStore",
    "SegmentAppender",
    "filesystem",
]

log = logging.getLogger("visualdl.writer")

#: Seconds between two uploads of a writer (at most what a killed writer loses).
DEFAULT_UPLOAD_SECS = 60.0
#: Bytes waiting that start an upload before ``upload_secs`` are over.
DEFAULT_UPLOAD_BYTES = 16 << 20
#: Attempts of one upload, and the wait before the first retry (doubled each time).
RETRIES = 4
_BACKOFF_SECS = 0.5

#: The package that gives fsspec each protocol, and the extra of ours that installs it.
_PACKAGES = {
    "s3": ("s3fs", "s3"),
    "s3a": ("s3fs", "s3"),
    "gs": ("gcsfs", "gcs"),
    "gcs": ("gcsfs", "gcs"),
    "az": ("adlfs", "azure"),
    "abfs": ("adlfs", "azure"),
    "abfss": ("adlfs", "azure"),
    "hdfs": ("pyarrow", "hdfs"),
}


def filesystem(url: str) -> tuple[Any, str]:
    """The fsspec filesystem of ``url`` and the path in it (no protocol, no trailing
    ``/``). Credentials come from each store's own chain (for S3: the environment,
    ``~/.aws``, instance roles; ``AWS_ENDPOINT_URL`` for S3-compatible stores).

    A new instance in each process: an instance made before ``fork()`` holds the
    parent's connections and event loop.
    """
    protocol = url_protocol(url)
    try:
        import fsspec
    except ImportError as e:  # pragma: no cover - fsspec is a dependency
        raise ImportError(f"reading {url} needs fsspec: pip install fsspec") from e
    try:
        cls = fsspec.get_filesystem_class(protocol)
    except (ImportError, ValueError) as e:
        package, extra = _PACKAGES.get(protocol, ("", ""))
        if package:
            raise ImportError(
                f"{url} needs the {package} package for {protocol}:// URLs: "
                f"pip install 'visualdl[{extra}]' (or pip install {package})"
            ) from e
        raise ValueError(f"{url}: unknown protocol {protocol!r} ({e})") from e
    fs = _instance(cls, protocol)
    root = fs._strip_protocol(url).rstrip("/")
    return fs, root


_instances: dict[tuple[str, int], Any] = {}
_instances_lock = threading.Lock()


def _instance(cls: Any, protocol: str) -> Any:
    key = (protocol, os.getpid())
    with _instances_lock:
        fs = _instances.get(key)
        if fs is None:
            fs = _instances[key] = cls(skip_instance_cache=True)
        return fs


class ObjectStore(Store):
    """A prefix in an object store. Its filesystem is looked up per call (one instance per
    process), so a store made before ``fork()`` works in the child."""

    appends = False

    def __init__(self, url: str) -> None:
        super().__init__(url, url)
        _, self.root = filesystem(url)  # raises now when the protocol's package is missing
        self._wanted: Callable[[str], bool] = lambda name: True
        self._lister: Lister | None = None
        self._sources: dict[str, PartsSource] = {}

    @property
    def fs(self) -> Any:
        return filesystem(self.logdir)[0]

    @property
    def lister(self) -> Lister:
        """The listing kept up to date between calls of :meth:`list` (made at the first)."""
        if self._lister is None:
            self._lister = Lister(self.fs, self.root, wanted=lambda name: self._wanted(name))
        return self._lister

    @property
    def requests(self) -> dict[str, int]:  # type: ignore[override]
        return self.lister.requests

    def exists(self) -> bool:
        fs = self.fs
        try:
            return bool(fs.exists(self.root)) or bool(fs.ls(self.root, detail=False))
        except FileNotFoundError:
            return False

    def listed_exists(self) -> bool:
        return self._lister is not None and self._lister.exists()

    def list(self, wanted: Callable[[str], bool], *, sizes: bool = True) -> Listing:
        self._wanted = wanted
        lister = self.lister
        objects, listed = lister.list()
        listing = Listing(
            problems={self.location if path == self.root else lister.url(path): m for path, m in listed.items()}
        )
        sources: dict[str, PartsSource] = {}
        root = self.root
        for directory in sorted(objects):
            names = objects[directory]
            if directory != root and not directory.startswith(root + "/"):
                continue
            run = self.relative(directory)
            if run != "." and any(part.startswith(".") for part in run.split("/")):
                continue  # hidden, as on a disk (the logdir itself is not: its run is ".")
            plain, segments = group_segments(n for n in names if wanted(n))
            groups = [(name, [name]) for name in plain] + list(segments.items())
            logs: dict[str, int] = {}
            for name, parts in groups:
                path = lister.url(f"{directory}/{name}")
                source = sources[path] = self._sources.get(path) or PartsSource(path, lister.read_range)
                source.update([(f"{directory}/{part}", names[part]) for part in parts], segments=name in segments)
                logs[path] = source.stat()[1]
            if logs:
                listing.directories[directory] = dict(sorted(logs.items()))
        self._sources = sources
        return listing

    def source(self, path: str) -> PartsSource | None:
        return self._sources.get(path)

    def open(self, path: str) -> BinaryIO:
        source = self._sources.get(path)
        if source is None:
            raise OSError(f"{path}: not listed in {self.location}")
        return source.open()[0]

    def stat(self, path: str) -> tuple[object, int]:
        source = self._sources.get(path)
        if source is None:
            raise OSError(f"{path}: not listed in {self.location}")
        return source.stat()

    def relative(self, directory: str) -> str:
        return "." if directory == self.root else directory[len(self.root) + 1 :]

    def appender(
        self, directory: str, log_name: str, *, exclusive: bool, upload_secs: float, upload_bytes: int
    ) -> Appender:
        url = f"{self.logdir.rstrip('/')}/{directory}" if directory else self.logdir
        if not exclusive:  # a name other writers may be given too: segments of its own
            log_name = shared_log_name(log_name)
        return SegmentAppender(url, log_name, upload_secs=upload_secs, upload_bytes=upload_bytes)


class SegmentAppender(Appender):
    """The segments of one log: ``dir_url/vdls.<ms>.<seq>.<log_name>``; its readers' path
    for the log is ``dir_url/log_name``.

    Uploading the whole file again at every flush would cost time and requests that grow
    with the run: the frames wait in memory and go up as one new object, every
    ``upload_secs`` or once ``upload_bytes`` wait, and on ``flush()``, ``close()``, at exit
    and on SIGTERM. A failed upload is retried (:data:`RETRIES` times, with backoff); the
    frames stay for the next attempt.
    """

    buffered = True

    def __init__(self, dir_url: str, log_name: str, *, upload_secs: float, upload_bytes: int) -> None:
        self.fs, self._dir = filesystem(dir_url)
        super().__init__(str(self.fs.unstrip_protocol(f"{self._dir}/{log_name}")))
        self.log_name = log_name
        self.header = b""  # the framed header record every segment starts with
        self._upload_secs = upload_secs
        self._upload_bytes = upload_bytes
        self._frames: list[bytes] = []
        self._waiting = 0
        self._seq = 0
        self._last_ms = 0
        self._since = time.monotonic()
        self.uploads = 0  # segments uploaded
        self.attempts = 0  # PUT requests made

    def begin(self, header: bytes) -> None:
        self.header = header

    @property
    def waiting(self) -> int:
        return self._waiting

    def write(self, data: bytes) -> None:
        if data:
            self._frames.append(data)
            self._waiting += len(data)

    def due(self) -> bool:
        """Frames waiting, and ``upload_bytes`` of them or ``upload_secs`` since the last
        upload (or the writer's start)."""
        if not self._frames:
            return False
        return self._waiting >= self._upload_bytes or time.monotonic() - self._since >= self._upload_secs

    def flush(self) -> None:
        """Upload the waiting frames as the next segment; ``OSError`` when every attempt failed
        (the frames stay, for the next call)."""
        if not self._frames:
            return
        body = self.header + b"".join(self._frames)
        ms = max(self._last_ms + 1, int(time.time() * 1000))  # names in upload order, whatever the clock does
        key = f"{self._dir}/{segment_name(ms, self._seq + 1, self.log_name)}"
        wait = _BACKOFF_SECS
        for attempt in range(RETRIES):
            self.attempts += 1
            try:
                self.fs.pipe_file(key, body)
                break
            except Exception as e:
                if attempt == RETRIES - 1:
                    raise OSError(f"uploading {key} failed {RETRIES} times: {e!r}") from e
                log.warning("uploading %s failed (%r); retrying in %.1f s", key, e, wait)
                time.sleep(wait)
                wait *= 2
        self._seq += 1
        self._last_ms = ms
        self._frames = []
        self._waiting = 0
        self._since = time.monotonic()
        self.uploads += 1

    def abandon(self) -> None:
        self._frames = []
        self._waiting = 0
