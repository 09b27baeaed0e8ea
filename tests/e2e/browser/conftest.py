"""The browser tests' fixtures: headless Debian chromium driven by Playwright, a fresh page per test."""

from __future__ import annotations

import os
from typing import Any

import pytest
from kit.pages import CHROMIUM, CHROMIUM_ARGS, VIEWPORT
from kit.paths import ARTIFACTS
from kit.requirements import require


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
