"""Where logs live: a local directory, or a URL of any filesystem fsspec knows.

A logdir may be ``s3://bucket/prefix`` (and S3's kin through ``AWS_ENDPOINT_URL``:
MinIO, Ceph, Baidu BOS), ``gs://``, ``az://``, ``hdfs://``, ``memory://`` (tests) or
``file://`` (a local path). The package of each protocol is an optional extra; a
missing one is named with the line that installs it.

Objects cannot be appended to, so a writer to a URL uploads **segments**: immutable
objects, each a whole log file of this format (the writer's header, then records;
the last one ends with the footer), named ::

    vdls.<upload time, ms since the epoch, 13 digits>.<sequence number, 6 digits>.<log name>

Readers put the segments of one log name together, in name order, as one log file
(whose path is ``<run>/<log name>``): a header in the middle of a file is already how
a log file goes on after its writer was restarted, so nothing after the reading of
bytes knows about segments. A reader of a local copy (``aws s3 sync``) does the same.
A reader that does not know segments reads each as a file of its own.

Names start with their upload time so that one S3 ``ListObjectsV2`` with
``StartAfter`` a few minutes back returns only the new segments of a run
(:class:`Lister`): a reload of a bucket lists what changed, not every object.

Pure of any server: the reader (:mod:`visualdl._index.reader`) and the writer
(:mod:`visualdl.sdk._sink`) use it.
"""

from __future__ import annotations

import io
import logging
import os
import re
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from typing import Any, BinaryIO

__all__ = [
    "SEGMENT_PREFIX",
    "Lister",
    "absolute",
    "exists",
    "PartsSource",
    "RangeFile",
    "filesystem",
    "is_url",
    "local_path",
    "open_path",
    "register",
    "segment_name",
    "split_segment",
]

log = logging.getLogger("visualdl.storage")

#: Segment objects' names start with this (after it: upload time, sequence number, log name).
SEGMENT_PREFIX = "vdls."
_SEGMENT = re.compile(r"^vdls\.(\d{13})\.(\d{6})\.(.+)$")
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
_URL = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://")


def is_url(logdir: str) -> bool:
    """Whether ``logdir`` names a filesystem other than the local one (``file://`` is local)."""
    m = _URL.match(logdir)
    return m is not None and m.group(1).lower() not in ("file", "local")


def local_path(logdir: str) -> str:
    """``logdir`` as a local path: ``file:///x`` is ``/x``; anything else as it is."""
    m = _URL.match(logdir)
    if m is not None and m.group(1).lower() in ("file", "local"):
        return logdir[m.end() :] or "/"
    return logdir


def absolute(logdir: str) -> str:
    """``logdir`` as an absolute local path, or the URL it is."""
    return logdir if is_url(logdir) else os.path.abspath(local_path(logdir))


def exists(logdir: str) -> bool:
    """Whether the logdir exists: a local directory, or a URL under which the store holds
    something (a prefix of objects has no other existence). ``ImportError`` naming the
    package when the URL's protocol needs one that is missing."""
    if not is_url(logdir):
        return os.path.isdir(local_path(logdir))
    fs, root = filesystem(logdir)
    try:
        return bool(fs.exists(root)) or bool(fs.ls(root, detail=False))
    except FileNotFoundError:
        return False


def filesystem(url: str) -> tuple[Any, str]:
    """The fsspec filesystem of ``url`` and the path in it (no protocol, no trailing
    ``/``). Credentials come from each store's own chain (for S3: the environment,
    ``~/.aws``, instance roles; ``AWS_ENDPOINT_URL`` for S3-compatible stores).

    A new instance in each process: an instance made before ``fork()`` holds the
    parent's connections and event loop.
    """
    m = _URL.match(url)
    if m is None:
        raise ValueError(f"not a URL: {url!r}")
    protocol = m.group(1).lower()
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


def segment_name(upload_ms: int, seq: int, log_name: str) -> str:
    return f"{SEGMENT_PREFIX}{upload_ms:013d}.{seq:06d}.{log_name}"


def split_segment(name: str) -> tuple[str, int, int] | None:
    """``(log name, upload ms, sequence number)`` of a segment's name; None for other names."""
    m = _SEGMENT.match(name)
    if m is None:
        return None
    return m.group(3), int(m.group(1)), int(m.group(2))


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

    __slots__ = ("identity", "parts", "appended", "_read_range", "__weakref__")

    def __init__(self, identity: str, read_range: Callable[[str, int, int], bytes]) -> None:
        self.identity = identity
        self.parts: list[tuple[str, int]] = []
        #: Grows only by new parts (a writer's segments): its start is never rewritten.
        self.appended = False
        self._read_range = read_range

    def update(self, parts: list[tuple[str, int]], *, segments: bool = False) -> None:
        """The parts as listed; ``segments``: they are a writer's segments, in order."""
        self.appended = segments and (not self.parts or parts[:1] == self.parts[:1])
        self.parts = parts

    def stat(self) -> tuple[object, int]:
        """``(identity, size)``, as the latest listing found them; no request."""
        return self.identity, sum(size for _, size in self.parts)

    def open(self) -> tuple[BinaryIO, object, int]:
        f = RangeFile(list(self.parts), self._read_range)
        return f, self.identity, f.size  # type: ignore[return-value]


