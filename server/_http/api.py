"""The HTTP layer: one blueprint over the DataProvider, one error handler, static files.

The routes are those of :data:`visualdl.server._http.routes.ROUTES`: each query is parsed by
its declaration there (a bad parameter: a 400 naming it) and handed to its handler here;
every :class:`~visualdl.errors.VisualDLError` is answered by one handler with the status
on its class. Run and tag names are only ever looked up in the index, never joined into
a path. Static files
(``frontend_static/`` and plotly.js from the installed ``plotly`` package) are served by
:class:`visualdl.server._http.static.StaticFiles`: hashed URLs, long caching, gzip.
"""

from __future__ import annotations

import gzip
import importlib.resources
import logging
import os
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import plotly
from flask import Blueprint, Response, current_app, jsonify, redirect, request
from werkzeug.exceptions import HTTPException
from werkzeug.routing import RequestRedirect
from werkzeug.wrappers import Response as WerkzeugResponse

from visualdl.errors import NotFound, VisualDLError
from visualdl.server._http.hosts import HostPolicy, host_name
from visualdl.server._http.openapi import openapi_document
from visualdl.server._http.params import parse_query
from visualdl.server._http.routes import ROUTES, Route
from visualdl.server._http.static import StaticFiles, codings
from visualdl.server._provider import DataProvider
from visualdl.server._settings import Settings
from visualdl.server._views.curves import audio_clip, audio_list, curves
from visualdl.server._views.hparams import hparams, scalar_layout
from visualdl.server._views.projector import Projector

if TYPE_CHECKING:
    from visualdl.server._views.graph import GraphService

__all__ = ["STATIC_DIR", "build_blueprint"]

log = logging.getLogger("visualdl.server")

# The package's folder, installed (visualdl/frontend_static) or in a checkout (the
# finder of visualdl/__init__.py maps it); a package on a file system, never zipped.
STATIC_DIR = str(importlib.resources.files("visualdl.frontend_static"))
PLOTLY_JS = os.path.join(os.path.dirname(plotly.__file__), "package_data", "plotly.min.js")
_CHUNK = 1 << 20


#: What a blob's first bytes say it is (TensorBoard's event files may hold JPEG and GIF too).
_MEDIA_TYPES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
    (b"RIFF", "audio/wav"),
)


def _file_span(path: str, offset: int, length: int) -> tuple[str, Iterator[bytes]]:
    """The media type and ``length`` bytes of ``path`` from ``offset``, a chunk at a time;
    opened and its first chunk read before the response starts, so a file gone since
    its record was checked is still a 404."""
    try:
        f = _provider().open_log(path)
        f.seek(offset)
        first = f.read(min(_CHUNK, length))
    except OSError as e:
        raise NotFound(f"the log file holding this image or clip cannot be read: {e}") from e
    kind = next((mime for magic, mime in _MEDIA_TYPES if first.startswith(magic)), "application/octet-stream")

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
        from visualdl.server._views.graph import GraphService

        service = current_app.extensions.setdefault("visualdl.graphs", GraphService(_provider()))
    return service


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


Query = dict[str, Any]


def _health(q: Query) -> Any:
    return _provider().health()


def _runs(q: Query) -> Any:
    return {"runs": _provider().list_runs()}


def _kinds(q: Query) -> Any:
    return {"kinds": _provider().list_kinds()}


def _tags(q: Query) -> Any:
    return _provider().list_tags(runs=q["run"] or None)


def _scalars(q: Query) -> Any:
    # x_min above x_max: a range that holds no point (an empty answer, not an error).
    return _provider().read_scalar_runs(
        runs=q["run"], tag=q["tag"], max_points=q["max_points"], x_min=q["x_min"], x_max=q["x_max"], ranks=q["ranks"]
    )


def _images(q: Query) -> Any:
    return _provider().list_images(run=q["run"], tag=q["tag"])


def _image(q: Query) -> Response:
    if q["step"] is not None:
        path, offset, length = _provider().locate_image(run=q["run"], tag=q["tag"], step=q["step"])
    else:
        path, offset, length = _provider().locate_image(run=q["run"], tag=q["tag"], index=q["index"])
    return _streamed(path, offset, length)


