"""A logdir in an object store: any filesystem fsspec knows by a URL.

A logdir may be ``s3://bucket/prefix`` (and S3's kin through ``AWS_ENDPOINT_URL``:
MinIO, Ceph, Baidu BOS), ``gs://``, ``az://``, ``hdfs://`` or ``memory://`` (this
process's memory: the store of tests). The package of each protocol is an optional
extra; a missing one is named with the line that installs it.

Objects cannot be appended to: a writer uploads its log as segments
(:mod:`visualdl._storage.segments`) from its background thread, and readers put them
together again. A killed writer loses at most what it logged since its last upload.

No call waits on the network for ever. S3 clients get connect and read timeouts and one
retry of their own (:data:`CLIENT_DEFAULTS`; ``FSSPEC_S3='{"config_kwargs": {...}}'`` or
``fsspec.config.conf["s3"]`` replace them), so a reader's poll through a dead endpoint
fails within seconds and catches up on the next one. A PUT is not bounded by a read
timeout (a client writing its body into a connection that went silent waits for TCP to
give up, a quarter of an hour), so each upload attempt has a deadline of its own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import posixpath
import random
import struct
import threading
import time
from collections.abc import Callable
from typing import Any, BinaryIO

from visualdl._formats.framing import FOOTER_SIZE, HEADER_SIZE
from visualdl._storage.base import Appender, Listing, Store
from visualdl._storage.lister import Lister
from visualdl._storage.parts import PartsSource
from visualdl._storage.segments import group_segments, segment_name, shared_log_name
from visualdl._storage.urls import protocol as url_protocol

__all__ = [
    "CLIENT_DEFAULTS",
    "DEFAULT_UPLOAD_BYTES",
    "DEFAULT_UPLOAD_SECS",
    "DEFAULT_UPLOAD_TIMEOUT",
    "ObjectStore",
    "SegmentAppender",
    "filesystem",
]

log = logging.getLogger("visualdl.writer")

#: Seconds between two uploads of a writer (at most what a killed writer loses).
DEFAULT_UPLOAD_SECS = 60.0
#: Bytes waiting that start an upload before ``upload_secs`` are over.
DEFAULT_UPLOAD_BYTES = 16 << 20
#: Seconds from a segment's first upload attempt until its failure is reported (attempts
#: go on, with backoff, until it is uploaded or the writer is closed).
DEFAULT_UPLOAD_TIMEOUT = 60.0
#: The longest one attempt may take (a PUT into a connection that went silent would wait
#: for TCP to give up); at most half the ``upload_timeout``, so that a retry fits in it,
#: but never less than the segment needs at :data:`SLOW_LINK_BYTES_PER_SEC`.
ATTEMPT_SECS = 30.0
#: The slowest upload rate an attempt is given time for (a big segment on a slow link).
SLOW_LINK_BYTES_PER_SEC = 256 << 10
#: The wait before the first retry of a segment, doubled after each failure up to the cap
#: (a quarter of the ``upload_timeout`` at most), with jitter.
_BACKOFF_SECS = 0.5
_BACKOFF_CAP_SECS = 10.0

#: Client settings per protocol, unless fsspec's configuration (``FSSPEC_<PROTOCOL>``)
#: sets them: S3's connect and read timeouts (s3fs's own values, now explicit) and one
#: retry of botocore's (the writer retries on its own; a reader polls again), in place of
#: botocore's four retries inside each of s3fs's five, which made a dead endpoint cost
#: minutes per call.
CLIENT_DEFAULTS: dict[str, dict[str, Any]] = {
    "s3": {
        "config_kwargs": {
            "connect_timeout": 5,
            "read_timeout": 15,
            "retries": {"mode": "standard", "total_max_attempts": 2},
        }
    },
}
#: Attempts of s3fs's own retry loop around each call (its default is 5).
_S3FS_RETRIES = 1

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
    fs = _instance(cls, protocol, fsspec.config.conf)
    root = fs._strip_protocol(url).rstrip("/")
    return fs, root


_instances: dict[tuple[str, int], Any] = {}
_instances_lock = threading.Lock()


def _instance(cls: Any, protocol: str, conf: dict[str, dict[str, Any]]) -> Any:
    key = (protocol, os.getpid())
    with _instances_lock:
        fs = _instances.get(key)
        if fs is None:
            family = "s3" if protocol in ("s3", "s3a") else protocol
            configured = conf.get(protocol, {})
            defaults = {k: v for k, v in CLIENT_DEFAULTS.get(family, {}).items() if k not in configured}
            fs = _instances[key] = cls(skip_instance_cache=True, **defaults)
            if family == "s3" and "retries" not in configured:
                fs.retries = _S3FS_RETRIES
        return fs


def _after_fork_in_child() -> None:
    """A forked child makes instances of its own (keyed by pid), under a lock of its own: the
    parent's may have been held by another thread at the fork."""
    global _instances_lock
    _instances_lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


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
        return self._source(path).open()[0]

    def stat(self, path: str) -> tuple[object, int]:
        return self._source(path).stat()

    def _source(self, path: str) -> PartsSource:
        """A listed log's source, or one for another object of the latest listing (a file
        that :meth:`resolve` gave: its size as listed, no request)."""
        source = self._sources.get(path)
        if source is not None:
            return source
        key = self.fs._strip_protocol(path) if "://" in path else path
        directory, _, name = key.rpartition("/")
        size = self.lister.objects.get(directory, {}).get(name) if self._inside(key) else None
        if size is None:
            raise FileNotFoundError(f"{path}: not listed in {self.location}")
        source = PartsSource(path, self.lister.read_range)
        source.update([(key, size)])
        return source

    def _inside(self, key: str) -> bool:
        return key.startswith(self.root.rstrip("/") + "/")

    def resolve(self, path: str, name: str) -> str:
        where = f"{name!r} (named in {path}) lies outside the logdir {self.location}"
        if "://" in name:
            if url_protocol(name) != url_protocol(self.logdir):
                raise ValueError(f"{where}: only objects under the logdir are read")
            key = self.fs._strip_protocol(name)
        elif name.startswith("/") or "\\" in name:
            raise ValueError(f"{where} (a local path): only objects under the logdir are read")
        else:
            base = self.fs._strip_protocol(path) if "://" in path else path
            key = posixpath.join(posixpath.dirname(base), name)
        key = posixpath.normpath(key)
        if not self._inside(key):
            raise ValueError(f"{where}: only objects under the logdir are read")
        return self.lister.url(key)

    def relative(self, directory: str) -> str:
        return "." if directory == self.root else directory[len(self.root) + 1 :]

    def appender(
        self,
        directory: str,
        log_name: str,
        *,
        exclusive: bool,
        upload_secs: float,
        upload_bytes: int,
        upload_timeout: float = DEFAULT_UPLOAD_TIMEOUT,
    ) -> Appender:
        url = f"{self.logdir.rstrip('/')}/{directory}" if directory else self.logdir
        if not exclusive:  # a name other writers may be given too: segments of its own
            log_name = shared_log_name(log_name)
        return SegmentAppender(
            url, log_name, upload_secs=upload_secs, upload_bytes=upload_bytes, upload_timeout=upload_timeout
        )


