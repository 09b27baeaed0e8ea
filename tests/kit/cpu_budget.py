"""The inner tier's CPU budget: a pytest plugin (``tests/conftest.py`` loads it).

A test outside the e2e tier whose call uses more CPU time than the budget fails, named, with
what it used: ``pytest -m "not e2e"`` stays an inner loop only while no test in it costs
seconds of CPU. CPU time rather than wall time, so that a loaded machine neither fails a
cheap test nor hides a dear one: the process's own (every thread of it) plus that of the
children it waited for, ``getrusage`` before and after the call phase (the test function;
its fixtures' setup and teardown are not counted). Under pytest-xdist each worker measures
its own process.

``--cpu-budget=SECONDS`` sets another budget (0: none); ``--cpu-report=N`` lists the N
tests that used the most CPU time in the run's summary.
"""

from __future__ import annotations

import resource
from collections.abc import Generator
from typing import Any

import pytest

#: CPU seconds a test of the inner tier may use in its call. When it was chosen the dearest
#: inner tests used 2 to 3.3 s on a loaded machine (the unit fuzzers, the frontend's units
#: under node; a third less unloaded), the tier's 1,489 calls 100 s and the whole run 140 s:
#: three times the dearest, that a loaded or slower machine does not fail them, and a test
#: above it is slow anywhere.
BUDGET_S = 10.0

#: The key of the figure in a test report's ``user_properties`` (which pytest-xdist's
#: workers send to the controller with the report).
PROPERTY = "cpu_s"


def cpu_seconds() -> float:
    """CPU time (user and system) of this process and of its children waited for, in seconds."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cpu budget", "the inner tier's CPU budget (tests/kit/cpu_budget.py)")
    group.addoption(
        "--cpu-budget",
        type=float,
        default=BUDGET_S,
        metavar="SECONDS",
        help=f"fail a test not marked e2e whose call uses more CPU time (default {BUDGET_S:g}; 0: no budget)",
    )
    group.addoption(
        "--cpu-report",
        type=int,
        default=0,
        metavar="N",
        help="list the N tests whose calls used the most CPU time",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_Report(config.getoption("cpu_report")), "cpu-budget-report")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    before = cpu_seconds()
    try:
        yield  # a test that failed on its own is reported as it failed
    finally:
        used = cpu_seconds() - before
        item.user_properties.append((PROPERTY, round(used, 3)))
    budget: float = item.config.getoption("cpu_budget")
    if budget > 0 and used > budget and item.get_closest_marker("e2e") is None:
        pytest.fail(
            f"test {item.nodeid} used {used:.1f} CPU s, above the inner tier's {budget:g} s budget: "
            "mark it e2e or make it cheaper",
            pytrace=False,
        )


class _Report:
    """What each call used, as its reports tell it (from every worker under pytest-xdist)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.used: list[tuple[Any, str]] = []  # (CPU seconds, the test)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.used += [(value, report.nodeid) for name, value in report.user_properties if name == PROPERTY]

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.count <= 0 or not self.used:
            return
        terminalreporter.section(f"CPU time of the {min(self.count, len(self.used))} dearest test calls")
        for seconds, nodeid in sorted(self.used, reverse=True)[: self.count]:
            terminalreporter.write_line(f"{seconds:8.2f} s  {nodeid}")
        terminalreporter.write_line(f"{sum(s for s, _ in self.used):8.2f} s  in all {len(self.used)} calls")
