"""Keeping the index fresh: the counters of the polls, and the thread that polls.

The data provider answers queries and starts nothing; a poll is a call. What runs in the
background, and what ``/api/health`` and the command line report about it, lives here:
:class:`PollCounters` counts (one per provider, updated by its polls), :class:`Reloader`
calls the provider's poll every ``reload_interval`` seconds until stopped.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Protocol

__all__ = ["PollCounters", "Reloader"]

log = logging.getLogger("visualdl.server")


class PollCounters:
    """How far indexing got: files read of those found, bytes read, polls done and the last
    one's duration and time; ``loaded`` is set after the first full poll."""

    def __init__(self) -> None:
        self.loaded = threading.Event()
        self.polls = 0
        self.last_poll_seconds = 0.0
        self.last_poll_time = 0.0
        self.files_total = 0
        self.files_read = 0
        self.bytes_read = 0

    def progress(self, done: int, total: int, nbytes: int) -> None:
        """A reader's report while it reads: ``done`` of ``total`` files, ``nbytes`` more read."""
        self.files_read, self.files_total = done, total
        self.bytes_read += nbytes

    def polled(self, seconds: float) -> None:
        """A full poll of every logdir took ``seconds``."""
        self.polls += 1
        self.last_poll_seconds = seconds
        self.last_poll_time = time.time()
        self.loaded.set()


class Pollable(Protocol):
    def poll(self) -> None: ...

    def list_kinds(self) -> object: ...

    def runs_table(self) -> object: ...


class Reloader:
    """The background thread of a provider: the first poll at once, then one every
    ``interval`` seconds; after each, the lists of runs and tags and the runs table are
    built there, not in a request. One failed poll is logged and the next one comes as usual."""

    def __init__(self, provider: Pollable, interval: float) -> None:
        self.provider = provider
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="visualdl-reload", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.provider.poll()
                self.provider.list_kinds()
                self.provider.runs_table()
            except Exception:  # boundary: the reload thread must go on
                log.exception("reloading the logdirs failed")
            self._stop.wait(self.interval)
