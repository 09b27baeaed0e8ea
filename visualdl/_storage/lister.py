"""What a logdir in an object store holds, kept up to date at little cost (:class:`Lister`).

Segment names start with their upload time (:mod:`visualdl._storage.segments`), so one
S3 ``ListObjectsV2`` with ``StartAfter`` a few minutes back returns only the new
segments of a run: a reload of a bucket lists what changed, not every object.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from visualdl._storage.segments import segment_name, split_segment

__all__ = ["CLOCK_SKEW_SECS", "FULL_LIST_SECS_PER_PAGE", "LIVE_SECS", "Lister"]


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
