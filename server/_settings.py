"""The server's one settings object, built by the CLI, the notebook helper or a test."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

__all__ = ["Settings", "parse_logdir_spec"]


@dataclass(frozen=True, slots=True)
class Settings:
    #: (name, path) per logdir; a name of "" means the runs keep their own names.
    logdirs: tuple[tuple[str, str], ...] = ()
    host: str = "127.0.0.1"
    port: int = 8080
    #: Seconds between two polls of the logdirs.
    reload_interval: float = 2.0
    #: Default and upper bound of the points of one series in one response.
    max_points: int = 1000
    max_points_limit: int = 100_000
    #: URL prefix when served behind a reverse proxy, e.g. "/visualdl"; "" for none.
    path_prefix: str = ""
    #: ONNX model files shown with or without a logdir (``--model``).
    models: tuple[str, ...] = field(default_factory=tuple)
    #: Poll in a background thread (off in tests that poll by hand).
    background: bool = True


def parse_logdir_spec(spec: str) -> tuple[str, str]:
    """``name:DIR`` or ``DIR`` -> ``(name, DIR)``; a Windows drive letter is not a name."""
    name, sep, path = spec.partition(":")
    if sep and name and path and not (len(name) == 1 and path.startswith(("\\", "/"))) and os.sep not in name:
        return name, path
    return "", spec
