"""What a logdir in an object store holds, kept up to date at little cost (:class:`Lister`).

Segment names start with their upload time (:mod:`visualdl._storage.segments`), so one
S3 ``ListObjectsV2`` with ``StartAfter`` a few minutes back returns only the new
segments of a run: a reload of a bucket lists what changed, not every object.

The time in a name is the writer's clock; the store stamps each object with its own
(``LastModified``). Their difference, the least seen per log, is that writer's *lag*:
its clock's offset, plus nothing once one upload went through at once. A run is listed
from the oldest newest-segment of its live logs, so a writer whose clock is behind the
others' (or whose segment waited through an outage under the name it was given first) is
listed from its own newest segment, not missed until the next full listing; the window
widens by the largest lag seen in the run, for its writers not yet seen; and a lag
beyond :data:`CLOCK_SKEW_SECS` is reported on the log as a problem, with the fix.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from visualdl._storage.segments import segment_name, split_segment

__all__ = ["CLOCK_SKEW_SECS", "FULL_LIST_SECS_PER_PAGE", "LIVE_SECS", "MAX_WINDOW_SECS", "Lister"]


#: A full listing of a logdir in S3 (new runs, foreign files) waits this long per page of
#: 1,000 objects its last listing took: every 3 s for up to 1,000 objects, every 50 min
#: for a million. It costs at most one LIST per this many seconds, whatever the size.
FULL_LIST_SECS_PER_PAGE = 3.0
#: A run with a new object in the last this many seconds is listed at every reload.
LIVE_SECS = 600.0
#: Segment names are listed from this long before the newest one seen of each live log
#: (writers' clocks may differ by up to this without a word), plus the largest lag seen
#: in the run; a writer's clock further off than this is reported.
CLOCK_SKEW_SECS = 120.0
#: The window never widens past this: a run with a writer a day off is found by the full
#: listings (and the writer is reported).
MAX_WINDOW_SECS = 3600.0


def _modified(info: dict[str, Any]) -> float | None:
    """When the store says an object was last modified (seconds since the epoch), or None."""
    for key in ("LastModified", "last_modified", "mtime", "updated"):
        value = info.get(key)
        if value is None:
            continue
        if hasattr(value, "timestamp"):
            return float(value.timestamp())
        try:
            return float(value)
        except (TypeError, ValueError):
            continue
    return None


def _age(info: dict[str, Any]) -> float:
    """Seconds since a listed object was last modified (infinite when the store does not say)."""
    modified = _modified(info)
    return float("inf") if modified is None else time.time() - modified


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
        self._newest: dict[str, dict[str, int]] = {}  # run directory -> log name -> newest segment's ms
        self._grew: dict[tuple[str, str], float] = {}  # (run directory, log name) -> when its newest came
        self._lag: dict[tuple[str, str], float] = {}  # (run directory, log name) -> least lag seen, seconds
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
        for (directory, log_name), lag in self._lag.items():
            if abs(lag) > CLOCK_SKEW_SECS and directory in self.objects:
                trouble[f"{directory}/{log_name}"] = (
                    f"the clock of this log's writer is {abs(lag):.0f} s {'behind' if lag > 0 else 'ahead of'} "
                    f"the store's (its segments' names against their upload times); its new segments are "
                    f"still listed, but its times are off: set the writer host's clock (NTP)"
                )
        return self.objects, trouble

    def _note(self, directory: str, name: str, size: int, now: float | None, modified: float | None = None) -> None:
        """An object as listed (``modified``: the store's time of it, when the listing says);
        ``now``: when, unless it is the first listing (nothing changed)."""
        known = self.objects.setdefault(directory, {})
        if known.get(name) != size:
            known[name] = size
            if now is not None and self._wanted(name):
                self._changed[directory] = now
        seg = split_segment(name)
        if seg is None:
            return
        log_name, ms, _ = seg
        key = (directory, log_name)
        logs = self._newest.setdefault(directory, {})
        if ms > logs.get(log_name, 0):
            logs[log_name] = ms
            if now is not None:
                self._grew[key] = now
        if modified is not None and now is not None:
            lag = modified - ms / 1000
            if key not in self._lag or lag < self._lag[key]:
                self._lag[key] = lag

    def _start_after(self, directory: str, now: float) -> int:
        """The upload ms to list a run's segments from: its live logs' oldest newest segment,
        less the window (:data:`CLOCK_SKEW_SECS` widened by the largest lag seen in the run)."""
        logs = self._newest.get(directory, {})
        if not logs:
            return 0
        live = [log for log in logs if now - self._grew.get((directory, log), -float("inf")) < LIVE_SECS]
        newest = min(logs[log] for log in live) if live else max(logs.values())
        lags = [self._lag[(directory, log)] for log in logs if (directory, log) in self._lag]
        window = min(MAX_WINDOW_SECS, CLOCK_SKEW_SECS + max([0.0, *lags]))
        return max(0, newest - int(window * 1000))

    def _full(self, now: float) -> None:
        self.fs.invalidate_cache(self.root)
        found = self.fs.find(self.root, detail=True, withdirs=False)
        self._pages = max(1, -(-len(found) // 1000))  # a LIST answers 1,000 keys at most
        self.requests["LIST"] += self._pages
        seen: dict[str, dict[str, int]] = {}
        modified: dict[str, float | None] = {}
        first = self._full_at == -float("inf")
        recent: set[str] = set()  # directories with an object modified lately
        for path, info in found.items():
            if info.get("type") == "directory":
                continue
            directory, _, name = path.rpartition("/")
            seen.setdefault(directory, {})[name] = int(info.get("size") or 0)
            modified[path] = _modified(info)
            if first and split_segment(name) is None and self._wanted(name) and _age(info) < LIVE_SECS:
                recent.add(directory)  # a segment's age is in its name
        for directory, names in seen.items():
            for name, size in names.items():
                # A lag is measured on segments seen arriving: ones found at the first listing
                # may have been copied in long after their upload (``aws s3 sync``).
                self._note(
                    directory, name, size, None if first else now, None if first else modified[f"{directory}/{name}"]
                )
        for directory in [d for d in self.objects if d not in seen]:
            del self.objects[directory]
            self._newest.pop(directory, None)
            self._changed.pop(directory, None)
        for key in [k for k in self._grew if k[0] not in seen]:
            del self._grew[key]
        for key in [k for k in self._lag if k[0] not in seen]:
            del self._lag[key]
        for directory in list(self.objects):
            names = self.objects[directory]
            for name in [n for n in names if n not in seen[directory]]:
                del names[name]
                self._changed[directory] = now
        if first:  # runs with objects uploaded lately are live
            upload_ms = time.time() * 1000
            for directory, logs in self._newest.items():
                for log_name, ms in logs.items():
                    if upload_ms - ms < LIVE_SECS * 1000:
                        recent.add(directory)
                        self._grew[(directory, log_name)] = now
            for directory in recent:
                self._changed[directory] = now
        self._full_at = now

    def _incremental(self, now: float) -> None:
        from fsspec.asyn import sync

        for directory in [d for d, t in self._changed.items() if now - t < LIVE_SECS and d in self.objects]:
            names = self.objects[directory]
            bucket, _, prefix = directory.partition("/")
            prefix = prefix + "/" if prefix else ""
            after = prefix + segment_name(self._start_after(directory, now), 0, "")
            kwargs: dict[str, Any] = {"Bucket": bucket, "Prefix": prefix, "StartAfter": after}
            while True:
                self.requests["LIST"] += 1
                out = sync(self.fs.loop, self.fs._call_s3, "list_objects_v2", **kwargs)
                for item in out.get("Contents", []):
                    rest = item["Key"][len(prefix) :]
                    if "/" not in rest:
                        self._note(directory, rest, int(item["Size"]), now, _modified(item))
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