def _streamed(path: str, offset: int, length: int) -> Response:
    """A blob streamed from its log file a chunk at a time: a huge image or clip costs no
    more memory per request than a chunk, however many clients ask for it at once."""
    mimetype, body = _file_span(path, offset, length)
    response = Response(body, mimetype=mimetype, direct_passthrough=True)
    response.headers["Content-Length"] = str(length)
    response.headers["Cache-Control"] = "private, max-age=3600"
    return response


def _audio(q: Query) -> Any:
    return audio_list(_provider(), run=q["run"], tag=q["tag"])


def _audio_clip(q: Query) -> Response:
    where = {"step": q["step"]} if q["step"] is not None else {"index": q["index"]}
    return _streamed(*audio_clip(_provider(), run=q["run"], tag=q["tag"], **where))


def _curves(q: Query) -> Any:
    return curves(_provider(), kind=q["kind"], tag=q["tag"], runs=q["run"], step=q["step"])


def _hparams(q: Query) -> Any:
    return hparams(_provider(), runs=q["run"] or None)


def _scalar_layout(q: Query) -> Any:
    return scalar_layout(_provider())


def _projector() -> Projector:
    service: Projector | None = current_app.extensions.get("visualdl.projector")
    if service is None:
        service = current_app.extensions.setdefault("visualdl.projector", Projector(_provider()))
    return service


def _embeddings(q: Query) -> Any:
    return _projector().entries(run=q["run"], tag=q["tag"])


def _projection(q: Query) -> Any:
    return _projector().projection(run=q["run"], tag=q["tag"], index=q["index"], method=q["method"], dims=q["dims"])


def _neighbors(q: Query) -> Any:
    return _projector().neighbours(
        run=q["run"], tag=q["tag"], index=q["index"], point=q["point"], k=q["k"], metric=q["metric"]
    )


def _histograms(q: Query) -> Any:
    return _provider().read_histograms(run=q["run"], tag=q["tag"], max_entries=q["max_entries"])


def _job(q: Query) -> Any:
    return _provider().read_job(run=q["run"])


def _distribution(q: Query) -> Any:
    return _provider().read_distribution(run=q["run"], tag=q["tag"])


def _text(q: Query) -> Any:
    return _provider().read_text(run=q["run"], tag=q["tag"])


def _graph_list(q: Query) -> Any:
    return {"graphs": _graphs().list_sources()}


def _graph_source(q: Query) -> dict[str, Any]:
    """model=ID, or run=RUN (and name=NAME); neither: the first graph (of that name)."""
    model = q["model"]
    return {"model": model, "run": None if model is not None else q["run"], "name": q["name"], "path": q["path"] or ""}


def _graph(q: Query) -> Any:
    expand = q["expand"]
    return _graphs().view(
        **_graph_source(q), expand=expand if expand or q["collapsed"] else None, expand_all=q["expand_all"]
    )


def _graph_node(q: Query) -> Any:
    return _graphs().node(node=q["node"], **_graph_source(q))


def _graph_search(q: Query) -> Any:
    return _graphs().search(q=q["q"], **_graph_source(q))


#: What answers each route of :data:`ROUTES`, by its name: the query as declared, parsed.
_HANDLERS: dict[str, Callable[[Query], Any]] = {
    "health": _health,
    "runs": _runs,
    "kinds": _kinds,
    "tags": _tags,
    "scalars": _scalars,
    "images": _images,
    "image": _image,
    "histograms": _histograms,
    "job": _job,
    "distribution": _distribution,
    "text": _text,
    "graphs": _graph_list,
    "graph": _graph,
    "graph_node": _graph_node,
    "graph_search": _graph_search,
    "audio": _audio,
    "audio_clip": _audio_clip,
    "curves": _curves,
    "hparams": _hparams,
    "scalar_layout": _scalar_layout,
    "embeddings": _embeddings,
    "projection": _projection,
    "neighbors": _neighbors,
}


#: JSON answers from this size on are sent gzipped to clients that accept it (a chart of 50
#: runs is over a MB of JSON; level 1 shrinks it several times in a few ms).
GZIP_FROM = 8 << 10


def _json(answer: Any) -> Response:
    response = jsonify(answer)
    if "gzip" in codings(request) and response.content_length and response.content_length >= GZIP_FROM:
        response.set_data(gzip.compress(response.get_data(), compresslevel=1, mtime=0))
        response.headers["Content-Encoding"] = "gzip"
    response.headers["Vary"] = "Accept-Encoding"
    return response


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
        bp.add_url_rule(route.path, route.name, _view(route, _HANDLERS[route.name], settings), methods=["GET"])

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