#: Paths of log files that are not one local file -> where their bytes are (set by readers).
_SOURCES: weakref.WeakValueDictionary[str, PartsSource] = weakref.WeakValueDictionary()


def register(path: str, source: PartsSource) -> None:
    _SOURCES[path] = source


def open_path(path: str) -> BinaryIO:
    """A log file's bytes, by the path a reader gave it; ``OSError`` when it cannot be read."""
    source = _SOURCES.get(path)
    if source is None:
        from visualdl._index.tail import open_regular

        return open_regular(path)[0]
    return source.open()[0]


def _local_range(name: str, start: int, end: int) -> bytes:
    from visualdl._index.tail import open_regular

    f, _ = open_regular(name)
    with f:
        f.seek(start)
        return f.read(end - start)


def local_parts(path: str) -> PartsSource:
    """The source of a log file made of local segment files (``path``: the log's path)."""
    return PartsSource(path, _local_range)


def group_segments(names: Iterable[str]) -> tuple[list[str], dict[str, list[str]]]:
    """Names of one directory split into plain names and segments by log name:
    ``([name, ...], {log name: [segment name, ...] in order})``."""
    plain: list[str] = []
    grouped: dict[str, list[tuple[int, int, str]]] = {}
    for name in names:
        seg = split_segment(name)
        if seg is None:
            plain.append(name)
        else:
            grouped.setdefault(seg[0], []).append((seg[1], seg[2], name))
    return plain, {log_name: [n for *_, n in sorted(items)] for log_name, items in grouped.items()}


#: A full listing of a logdir in S3 (new runs, foreign files) waits this long per page of
#: 1,000 objects its last listing took: every 3 s for up to 1,000 objects, every 50 min
#: for a million. It costs at most one LIST per this many seconds, whatever the size.
FULL_LIST_SECS_PER_PAGE = 3.0
#: A run with a new object in the last this many seconds is listed at every reload.
LIVE_SECS = 600.0
#: Segment names are listed from this long before the newest one seen (clocks of
#: writers' hosts may differ by up to this; a segment further behind is found by the
#: next full listing).
CLOCK_SKEW_SECS = 120.0


def _age(info: dict[str, Any]) -> float:
    """Seconds since a listed object was last modified (infinite when the store does not say)."""
    for key in ("LastModified", "last_modified", "mtime", "updated"):
        value = info.get(key)
        if value is None:
            continue
        if hasattr(value, "timestamp"):
            return time.time() - float(value.timestamp())
        try:
            return time.time() - float(value)
        except (TypeError, ValueError):
            continue
    return float("inf")


