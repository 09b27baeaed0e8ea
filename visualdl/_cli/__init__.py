"""The ``visualdl`` command line (an edge: parses arguments, prints, exits).

``visualdl --logdir DIR`` serves the web UI and JSON API on http://127.0.0.1:8080
through waitress, a multi-threaded WSGI server, while logs are indexed in the
background; ``--inspect`` prints a summary of the logdirs instead (:mod:`.inspect`).
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any
from urllib.parse import urlsplit

from visualdl import __version__
from visualdl._cli.inspect import summarise
from visualdl.server._hosts import ANY_HOST, is_loopback, is_wildcard, normalise_host_name
from visualdl.server._settings import DEFAULT_MAX_POINTS

__all__ = ["main", "summarise"]


def _option(name: str, convert: Callable[[str], Any], what: str) -> Callable[[str], Any]:
    """An argparse type: ``convert`` the text, then check it as ``Settings.<name>`` does."""
    from visualdl.server._settings import check_setting

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        try:
            check_setting(name, value)
        except (TypeError, ValueError) as e:
            raise argparse.ArgumentTypeError(str(e)) from None
        return value

    return parse


def _allowed_host(text: str) -> str:
    try:
        return normalise_host_name(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _prefix_text(text: str) -> str:
    """``visualdl/`` or ``/visualdl/`` -> ``/visualdl``; ``/`` -> ``""``."""
    return "/" + text.strip("/") if text.strip("/") else ""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="visualdl",
        description="VisualDL: serve training logs (scalars, images, histograms, text, graphs) as a web UI.",
    )
    parser.add_argument(
        "--logdir", nargs="+", metavar="DIR", default=[],
        help="log directories to serve; NAME:DIR names one (its runs show as NAME/run)",
    )  # fmt: skip
    parser.add_argument(
        "--host", type=_option("host", str, "a host"), default="127.0.0.1",
        help="address to bind (default 127.0.0.1: this machine only)",
    )  # fmt: skip
    parser.add_argument(
        "--port", type=_option("port", int, "a port number"), default=8080,
        help="port to serve on (default 8080; 0 picks a free one)",
    )  # fmt: skip
    parser.add_argument(
        "--reload-interval", type=_option("reload_interval", float, "a number"), default=2.0, metavar="SECONDS",
        help="seconds between two reads of new log data (default 2)",
    )  # fmt: skip
    parser.add_argument(
        "--max-points", type=_option("max_points", int, "an integer"), default=DEFAULT_MAX_POINTS, metavar="N",
        help=f"points per series and chart at most (default {DEFAULT_MAX_POINTS}); zooming in fetches full resolution",
    )  # fmt: skip
    parser.add_argument(
        "--path-prefix", type=_option("path_prefix", _prefix_text, "a URL path"), default="", metavar="PREFIX",
        help="serve under this URL path, behind a reverse proxy (e.g. /visualdl)",
    )  # fmt: skip
    parser.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME", type=_allowed_host,
        help="answer requests for this host name too (repeat for more; '*.example.org' for every name under "
        "example.org, '*' for any name). Only localhost, "
        "127.0.0.1, [::1], the --host address and the host of VISUALDL_PROXY_URL are answered by default, so "
        "that other web pages cannot read your logs (DNS rebinding)",
    )  # fmt: skip
    parser.add_argument(
        "--replicated-tags", type=_option("replicated_tags", str, "a regular expression"), default="", metavar="REGEX",
        help="scalar tags every rank of a job logs with the same value (RE2, e.g. 'loss|grad_norm'): the jobs page "
        "names the first step where the ranks disagree",
    )  # fmt: skip
    parser.add_argument("--model", action="append", default=[], metavar="FILE", help="an ONNX model file to show")
    parser.add_argument("--inspect", action="store_true", help="print a summary of the logdirs and exit")
    parser.add_argument("--version", action="version", version=f"visualdl {__version__}")
    return parser


def _not_a_directory(logdir: str) -> str | None:
    """Why a local ``logdir`` that exists is no directory (a file given by mistake), else None."""
    from visualdl._storage import is_url

    if not is_url(logdir) and os.path.exists(logdir) and not os.path.isdir(logdir):
        return f"logdir {logdir!r} is a file, not a directory; give the directory the logs are written in"
    return None


def _exists(logdir: str) -> bool:
    """Whether ``logdir`` exists; a URL whose store's package is missing exits with its install line."""
    from visualdl._storage import open_store

    try:
        return open_store(logdir).exists()
    except (ImportError, ValueError) as e:  # a store's package missing, an unknown protocol
        print(f"visualdl: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    except Exception as e:  # noqa: BLE001 - a store's client raises its own errors (no credentials, no network)
        print(f"visualdl: warning: cannot reach {logdir}: {e}", file=sys.stderr)
        return True  # the server reports it in /api/health and goes on trying


def _allowed_hosts(args: argparse.Namespace) -> tuple[str, ...]:
    """``--allow-host`` names, and the host of ``VISUALDL_PROXY_URL`` when it is an absolute URL
    (the address browsers use behind JupyterHub or jupyter-server-proxy), as Jupyter does."""
    names = list(args.allow_host)
    proxy = os.environ.get("VISUALDL_PROXY_URL", "").replace("%PORT%", str(args.port))
    try:
        proxy_host = urlsplit(proxy).hostname if "://" in proxy else None
    except ValueError:
        proxy_host = None
    if proxy_host:
        try:
            names.append(normalise_host_name(proxy_host))
        except ValueError:
            print(f"visualdl: warning: VISUALDL_PROXY_URL names no usable host: {proxy[:100]!r}", file=sys.stderr)
    return tuple(dict.fromkeys(names))


def _warn_about_hosts(host: str, allowed: tuple[str, ...]) -> None:
    """Binding beyond this machine, or answering any Host: say who can read the logs."""
    try:
        local = not is_wildcard(host) and is_loopback(normalise_host_name(host))
    except ValueError:
        local = False  # not an address: waitress says so when it binds
    warnings = [] if local else [f"serving on {host}: your logs are visible to the network"]
    if ANY_HOST in allowed:
        warnings.append(
            "answering any Host name (--allow-host '*'): a web page you visit can read your logs by pointing "
            "its own name at this machine (DNS rebinding)"
        )
    elif is_wildcard(host):
        names = ", ".join(["localhost", "127.0.0.1", "[::1]", *allowed])
        warnings.append(
            f"only requests for {names} are answered (others get 403): add --allow-host NAME for each name "
            "browsers use to reach this machine, or --allow-host '*' to answer any name"
        )
    if warnings:
        print(f"visualdl: warning: {'; '.join(warnings)}", file=sys.stderr)


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _report_progress(provider: object, stop: threading.Event) -> None:
    """While the first indexing runs, print how far it got (once a second)."""
    from visualdl.server._provider import DataProvider

    assert isinstance(provider, DataProvider)
    counters = provider.counters
    start = time.monotonic()
    while not stop.wait(1.0):
        if counters.loaded.is_set():
            print(f"indexed {counters.files_total} file(s), {counters.bytes_read / 1e6:.1f} MB in "
                  f"{time.monotonic() - start:.1f} s", file=sys.stderr, flush=True)  # fmt: skip
            return
        print(f"indexing: {counters.files_read}/{counters.files_total} file(s), "
              f"{counters.bytes_read / 1e6:.1f} MB", file=sys.stderr, flush=True)  # fmt: skip


#: glibc's mallopt parameter: allocations from this size on are mapped, and unmapped when freed.
_M_MMAP_THRESHOLD = -3


def _return_freed_memory() -> None:
    """Have glibc map every allocation of 16 MiB or more on its own and give it back when
    freed. By default the threshold grows with the largest block freed (up to 32 MiB), and
    the server's transient arrays (a poll's rounds, a chart's series) then stay in the heap,
    fragmented: the peak RSS of 40M points read and charted was 521 MB with it, 214 to
    254 MB with 16 MiB (and 176 MB with 1 MiB, whose page faults double the cold start)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, 16 << 20)
    except (OSError, AttributeError):  # not glibc (musl): its allocator returns memory itself
        pass


def serve(args: argparse.Namespace) -> int:
    from visualdl.server._settings import Settings, parse_logdir_spec

    _return_freed_memory()

    logdirs = tuple(parse_logdir_spec(spec) for spec in args.logdir)
    if len(logdirs) > 1:
        names = [name or os.path.basename(os.path.normpath(path)) or path for name, path in logdirs]
        if len(set(names)) != len(names):
            print("visualdl: error: two logdirs would show under the same name; name them NAME:DIR", file=sys.stderr)
            return 2
        logdirs = tuple((name, path) for name, (_, path) in zip(names, logdirs, strict=True))
    for _, path in logdirs:
        wrong = _not_a_directory(path)
        if wrong:
            print(f"visualdl: error: {wrong}", file=sys.stderr)
            return 2
        if not _exists(path):
            print(f"visualdl: warning: logdir {path!r} does not exist yet; watching for it", file=sys.stderr)
    for model in args.model:
        if not os.path.isfile(model):
            print(f"visualdl: error: model file {model!r} does not exist", file=sys.stderr)
            return 2
    try:
        settings = Settings(
            logdirs=logdirs,
            host=args.host,
            port=args.port,
            reload_interval=args.reload_interval,
            max_points=args.max_points,
            path_prefix=args.path_prefix,
            models=tuple(os.path.abspath(m) for m in args.model),
            allowed_hosts=_allowed_hosts(args),
            replicated_tags=args.replicated_tags,
        )
    except (TypeError, ValueError) as e:  # the options were checked; what is left is in the logdirs
        print(f"visualdl: error: {e}", file=sys.stderr)
        return 2
    _warn_about_hosts(args.host, settings.allowed_hosts)
    # Indexing starts before flask and waitress are imported: the two overlap.
    from visualdl.server._provider import DataProvider
    from visualdl.server._reload import Reloader

    provider = DataProvider(settings)
    reloader = Reloader(provider, settings.reload_interval)
    reloader.start()
    from visualdl.server._http.wsgiserver import make_server
    from visualdl.server.app import create_app

    app = create_app(dataclasses.replace(settings, background=False), provider)  # indexing runs already
    app.extensions["visualdl.reloader"] = reloader
    try:
        server, port = make_server(app, host=args.host, port=args.port)
    except OSError as e:
        reloader.stop()
        print(f"visualdl: error: cannot serve on {args.host}:{args.port}: {e.strerror or e}", file=sys.stderr)
        return 1
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"VisualDL {__version__} at http://{shown_host}:{port}{args.path_prefix}/ (Ctrl+C to stop)", flush=True)
    stop_progress = threading.Event()
    threading.Thread(target=_report_progress, args=(provider, stop_progress), daemon=True).start()
    signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        stop_progress.set()
        server.close()
        reloader.stop()
    print("VisualDL stopped", flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="visualdl: %(levelname)s: %(message)s")
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    if not args.logdir and not args.model:
        parser.error("give --logdir DIR (or --model FILE)")
    if args.inspect:
        # The summary lists every problem with its file and offset: not again as a warning.
        logging.getLogger("visualdl.reader").setLevel(logging.ERROR)
        status = 0
        for spec in args.logdir:
            from visualdl.server._settings import parse_logdir_spec

            _, path = parse_logdir_spec(spec)
            wrong = _not_a_directory(path)
            if wrong:
                print(f"visualdl: error: {wrong}", file=sys.stderr)
                status = 1
                continue
            if not _exists(path):
                print(f"visualdl: error: logdir {path!r} does not exist", file=sys.stderr)
                status = 1
                continue
            print(summarise(path))
        return status
    try:
        return serve(args)
    except KeyboardInterrupt:
        return 0
