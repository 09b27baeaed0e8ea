"""The HTTP layer: one blueprint over the DataProvider, one error handler, static files.

Every parameter is checked here and a bad one gets a 4xx JSON error naming it; run and
tag names are only ever looked up in the index, never joined into a path. Static files
come from ``frontend_static/`` through werkzeug's ``safe_join`` and plotly.js from the
installed ``plotly`` package.
"""

from __future__ import annotations

import importlib.resources
import logging
import math
import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, TypedDict
from urllib.parse import urlsplit, urlunsplit

import plotly
from flask import Blueprint, Response, current_app, jsonify, redirect, request, send_file, send_from_directory
from werkzeug.exceptions import HTTPException
from werkzeug.routing import RequestRedirect
from werkzeug.wrappers import Response as WerkzeugResponse

from visualdl._tail import open_regular
from visualdl.errors import InvalidArgument, NotFound, VisualDLError
from visualdl.server._hosts import HostPolicy, host_name
from visualdl.server._openapi import openapi_document
from visualdl.server._params import MAX_EXPAND, MAX_RUNS, MAX_TEXT, MIN_MAX_POINTS, NUMBER_BOUNDS, text_limit
from visualdl.server._provider import DataProvider
from visualdl.server._settings import Settings

if TYPE_CHECKING:
    from visualdl.server._graphview import GraphService

__all__ = ["STATIC_DIR", "build_blueprint"]

log = logging.getLogger("visualdl.server")

# The package's folder, installed (visualdl/frontend_static) or in a checkout (the
# finder of visualdl/__init__.py maps it); a package on a file system, never zipped.
STATIC_DIR = str(importlib.resources.files("visualdl.frontend_static"))
PLOTLY_JS = os.path.join(os.path.dirname(plotly.__file__), "package_data", "plotly.min.js")
# Numbers as JSON writes them, in ASCII digits: int() and float() also take "٣", " 3" and "1_0".
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
    ".ico": "image/x-icon",
}


class _GraphSource(TypedDict):
    """Which model a graph request is about: a logged one (run, name) or a --model file."""

    model: str | None
    run: str | None
    name: str | None
    path: str


_CHUNK = 1 << 20


#: What an image's first bytes say it is (TensorBoard's event files may hold JPEG and GIF too).
_IMAGE_TYPES = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF8", "image/gif"))


def _file_span(path: str, offset: int, length: int) -> tuple[str, Iterator[bytes]]:
    """The image type and ``length`` bytes of ``path`` from ``offset``, a chunk at a time;
    opened and its first chunk read before the response starts, so a file gone since
    its record was checked is still a 404."""
    try:
        f, _ = open_regular(path)
        f.seek(offset)
        first = f.read(min(_CHUNK, length))
    except OSError as e:
        raise NotFound(f"the log file holding this image cannot be read: {e}") from e
    kind = next((mime for magic, mime in _IMAGE_TYPES if first.startswith(magic)), "application/octet-stream")

    def chunks() -> Iterator[bytes]:
        with f:
            data = first
            left = length
            while left > 0:
                if not data:  # the file shrank since: end short rather than hang
                    log.error("%s ended %d bytes before the end of a checked record", path, left)
                    return
                left -= len(data)
                yield data
                if left > 0:
                    data = f.read(min(_CHUNK, left))

    return kind, chunks()


def _provider() -> DataProvider:
    provider: DataProvider = current_app.extensions["visualdl.provider"]
    return provider


def _graphs() -> GraphService:
    """The app's graph service, made on first use: onnx is imported only when a graph is asked for."""
    service: GraphService | None = current_app.extensions.get("visualdl.graphs")
    if service is None:
        from visualdl.server._graphview import GraphService

        service = current_app.extensions.setdefault("visualdl.graphs", GraphService(_provider()))
    return service


def _text(name: str, *, required: bool = True) -> str:
    """The parameter's value; "" when it is optional and absent. Given, it must not be empty."""
    value = request.args.get(name)
    if value is None:
        if required:
            raise InvalidArgument(f"missing query parameter {name!r}")
        return ""
    _check_text(name, value)
    return value


def _check_text(name: str, value: str) -> None:
    if not value:
        raise InvalidArgument(f"query parameter {name!r} must not be empty; leave it out instead")
    limit = text_limit(name)
    if len(value) > limit:
        raise InvalidArgument(f"query parameter {name!r} must be at most {limit} characters; got {len(value)}")
    if "\x00" in value:
        raise InvalidArgument(f"query parameter {name!r} must not hold a NUL character")


def _texts(name: str, *, required: bool = True, most: int = MAX_RUNS) -> list[str]:
    values = request.args.getlist(name)
    if not values and required:
        raise InvalidArgument(f"missing query parameter {name!r} (give it once per run)")
    if len(values) > most:
        raise InvalidArgument(f"query parameter {name!r} is given {len(values)} times; at most {most}")
    for value in values:
        _check_text(name, value)
    return values


