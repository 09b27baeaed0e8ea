"""The fatal-signal sidecar's text (``visualdl/_formats/fatal.py``): a writer's own section,
each signal faulthandler names, and garbled or truncated dumps told as problems."""

from __future__ import annotations

import pytest

from visualdl._formats.fatal import parse, preamble
from visualdl._formats.table import format_of

DUMP = b"""Fatal Python error: Segmentation fault

Current thread 0x00007f5d1e5b7740 (most recent call first):
  File "train.py", line 3 in crash
  File "train.py", line 5 in <module>
"""


def test_fatal_sidecar_a_writers_own_section():
    data = preamble("aaa", 10) + DUMP + preamble("bbb", 11)
    dump = parse(data, "aaa")
    assert dump is not None and (dump.signal, dump.pid, dump.problem) == ("SIGSEGV", 10, "")
    assert dump.traceback.startswith("Fatal Python error: Segmentation fault") and "in crash" in dump.traceback
    assert parse(data, "bbb") is None  # its line alone: alive or closed
    assert parse(data, "ccc") is None


def test_fatal_sidecar_the_crashing_thread_first():
    other = b'Thread 0x01 (most recent call first):\n  File "t.py", line 1 in run'
    threads = DUMP.replace(b"\n\nCurrent", b"\n\n" + other + b"\n\nCurrent")
    dump = parse(preamble("w", 1) + threads + b"\nExtension modules: numpy (total: 1)\n", "w")
    assert dump is not None
    blocks = dump.traceback.split("\n\n")
    assert blocks[0] == "Fatal Python error: Segmentation fault"
    assert blocks[1].startswith("Current thread ") and blocks[2].startswith("Thread 0x01")
    assert blocks[3].startswith("Extension modules")


def test_fatal_sidecar_the_last_section_of_a_writer_wins():
    data = preamble("aaa", 10) + DUMP + preamble("aaa", 12)
    assert parse(data, "aaa") is None  # appended to later by the same writer id: that one lived


@pytest.mark.parametrize(
    ("name", "signal"),
    [
        ("Aborted", "SIGABRT"),
        ("Bus error", "SIGBUS"),
        ("Floating-point exception", "SIGFPE"),
        ("Illegal instruction", "SIGILL"),
    ],
)
def test_fatal_sidecar_each_fatal_signal(name, signal):
    dump = parse(preamble("w", 1) + DUMP.replace(b"Segmentation fault", name.encode()), "w")
    assert dump is not None and dump.signal == signal and dump.problem == ""


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"\x00\x17garbage", "garbled"),
        (b"Fatal Python error: Something else\n", "no known fatal signal"),
        (b"Fatal Python error: Segmentation fault\n\nCurrent thr", "truncated"),
        (DUMP.replace(b"train.py", b"tr\xffin.py"), "not UTF-8"),
    ],
)
def test_fatal_sidecar_garbled_or_truncated_is_a_problem(body, problem):
    dump = parse(preamble("w", 1) + body, "w")
    assert dump is not None and problem in dump.problem


def test_fatal_sidecar_names_are_no_log_names():
    assert format_of("vdl.1.host.1.abc.vdlog") is not None
    assert format_of("vdl.1.host.1.abc.vdlog.fatal") is None
