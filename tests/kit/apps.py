"""The server's app as the tests build it: from Settings, with no background thread.

Tests poll the provider themselves (``poll=True`` does it once here), so what an answer
holds never depends on when a reload thread happened to run.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from flask import Flask

from visualdl.server._settings import Settings
from visualdl.server.app import create_app


def build_app(
    *logdirs: str | os.PathLike[str] | tuple[str, str | os.PathLike[str]],
    models: Iterable[str | os.PathLike[str]] = (),
    poll: bool = True,
    **settings: Any,
) -> Flask:
    """An app over ``logdirs`` (paths, or ``(name, path)`` pairs) and ``models``, polled once if ``poll``."""
    pairs = tuple((d[0], str(d[1])) if isinstance(d, tuple) else ("", str(d)) for d in logdirs)
    if pairs:
        settings["logdirs"] = pairs
    if models:
        settings["models"] = tuple(str(m) for m in models)
    app = create_app(Settings(background=False, **settings))
    if poll:
        app.extensions["visualdl.provider"].poll()
    return app