class Lister:
    """What a remote logdir holds, kept up to date at little cost.

    A full listing (every object under the logdir) runs at first and then after
    :data:`FULL_LIST_SECS_PER_PAGE` per page it took. Between them, on S3, each *live* run (one in which an
    object appeared or grew in the last :data:`LIVE_SECS`) is listed from its newest
    segment's name on (``StartAfter``), which returns only the segments uploaded
    since; a live run's other objects (a TensorBoard event file that grows by being
    replaced) are asked for their size. Other stores list in full at every reload.

    Only objects ``wanted(name)`` (log files) make a run live or are asked for their size:
    checkpoints and other files beside the logs cost nothing at a reload.

    ``requests`` counts the requests made, by kind (``LIST``, ``HEAD``, ``GET``).
    """

    def __init__(self, fs: Any, root: str, wanted: Callable[[str], bool] = lambda name: True) -> None:
        self.fs = fs
        self.root = root
        self._wanted = wanted
        #: run directory (path in the store) -> object name -> size
        self.objects: dict[str, dict[str, int]] = {}
        self._changed: dict[str, float] = {}  # run directory -> when an object last appeared or grew
        self._full_at = -float("inf")
        self.requests: dict[str, int] = {"LIST": 0, "HEAD": 0, "GET": 0}
        self._s3 = type(fs).__name__ == "S3FileSystem"
        self._newest: dict[str, int] = {}  # run directory -> the newest segment's upload ms
        self._pages = 1  # pages of 1,000 objects the last full listing took
        self.now = time.monotonic

    def url(self, path: str) -> str:
        """A path in the store as a URL."""
        return str(self.fs.unstrip_protocol(path))

    def read_range(self, path: str, start: int, end: int) -> bytes:
        """Bytes ``[start, end)`` of an object: one ranged GET."""
        if end <= start:
            return b""
        self.requests["GET"] += 1
        try:
            return bytes(self.fs.cat_file(path, start=start, end=end))
        except FileNotFoundError as e:
            raise OSError(f"{path}: gone from the store") from e

    def exists(self) -> bool:
        """Whether anything is under the logdir (a prefix of objects has no other existence)."""
        return bool(self.objects)

    def list(self) -> tuple[dict[str, dict[str, int]], dict[str, str]]:
        """``({directory: {name: size}}, {path: problem})``; directories are paths in the store."""
        now = self.now()
        trouble: dict[str, str] = {}
        try:
            if not self._s3 or now - self._full_at >= self._pages * FULL_LIST_SECS_PER_PAGE:
                self._full(now)
            else:
                self._incremental(now)
        except FileNotFoundError:
            self.objects = {}
        except OSError as e:
            trouble[self.root] = f"cannot list the directory: {e}"
        except Exception as e:  # noqa: BLE001 - a store's client raises its own errors
            trouble[self.root] = f"cannot list the directory: {e!r}"
        return self.objects, trouble

    def _note(self, directory: str, name: str, size: int, now: float | None) -> None:
        """An object as listed; ``now``: when, unless it is the first listing (nothing changed)."""
        known = self.objects.setdefault(directory, {})
        if known.get(name) != size:
            known[name] = size
            if now is not None and self._wanted(name):
                self._changed[directory] = now
        seg = split_segment(name)
        if seg is not None and seg[1] > self._newest.get(directory, 0):
            self._newest[directory] = seg[1]

    def _full(self, now: float) -> None:
        self.fs.invalidate_cache(self.root)
        found = self.fs.find(self.root, detail=True, withdirs=False)
        self._pages = max(1, -(-len(found) // 1000))  # a LIST answers 1,000 keys at most
        self.requests["LIST"] += self._pages
        seen: dict[str, dict[str, int]] = {}
        first = self._full_at == -float("inf")
        recent: set[str] = set()  # directories with an object modified lately
        for path, info in found.items():
            if info.get("type") == "directory":
                continue
            directory, _, name = path.rpartition("/")
            seen.setdefault(directory, {})[name] = int(info.get("size") or 0)
            if first and split_segment(name) is None and self._wanted(name) and _age(info) < LIVE_SECS:
                recent.add(directory)  # a segment's age is in its name
        for directory, names in seen.items():
            for name, size in names.items():
                self._note(directory, name, size, None if first else now)
        for directory in [d for d in self.objects if d not in seen]:
            del self.objects[directory]
            self._newest.pop(directory, None)
            self._changed.pop(directory, None)
        for directory in list(self.objects):
            names = self.objects[directory]
            for name in [n for n in names if n not in seen[directory]]:
                del names[name]
                self._changed[directory] = now
        if first:  # runs with objects uploaded lately are live
            upload_ms = time.time() * 1000
            recent.update(d for d, newest in self._newest.items() if upload_ms - newest < LIVE_SECS * 1000)
            for directory in recent:
                self._changed[directory] = now
        self._full_at = now

    def _incremental(self, now: float) -> None:
        from fsspec.asyn import sync

        for directory in [d for d, t in self._changed.items() if now - t < LIVE_SECS and d in self.objects]:
            names = self.objects[directory]
            newest = self._newest.get(directory, 0)
            bucket, _, prefix = directory.partition("/")
            prefix = prefix + "/" if prefix else ""
            start = max(0, newest - int(CLOCK_SKEW_SECS * 1000))
            after = prefix + segment_name(start, 0, "")
            kwargs: dict[str, Any] = {"Bucket": bucket, "Prefix": prefix, "StartAfter": after}
            while True:
                self.requests["LIST"] += 1
                out = sync(self.fs.loop, self.fs._call_s3, "list_objects_v2", **kwargs)
                for item in out.get("Contents", []):
                    rest = item["Key"][len(prefix) :]
                    if "/" not in rest:
                        self._note(directory, rest, int(item["Size"]), now)
                if not out.get("IsTruncated"):
                    break
                kwargs["ContinuationToken"] = out["NextContinuationToken"]
            for name in [n for n in names if split_segment(n) is None and self._wanted(n)]:
                self.requests["HEAD"] += 1
                try:
                    size = int(self.fs.info(f"{directory}/{name}", refresh=True).get("size") or 0)
                except FileNotFoundError:
                    del names[name]
                    self._changed[directory] = now
                    continue
                self._note(directory, name, size, now)
