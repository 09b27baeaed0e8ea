"""The shared kit itself: a logdir of given kinds reads back through the API, over a real server."""

from __future__ import annotations

import os

import pytest
from kit.logdirs import WRITERS
from kit.paths import TESTS
from kit.servers import get_json


def test_make_logdir_writes_every_kind_the_api_then_lists(make_logdir, make_app):
    logdir = make_logdir(kinds=list(WRITERS))
    tags = make_app(logdir).test_client().get("/api/tags").get_json()
    listed = {kind for kind, by_tag in tags.items() if any("run" in runs for runs in by_tag.values())}
    assert listed == set(WRITERS), tags
    with pytest.raises(ValueError, match="knows no kind 'nope'"):
        make_logdir(kinds=["nope"])


def test_serve_answers_over_http_on_loopback(make_logdir, make_app, serve):
    base = serve(make_app(make_logdir(kinds=["scalars"])))
    assert base.startswith("http://127.0.0.1:")
    body = get_json(base + "api/scalars?tag=loss&run=run")
    assert body["runs"][0]["steps"] == [0, 1, 2, 3, 4]


#: A test module for the CPU budget: calls that burn CPU time here and in a child, in and out of e2e.
BURNERS = """
import subprocess
import sys
import time

import pytest

BURN = "import time\\nend = time.process_time() + {seconds}\\nwhile time.process_time() < end: pass"


def test_cheap():
    pass


def test_burns():
    exec(BURN.format(seconds=0.15))


def test_burns_in_a_child():
    subprocess.run([sys.executable, "-c", BURN.format(seconds=0.15)], check=True)


@pytest.mark.e2e
def test_burns_in_e2e():
    exec(BURN.format(seconds=0.15))


def test_burns_and_fails():
    exec(BURN.format(seconds=0.15))
    assert False, "its own failure"
"""


def _run_burners(pytester: pytest.Pytester, *args: str, subprocess: bool = False) -> pytest.RunResult:
    pytester.makeini("[pytest]\nmarkers =\n    e2e: slow\n")
    pytester.makepyfile(test_burners=BURNERS)
    run = pytester.runpytest_subprocess if subprocess else pytester.runpytest
    return run("-p", "kit.cpu_budget", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", *args)


def _assert_over_budget(result: pytest.RunResult) -> None:
    result.assert_outcomes(passed=2, failed=3)
    for name in ("test_burns", "test_burns_in_a_child"):
        result.stdout.fnmatch_lines(
            [f"*test test_burners.py::{name} used *.? CPU s, above the inner tier's 0.05 s budget: "
             "mark it e2e or make it cheaper"]
        )  # fmt: skip
    result.stdout.fnmatch_lines(["*AssertionError: its own failure*"])  # reported as it failed, not as dear


def test_cpu_budget_fails_a_dear_test_outside_e2e_naming_it(pytester):
    result = _run_burners(pytester, "--cpu-budget=0.05", "--cpu-report=9")
    _assert_over_budget(result)
    result.stdout.fnmatch_lines(["*CPU time of the 5 dearest test calls*", "* s  test_burners.py::test_burns_in_e2e"])
    _run_burners(pytester, "--cpu-budget=0", "-k", "in_a_child").assert_outcomes(passed=1)  # 0: no budget


@pytest.mark.e2e  # three interpreters (pytest's and two workers'): seconds of CPU
def test_cpu_budget_holds_in_each_xdist_worker(pytester, monkeypatch):
    # xdist's workers take the sys.path the controller started with: kit must be on it from the start.
    monkeypatch.setenv("PYTHONPATH", TESTS + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = _run_burners(pytester, "-n", "2", "--cpu-budget=0.05", "--cpu-report=9", subprocess=True)
    _assert_over_budget(result)
    result.stdout.fnmatch_lines(["*CPU time of the 5 dearest test calls*"])  # the workers' figures, in the controller
