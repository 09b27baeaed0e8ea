"""The HTTP server that moves the app's bytes: waitress, answering its own errors in JSON too.

waitress answers some requests without calling the app: a malformed request line or
header is a 400, headers over ``max_request_header_size`` a 431, a body over
``max_request_body_size`` a 413. Its bodies are plain text; here they are the API's JSON
error object (``{"error": ...}``), so every error a client sees has the same form. This
uses waitress's ``HTTPChannel.error_task_class`` hook, set on the listening servers.
"""

from __future__ import annotations

import json
from typing import Any

from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer, create_server
from waitress.task import ErrorTask

__all__ = ["make_server"]


class _JSONErrorTask(ErrorTask):  # type: ignore[misc]
    """waitress's own error answers (400, 413, 431, 500) as ``{"error": "...", "code": "..."}``."""

    def execute(self) -> None:
        error = self.request.error
        detail = " ".join(str(error.body).split())[:500]
        message = f"{error.reason}: {detail}" if detail else error.reason
        body = json.dumps({"error": message, "code": "_".join(error.reason.lower().split())}).encode()
        self.status = f"{error.code} {error.reason}"
        self.response_headers.extend([("Content-Type", "application/json"), ("X-Content-Type-Options", "nosniff")])
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class _Channel(HTTPChannel):  # type: ignore[misc]
    error_task_class = _JSONErrorTask


def make_server(app: Any, *, host: str, port: int) -> tuple[Any, int]:
    """A waitress server of ``app`` bound to ``host:port`` (not yet running), and the port it got.

    ``OSError`` when it cannot bind.
    """
    sockets: dict[Any, Any] = {}
    # waitress answers at most connection_limit open connections (default 100): a dashboard
    # with many open tabs, or a load test, would see connections that are accepted but never
    # answered. Its "task queue depth" warnings are noise here.
    server = create_server(app, map=sockets, host=host, port=port, threads=8, connection_limit=1000, ident="visualdl")
    listening = [s for s in sockets.values() if isinstance(s, BaseWSGIServer)]
    for each in listening:
        each.channel_class = _Channel
    # One address: a TcpWSGIServer; several (a name with IPv4 and IPv6 addresses): a
    # MultiSocketServer, which has no effective_port of its own.
    return server, int(listening[0].effective_port)
