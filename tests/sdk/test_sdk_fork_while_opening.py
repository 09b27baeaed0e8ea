"""A process that forks while one of its threads opens a writer: the child starts with no
sink being opened (the parent's opening is not its own), and stays so after the opening
block ends there too, so that a SIGTERM in the child does not wait for a sink that never comes."""

from __future__ import annotations

import os

import pytest

from visualdl.sdk import _lifecycle as lifecycle


@pytest.mark.e2e  # it forks the test process (a child that only reports a number, then exits)
def test_sdk_fork_while_opening_leaves_the_child_with_none_being_opened(monkeypatch):
    monkeypatch.setattr(lifecycle.sigterm, "install", lambda flush: None)  # the test process's SIGTERM stays
    before = lifecycle._opening
    read_fd, write_fd = os.pipe()
    with lifecycle.opening():
        pid = os.fork()
        inside = lifecycle._opening
    if pid == 0:  # the child, past the block as the forking thread leaves it: report, exit
        try:
            os.write(write_fd, f"{inside} {lifecycle._opening}".encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    try:
        with os.fdopen(read_fd, "rb") as reader:
            report = reader.read().decode()
    finally:
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert report == "0 0"  # in the child: none being opened, inside the block and after it
    assert lifecycle._opening == before
