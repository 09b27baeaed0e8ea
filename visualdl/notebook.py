"""VisualDL in notebooks: plotly figures straight from a logdir, and the whole UI embedded.

Figures (no server, no IPython needed; they render inline in Jupyter, JupyterLab and VS
Code as any plotly figure does)::

    from visualdl import notebook
    notebook.scalars("runs", tags="loss|acc", smoothing=0.6)      # one subplot per tag
    notebook.images("runs", "samples/input")                      # a step slider
    notebook.histograms("runs", "weights/fc1", mode="overlay")
    notebook.job("runs").goodput.totals()                         # a job's values: goodput, ends, ...

They read through the server's own data provider (the same LogReader, downsampling and
job aggregation): a job's chart is the mean over ranks with its min/max band, or every
rank with ``ranks="each"``. Calling again reads only what was written since (a cached
reader per logdir), so a live run is followed by re-running the cell.

The whole UI, in an iframe::

    %load_ext visualdl
    %visualdl --logdir runs [--port 6007]     # starts a server, or reuses this kernel's one
    %visualdl --list                          # servers this kernel started
    %visualdl --stop 6007

``display(port=...)`` embeds a server already running. Behind JupyterHub or
jupyter-server-proxy, set ``VISUALDL_PROXY_URL`` to the proxied address with ``%PORT%``
for the port (``/user/me/proxy/%PORT%/``); the iframe then points there. When it is an
absolute URL (``https://hub.example.org/user/me/proxy/%PORT%/``), the servers started
here (which inherit it) also answer requests for its host name: a server answers only
loopback names and the names it is told to, against DNS rebinding.
"""

from __future__ import annotations

import argparse
import atexit
import functools
import json
import os
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from typing import Any

from visualdl._notebook.figures import histograms, images, scalars
from visualdl._notebook.jobs import job
from visualdl._notebook.style import _PALETTE, STYLE, _alpha, _color, _effective_weight, smooth
from visualdl._storage import open_store

__all__ = ["display", "histograms", "images", "job", "list_servers", "scalars", "smooth", "start", "stop"]

#: The figures and their style live in visualdl._notebook and are this module's names as
#: before; so are the palette and helpers the tests compare with the web UI's.
_STYLE_HELPERS = (_PALETTE, STYLE, _alpha, _color, _effective_weight)


# -- the server in an iframe --------------------------------------------------------------


@dataclass
class _Server:
    logdir: str
    port: int
    process: subprocess.Popen[bytes]
    log_path: str


_servers: dict[int, _Server] = {}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _answers(port: int, timeout: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=timeout) as response:
            return bool(response.status == 200 and "status" in json.loads(response.read()))
    except (OSError, ValueError):
        return False


def start(logdir: str | os.PathLike[str], port: int | None = None, *, timeout: float = 60.0) -> int:
    """Start ``visualdl --logdir`` in the background (or reuse this kernel's server of the
    same logdir), wait until it answers, and return its port."""
    path = open_store(logdir).location
    for server in list(_servers.values()):
        if server.process.poll() is not None:
            del _servers[server.port]
        elif server.logdir == path and (port is None or port == server.port):
            return server.port
    port = port or _free_port()
    _stop_at_exit()
    log_path = os.path.join(os.path.expanduser("~"), f".visualdl-notebook-{port}.log")
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "visualdl", "--logdir", path, "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    server = _Server(path, port, process, log_path)
    deadline = time.monotonic() + timeout
    while not _answers(port):
        if process.poll() is not None:
            with open(log_path, errors="replace") as f:
                tail = f.read()[-2000:]
            raise RuntimeError(
                f"the VisualDL server for {path!r} on port {port} exited ({process.returncode}):\n{tail}"
            )
        if time.monotonic() > deadline:
            process.terminate()
            raise TimeoutError(
                f"the VisualDL server on port {port} did not answer within {timeout:g} s; see {log_path}"
            )
        time.sleep(0.1)
    _servers[port] = server
    return port


def list_servers() -> list[dict[str, Any]]:
    """The servers this kernel started: port, logdir, pid and whether they still run."""
    return [
        {"port": s.port, "logdir": s.logdir, "pid": s.process.pid, "running": s.process.poll() is None}
        for s in _servers.values()
    ]


def stop(port: int | None = None) -> list[int]:
    """Stop the server on ``port`` that this kernel started (all of them by default)."""
    ports = list(_servers) if port is None else [port]
    stopped = []
    for p in ports:
        server = _servers.pop(p, None)
        if server is None:
            raise ValueError(f"no server started by this kernel on port {p}; started: {sorted(_servers)!r}")
        if server.process.poll() is None:
            server.process.terminate()
            try:
                server.process.wait(10)
            except subprocess.TimeoutExpired:
                server.process.kill()
        stopped.append(p)
    return stopped


@functools.cache
def _stop_at_exit() -> None:
    """Have :func:`stop` end this kernel's servers when it exits: registered once, by the
    first :func:`start` (importing the module registers nothing)."""
    atexit.register(stop)


def url(port: int) -> str:
    """Where the browser reaches the server: ``VISUALDL_PROXY_URL`` with ``%PORT%`` replaced, or localhost."""
    proxy = os.environ.get("VISUALDL_PROXY_URL", "")
    if proxy:
        return proxy.replace("%PORT%", str(port))
    return f"http://localhost:{port}/"


def display(port: int = 8080, height: int = 800) -> Any:
    """Embed the VisualDL server on ``port`` in the notebook (an iframe, IPython's ``IFrame``).

    Needs IPython (``pip install "visualdl[notebook]"``); the figures above do not."""
    try:
        from IPython.display import IFrame
        from IPython.display import display as show
    except ImportError:
        raise ImportError(
            'notebook.display() and %visualdl need IPython: pip install "visualdl[notebook]" '
            "(the figures, notebook.scalars() and the others, do not)"
        ) from None
    show(IFrame(url(port), width="100%", height=int(height)))
    return None


def _magic(line: str) -> Any:
    """``%visualdl --logdir DIR [--port N] [--height H]``, ``%visualdl --list``, ``%visualdl --stop [PORT]``."""
    parser = argparse.ArgumentParser(prog="%visualdl", add_help=False)
    parser.add_argument("--logdir")
    parser.add_argument("--port", type=int)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--stop", nargs="?", const=-1, type=int)
    try:
        args = parser.parse_args(shlex.split(line))
    except SystemExit:
        print("usage: %visualdl --logdir DIR [--port N] [--height H] | --list | --stop [PORT]", file=sys.stderr)
        return None
    if args.list:
        for s in list_servers():
            print(f"port {s['port']}: {s['logdir']} (pid {s['pid']}, {'running' if s['running'] else 'stopped'})")
        return None
    if args.stop is not None:
        print("stopped:", stop(None if args.stop == -1 else args.stop))
        return None
    if args.logdir:
        port = start(args.logdir, args.port)
    elif args.port:
        port = args.port
    else:
        print("usage: %visualdl --logdir DIR [--port N] [--height H] | --list | --stop [PORT]", file=sys.stderr)
        return None
    return display(port, args.height)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext visualdl``: registers the ``%visualdl`` line magic."""
    ipython.register_magic_function(_magic, magic_kind="line", magic_name="visualdl")
