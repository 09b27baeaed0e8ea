"""The server's one settings object, built by the CLI, the notebook helper or a test.

:class:`Settings` checks every field when it is built (a bad one is a ``ValueError``, or a
``TypeError`` for a value of the wrong type, naming the field and what it takes), so an
embedding user's ``Settings(max_points=0)`` fails there, not in every request. The CLI
checks its options with the same rules (:func:`check_setting`).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields
from typing import Any

from visualdl._index.series import CACHE_DIR_ENV
from visualdl._storage import is_url
from visualdl.errors import CannotShow
from visualdl.server._hosts import normalise_host_name
from visualdl.server._patterns import compile_pattern

__all__ = ["DEFAULT_MAX_POINTS", "MAX_POINTS_LIMIT", "Settings", "check_setting", "parse_logdir_spec"]

#: The default of ``Settings.max_points_limit``: the most points of one series in one response.
MAX_POINTS_LIMIT = 100_000
#: Points per series of a chart by default: a run of up to this many is drawn whole.
DEFAULT_MAX_POINTS = 5000
#: ``max_points`` at least: downsampling keeps up to 5 points of each bucket.
MIN_MAX_POINTS = 5
#: ``max_points_limit`` at most: a response of ten million points is already ~200 MB of JSON.
MAX_POINTS_CEILING = 10_000_000
#: ``reload_interval`` at most, in seconds (a day).
MAX_RELOAD_INTERVAL = 86400.0


@dataclass(frozen=True, slots=True)
class Settings:
    #: (name, path) per logdir; a name of "" means the runs keep their own names.
    logdirs: tuple[tuple[str, str], ...] = ()
    host: str = "127.0.0.1"
    port: int = 8080
    #: Seconds between two polls of the logdirs.
    reload_interval: float = 2.0
    #: Default and upper bound of the points of one series in one response.
    max_points: int = DEFAULT_MAX_POINTS
    max_points_limit: int = MAX_POINTS_LIMIT
    #: URL prefix when served behind a reverse proxy, e.g. "/visualdl"; "" for none.
    path_prefix: str = ""
    #: ONNX model files shown with or without a logdir (``--model``).
    models: tuple[str, ...] = field(default_factory=tuple)
    #: Poll in a background thread (off in tests that poll by hand).
    background: bool = True
    #: Host names answered besides loopback ones and ``host`` (see :mod:`visualdl.server._hosts`);
    #: ``"*.example.org"`` every name under a domain, ``"*"`` any name. The CLI's ``--allow-host``
    #: and ``VISUALDL_PROXY_URL``'s host.
    allowed_hosts: tuple[str, ...] = ()
    #: A regular expression (RE2) of the scalar tags that every rank of a job logs with the same
    #: value: their divergence is looked for whatever the values look like (``--replicated-tags``).
    replicated_tags: str = ""
    #: The directory of the scratch file of scalar points (``LogReader``'s ``cache_dir``). None:
    #: ``$VISUALDL_CACHE_DIR`` when it is set (read when the settings are built), else the
    #: system's temporary directory (then the field stays None).
    cache_dir: str | None = None

    def __post_init__(self) -> None:
        # Lists and path objects are taken as the tuples and strings they stand for.
        if isinstance(self.logdirs, list | tuple):
            object.__setattr__(self, "logdirs", tuple(_pair(item) for item in self.logdirs))
        if isinstance(self.models, list | tuple):
            object.__setattr__(self, "models", tuple(_path(m) for m in self.models))
        if isinstance(self.allowed_hosts, list | tuple):
            object.__setattr__(self, "allowed_hosts", tuple(self.allowed_hosts))
        if self.cache_dir is None:
            object.__setattr__(self, "cache_dir", os.environ.get(CACHE_DIR_ENV) or None)
        else:
            object.__setattr__(self, "cache_dir", _path(self.cache_dir))
        names = sorted((f.name for f in fields(self)), key=lambda n: n != "max_points_limit")  # the bound first
        for name in names:
            try:
                check_setting(name, getattr(self, name), max_points_limit=self.max_points_limit)
            except (TypeError, ValueError) as e:
                raise type(e)(f"Settings.{name} {e}") from None


def check_setting(name: str, value: Any, *, max_points_limit: Any = MAX_POINTS_LIMIT) -> None:
    """Raise ``TypeError`` (wrong type) or ``ValueError`` (out of range) saying what the field
    ``name`` takes: "must be ...; got VALUE"."""
    got = f"; got {_shown(value)}"
    if name == "logdirs":
        if not isinstance(value, tuple) or not all(_is_pair(item) for item in value):
            raise TypeError("must be a tuple of (name, path) pairs of strings, e.g. (('', 'runs'),)" + got)
        if any(not path or "\x00" in name + path for name, path in value):
            raise ValueError("must have a non-empty path without NUL characters in every pair" + got)
    elif name == "host":
        if not isinstance(value, str):
            raise TypeError("must be a string: the host name or IP address to bind" + got)
        if not 0 < len(value) <= 255 or not _printable(value):
            raise ValueError("must be a host name or IP address: 1 to 255 printable characters, no spaces" + got)
    elif name in ("port", "max_points", "max_points_limit"):
        if name == "port":
            low, high = 0, 65535
        elif name == "max_points_limit":
            low, high = MIN_MAX_POINTS, MAX_POINTS_CEILING
        else:
            low, high = MIN_MAX_POINTS, max_points_limit if _is_int(max_points_limit) else MAX_POINTS_LIMIT
        if not _is_int(value):
            raise TypeError(f"must be an integer from {low} to {high}" + got)
        if not low <= value <= high:
            limit = " (max_points_limit)" if name == "max_points" and high != MAX_POINTS_LIMIT else ""
            raise ValueError(f"must be from {low} to {high}{limit}" + got)
    elif name == "reload_interval":
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise TypeError(f"must be a number of seconds, above 0 and at most {MAX_RELOAD_INTERVAL:g}" + got)
        if not (math.isfinite(value) and 0 < value <= MAX_RELOAD_INTERVAL):
            raise ValueError(f"must be above 0 and at most {MAX_RELOAD_INTERVAL:g} seconds" + got)
    elif name == "path_prefix":
        if not isinstance(value, str):
            raise TypeError("must be a string: a URL path like '/visualdl', or '' for none" + got)
        if value and (
            not value.startswith("/") or "//" in value or ".." in value.split("/")
            or any(c in value for c in "?#%\\") or not _printable(value)
        ):  # fmt: skip
            raise ValueError("must be '' or a URL path like '/visualdl': no '..', '//', spaces, or any of ?#%\\" + got)
    elif name == "models":
        if not isinstance(value, tuple) or not all(isinstance(m, str) for m in value):
            raise TypeError("must be a tuple of model file paths" + got)
        if not all(m and "\x00" not in m for m in value):
            raise ValueError("must hold non-empty paths without NUL characters" + got)
    elif name == "background":
        if not isinstance(value, bool):
            raise TypeError("must be True or False" + got)
    elif name == "allowed_hosts":
        if not isinstance(value, tuple) or not all(isinstance(h, str) for h in value):
            raise TypeError("must be a tuple of host names, e.g. ('example.org',)" + got)
        for host in value:
            normalise_host_name(host)  # a ValueError saying what a host name is
    elif name == "replicated_tags":
        if not isinstance(value, str):
            raise TypeError("must be a string: a regular expression of tags, or '' for none" + got)
        if value:
            try:
                compile_pattern(value)
            except CannotShow as e:
                raise ValueError(f"must be a regular expression RE2 compiles ({e})" + got) from None
    elif name == "cache_dir":
        if value is not None and not isinstance(value, str):
            raise TypeError("must be a directory's path, or None for the default" + got)
        if value is not None and (not value or "\x00" in value):
            raise ValueError("must be a non-empty path without NUL characters, or None for the default" + got)


def _pair(item: Any) -> Any:
    if isinstance(item, list | tuple) and len(item) == 2:
        return (item[0], _path(item[1]))
    return item


def _path(value: Any) -> Any:
    return os.fspath(value) if isinstance(value, os.PathLike) else value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _printable(text: str) -> bool:
    return all(c.isprintable() and not c.isspace() for c in text)


def _is_pair(item: Any) -> bool:
    return isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "…"


def parse_logdir_spec(spec: str) -> tuple[str, str]:
    """``name:DIR`` or ``DIR`` -> ``(name, DIR)``; on Windows a drive letter (``C:\\logs``,
    ``C:/logs``) is not a name. Elsewhere ``b:/abs/path`` names the logdir ``b``."""
    if is_url(spec):
        return "", spec
    name, sep, path = spec.partition(":")
    drive = os.name == "nt" and len(name) == 1 and path.startswith(("\\", "/"))
    if sep and name and path and not drive and os.sep not in name:
        return name, path
    return "", spec
