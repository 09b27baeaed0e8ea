"""Custom scalar layouts whose regular expressions come from the logs: matched in linear time
(RE2), so a pattern that backtracks for hours in Python's ``re`` is an ordinary request of a
real server, and a pattern RE2 refuses is a problem shown on its chart."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from typing import Any

import pytest
from kit.apps import build_app
from kit.paths import ROOT
from kit.ports import free_port
from kit.servers import get_json
from kit.waiting import wait_until

from visualdl import LogWriter, SummaryWriter

#: Python's ``re`` takes 2^41 steps on this tag (hours); RE2 a few microseconds.
EVIL = {"nested": ["Multiline", ["(a+)+$"]], "loss": ["Multiline", ["(.*)*_loss$"]]}
EVIL_TAGS = ["a" * 41 + "_", "x" * 40 + "_loss_"]


def _write(logdir: str, layout: dict[str, Any]) -> None:
    with LogWriter(os.path.join(logdir, "train")) as w:
        for tag in [*EVIL_TAGS, "val_loss", "train_loss"]:
            w.add_scalar(tag, 1.0, 0)
    with SummaryWriter(os.path.join(logdir, "layout")) as sw:
        sw.add_custom_scalars(layout)


@pytest.mark.e2e  # visualdl started in a process of its own
def test_scalar_layout_backtracking_regex_answers_while_others_are_served_and_sigterm_stops(tmp_path):
    logdir = str(tmp_path / "logs")
    _write(logdir, {"Evil": EVIL})
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    with open(tmp_path / "server.log", "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "visualdl", "--logdir", logdir, "--port", str(port)],
            env=dict(os.environ, PYTHONPATH=ROOT),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:

        def loaded() -> bool:
            assert proc.poll() is None, "the server exited"
            try:
                return bool(get_json(base + "api/health")["loaded"])
            except OSError:
                return False

        wait_until(loaded, 30, "the server to load the logs", interval=0.1)
        answers: dict[str, Any] = {}

        def layout() -> None:  # the request that backtracks for hours under Python's re
            answers["layout"] = get_json(base + "api/scalar_layout", timeout=30)

        thread = threading.Thread(target=layout)
        thread.start()
        # Other requests are answered meanwhile (under Python's re the GIL is never let go).
        for _ in range(5):
            assert get_json(base + "api/runs", timeout=30)
        thread.join(60)
        assert not thread.is_alive() and "layout" in answers, "the layout was not answered within 30 s"
        (category,) = answers["layout"]["categories"]
        charts = {c["title"]: c for c in category["charts"]}
        assert charts["nested"] == {**charts["nested"], "tags": [], "errors": []}
        assert (charts["loss"]["tags"], charts["loss"]["errors"]) == (["train_loss", "val_loss"], [])
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)  # stopped by SIGTERM (TimeoutExpired if not), not killed
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(
    ("pattern", "why"),
    [(r"(\w+)_\1", "invalid escape sequence: \\1"), ("loss(?!_ema)", "invalid perl operator: (?!"), ("(unclosed", "")],
)
def test_scalar_layout_regex_re2_refuses_is_named_on_its_chart(tmp_path, pattern, why):
    logdir = str(tmp_path / "logs")
    _write(logdir, {"Odd": {"odd": ["Multiline", [pattern, "_loss$"]]}})
    client = build_app(logdir).test_client()
    response = client.get("/api/scalar_layout")
    assert response.status_code == 200
    ((chart,),) = [c["charts"] for c in response.get_json()["categories"]]
    assert chart["tags"] == ["train_loss", "val_loss"]  # the chart's other pattern still draws
    (error,) = chart["errors"]
    assert error.startswith(f"regular expression {pattern!r} does not compile ({why}")
    assert "no backreferences, lookaround" in error


def test_scalar_layout_regex_matches_as_re_search(tmp_path):
    logdir = str(tmp_path / "logs")
    _write(logdir, {"Loss": {"ends": ["Multiline", ["_loss$"]], "named": ["Multiline", [r"^(?P<split>val|train)_"]]}})
    categories = build_app(logdir).test_client().get("/api/scalar_layout").get_json()["categories"]
    charts = {c["title"]: c for c in categories[0]["charts"]}
    assert charts["ends"]["tags"] == charts["named"]["tags"] == ["train_loss", "val_loss"]
