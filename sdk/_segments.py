"""A log written to object storage as immutable segments (:mod:`visualdl._storage.store`).

Objects cannot be appended to, and uploading the whole file again at every flush costs
time and requests that grow with the run. A writer to a URL keeps the frames its
background thread encodes in memory and uploads them as one new object, a *segment*
(the writer's header, then the frames: a whole log file), every ``upload_secs`` or
once ``upload_bytes`` are waiting, and on ``flush()``, ``close()`` (the last segment
ends with the footer), at exit and on SIGTERM. Only the writer's background thread
talks to the store; the training thread never waits on the network, except in
``flush()`` and ``close()``, which ask for it.

A failed upload is retried (:data:`RETRIES` times, with backoff) and, failing that,
reported as a :class:`~visualdl.errors.WriterError` on the caller's next call, the
frames kept for the next attempt. A process killed between uploads loses what it
logged since the last one: at most ``upload_secs``.
"""

from __future__ import annotations

import logging
import time

from visualdl._storage import store as _storage

__all__ = ["DEFAULT_UPLOAD_BYTES", "DEFAULT_UPLOAD_SECS", "RETRIES", "Segments"]

log = logging.getLogger("visualdl.writer")

#: Seconds between two uploads of a writer (at most what a killed writer loses).
DEFAULT_UPLOAD_SECS = 60.0
#: Bytes waiting that start an upload before ``upload_secs`` are over.
DEFAULT_UPLOAD_BYTES = 16 << 20
#: Attempts of one upload, and the wait before the first retry (doubled each time).
RETRIES = 4
_BACKOFF_SECS = 0.5


class Segments:
    """The segments of one log: ``dir_url/vdls.<ms>.<seq>.<log_name>``; its readers' path
    for the log is ``dir_url/log_name``."""

    def __init__(self, dir_url: str, log_name: str, *, upload_secs: float, upload_bytes: int) -> None:
        self.fs, self._dir = _storage.filesystem(dir_url)
        self.log_name = log_name
        self.path = str(self.fs.unstrip_protocol(f"{self._dir}/{log_name}"))
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

    @property
    def waiting(self) -> int:
        """Bytes of frames not uploaded yet."""
        return self._waiting

    def append(self, data: bytes) -> None:
        if data:
            self._frames.append(data)
            self._waiting += len(data)

    def due(self) -> bool:
        """Whether an upload is due: frames waiting, and ``upload_bytes`` of them or ``upload_secs``
        since the last upload (or the writer's start)."""
        if not self._frames:
            return False
        return self._waiting >= self._upload_bytes or time.monotonic() - self._since >= self._upload_secs

    def upload(self) -> None:
        """Upload the waiting frames as the next segment; ``OSError`` when every attempt failed
        (the frames stay, for the next call)."""
        if not self._frames:
            return
        body = self.header + b"".join(self._frames)
        ms = max(self._last_ms + 1, int(time.time() * 1000))  # names in upload order, whatever the clock does
        key = f"{self._dir}/{_storage.segment_name(ms, self._seq + 1, self.log_name)}"
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
