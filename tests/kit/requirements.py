"""Tools a test needs: skip on a developer's machine without them, fail under CI."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

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


def require_import(name: str, install: str, what: str | None = None) -> Any:
    """The module ``name``, imported by the test that needs it, as ``require`` says where it is missing.

    Inside a test rather than at the top of its module: a framework (torch, paddle, jax,
    Lightning) takes seconds to import, and pytest imports every module it collects, the
    e2e tier's too when it runs ``-m "not e2e"``.
    """
    try:
        return importlib.import_module(name)
    except ImportError:
        require(False, what or name.split(".")[0], install)
        raise  # not reached: require skipped or failed the test


def python() -> str:
    """The interpreter running the tests, for subprocesses that must import the same packages."""
    return sys.executable
