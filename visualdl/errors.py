"""The one exception tree of VisualDL.

Argument errors of the SDK are the built-in ``ValueError``/``TypeError`` (the
messages name the argument and the bad value); what goes wrong with files and
writers derives from :class:`VisualDLError`.
"""

from __future__ import annotations

__all__ = ["GraphError", "LogFormatError", "VisualDLError", "WriterError"]


class VisualDLError(Exception):
    """Root of VisualDL's own errors."""


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


class GraphError(VisualDLError, ValueError):
    """Bytes that are not a usable ONNX model: empty, truncated, not a model, no graph, a cycle,
    dangling inputs. The server answers 422 with the message."""
