"""Fixtures every test folder shares: an app and its client, a free port, a running server,
logdirs (the browser and its pages: ``e2e/browser/conftest.py``); and the inner tier's CPU
budget (``kit/cpu_budget.py``: a test outside the e2e tier above it fails, named).

Helpers that fixtures and test bodies call directly live in ``kit/`` (see its package
docstring); a folder's own conftest adds what only its tests use.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from api_contract import ContractClient
from flask import Flask
from kit.apps import build_app
from kit.logdirs import write_kinds
from kit.paths import ROOT
from kit.ports import free_port as _free_port
from kit.servers import serve_app

#: pytester runs pytest on made-up test modules (``test_kit.py``); ``kit.cpu_budget`` fails a
#: test outside the e2e tier whose call uses more CPU time than the inner tier's budget.
pytest_plugins = ("pytester", "kit.cpu_budget")


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
def make_logdir(tmp_path_factory) -> Callable[..., str]:
    """Factory: ``make_logdir(kinds=["scalars", "images"], run="run")`` -> a new logdir holding them.

    Written by the real LogWriter (``kit.logdirs`` says what each kind's records are).
    """

    def make(kinds: list[str] | tuple[str, ...] = ("scalars",), run: str = "run") -> str:
        return write_kinds(tmp_path_factory.mktemp("logs"), kinds, run)

    return make


@pytest.fixture
def make_app() -> Callable[..., Flask]:
    """Factory: ``make_app(*logdirs, models=(), poll=True, **settings)`` -> the server's app, no thread."""
    return build_app


@pytest.fixture
def app(logdir) -> Flask:
    """The app over this test's (empty, at first) ``logdir``."""
    return build_app(logdir)


@pytest.fixture
def client(app):
    """A test client of ``app``; each JSON answer is checked against the OpenAPI document."""
    return app.test_client()


@pytest.fixture
def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on, for a server started as a subprocess."""
    return _free_port()


@pytest.fixture
def serve() -> Iterator[Callable[[Any], str]]:
    """Factory: ``serve(app)`` -> the base URL of a real WSGI server on 127.0.0.1 serving it.

    Each server runs in a thread of the test process and is stopped when the test ends.
    """
    with contextlib.ExitStack() as stack:
        yield lambda app: stack.enter_context(serve_app(app))


@pytest.fixture
def child_env():
    """Environment for subprocesses that import visualdl from this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


#: Tests that ended with a writer of theirs still open (its thread alive), reported at the end.
_LEFT_OPEN: list[tuple[str, list[str]]] = []


@pytest.fixture(autouse=True)
def _writers_left_open(request: pytest.FixtureRequest) -> Iterator[None]:
    """Notes a test that leaves a writer open: its thread (and, for a ranked writer, the
    process's system-metrics thread) outlives it and can change what a later test counts.
    Reported in the summary; an integration test (a logger or callback that must close what
    it opens) fails on it."""
    before = set(threading.enumerate())
    yield
    strict = "tests/e2e/integrations/" in request.node.nodeid
    deadline = time.monotonic() + (5.0 if strict else 0.0)  # a closed writer's thread ends just after close()
    while True:
        left = [t.name for t in threading.enumerate() if t not in before and t.name.startswith("visualdl-writer")]
        if not left or time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    if left:
        _LEFT_OPEN.append((request.node.nodeid, sorted(left)))
        assert not strict, f"writers left open by the logger or callback: {sorted(left)}"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _LEFT_OPEN:
        terminalreporter.section("writers left open")
        for nodeid, names in _LEFT_OPEN:
            terminalreporter.write_line(f"{nodeid}: {', '.join(names)}")
