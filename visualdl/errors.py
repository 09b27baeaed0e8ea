"""The one exception tree of VisualDL.

Argument errors of the SDK are the built-in ``ValueError``/``TypeError`` (the
messages name the argument and the bad value); what goes wrong with files and
writers derives from :class:`VisualDLError`.

The errors a query can meet carry the HTTP status the server answers them with
(``http_status``); the server's one error handler maps every :class:`VisualDLError`
through it, so the reader and the data provider raise them without knowing HTTP:

- :class:`NotFound` (404): an unknown run, tag, graph, node or entry; also a ``KeyError``.
- :class:`InvalidArgument` (400): a parameter that is missing, malformed or out of range;
  also a ``ValueError``.
- :class:`CannotShow` (422): data that exists but cannot be shown (a model that is not a
  usable graph: :class:`GraphError`); also a ``ValueError``.

Any other :class:`VisualDLError` reaching the server is a fault of the server (500).
"""

from __future__ import annotations

__all__ = [
    "CannotShow",
    "GraphError",
    "InvalidArgument",
    "LogFormatError",
    "NotFound",
    "VisualDLError",
    "WriterError",
]


class VisualDLError(Exception):
    """Root of VisualDL's own errors."""

    #: The HTTP status the server answers this error with; 500: a fault of the server.
    http_status: int = 500
    #: A stable name of the error for clients (``"code"`` of the JSON error answer).
    code: str = "internal_error"


class NotFound(VisualDLError, KeyError):
    """An unknown run, tag, graph, node or entry (HTTP 404).

    Also a ``KeyError``, as the reader's lookups raised before; unlike a ``KeyError``'s,
    its ``str()`` is the message itself, not its quoted ``repr``.
    """

    http_status = 404
    code = "not_found"

    def __str__(self) -> str:
        return str(self.args[0]) if len(self.args) == 1 else super().__str__()


class InvalidArgument(VisualDLError, ValueError):
    """A query parameter that is missing, empty, malformed or out of range (HTTP 400)."""

    http_status = 400
    code = "invalid_argument"


class CannotShow(VisualDLError, ValueError):
    """Data that exists but cannot be shown as asked (HTTP 422)."""

    http_status = 422
    code = "cannot_show"


class LogFormatError(VisualDLError):
    """A log file holds bytes that are not a valid record; names the file and offset when known."""

    def __init__(self, message: str, path: str | None = None, offset: int | None = None) -> None:
        self.message = message
        self.path = path
        self.offset = offset
        where = ""
        if path is not None:
            where = f"{path}" + (f" at byte {offset}" if offset is not None else "") + ": "
        super().__init__(where + message)


class WriterError(VisualDLError):
    """The background writer of a LogWriter failed (disk full, permission denied, logdir gone).

    Raised from the next ``add_*``, ``flush()`` or ``close()`` on the caller's thread,
    chained to the original ``OSError``; data not yet written is kept and retried.
    """


class GraphError(CannotShow):
    """Bytes that are not a usable ONNX model: empty, truncated, not a model, no graph, a cycle,
    dangling inputs. The server answers 422 with the message."""
