"""The version of VisualDL: read by the package's face, the SDK (into each log's header) and
``setup.py`` (by its text, without importing the package)."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "3.0.0.dev0"
