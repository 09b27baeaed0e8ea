"""A free TCP port on the loopback interface, for servers started as subprocesses.

A subprocess is told its port on its command line, so the port is chosen here and released
before the child binds it; an in-process server binds port 0 instead (``kit.servers``).
"""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port nothing listens on right now (the kernel's choice for a bind to port 0)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
