from __future__ import annotations

import os
import sys

import pytest
from api_contract import ContractClient
from flask import Flask

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="session", autouse=True)
def api_contract():
    """Every Flask test client checks each JSON API answer against the generated OpenAPI document."""
    before = Flask.test_client_class
    Flask.test_client_class = ContractClient
    yield
    Flask.test_client_class = before


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


def crc32c_reference(data: bytes) -> int:
    """Bitwise CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), independent of the native one."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked_reference(crc: int) -> int:
    """The framing's masking of a CRC (as TFRecord masks it)."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF
