"""Tools a test needs: skip on a developer's machine without them, fail under CI."""

from __future__ import annotations

import os
import sys

import pytest


def require(available: bool, what: str, install: str) -> None:
    """Skip a test whose tool is missing on a developer's machine; fail it under CI.

    CI (``CI`` set in the environment) runs the README's test command, which installs
    every tool the tests use: a missing one there is a broken install, never a skip.
    """
    if available:
        return
    message = f"{what} is not available; install it with: {install}"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)


def python() -> str:
    """The interpreter running the tests, for subprocesses that must import the same packages."""
    return sys.executable