class SegmentAppender(Appender):
    """The segments of one log: ``dir_url/vdls.<ms>.<seq>.<log_name>``; its readers' path
    for the log is ``dir_url/log_name``.

    Uploading the whole file again at every flush would cost time and requests that grow
    with the run: the frames wait in memory and go up as one new object, every
    ``upload_secs`` or once ``upload_bytes`` wait, and on ``flush()``, ``close()``, at exit
    and on SIGTERM.

    A segment's key and body are fixed when its first upload attempt starts; frames
    written later go into the next segment. A failed attempt is retried with backoff
    (each attempt on a connection of its own: the client drops one that timed out), the
    same body under the same key, so an upload whose answer was lost is not stored
    twice. Each attempt is cut off after ``min(ATTEMPT_SECS, upload_timeout / 2)`` (or
    the segment's size at :data:`SLOW_LINK_BYTES_PER_SEC`, when longer); a
    segment still not uploaded ``upload_timeout`` seconds after its first attempt makes
    :meth:`flush` raise ``OSError`` (the sink reports it as a ``WriterError``), and the
    attempts go on whenever :meth:`due` says so. :attr:`cutoff` (``time.monotonic()``,
    set by ``close()``) ends them all.
    """

    buffered = True

    def __init__(
        self,
        dir_url: str,
        log_name: str,
        *,
        upload_secs: float,
        upload_bytes: int,
        upload_timeout: float = DEFAULT_UPLOAD_TIMEOUT,
    ) -> None:
        self.fs, self._dir = filesystem(dir_url)
        super().__init__(str(self.fs.unstrip_protocol(f"{self._dir}/{log_name}")))
        self.log_name = log_name
        self.header = b""  # the framed header record every segment starts with
        self._upload_secs = upload_secs
        self._upload_bytes = upload_bytes
        self.upload_timeout = upload_timeout
        self._attempt_secs = min(ATTEMPT_SECS, upload_timeout / 2)
        self._backoff_cap = min(_BACKOFF_CAP_SECS, upload_timeout / 4)
        #: No attempt starts or lasts past this time (``time.monotonic()``); ``close()`` sets it.
        self.cutoff = float("inf")
        self._frames: list[bytes] = []
        self._framed = 0  # bytes in _frames
        self._sealed: bytes | None = None  # the body of the segment being uploaded
        self._key = ""
        self._first_attempt = 0.0  # when the sealed segment's first attempt started
        self._next_attempt = 0.0  # no retry before (backoff)
        self._backoff = _BACKOFF_SECS
        self._failures = 0  # failed attempts of the sealed segment
        self._last_error: BaseException | None = None
        self._seq = 0
        self._last_ms = 0
        self._since = time.monotonic()
        self.uploads = 0  # segments uploaded
        self.attempts = 0  # PUT requests made

    def begin(self, header: bytes) -> None:
        self.header = header

    @property
    def waiting(self) -> int:
        return self._framed + (len(self._sealed) - len(self.header) if self._sealed is not None else 0)

    def write(self, data: bytes) -> None:
        if data:
            self._frames.append(data)
            self._framed += len(data)

    def due(self) -> bool:
        """A segment's retry is due (its backoff is over), or frames wait and there are
        ``upload_bytes`` of them or ``upload_secs`` passed since the last upload (or the
        writer's start)."""
        now = time.monotonic()
        if self._sealed is not None:
            return now >= self._next_attempt
        if not self._frames:
            return False
        return self._framed >= self._upload_bytes or now - self._since >= self._upload_secs

    def flush(self, deadline: float | None = None) -> None:
        """Upload what waits: the segment being retried, then the frames written since as the
        next one. Retries with backoff until ``deadline`` (``time.monotonic()``; by default the
        current segment's first attempt plus ``upload_timeout``, or, once that is past, one
        more attempt), then raises ``OSError`` saying what was not uploaded; it stays for the
        next call."""
        tried = False
        while self._sealed is not None or self._frames:
            if self._sealed is None:
                self._seal()
            now = time.monotonic()
            limit = min(self._first_attempt + self.upload_timeout if deadline is None else deadline, self.cutoff)
            if tried or now >= self.cutoff:
                if now >= limit:
                    raise OSError(self._failure_message(now))
                if now < self._next_attempt:
                    time.sleep(min(self._next_attempt, limit) - now)
                    continue
            tried = True
            assert self._sealed is not None
            allowed = max(self._attempt_secs, len(self._sealed) / SLOW_LINK_BYTES_PER_SEC)
            self._attempt(now + allowed)

    def _seal(self) -> None:
        """Fix the next segment: its body (the header and the frames waiting) and its key."""
        ms = max(self._last_ms + 1, int(time.time() * 1000))  # names in upload order, whatever the clock does
        self._seq += 1
        self._last_ms = ms
        self._key = f"{self._dir}/{segment_name(ms, self._seq, self.log_name)}"
        self._sealed = self.header + b"".join(self._frames)
        self._frames = []
        self._framed = 0
        self._first_attempt = self._next_attempt = time.monotonic()
        self._backoff = _BACKOFF_SECS
        self._failures = 0

    def _attempt(self, until: float) -> None:
        """One PUT of the sealed segment, cut off at ``until`` (``time.monotonic()``), or at
        :attr:`cutoff` when :meth:`stop_by` brings it nearer meanwhile (``close()``)."""
        assert self._sealed is not None
        self.attempts += 1
        try:
            _put(self.fs, self._key, self._sealed, lambda: min(until, self.cutoff))
        except Exception as e:  # noqa: BLE001 - any failure of the client is retried
            self._failures += 1
            self._last_error = e
            if self._failures == 1:
                log.warning("uploading %s failed (%r); retrying with backoff", self._key, e)
            else:
                log.debug("uploading %s failed again (%r)", self._key, e)
            self._next_attempt = time.monotonic() + self._backoff * (0.5 + random.random() / 2)
            self._backoff = min(self._backoff * 2, self._backoff_cap)
            return
        if self._failures:
            log.warning("uploaded %s after %d failed attempts", self._key, self._failures)
        self._sealed = None
        self._failures = 0
        self._since = time.monotonic()
        self.uploads += 1

    def _failure_message(self, now: float) -> str:
        frames = self._frames if self._sealed is None else [self._sealed[len(self.header) :], *self._frames]
        records = sum(count_frames(f) for f in frames)
        if now >= self.cutoff:
            when = "before the writer was closed"
        else:
            when = f"within upload_timeout={self.upload_timeout:g} s"
        return (
            f"uploading {self._key} did not succeed {when} ({self._failures} failed attempts, "
            f"the last: {self._last_error!r}); {self.waiting} bytes ({records} records) are not uploaded"
        )

    def stop_by(self, deadline: float) -> None:
        self.cutoff = min(self.cutoff, deadline)

    def abandon(self) -> None:
        self._frames = []
        self._framed = 0
        self._sealed = None


