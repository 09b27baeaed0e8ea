"""The HTTP layer: one blueprint over the DataProvider, one error handler, static files.

The routes are those of :data:`visualdl.server._http.routes.ROUTES`: each query is parsed by
its declaration there (a bad parameter: a 400 naming it) and handed to its handler
(:mod:`visualdl.server._http.handlers`);
every :class:`~visualdl.errors.VisualDLError` is answered by one handler with the status
on its class. Run and tag names are only ever looked up in the index, never joined into
a path. Static files
(``frontend_static/`` and plotly.js from the installed ``plotly`` package) are served by
:class:`visualdl.server._http.static.StaticFiles`: hashed URLs, long caching, gzip.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.resources
import logging
import os
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import plotly
from flask import Blueprint, Response, jsonify, redirect, request
from werkzeug.exceptions import HTTPException
from werkzeug.routing import RequestRedirect
from werkzeug.wrappers import Response as WerkzeugResponse

from visualdl.errors import VisualDLError
from visualdl.server._hosts import HostPolicy, host_name
from visualdl.server._http.handlers import HANDLERS, Query
from visualdl.server._http.openapi import openapi_document
from visualdl.server._http.params import parse_query
from visualdl.server._http.routes import ROUTES, Route
from visualdl.server._http.static import StaticFiles, codings
from visualdl.server._settings import Settings

__all__ = ["STATIC_DIR", "build_blueprint"]

log = logging.getLogger("visualdl.server")

# The package's folder, installed (visualdl/frontend_static) or in a checkout (the
# finder of visualdl/__init__.py maps it); a package on a file system, never zipped.
STATIC_DIR = str(importlib.resources.files("visualdl.frontend_static"))
PLOTLY_JS = os.path.join(os.path.dirname(plotly.__file__), "package_data", "plotly.min.js")


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


#: JSON answers from this size on are sent gzipped to clients that accept it (a chart of 50
#: runs is over a MB of JSON; level 1 shrinks it several times in a few ms).
GZIP_FROM = 8 << 10


def _json(answer: Any) -> Response:
    """The answer as JSON, with an ETag of its bytes: a client asking again with
    ``If-None-Match`` gets a 304 while nothing changed (no gzip, no transfer, no parse: the
    web UI asks for the runs, the tags and the charts in view every few seconds)."""
    response = jsonify(answer)
    body = response.get_data()
    etag = f'W/"{hashlib.blake2b(body, digest_size=16).hexdigest()}"'
    headers = {"ETag": etag, "Vary": "Accept-Encoding"}
    asked = _etags(request.headers.get("If-None-Match", ""))
    if etag in asked or "*" in asked:
        return Response(status=304, headers=headers)
    if "gzip" in codings(request) and len(body) >= GZIP_FROM:
        response.set_data(gzip.compress(body, compresslevel=1, mtime=0))
        response.headers["Content-Encoding"] = "gzip"
    response.headers.update(headers)
    return response


def _etags(header: str) -> set[str]:
    """The entity tags of an ``If-None-Match`` header (weak or not, as sent)."""
    return {t.strip() for t in header.split(",") if t.strip()}


def _view(route: Route, handler: Callable[[Query], Any], settings: Settings) -> Callable[[], Response]:
    """The view of ``route``: its query parsed by its declaration, the handler's value as JSON."""

    def view() -> Response:
        answer = handler(parse_query(route.params, request.args, settings))
        return answer if isinstance(answer, Response) else _json(answer)

    view.__name__ = route.name
    return view


def build_blueprint(settings: Settings) -> Blueprint:
    """The app's routes under ``settings.path_prefix``, answering the Host names ``settings`` trusts."""
    url_prefix = settings.path_prefix.rstrip("/")
    hosts = HostPolicy.of(settings.host, settings.allowed_hosts)
    document = openapi_document(settings)
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

    static = StaticFiles(STATIC_DIR, {"vendor/plotly.min.js": PLOTLY_JS})
    static.warm("vendor/plotly.min.js")

    @bp.get("/")
    def index() -> Response:
        return static.index(request)

    @bp.get("/static/<path:path>")
    def static_file(path: str) -> Response:
        return static.file(f"static/{path}", request)

    @bp.get("/vendor/plotly.min.js")
    def plotly_js() -> Response:
        return static.file("vendor/plotly.min.js", request)

    @bp.get("/api/openapi.json")
    def openapi() -> Response:
        return jsonify(document)

    for route in ROUTES:
        bp.add_url_rule(route.path, route.name, _view(route, HANDLERS[route.name], settings), methods=["GET"])

    @bp.app_errorhandler(VisualDLError)
    def our_error(error: VisualDLError) -> tuple[Response, int]:
        """Every error of :mod:`visualdl.errors`, answered with the status on its class."""
        if error.http_status >= 500 and error.http_status != 503:  # 503: busy, not at fault
            return internal_error(error)
        response = _error(str(error), error.code)
        retry_after = getattr(error, "retry_after", None)
        if retry_after is not None:
            response.headers["Retry-After"] = str(retry_after)
        return response, error.http_status

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
