"""A fork while another thread holds the object stores' instance lock (``filesystem()``
making a client) leaves the child free to make its own."""

from __future__ import annotations

import os
import signal

from visualdl._storage import objects


def test_storage_a_fork_while_the_instance_lock_is_held_leaves_the_child_its_own():
    with objects._instances_lock:  # as another thread of the writer's process holds it at the fork
        pid = os.fork()
        if pid == 0:  # the child: its own lock, or SIGALRM ends it
            try:
                signal.alarm(30)
                _, root = objects.filesystem("memory://fork-child/x")
                os._exit(0 if root.endswith("fork-child/x") else 2)
            except BaseException:  # noqa: BLE001 - the child must never return into pytest
                os._exit(3)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"the child ended with status {status}"
