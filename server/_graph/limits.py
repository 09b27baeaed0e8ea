"""Limits of the graph views that the HTTP layer states too, kept apart from the graph
model so that importing them imports no ``onnx`` (the server loads it on a graph's first view)."""

from __future__ import annotations

__all__ = ["MAX_PATH_DEPTH"]

#: Steps of a subgraph ``path`` (NODE.ATTRIBUTE.INDEX|...), at most.
MAX_PATH_DEPTH = 32
