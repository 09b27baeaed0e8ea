"""Real servers on 127.0.0.1: the app in a thread of this process, or ``python -m visualdl``.

Both are context managers that stop what they started, so a failing test leaves no server
behind; both wait on a condition (the socket bound, the logs loaded), never a fixed time.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from typing import Any

from werkzeug.serving import make_server

from kit.paths import ROOT
from kit.ports import free_port
from kit.waiting import wait_until


def get_json(url: str, timeout: float = 5.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.loads(response.read())


@contextlib.contextmanager
def serve_app(app: Any) -> Iterator[str]:
    """Serve a WSGI app on a port the kernel picks, in a thread: yields the base URL.

    The socket is bound before this yields, so the first request is answered; the server
    is shut down and its thread joined at the end.
    """
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="test-wsgi-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def stop_process(proc: subprocess.Popen[Any], sig: int = signal.SIGTERM, timeout: float = 20.0) -> tuple[Any, Any]:
    """Stop ``proc`` with ``sig``: its output, once it exits; killed (and the wait raised) when
    it does not exit within ``timeout`` seconds, so that no process outlives its test."""
    proc.send_signal(sig)
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise


def _loaded(base: str, proc: subprocess.Popen[bytes]) -> bool:
    assert proc.poll() is None, "the server exited"
    try:
        return bool(get_json(base + "api/health")["loaded"])
    except OSError:
        return False  # not listening yet


@contextlib.contextmanager
def serve_cli(args: list[str], log_path: str, timeout: float = 30.0) -> Iterator[str]:
    """``python -m visualdl ARGS --port P`` on a free port until its logs are loaded: yields the base URL.

    Stopped with SIGTERM (then killed) at the end; its output goes to ``log_path``.
    """
    port = free_port()
    env = dict(os.environ, PYTHONPATH=ROOT)
    with open(log_path, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "visualdl", *args, "--port", str(port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}/"
        try:
            wait_until(lambda: _loaded(base, proc), timeout, "the server to load the logs", interval=0.1)
            yield base
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
