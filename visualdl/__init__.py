"""VisualDL: a training-log visualizer for single-process and distributed jobs.

The public surface::

    from visualdl import LogWriter, LogReader     # and visualdl.errors, visualdl.notebook,
                                                  # visualdl.server.app (create_app, Settings)
    from visualdl import SummaryWriter            # torch.utils.tensorboard's writer API

Modules whose names start with ``_`` are internal.

``setup.py`` installs the checkout's top-level ``sdk/``, ``server/``, ``proto/`` and
``frontend_static/`` folders as ``visualdl.sdk``, ``visualdl.server``, ``visualdl.proto``
and ``visualdl.frontend_static``. Run from a checkout (``python -m pytest`` at the
repository root), this folder shadows any installed copy, so it resolves exactly those
mapped packages itself, with a finder that knows only their names; no other folder of
the checkout (``tests``, ``demo``, ...) becomes importable as ``visualdl.*``.
"""

from __future__ import annotations

import os as _os
import sys as _sys
from importlib.machinery import ModuleSpec as _ModuleSpec
from importlib.machinery import PathFinder as _PathFinder
from typing import TYPE_CHECKING, Any

from visualdl._version import __version__

_HERE = _os.path.dirname(_os.path.abspath(__file__))
_ROOT = _os.path.dirname(_HERE)
#: The packages that live beside this folder in a checkout (setup.py's package_dir).
_MAPPED_PACKAGES = ("sdk", "server", "proto", "frontend_static")


class _CheckoutFinder:
    """Finds ``visualdl.<name>`` at ``<checkout>/<name>`` for the mapped names only."""

    def __init__(self, root: str) -> None:
        self.root = root

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> _ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != __name__ or name not in _MAPPED_PACKAGES:
            return None
        return _PathFinder.find_spec(fullname, [self.root])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _CheckoutFinder) and other.root == self.root

    def __hash__(self) -> int:
        return hash(self.root)


def _in_checkout() -> bool:
    return (
        not _os.path.isdir(_os.path.join(_HERE, "sdk"))
        and all(_os.path.isdir(_os.path.join(_ROOT, name)) for name in _MAPPED_PACKAGES)
        and _os.path.isfile(_os.path.join(_ROOT, "setup.py"))
    )


if _in_checkout() and _CheckoutFinder(_ROOT) not in _sys.meta_path:
    _sys.meta_path.insert(0, _CheckoutFinder(_ROOT))

if TYPE_CHECKING:
    from visualdl._logreader import LogReader
    from visualdl.sdk._summary import SummaryWriter
    from visualdl.sdk._writer import LogWriter

__all__ = ["LogReader", "LogWriter", "SummaryWriter", "__version__", "load_ipython_extension"]


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext visualdl``: the ``%visualdl`` magic (see :mod:`visualdl.notebook`)."""
    from visualdl.notebook import load_ipython_extension as load

    load(ipython)


def __getattr__(name: str) -> Any:
    # Lazy, so that `import visualdl` stays cheap and the server never pays for the SDK.
    if name == "LogWriter":
        from visualdl.sdk._writer import LogWriter

        return LogWriter
    if name == "SummaryWriter":
        from visualdl.sdk._summary import SummaryWriter

        return SummaryWriter
    if name == "LogReader":
        from visualdl._logreader import LogReader

        return LogReader
    raise AttributeError(f"module 'visualdl' has no attribute {name!r}")
