"""The README's screenshots: the demo's job in the Scalars, Jobs and Runs views.

Runs ``demo/ps_train.py`` as the README's main command does (``--mode async --elastic``: 2
pservers and 4 trainers, one restarted after a simulated CUDA out-of-memory error, one slowed
by CPU contention, one whose loss goes NaN for a few steps), then in sync mode, then (but
with ``--small``) four quick runs of other settings, so that the Runs tab (shown from two
runs on) compares a few;
serves the logdir with ``python -m visualdl``; and takes a PNG of each view in headless
Chromium through Playwright (Debian's ``/usr/bin/chromium``, as the browser tests; never
``playwright install``). A view that raises in the page, or does not draw within a minute,
fails the script.

    python tests/e2e/browser/screenshots.py                  # docs/images/{scalars,jobs,runs}.png
    python tests/e2e/browser/screenshots.py --out DIR --small  # a smaller demo (the e2e tier's check)

Run it again when the UI changes, look at the pictures, and commit them (CONTRIBUTING.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
from typing import Any

TESTS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, TESTS)

from kit.pages import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (the tests' kit, beside this file)
from kit.paths import ROOT  # noqa: E402
from kit.servers import serve_cli  # noqa: E402
from kit.waiting import wait_until  # noqa: E402

#: The window every picture is taken in, a laptop's, at one pixel per CSS pixel; a picture
#: is as wide, and at most as high.
WIDTH, HEIGHT = 1280, 860
#: The README's job (the run the Scalars and Jobs views show), then the other runs' arguments.
JOB = "ps-async-elastic"
RUNS = (["--mode", "async", "--elastic"], ["--mode", "sync"])
#: The quick runs beside them (``--small``: 2 trainers, 1 pserver, 60 steps).
QUICK = (["--mode", "async", "--lr", "0.05"], ["--mode", "sync", "--lr", "0.05"], ["--mode", "async", "--hidden", "32"],
         ["--mode", "sync", "--batch", "64"])  # fmt: skip

# In the page: whether every chart card of the Scalars tab in view has drawn its data.
CHARTS_JS = """(_runs) => {
    const cards = [...document.querySelectorAll('#panel-scalars .chart-card')].filter((c) => {
        const r = c.getBoundingClientRect();
        return r.top < innerHeight && r.bottom > 0;
    });
    const drawn = cards.filter((c) => c.dataset.state === 'ready' && c.querySelector('.js-plotly-plot')?.data?.length);
    return cards.length > 0 && drawn.length === cards.length;
}"""
# The Jobs tab's summary, throughput and timeline drawn.
JOBS_JS = """(_runs) => {
    const drawn = (id) => document.getElementById(id)?.data?.length > 0;
    return /log files/.test(document.querySelector('.job-summary')?.textContent ?? '')
        && drawn('job-throughput') && drawn('job-timeline');
}"""
# The Runs tab's table holding a row per run.
RUNS_JS = """(runs) => document.querySelectorAll('#panel-runs .runs-table tbody tr').length >= runs"""
# Where the Runs tab's table ends: the picture stops below it, not at the window's bottom.
RUNS_END_JS = """() => document.querySelector('#panel-runs .runs-scroll').getBoundingClientRect().bottom"""


@dataclasses.dataclass(frozen=True, slots=True)
class View:
    """One picture: its file's name, the view's URL hash, the page's test that it is drawn
    (a function of the number of runs), and where the picture ends (None: the window's bottom)."""

    name: str
    hash: str
    drawn: str
    end: str | None = None


VIEWS = (
    View("scalars", f"#scalars?runs=^{JOB}$&tags=^(train|perf)/", CHARTS_JS),
    View("jobs", f"#jobs?runs=^{JOB}$", JOBS_JS),
    View("runs", '#runs?metrics=["train/loss"]&sort=train/loss.min', RUNS_JS, RUNS_END_JS),
)


def run_demo(logdir: str, small: bool) -> int:
    """The README's main job, then the other runs, a run of ``logdir`` each: how many."""
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    runs = [*RUNS] if small else [*RUNS, *QUICK]
    for arguments in runs:
        command = [sys.executable, os.path.join(ROOT, "demo", "ps_train.py"), "--logdir", logdir, *arguments]
        quick = small or arguments in QUICK
        done = subprocess.run(command + ["--small"] * quick, env=env, capture_output=True, text=True, timeout=600)
        # The job's simulated CUDA error is on stderr by design: shown only when the demo fails.
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return len(runs)


def take(base: str, out: str, runs: int) -> list[str]:
    """A PNG of each view of the server at ``base`` (``runs`` runs) into ``out``: their paths."""
    from playwright.sync_api import sync_playwright

    os.makedirs(out, exist_ok=True)
    paths = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for view in VIEWS:
                context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=1)
                page = context.new_page()
                errors = _collect_errors(page)
                in_flight = _count_requests(page)
                page.goto(base + view.hash)
                page.wait_for_function(view.drawn, arg=runs, timeout=60_000)
                _settle(page, in_flight)
                if errors:
                    raise RuntimeError(f"The {view.name} view raised in the page: {errors}")
                bottom = HEIGHT if view.end is None else int(page.evaluate(view.end)) + 24
                path = os.path.join(out, f"{view.name}.png")
                page.screenshot(path=path, clip={"x": 0, "y": 0, "width": WIDTH, "height": min(HEIGHT, bottom)})
                paths.append(path)
                context.close()
        finally:
            browser.close()
    return paths


def _collect_errors(page: Any) -> list[str]:
    """The page's uncaught exceptions, as they come."""
    errors: list[str] = []

    def raised(error: Any) -> None:
        errors.append(str(error))

    page.on("pageerror", raised)
    return errors


def _count_requests(page: Any) -> list[int]:
    """``[n]``: the page's requests under way, kept up to date."""
    in_flight = [0]

    def started(_request: Any) -> None:
        in_flight[0] += 1

    def ended(_request: Any) -> None:
        in_flight[0] -= 1

    page.on("request", started)
    page.on("requestfinished", ended)
    page.on("requestfailed", ended)
    return in_flight


def _settle(page: Any, in_flight: list[int]) -> None:
    """Wait until no request is in flight and the page has drawn since: the picture is complete."""
    frames = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 300))))"

    def idle() -> bool:
        page.evaluate(frames)  # also lets Playwright deliver the request events
        return in_flight[0] == 0

    wait_until(idle, 30, "the page's requests to finish", interval=0.1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "images"), help="where the PNGs go")
    parser.add_argument("--small", action="store_true", help="the demo's two runs, quick (2 trainers, 60 steps)")
    parser.add_argument("--logdir", help="the demo's logdir, kept (default: a temporary one); written when empty")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="vdl-screenshots-") as scratch:
        logdir = args.logdir or os.path.join(scratch, "demo_logs")
        if os.path.isdir(os.path.join(logdir, JOB)):
            runs = sum(1 for name in os.listdir(logdir) if not name.startswith("."))
        else:
            runs = run_demo(logdir, args.small)
        with serve_cli(["--logdir", logdir], os.path.join(scratch, "server.log"), timeout=60) as base:
            for path in take(base, args.out, runs):
                print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
