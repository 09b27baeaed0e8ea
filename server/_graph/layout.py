"""A layered top-to-bottom layout of a directed graph (Sugiyama style). Pure.

:func:`layout` takes items with sizes and edges between them and returns positions and
edge routes:

1. cycles are broken by reversing the back edges of a depth-first search (collapsed
   name-scope groups can form cycles even when the model is a DAG);
2. layers by longest path from the sources;
3. an edge spanning several layers gets a dummy point per layer in between, so routes
   go around the boxes; the long edges of one source share theirs (a bundle branching
   off at each target), so the points grow with the layers a source spans, not with
   its edges times their spans;
4. crossings are reduced by barycentre ordering, sweeping down and up a few times;
5. x coordinates: each layer packed in its order, then pulled towards the mean of its
   neighbours' x in a few passes that keep the order and the gaps;
6. y by layer, each layer as tall as its tallest box.

Everything is O(items + edges x span) per sweep with plain lists; 20,000 items lay out
in about a second.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["layout"]

GAP_X = 28.0
GAP_Y = 46.0
SWEEPS = 4


def layout(sizes: Sequence[tuple[float, float]], edges: Sequence[tuple[int, int]]) -> dict[str, Any]:
    """Positions (box centres) of ``len(sizes)`` items and a polyline per edge (same order)."""
    n = len(sizes)
    succ: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        if a != b:
            succ[a].append(b)
    reversed_edges = _back_edges(n, succ)
    dag = [(b, a) if (a, b) in reversed_edges else (a, b) for a, b in edges if a != b]
    layer = _longest_path_layers(n, dag)
    g = _with_dummies(sizes, dag, layer)
    _order_by_barycentre(g)
    x = _x_positions(g)
    y, top = _y_positions(g)
    total = len(g.layer_of)
    leftmost = min((x[i] - g.widths[i] / 2 for i in range(total)), default=0.0)
    for i in range(total):
        x[i] -= leftmost
    width = max((x[i] + g.widths[i] / 2 for i in range(total)), default=0.0)
    return {
        "x": [round(v, 1) for v in x[:n]],
        "y": [round(v, 1) for v in y[:n]],
        "layers": layer[:n],
        "edges": _routes(edges, dag, g, reversed_edges, x, y),
        "width": round(width, 1),
        "height": round(max(top - GAP_Y, 0.0), 1),
    }


@dataclass(slots=True)
class _Layered:
    """The graph while it is laid out: the items, then a dummy point per layer a long edge
    crosses (ids ``n..``), each with its layer, size and neighbours above and below; the
    chain of points of each edge of the DAG; the ids of each layer, in their order."""

    layer_of: list[int]
    widths: list[float]
    heights: list[float]
    up: list[list[int]]
    down: list[list[int]]
    chains: list[list[int]] = field(default_factory=list)
    layers: list[list[int]] = field(default_factory=list)


def _longest_path_layers(n: int, dag: list[tuple[int, int]]) -> list[int]:
    """2. Each item's layer: the longest path from a source to it, in topological order."""
    out: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for a, b in dag:
        out[a].append(b)
        indeg[b] += 1
    layer = [0] * n
    stack = [i for i in range(n) if indeg[i] == 0]
    while stack:
        i = stack.pop()
        li = layer[i] + 1
        for j in out[i]:
            if layer[j] < li:
                layer[j] = li
            indeg[j] -= 1
            if indeg[j] == 0:
                stack.append(j)
    return layer


def _with_dummies(sizes: Sequence[tuple[float, float]], dag: list[tuple[int, int]], layer: list[int]) -> _Layered:
    """3. Dummy points for long edges. The long edges of one source share theirs (a bundle
    that branches off at each target's layer): a node feeding many later layers, as in a
    DenseNet, costs one point per layer spanned, not one per edge and layer."""
    n = len(sizes)
    g = _Layered(
        list(layer), [w for w, _ in sizes], [h for _, h in sizes], [[] for _ in range(n)], [[] for _ in range(n)]
    )
    layer_of = g.layer_of
    bundle: dict[int, list[int]] = {}
    reach: dict[int, int] = {}
    for a, b in dag:
        reach[a] = max(reach.get(a, 0), layer_of[b] - layer_of[a] - 1)
    for a, b in dag:
        span = layer_of[b] - layer_of[a] - 1
        if span <= 0:
            g.down[a].append(b)
            g.up[b].append(a)
            g.chains.append([a, b])
            continue
        shared = bundle.get(a)
        if shared is None:
            shared = bundle[a] = []
            prev = a
            for lv in range(layer_of[a] + 1, layer_of[a] + 1 + reach[a]):
                d = len(layer_of)
                layer_of.append(lv)
                g.widths.append(2.0)
                g.heights.append(2.0)
                g.up.append([prev])
                g.down.append([])
                g.down[prev].append(d)
                shared.append(d)
                prev = d
        last = shared[span - 1]
        g.down[last].append(b)
        g.up[b].append(last)
        g.chains.append([a, *shared[:span], b])
    g.layers = [[] for _ in range(max(layer_of, default=-1) + 1)]
    for i in range(len(layer_of)):
        g.layers[layer_of[i]].append(i)
    return g


