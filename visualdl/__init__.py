"""VisualDL: a training-log visualizer for single-process and distributed jobs.

The public surface::

    from visualdl import LogWriter, LogReader

``setup.py`` installs the checkout's top-level ``sdk/``, ``server/`` and ``proto/``
folders as ``visualdl.sdk``, ``visualdl.server`` and ``visualdl.proto``. Run from a
checkout (``python -m pytest`` at the repository root), this folder shadows any
installed copy, so it resolves those mapped subpackages itself: the repository root
joins this package's search path, and only the mapped names are looked up there.
"""

from __future__ import annotations

import os as _os
from typing import TYPE_CHECKING, Any

__version__ = "3.0.0.dev0"

_HERE = _os.path.dirname(_os.path.abspath(__file__))
_ROOT = _os.path.dirname(_HERE)
#: The subpackages that live beside this folder in a checkout.
MAPPED_SUBPACKAGES = ("sdk", "server", "proto")

if not _os.path.isdir(_os.path.join(_HERE, "sdk")) and all(
    _os.path.isfile(_os.path.join(_ROOT, name, "__init__.py")) for name in MAPPED_SUBPACKAGES
):
    # A checkout: resolve visualdl.sdk -> <root>/sdk and so on.
    __path__.append(_ROOT)

if TYPE_CHECKING:
    from visualdl._reader import LogReader
    from visualdl.sdk._writer import LogWriter

__all__ = ["LogReader", "LogWriter", "__version__"]


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext visualdl``: the ``%visualdl`` magic (see :mod:`visualdl.notebook`)."""
    from visualdl.notebook import load_ipython_extension as load

    load(ipython)


def __getattr__(name: str) -> Any:
    # Lazy, so that `import visualdl` stays cheap and the server never pays for the SDK.
    if name == "LogWriter":
        from visualdl.sdk._writer import LogWriter

        return LogWriter
    if name == "LogReader":
        from visualdl._reader import LogReader

        return LogReader
    raise AttributeError(f"module 'visualdl' has no attribute {name!r}")
