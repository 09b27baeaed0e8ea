"""The web UI in headless Chromium: how to launch it and read what a page drew.

The ``browser`` and ``page`` fixtures (the browser tests' conftest) launch Debian's
chromium through Playwright with these arguments; the helpers below read cards and
Plotly traces the same way in every browser test.
"""

from __future__ import annotations

from typing import Any

from kit.waiting import wait_until

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 1000}

TRACES_JS = """(el) => {
    const div = el.querySelector('.js-plotly-plot');
    if (!div || !div.data) return null;
    return div.data.map((t) => ({meta: t.meta || {}, x: Array.from(t.x || []), y: Array.from(t.y || []),
                                 text: t.text === undefined ? null : t.text}));
}"""


def wait_for(predicate: Any, what: str, timeout: float = 15.0) -> Any:
    """Poll ``predicate`` until it returns a truthy value (returned) or fail after ``timeout`` s."""
    return wait_until(predicate, timeout, what, interval=0.1)


def open_tab(page: Any, base: str, tab: str) -> None:
    page.goto(f"{base}#{tab}")
    page.wait_for_function("() => window.Plotly !== undefined")


def card(page: Any, tag: str, run: str | None = None) -> Any:
    selector = f'.card[data-tag="{tag}"]' + (f'[data-run="{run}"]' if run else "")
    locator = page.locator(selector)
    locator.scroll_into_view_if_needed()
    return locator


def traces(locator: Any, kind: str | None = None, run: str | None = None) -> list[Any]:
    data = locator.evaluate(TRACES_JS) or []
    return [
        t
        for t in data
        if (kind is None or t["meta"].get("kind") == kind) and (run is None or t["meta"].get("run") == run)
    ]


def scalar_chart(page: Any, tag: str) -> Any:
    """The card of a scalar chart once it has drawn its data."""
    locator = card(page, tag)
    page.wait_for_selector(f'.card[data-tag="{tag}"][data-state="ready"] .js-plotly-plot')
    wait_for(lambda: traces(locator, "raw"), f"the traces of {tag}")
    return locator


# Resolves after the page has drawn two frames and run its timers: what a response started is done.
POINT_JS = """([tag, step, value]) => {
    const gd = document.querySelector(`.card[data-tag="${tag}"] .js-plotly-plot`);
    const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, box = gd.getBoundingClientRect();
    return [box.left + xa._offset + xa.l2p(step), box.top + ya._offset + ya.l2p(value)];
}"""


def chart_point(page: Any, tag: str, step: float, value: float) -> tuple[float, float]:
    """Where (page pixels) the scalar chart of ``tag`` draws ``(step, value)``: to hover or click it."""
    x, y = page.evaluate(POINT_JS, [tag, step, value])
    return float(x), float(y)


FRAMES_JS = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r))))"


def settle(page: Any, timeout: float = 15.0) -> None:
    """Wait until no request of the page is in flight and it has drawn since the last one.

    Checking ``page.errors`` right after an action misses an error a late answer causes; this
    waits for the answers themselves (the ``page`` fixture counts requests in ``page.in_flight``).
    """

    def idle() -> bool:
        page.evaluate(FRAMES_JS)  # also lets Playwright deliver the request events
        return bool(page.in_flight == 0)

    wait_until(idle, timeout, "the page's requests to finish", interval=0.05)
