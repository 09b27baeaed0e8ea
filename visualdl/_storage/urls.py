"""Whether a logdir string names a URL or a local path: the one place that reads it."""

from __future__ import annotations

import re

__all__ = ["is_url", "local_path"]

_URL = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://")


def is_url(logdir: str) -> bool:
    """Whether ``logdir`` names a filesystem other than the local one (``file://`` is local)."""
    m = _URL.match(logdir)
    return m is not None and m.group(1).lower() not in ("file", "local")


def local_path(logdir: str) -> str:
    """``logdir`` as a local path: ``file:///x`` is ``/x``; anything else as it is."""
    m = _URL.match(logdir)
    if m is not None and m.group(1).lower() in ("file", "local"):
        return logdir[m.end() :] or "/"
    return logdir


def protocol(url: str) -> str:
    """The protocol of a URL, lower case; ``ValueError`` for a string that is not one."""
    m = _URL.match(url)
    if m is None:
        raise ValueError(f"not a URL: {url!r}")
    return m.group(1).lower()