def _put(fs: Any, key: str, body: bytes, deadline: Callable[[], float]) -> None:
    """``fs.pipe_file(key, body)``, given up at ``deadline()`` (``time.monotonic()``; asked
    again as the call runs, so a nearer one set meanwhile counts): where the filesystem runs
    on an event loop (S3, GCS, Azure) the request is cancelled and its connection dropped;
    elsewhere the call is left to a thread of its own (a late success stores the same bytes
    under the same key, which is harmless). ``TimeoutError`` when given up."""
    if getattr(fs, "async_impl", False):
        future: concurrent.futures.Future[Any] = asyncio.run_coroutine_threadsafe(fs._pipe_file(key, body), fs.loop)
    else:
        future = concurrent.futures.Future()
        future.set_running_or_notify_cancel()  # running: cancel() below only stops the wait

        def call() -> None:
            try:
                future.set_result(fs.pipe_file(key, body))
            except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
                future.set_exception(e)

        threading.Thread(target=call, name="visualdl-upload", daemon=True).start()
    while True:
        remaining = deadline() - time.monotonic()
        if remaining <= 0:
            future.cancel()
            raise TimeoutError(f"uploading {key} took too long; the attempt was given up")
        try:
            future.result(timeout=min(remaining, 0.25))
            return
        except concurrent.futures.TimeoutError:
            if future.done():  # the upload's own timeout, not this wait's
                raise


def count_frames(data: bytes) -> int:
    """How many framed records ``data`` holds (whole frames, as the sink appends them); the
    lengths are walked, the checksums not read."""
    n = offset = 0
    while offset + HEADER_SIZE <= len(data):
        (length,) = struct.unpack_from("<Q", data, offset)
        offset += HEADER_SIZE + length + FOOTER_SIZE
        n += 1
    return n
