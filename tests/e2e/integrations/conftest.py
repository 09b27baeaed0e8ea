"""Each integration test closes what it opens: a logger or callback that leaves its writer
open (and with it the writer's thread, and for a ranked writer the process's system-metrics
thread) fails here, not in a later test that counts threads or forks. (The SIGTERM thread
is the process's, started once and kept.)"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _writers_closed() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 5.0  # a closed writer's thread ends just after close() returns
    while True:
        left = [
            t
            for t in threading.enumerate()
            if t not in before and t.name.startswith("visualdl-") and t.name != "visualdl-sigterm" and t.is_alive()
        ]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not left, f"threads of writers left open by the test: {sorted(t.name for t in left)}"