def _flag(name: str) -> bool:
    """A 0/1 parameter; absent is 0."""
    raw = request.args.get(name)
    if raw not in (None, "0", "1"):
        raise InvalidArgument(f"query parameter {name!r} must be 0 or 1; got {raw[:40]!r}")
    return raw == "1"


def _int(name: str, default: int, low: int, high: int) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    if _INTEGER.fullmatch(raw) is None:
        raise InvalidArgument(f"query parameter {name!r} must be an integer; got {raw[:40]!r}")
    value = int(raw) if len(raw) <= 40 else high + 1
    if not low <= value <= high:
        raise InvalidArgument(f"query parameter {name!r} must be between {low} and {high}; got {raw[:40]}")
    return value


def _float(name: str) -> float | None:
    raw = request.args.get(name)
    if raw is None:
        return None
    if len(raw) > MAX_TEXT or _NUMBER.fullmatch(raw) is None:
        if raw.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise InvalidArgument(f"query parameter {name!r} must be finite; got {raw[:40]!r}")
        raise InvalidArgument(f"query parameter {name!r} must be a number; got {raw[:40]!r}")
    value = float(raw)
    if not math.isfinite(value):
        raise InvalidArgument(f"query parameter {name!r} must be finite; got {raw[:40]!r}")
    return value


def _static(path: str, directory: str) -> Response:
    kind = CONTENT_TYPES.get(os.path.splitext(path)[1].lower())
    if kind is None:  # the web UI's own kinds of file only: not its __init__.py or README
        raise NotFound(f"no static file {path[:80]!r}")
    response = send_from_directory(directory, path, max_age=0)
    response.headers["Content-Type"] = kind
    return response


def _error(message: str, code: str) -> Response:
    """The JSON body of every error answer: the sentence to show and a stable name."""
    return jsonify({"error": message, "code": code})


def _snake(name: str) -> str:
    """``"Method Not Allowed"`` -> ``"method_not_allowed"``."""
    return "_".join(re.findall(r"[a-z0-9]+", name.lower()))


def _relative(location: str) -> str:
    """A redirect target without scheme and host: the request's Host is never sent back."""
    parts = urlsplit(location)
    path = "/" + parts.path.lstrip("/")  # never "//name", which a browser reads as another host
    return urlunsplit(("", "", path, parts.query, parts.fragment))


