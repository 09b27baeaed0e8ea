"""The limits of the API's query parameters, stated once: ``_api`` enforces them, ``_openapi`` documents them.

Every name the API lists (runs, tags, graph names) is within its limit here
(:func:`visualdl.server._provider.servable`), so what ``/api/tags`` lists, the other
endpoints take.
"""

from __future__ import annotations

from visualdl.server._provider import MAX_RUN_LENGTH, MAX_TAG_LENGTH
from visualdl.server._settings import MIN_MAX_POINTS

__all__ = [
    "MAX_EXPAND",
    "MAX_PATH_DEPTH",
    "MAX_RUNS",
    "MAX_TEXT",
    "MIN_MAX_POINTS",
    "NUMBER_BOUNDS",
    "text_limit",
]

#: Characters of any other text parameter (q, node, model, path, an expanded group), at most.
MAX_TEXT = 1024
#: Values of a repeated ``run`` parameter in one request, at most.
MAX_RUNS = 1000
#: Values of a repeated ``expand`` parameter in one request, at most.
MAX_EXPAND = 10_000
#: Steps of a subgraph ``path`` (NODE.ATTRIBUTE.INDEX|...), at most.
MAX_PATH_DEPTH = 32
_TEXT_LIMITS = {"run": MAX_RUN_LENGTH, "tag": MAX_TAG_LENGTH, "name": MAX_TAG_LENGTH}
#: (minimum, maximum) of the integer parameters; ``max_points`` is bounded by ``Settings.max_points_limit``.
NUMBER_BOUNDS = {
    "index": (0, 2**62),
    "step": (0, 2**63 - 1),
    "max_entries": (1, 10_000),
}


def text_limit(name: str) -> int:
    """The most characters the text parameter ``name`` takes."""
    return _TEXT_LIMITS.get(name, MAX_TEXT)
