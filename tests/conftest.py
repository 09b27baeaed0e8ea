"""Fixtures every test folder shares: an app and its client, a free port, a running server,
a browser page, logdirs; and the tiers (``e2e`` marks the slow, end-to-end tests).

Helpers that fixtures and test bodies call directly live in ``kit/`` (see its package
docstring); a folder's own conftest adds what only its tests use.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from api_contract import ContractClient
from flask import Flask
from kit.apps import build_app
from kit.logdirs import write_kinds
from kit.pages import CHROMIUM, CHROMIUM_ARGS, VIEWPORT
from kit.paths import ARTIFACTS, ROOT
from kit.ports import free_port as _free_port
from kit.requirements import require
from kit.servers import serve_app


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


@pytest.fixture(scope="module")
def browser():
    """Headless Debian chromium driven by Playwright, one per module."""
    try:
        from playwright import sync_api
    except ImportError:
        sync_api = None  # type: ignore[assignment]
    # Under CI these fail rather than skip: the test command installs both.
    require(sync_api is not None, "playwright", 'pip install -e ".[e2e]"')
    require(os.path.exists(CHROMIUM), CHROMIUM, "apt-get install chromium")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, request):
    """A fresh page in a fresh context (no shared localStorage).

    ``page.errors`` collects console errors and uncaught exceptions; ``page.in_flight``
    counts its unanswered requests (``kit.pages.settle`` waits for none). A failing test
    leaves a screenshot in ``tests/artifacts/<test name>.png``.
    """
    from playwright import sync_api

    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.errors = []
    page.in_flight = 0

    def started(_request: Any) -> None:
        page.in_flight += 1

    def ended(_request: Any) -> None:
        page.in_flight -= 1

    page.on("request", started)
    page.on("requestfinished", ended)
    page.on("requestfailed", ended)
    page.on("console", lambda m: page.errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
    failed_before = request.session.testsfailed
    yield page
    if request.session.testsfailed > failed_before:  # this test's call phase failed
        os.makedirs(ARTIFACTS, exist_ok=True)
        try:
            page.screenshot(path=os.path.join(ARTIFACTS, f"{request.node.name}.png"), full_page=True)
        except sync_api.Error:
            pass  # a crashed page has no screenshot; the failure itself is reported
    context.close()