def build_blueprint(settings: Settings) -> Blueprint:
    """The app's routes under ``settings.path_prefix``, answering the Host names ``settings`` trusts."""
    url_prefix = settings.path_prefix.rstrip("/")
    hosts = HostPolicy.of(settings.host, settings.allowed_hosts)
    document = openapi_document(max_points_limit=settings.max_points_limit, path_prefix=url_prefix)
    bp = Blueprint("visualdl", __name__, url_prefix=url_prefix or None)

    @bp.before_app_request
    def check_host() -> tuple[Response, int] | None:
        """DNS rebinding: answer only the Host names of :class:`HostPolicy` (403 otherwise)."""
        header = request.environ.get("HTTP_HOST")
        if hosts.allows(header):
            return None
        name = str(header)[:100]
        message = (
            f"this VisualDL server does not answer requests for Host {name!r}: it answers localhost, "
            "127.0.0.1, [::1], the address it binds and the names it is told to, so that other web pages "
            "cannot read it (DNS rebinding). If you reach it by this name, start it with "
            f"--allow-host {host_name(name) or 'NAME'} (Settings.allowed_hosts when embedding)"
        )
        return _error(message, "forbidden_host"), 403

    @bp.before_app_request
    def redirect_relative() -> WerkzeugResponse | None:
        """werkzeug's routing redirects (a missing trailing slash, merged slashes) name the
        request's Host, and fail on a Host it cannot parse: answer them here, relative."""
        target = request.routing_exception
        if isinstance(target, RequestRedirect):
            return redirect(_relative(target.new_url), code=target.code)
        return None

    @bp.get("/")
    def index() -> Response:
        return _static("index.html", STATIC_DIR)

    @bp.get("/static/<path:path>")
    def static_file(path: str) -> Response:
        return _static(path, STATIC_DIR)

    @bp.get("/vendor/plotly.min.js")
    def plotly_js() -> Response:
        response = send_file(PLOTLY_JS, mimetype="text/javascript", max_age=86400)
        response.headers["Content-Type"] = CONTENT_TYPES[".js"]
        return response

    @bp.get("/api/openapi.json")
    def openapi() -> Response:
        return jsonify(document)

    @bp.get("/api/health")
    def health() -> Response:
        return jsonify(_provider().health())

    @bp.get("/api/runs")
    def runs() -> Response:
        return jsonify({"runs": _provider().list_runs()})

    @bp.get("/api/tags")
    def tags() -> Response:
        wanted = _texts("run", required=False) or None
        return jsonify(_provider().list_tags(runs=wanted))

    @bp.get("/api/scalars")
    def scalars() -> Response:
        provider = _provider()
        tag = _text("tag")
        run_names = _texts("run")
        settings = provider.settings
        max_points = _int("max_points", settings.max_points, MIN_MAX_POINTS, settings.max_points_limit)
        x_min, x_max = _float("x_min"), _float("x_max")
        # x_min above x_max: a range that holds no point (an empty answer, not an error).
        ranks = request.args.get("ranks", "mean")
        if ranks not in ("mean", "each"):
            raise InvalidArgument(f"query parameter 'ranks' must be 'mean' or 'each'; got {ranks[:40]!r}")
        return jsonify(
            provider.read_scalar_runs(
                runs=run_names, tag=tag, max_points=max_points, x_min=x_min, x_max=x_max, ranks=ranks
            )
        )

    @bp.get("/api/images")
    def images() -> Response:
        return jsonify(_provider().list_images(run=_text("run"), tag=_text("tag")))

    @bp.get("/api/image")
    def image() -> Response:
        step = request.args.get("step")
        if step is not None:
            path, offset, length = _provider().locate_image(
                run=_text("run"), tag=_text("tag"), step=_int("step", 0, *NUMBER_BOUNDS["step"])
            )
        else:
            path, offset, length = _provider().locate_image(
                run=_text("run"), tag=_text("tag"), index=_int("index", 0, *NUMBER_BOUNDS["index"])
            )
        # Streamed from the log file a chunk at a time: a huge image costs no more memory
        # per request than a chunk, however many clients ask for it at once.
        mimetype, body = _file_span(path, offset, length)
        response = Response(body, mimetype=mimetype, direct_passthrough=True)
        response.headers["Content-Length"] = str(length)
        response.headers["Cache-Control"] = "private, max-age=3600"
        return response

    @bp.get("/api/histograms")
    def histograms() -> Response:
        max_entries = _int("max_entries", 50, *NUMBER_BOUNDS["max_entries"])
        return jsonify(_provider().read_histograms(run=_text("run"), tag=_text("tag"), max_entries=max_entries))

    @bp.get("/api/job")
    def job() -> Response:
        return jsonify(_provider().read_job(run=_text("run")))

    @bp.get("/api/distribution")
    def distribution() -> Response:
        return jsonify(_provider().read_distribution(run=_text("run"), tag=_text("tag")))

    @bp.get("/api/text")
    def text() -> Response:
        return jsonify(_provider().read_text(run=_text("run"), tag=_text("tag")))

    @bp.get("/api/graphs")
    def graphs() -> Response:
        return jsonify({"graphs": _graphs().list_sources()})

    def _graph_source() -> _GraphSource:
        """model=ID, or run=RUN (and name=NAME); neither: the first graph (of that name)."""
        model = _text("model", required=False) or None
        return {
            "model": model,
            "run": None if model is not None else _text("run", required=False) or None,
            "name": _text("name", required=False) or None,
            "path": _text("path", required=False),
        }

    @bp.get("/api/graph")
    def graph() -> Response:
        expand = _texts("expand", required=False, most=MAX_EXPAND)
        return jsonify(
            _graphs().view(
                **_graph_source(),
                expand=expand if expand or _flag("collapsed") else None,
                expand_all=_flag("expand_all"),
            )
        )

    @bp.get("/api/graph/node")
    def graph_node() -> Response:
        return jsonify(_graphs().node(node=_text("node"), **_graph_source()))

    @bp.get("/api/graph/search")
    def graph_search() -> Response:
        return jsonify(_graphs().search(q=_text("q"), **_graph_source()))

    @bp.app_errorhandler(VisualDLError)
    def our_error(error: VisualDLError) -> tuple[Response, int]:
        """Every error of :mod:`visualdl.errors`, answered with the status on its class."""
        if error.http_status >= 500:
            return internal_error(error)
        return _error(str(error), error.code), error.http_status

    @bp.app_errorhandler(HTTPException)
    def http_error(error: HTTPException) -> tuple[Response, int]:
        response = _error(error.description or error.name, _snake(error.name))
        for key, value in error.get_headers():  # Allow of a 405, for one
            if key.lower() != "content-type":
                response.headers[key] = value
        return response, error.code or 500

    @bp.app_errorhandler(Exception)
    def internal_error(error: Exception) -> tuple[Response, int]:
        log.exception("unexpected error serving %s", request.full_path)
        return _error(f"internal error: {type(error).__name__}", "internal_error"), 500

    @bp.after_app_request
    def security_headers(response: Response) -> Response:
        location = response.headers.get("Location")
        if location is not None:
            response.headers["Location"] = _relative(location)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
            "script-src 'self' 'unsafe-eval'; connect-src 'self'; frame-ancestors *",
        )
        return response

    return bp