def _order_by_barycentre(g: _Layered) -> None:
    """4. Fewer crossings: each layer ordered by the mean position of its neighbours above
    (sweeping down) or below (sweeping up), a few times."""
    layers = g.layers
    depth = len(layers)
    pos = [0.0] * len(g.layer_of)
    for row in layers:
        for k, i in enumerate(row):
            pos[i] = float(k)
    for sweep in range(SWEEPS):
        order = range(1, depth) if sweep % 2 == 0 else range(depth - 2, -1, -1)
        for lv in order:
            row = layers[lv]
            ref = g.up if sweep % 2 == 0 else g.down
            keyed = []
            for k, i in enumerate(row):
                nbrs = ref[i]
                keyed.append((sum(pos[j] for j in nbrs) / len(nbrs) if nbrs else pos[i], k, i))
            keyed.sort()
            layers[lv] = row = [i for _, _, i in keyed]
            for k, i in enumerate(row):
                pos[i] = float(k)


def _x_positions(g: _Layered) -> list[float]:
    """5. x: each layer packed in its order, then pulled towards its neighbours keeping the
    order and the gaps."""
    layers, widths = g.layers, g.widths
    depth = len(layers)
    x = [0.0] * len(g.layer_of)
    for row in layers:
        cursor = 0.0
        for i in row:
            x[i] = cursor + widths[i] / 2
            cursor += widths[i] + GAP_X
        shift = cursor / 2
        for i in row:
            x[i] -= shift
    for sweep in range(SWEEPS):
        ref = g.up if sweep % 2 == 0 else g.down
        order = range(depth) if sweep % 2 == 0 else range(depth - 1, -1, -1)
        for lv in order:
            row = layers[lv]
            want = [sum(x[j] for j in ref[i]) / len(ref[i]) if ref[i] else x[i] for i in row]
            for k, v in enumerate(_placed(want, [widths[i] for i in row])):
                x[row[k]] = v
    return x


def _placed(want: list[float], widths: list[float]) -> list[float]:
    """Centres as near ``want`` as the order and the gaps allow: two greedy placements, one
    from each side; their mean keeps both too (the constraints are linear)."""
    m = len(want)
    left = [0.0] * m
    right = [0.0] * m
    for k in range(m):
        left[k] = want[k] if k == 0 else max(want[k], left[k - 1] + (widths[k - 1] + widths[k]) / 2 + GAP_X)
    for k in range(m - 1, -1, -1):
        right[k] = want[k] if k == m - 1 else min(want[k], right[k + 1] - (widths[k + 1] + widths[k]) / 2 - GAP_X)
    return [(left[k] + right[k]) / 2 for k in range(m)]


def _y_positions(g: _Layered) -> tuple[list[float], float]:
    """6. y by layer, each layer as tall as its tallest box; and the bottom of the last gap."""
    y = [0.0] * len(g.layer_of)
    top = 0.0
    for row in g.layers:
        tallest = max((g.heights[i] for i in row), default=0.0)
        for i in row:
            y[i] = top + tallest / 2
        top += tallest + GAP_Y
    return y, top


def _routes(
    edges: Sequence[tuple[int, int]],
    dag: list[tuple[int, int]],
    g: _Layered,
    reversed_edges: set[tuple[int, int]],
    x: list[float],
    y: list[float],
) -> list[list[list[float]]]:
    """A polyline per edge, in the order of ``edges``: from the bottom of its source to the
    top of its target through its dummy points (a reversed edge's, backwards; a self loop: [])."""
    heights = g.heights
    by_edge: dict[tuple[int, int], list[list[float]]] = {}
    for (a, b), chain in zip(dag, g.chains, strict=True):
        points = [[round(x[c], 1), round(y[c], 1)] for c in chain]
        points[0][1] = round(y[a] + heights[a] / 2, 1)
        points[-1][1] = round(y[b] - heights[b] / 2, 1)
        # A point in a straight vertical run adds nothing to the drawn line.
        by_edge[(a, b)] = [
            p
            for k, p in enumerate(points)
            if k in (0, len(points) - 1) or not points[k - 1][0] == p[0] == points[k + 1][0]
        ]
    paths: list[list[list[float]]] = []
    for a, b in edges:
        if a == b:
            paths.append([])
        elif (a, b) in reversed_edges:
            paths.append(list(reversed(by_edge[(b, a)])))
        else:
            paths.append(by_edge[(a, b)])
    return paths


def _back_edges(n: int, succ: list[list[int]]) -> set[tuple[int, int]]:
    """Edges closing a cycle in an iterative depth-first search."""
    state = [0] * n  # 0 new, 1 on the stack, 2 done
    back: set[tuple[int, int]] = set()
    for root in range(n):
        if state[root]:
            continue
        stack = [(root, 0)]
        state[root] = 1
        while stack:
            i, k = stack[-1]
            if k < len(succ[i]):
                stack[-1] = (i, k + 1)
                j = succ[i][k]
                if state[j] == 0:
                    state[j] = 1
                    stack.append((j, 0))
                elif state[j] == 1:
                    back.add((i, j))
            else:
                state[i] = 2
                stack.pop()
    return back
