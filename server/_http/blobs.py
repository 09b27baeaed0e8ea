"""Blobs (images, audio clips) streamed from their log file, a chunk at a time.

The data provider says where a blob lies (file, offset, length; its record's checksums
checked); this module opens the file there and sends it with the media type its first
bytes name, so a huge image costs no more memory per request than a chunk.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import BinaryIO

from flask import Response

from visualdl.errors import NotFound

__all__ = ["streamed"]

log = logging.getLogger("visualdl.server")

_CHUNK = 1 << 20


#: What a blob's first bytes say it is (TensorBoard's event files may hold JPEG and GIF too).
_MEDIA_TYPES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
    (b"RIFF", "audio/wav"),
)


def _file_span(open_log: Callable[[str], BinaryIO], path: str, offset: int, length: int) -> tuple[str, Iterator[bytes]]:
    """The media type and ``length`` bytes of ``path`` from ``offset``, a chunk at a time;
    opened and its first chunk read before the response starts, so a file gone since
    its record was checked is still a 404."""
    try:
        f = open_log(path)
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


def streamed(open_log: Callable[[str], BinaryIO], path: str, offset: int, length: int) -> Response:
    """A blob streamed from its log file a chunk at a time: a huge image or clip costs no
    more memory per request than a chunk, however many clients ask for it at once.
    ``open_log`` opens the file by its path in the store that listed it."""
    mimetype, body = _file_span(open_log, path, offset, length)
    response = Response(body, mimetype=mimetype, direct_passthrough=True)
    response.headers["Content-Length"] = str(length)
    response.headers["Cache-Control"] = "private, max-age=3600"
    return response
