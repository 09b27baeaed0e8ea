from __future__ import annotations

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def logdir(tmp_path):
    """An empty directory for one test's logs."""
    path = tmp_path / "logs"
    path.mkdir()
    return str(path)


@pytest.fixture
def child_env():
    """Environment for subprocesses that import visualdl from this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def python() -> str:
    return sys.executable


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
