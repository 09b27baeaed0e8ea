"""The web UI's files: content-hashed URLs, cached for a year, sent gzip-compressed.

Every file of ``frontend_static/`` (of the kinds a page loads) and plotly.js from the
installed ``plotly`` package are known by URL path at start; nothing else is ever served
from disk, so no URL can name a file outside them. ``index.html`` is sent rewritten:

* its ``static/...`` and ``vendor/...`` links carry ``?v=<hash of the file's bytes>``;
* an import map gives every ES module (``./api.js`` imported by ``app.js``...) its hashed
  URL too, and the Content-Security-Policy of the page allows that one inline script by
  its own hash.

A request with the current hash is answered with ``Cache-Control: immutable`` for a year:
a reload fetches nothing but ``index.html`` (``no-cache``, with an ETag). Any other is
answered ``no-cache`` with an ETag, and ``If-None-Match`` gets a 304. Files are compressed
once (gzip, level 9; plotly.js from 4.8 MB to about 1.5 MB) when first asked for, or in a
background thread at start for plotly.js, and sent compressed to a browser that accepts
gzip. A file changed on disk (a checkout being edited) is read and hashed again.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import re
import threading
from dataclasses import dataclass, field

from flask import Request, Response

from visualdl.errors import NotFound

__all__ = ["CONTENT_TYPES", "StaticFiles", "codings"]

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
#: Kinds not worth compressing (already compressed).
_COMPRESSED = frozenset((".png",))
_YEAR = 365 * 24 * 3600
_LINK = re.compile(r'(?P<attr>(?:src|href)=")(?P<url>(?:static|vendor)/[^"?#]+)"')
_MARKER = "<!--visualdl:importmap-->"


@dataclass
class _File:
    path: str
    content_type: str
    stamp: tuple[int, int] = (-1, -1)  # (mtime_ns, size) of the bytes held
    data: bytes = b""
    digest: str = ""
    gzipped: bytes | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


class StaticFiles:
    """The files of ``directory`` by URL path (``static/app.js``), plus ``extra`` files
    (URL path -> file path, e.g. ``vendor/plotly.min.js``)."""

    def __init__(self, directory: str, extra: dict[str, str]) -> None:
        self._files: dict[str, _File] = {}
        for name in sorted(os.listdir(directory)):
            kind = CONTENT_TYPES.get(os.path.splitext(name)[1].lower())
            full = os.path.join(directory, name)
            if kind is not None and os.path.isfile(full):  # the UI's own kinds: not __init__.py or README.md
                self._files[f"static/{name}"] = _File(full, kind)
        for url, full in extra.items():
            self._files[url] = _File(full, CONTENT_TYPES[os.path.splitext(full)[1].lower()])
        self._index = self._files.pop("static/index.html")

    def warm(self, url: str) -> None:
        """Read and compress ``url`` now (in a background thread: plotly.js takes ~0.3 s)."""

        def work() -> None:
            try:
                self._gzipped(self._current(self._files[url]))
            except OSError:
                pass  # reported when the file is asked for

        threading.Thread(target=work, name="visualdl-static", daemon=True).start()

    def _current(self, f: _File) -> _File:
        """``f`` with the bytes on disk now (read again when its mtime or size changed)."""
        try:
            st = os.stat(f.path)
        except OSError as e:
            raise NotFound(f"static file missing: {os.path.basename(f.path)} ({e.strerror})") from e
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp != f.stamp:
            with f.lock:
                if stamp != f.stamp:
                    with open(f.path, "rb") as handle:
                        data = handle.read()
                    f.data, f.gzipped = data, None
                    f.digest = hashlib.sha256(data).hexdigest()[:16]
                    f.stamp = stamp  # last: a reader that sees the stamp sees the digest too
        return f

    def _gzipped(self, f: _File) -> bytes:
        hit = f.gzipped
        if hit is None:
            with f.lock:
                hit = f.gzipped
                if hit is None:
                    hit = f.gzipped = gzip.compress(f.data, compresslevel=9, mtime=0)
        return hit

    def _hashed(self, url: str) -> str:
        f = self._files.get(url)
        return f"{url}?v={self._current(f).digest}" if f is not None else url

    def index(self, request: Request) -> Response:
        """``index.html`` with hashed links and the import map; its CSP allows that map."""
        page = self._current(self._index).data.decode("utf-8")
        modules = {
            f"./{url}": f"./{self._hashed(url)}"
            for url in self._files
            if url.startswith("static/") and url.endswith((".js", ".mjs"))
        }
        imports = json.dumps({"imports": modules}, separators=(",", ":"), sort_keys=True)
        page = _LINK.sub(lambda m: f'{m["attr"]}{self._hashed(m["url"])}"', page)
        page = page.replace(_MARKER, f'<script type="importmap">{imports}</script>', 1)
        body = page.encode("utf-8")
        script_hash = base64.b64encode(hashlib.sha256(imports.encode("utf-8")).digest()).decode("ascii")
        response = self._respond(request, body, "text/html; charset=utf-8", hashlib.sha256(body).hexdigest()[:16])
        response.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
            f"script-src 'self' 'unsafe-eval' 'sha256-{script_hash}'; connect-src 'self'; frame-ancestors *"
        )
        return response

    def file(self, url: str, request: Request) -> Response:
        f = self._files.get(url)
        if f is None:
            raise NotFound(f"no static file {url[:80]!r}")
        f = self._current(f)
        immutable = request.args.get("v") == f.digest
        gzipped = None
        if os.path.splitext(url)[1] not in _COMPRESSED:
            gzipped = self._gzipped(f)
        return self._respond(request, f.data, f.content_type, f.digest, gzipped=gzipped, immutable=immutable)

    @staticmethod
    def _respond(
        request: Request, data: bytes, content_type: str, digest: str, *, gzipped: bytes | None = None,
        immutable: bool = False,
    ) -> Response:  # fmt: skip
        etag = f'"{digest}"'
        use_gzip = gzipped is not None and len(gzipped) < len(data) and "gzip" in codings(request)
        if use_gzip:
            etag = f'"{digest}-gz"'
        cache = f"public, max-age={_YEAR}, immutable" if immutable else "no-cache"
        headers = {"ETag": etag, "Cache-Control": cache, "Vary": "Accept-Encoding"}
        if etag in _tags(request.headers.get("If-None-Match", "")):
            return Response(status=304, headers=headers)
        body = gzipped if use_gzip and gzipped is not None else data
        response = Response(body, content_type=content_type, headers=headers)
        if use_gzip:
            response.headers["Content-Encoding"] = "gzip"
        return response


def codings(request: Request) -> set[str]:
    """The content codings the request accepts (``q=0`` ones left out)."""
    out = set()
    for part in request.headers.get("Accept-Encoding", "").split(","):
        name, _, params = part.strip().partition(";")
        if name and not re.search(r"q\s*=\s*0(\.0*)?\s*$", params):
            out.add(name.strip().lower())
    return out


def _tags(header: str) -> set[str]:
    return {t.strip().removeprefix("W/") for t in header.split(",") if t.strip()}
