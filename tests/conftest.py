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
