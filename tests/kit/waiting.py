"""Waiting on a condition instead of sleeping a fixed time.

A fixed sleep is both too long on an idle machine and too short on a loaded one; polling a
predicate with a deadline is as fast as the event allows and fails with a message naming it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(
    predicate: Callable[[], T], timeout: float = 15.0, what: str = "the condition", interval: float = 0.02
) -> T:
    """Poll ``predicate`` until it returns a truthy value (returned), or fail after ``timeout`` seconds.

    Exceptions from the predicate propagate: a predicate that may fail while a server is
    starting catches what it expects itself.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}"
        time.sleep(interval)  # between polls of the condition, not a guess at its time
