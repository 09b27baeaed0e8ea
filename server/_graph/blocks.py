"""Structure for graphs whose node names carry none: the groups a node sits in.

Name scopes (``/layer1/layer1.0/conv1/Conv``, as torch's legacy exporter and most others
name nodes) are read by :func:`visualdl.server._graph.model.scope_of`. Calls of a model's local
functions are inlined first (:func:`inline_functions`), under the call's name, so each
call is a group. Where no node has one,
two other sources give groups, in this order:

* **torch's dynamo exporter** names nodes ``node_linear_3`` and keeps the module path in
  each node's ``metadata_props``: ``pkg.torch.onnx.name_scopes`` (``['', 'layers',
  'layers.0', 'layers.0.fc', 'linear']``, the root first and the op last) and
  ``pkg.torch.onnx.class_hierarchy`` (the module classes, aligned). :func:`torch_scopes`
  turns them into the same group paths a legacy export has, with each module's class.
* **repeated blocks**, found in the graph itself (:func:`repeated_blocks`): the nodes in
  topological order are cut wherever one value alone crosses between what comes before
  and what comes after (after a residual ``Add``, a ``Concat`` of a dense block, a layer
  norm). Runs of
  blocks alike (the same ops in the same order, or the same period of two to four
  pieces, as the attention and feed-forward halves of a Transformer layer) become
  ``block N`` groups inside a ``blocks A-B`` group per run: ResNet-50's 16 bottlenecks
  are 16 blocks in 4 runs, a Transformer's layers one run. A piece of one or two nodes
  after a lone block joins it (the ReLU after a residual ``Add``); the stretches between
  blocks are blocks of their own when they hold three nodes or more (a stem, a head).
"""

from __future__ import annotations

import ast
import heapq
from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx

__all__ = [
    "MAX_SCOPE_CHARS",
    "MAX_SCOPE_DEPTH",
    "MIN_BLOCK",
    "capped_scope",
    "inline_functions",
    "repeated_blocks",
    "torch_scopes",
]

#: Pieces of fewer nodes are not blocks of their own.
MIN_BLOCK = 3
#: The longest period of pieces a repeated block may have.
_MAX_PERIOD = 4
#: Group levels of a node, at most: a name of thousands of ``/`` would make as many groups,
#: each path as long as the name (a 144 KB name, a 70 MB answer). Deeper levels are not groups.
MAX_SCOPE_DEPTH = 32
#: A group's path, at most this many characters: deeper levels are not groups.
MAX_SCOPE_CHARS = 512
_NAME_SCOPES = "pkg.torch.onnx.name_scopes"
_CLASSES = "pkg.torch.onnx.class_hierarchy"
#: Metadata longer than this is not parsed (a name path is a few hundred characters).
_MAX_META = 8192


def capped_scope(parts: list[str]) -> tuple[str, ...]:
    """The group paths of scope ``parts`` (outermost first), up to the first whose path
    passes :data:`MAX_SCOPE_CHARS` or :data:`MAX_SCOPE_DEPTH` levels."""
    out: list[str] = []
    path = ""
    for part in parts[:MAX_SCOPE_DEPTH]:
        path = f"{path}/{part}" if path else part
        if len(path) > MAX_SCOPE_CHARS:
            break
        out.append(path)
    return tuple(out)


def _literal_list(text: str) -> list[str] | None:
    """A Python list of strings as the exporter writes it, or None."""
    if len(text) > _MAX_META:
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def _local(name: str, parent: str) -> str:
    """``layers.0.fc`` under ``layers.0`` -> ``fc``; a bare index keeps its parent's name (``layers.0``)."""
    if parent and name.startswith(parent + "."):
        rest = name[len(parent) + 1 :]
        return name if rest.isdigit() else rest
    return name


def torch_scopes(protos: Sequence[onnx.NodeProto]) -> tuple[list[tuple[str, ...]], dict[str, str]] | None:
    """Group paths of each node from torch dynamo's metadata, and each group's module class;
    None when no node has the metadata."""
    scopes: list[tuple[str, ...]] = []
    classes: dict[str, str] = {}
    found = False
    for proto in protos:
        meta = {p.key: p.value for p in proto.metadata_props if p.key in (_NAME_SCOPES, _CLASSES)}
        names = _literal_list(meta.get(_NAME_SCOPES, ""))
        if not names or len(names) < 3:  # root, op: in no module
            scopes.append(())
            continue
        found = True
        kinds = _literal_list(meta.get(_CLASSES, "")) or []
        modules = names[1 : 1 + MAX_SCOPE_DEPTH]
        parts: list[str] = []
        parent = ""
        for module in modules:
            parts.append(_local(module, parent).replace("/", "\u2215"))  # a slash would split the path
            parent = module
        paths = capped_scope(parts)
        if len(kinds) == len(names):
            for depth, path in enumerate(paths):
                classes.setdefault(path, kinds[depth + 1].rsplit(".", 1)[-1])
        scopes.append(paths)
    return (scopes, classes) if found else None


def _topological(n: int, preds: list[list[int]]) -> list[int]:
    """Node indices in an order where every node comes after its predecessors, file order kept where it can."""
    indegree = [len(p) for p in preds]
    succs: list[list[int]] = [[] for _ in range(n)]
    for i, ps in enumerate(preds):
        for p in ps:
            succs[p].append(i)
    ready = [i for i in range(n) if not indegree[i]]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for j in succs[i]:
            indegree[j] -= 1
            if not indegree[j]:
                heapq.heappush(ready, j)
    return order


def _pieces(nodes: list[dict[str, Any]], drawn: list[int], producer: dict[str, int]) -> list[list[int]]:
    """``drawn`` nodes in topological order, cut where at most one value crosses."""
    at = {node: k for k, node in enumerate(drawn)}
    preds = [
        sorted({at[producer[v]] for v in nodes[i]["inputs"] if v in producer and producer[v] in at}) for i in drawn
    ]
    order = _topological(len(drawn), preds)
    if len(order) != len(drawn):  # a cycle: the graph was checked before, so never
        return []
    position = np.empty(len(drawn), np.int64)
    position[order] = np.arange(len(order))
    # For every value: live from its producer's position up to its last consumer's.
    last = position.copy()
    for k, ps in enumerate(preds):
        for p in ps:
            last[p] = max(last[p], position[k])
    crossing = np.zeros(len(drawn) + 1, np.int64)
    spans = last > position
    np.add.at(crossing, position[spans], 1)
    np.add.at(crossing, last[spans], -1)
    live = np.cumsum(crossing)[:-1]  # values crossing the boundary after each position
    cuts = np.flatnonzero(live <= 1)
    pieces = []
    start = 0
    for cut in cuts.tolist():
        pieces.append([drawn[order[k]] for k in range(start, cut + 1)])
        start = cut + 1
    if start < len(order):
        pieces.append([drawn[order[k]] for k in range(start, len(order))])
    return pieces


def _repeats(signatures: list[tuple[str, ...]]) -> list[np.ndarray]:
    """``[p - 1][k]``: how many times the ``p`` pieces from piece ``k`` on repeat back to back
    (1: once), for each period ``p`` up to :data:`_MAX_PERIOD`; linear in the pieces.

    The pieces from ``k`` repeat ``r`` times when every piece from ``k`` on, up to ``(r - 1) * p``
    of them, equals the one ``p`` after it: ``1 + L // p``, ``L`` the length of the run of such
    equalities from ``k`` (signatures compared as numbers, one per distinct signature)."""
    ids: dict[tuple[str, ...], int] = {}
    codes = np.array([ids.setdefault(sig, len(ids)) for sig in signatures], np.int64)
    n = len(codes)
    out = []
    for period in range(1, _MAX_PERIOD + 1):
        equal = codes[:-period] == codes[period:] if n > period else np.zeros(0, bool)
        at = np.arange(len(equal))
        # The first position from each on where the next piece a period on differs.
        stop = np.minimum.accumulate(np.where(equal, len(equal), at)[::-1])[::-1]
        run = np.zeros(n, np.int64)
        run[: len(equal)] = stop - at
        out.append(1 + run // period)
    return out


def repeated_blocks(
    nodes: list[dict[str, Any]], hidden: set[int], producer: dict[str, int]
) -> tuple[list[tuple[str, ...]], dict[str, str]] | None:
    """Group paths of each node from the repeated blocks of the graph (see the module
    docstring), and a description of each run; None when there are fewer than two blocks."""
    drawn = [i for i in range(len(nodes)) if i not in hidden]
    pieces = _pieces(nodes, drawn, producer)
    small = [len(piece) < MIN_BLOCK for piece in pieces]
    sizes = [len(piece) for piece in pieces]
    repeats_of = _repeats([tuple(nodes[i]["op_type"] for i in piece) for piece in pieces])
    # Runs: a period of 1 to _MAX_PERIOD pieces repeated; the longest cover wins, the shortest period on a tie.
    found: list[tuple[int, int, int]] = []  # (first piece, pieces per block, repeats)
    k = 0
    while k < len(pieces):
        best = (1, 1)
        for period in range(1, _MAX_PERIOD + 1):
            if k + period > len(pieces):
                break
            repeats = int(repeats_of[period - 1][k])
            if repeats > 1 and repeats * period > best[0] * best[1]:
                best = (period, repeats)
        period, repeats = best
        if repeats == 1 and not small[k] and k + 1 < len(pieces) and small[k + 1]:
            period = 2  # a block alone takes the op or two after it (the ReLU after a residual Add)
        if sum(sizes[k : k + period]) >= MIN_BLOCK:
            found.append((k, period, repeats))
            k += period * repeats
        else:
            k += 1
    # What no block took: each stretch of it one chain, a block of its own if long enough.
    blocks: list[tuple[int, int, int]] = []
    taken = 0
    for first, period, repeats in [*found, (len(pieces), 0, 0)]:
        if first > taken and sum(len(p) for p in pieces[taken:first]) >= MIN_BLOCK:
            blocks.append((taken, first - taken, 1))
        if repeats:
            blocks.append((first, period, repeats))
        taken = first + period * repeats
    count = sum(repeats for _, _, repeats in blocks)
    if count < 2:
        return None
    scopes: list[tuple[str, ...]] = [() for _ in nodes]
    about: dict[str, str] = {}
    number = 0
    for first, period, repeats in blocks:
        run = ""
        if repeats > 1:
            run = f"blocks {number + 1}\u2013{number + repeats}"  # an en dash
            ops = sum(len(p) for p in pieces[first : first + period])
            about[run] = f"{repeats} blocks alike, {ops} nodes each"
        for r in range(repeats):
            number += 1
            block = f"block {number}"
            path = f"{run}/{block}" if run else block
            for piece in pieces[first + r * period : first + (r + 1) * period]:
                for i in piece:
                    scopes[i] = (run, path) if run else (path,)
    return scopes, about


#: Calls of local functions nested deeper than this are left as calls.
_MAX_INLINE_DEPTH = 8
#: Inlining stops once the graph would hold more nodes than this.
_MAX_INLINED_NODES = 200_000


def inline_functions(model: onnx.ModelProto, warnings: list[str] | None = None) -> int:
    """Replace, in the main graph of ``model``, every call of one of its local functions
    (``model.functions``, as torch's ``export_modules_as_functions`` writes them) by the
    function's nodes, named under the call (``/layers/layers.0/Block`` calling ``Gemm_0``
    gives ``/layers/layers.0/Block/Gemm_0``), so that the call is a group to open. The
    function's own values get names of the call's (``<call>::<value>``); its inputs and
    outputs are the call's. Returns the number of calls inlined.

    A call is inlined while the graph holds at most :data:`_MAX_INLINED_NODES` nodes, those of
    the subgraphs the function's nodes hold (an ``If``'s branches) counted too; the calls left
    as they are, and those nested deeper than :data:`_MAX_INLINE_DEPTH`, are said in ``warnings``."""
    functions = {(f.domain, f.name): f for f in model.functions}
    if not functions:
        return 0
    calls = 0
    sizes = {key: _nodes_held(f.node) for key, f in functions.items()}
    left: dict[str, int] = {}

    def expand(nodes: Sequence[onnx.NodeProto], depth: int, budget: list[int]) -> list[onnx.NodeProto]:
        nonlocal calls
        out: list[onnx.NodeProto] = []
        for node in nodes:
            key = (node.domain, node.op_type)
            function = functions.get(key)
            if function is not None and (depth >= _MAX_INLINE_DEPTH or budget[0] < sizes[key]):
                left[node.op_type] = left.get(node.op_type, 0) + 1
            if function is None or depth >= _MAX_INLINE_DEPTH or budget[0] < sizes[key]:
                out.append(node)
                continue
            budget[0] -= sizes[key]
            calls += 1
            scope = node.name or f"{node.op_type}_{calls}"
            rename = {name: actual for name, actual in zip(function.input, node.input, strict=False)}
            rename.update(zip(function.output, node.output, strict=False))
            given = {a.name: a for a in node.attribute}
            defaults = {a.name: a for a in function.attribute_proto}
            body = []
            for inner in function.node:
                copy = onnx.NodeProto()
                copy.CopyFrom(inner)
                copy.name = f"{scope}/{inner.name or inner.op_type}"
                for field in (copy.input, copy.output):
                    for k, value in enumerate(field):
                        if value:
                            field[k] = rename.get(value, f"{scope}::{value}")
                attributes = []
                for attribute in copy.attribute:
                    if attribute.ref_attr_name:
                        source = given.get(attribute.ref_attr_name) or defaults.get(attribute.ref_attr_name)
                        if source is None:
                            continue  # an optional attribute the call leaves out
                        resolved = onnx.AttributeProto()
                        resolved.CopyFrom(source)
                        resolved.name = attribute.name
                        attributes.append(resolved)
                    else:
                        attributes.append(attribute)
                del copy.attribute[:]
                copy.attribute.extend(attributes)
                body.append(copy)
            out.extend(expand(body, depth + 1, budget))
        return out

    graph = model.graph
    nodes = expand(list(graph.node), 0, [_MAX_INLINED_NODES - len(graph.node)])
    if calls:
        del graph.node[:]
        graph.node.extend(nodes)
    if left and warnings is not None:
        top = sorted(left.items(), key=lambda kv: (-kv[1], kv[0]))
        warnings.append(
            f"{sum(left.values()):,} call(s) of the model's local functions are not inlined (the graph would pass "
            f"{_MAX_INLINED_NODES:,} nodes, or the calls nest deeper than {_MAX_INLINE_DEPTH}); they are drawn as "
            "calls: " + ", ".join(f"{n:,} of {f[:80]!r}" for f, n in top[:5]) + (", ..." if len(top) > 5 else "")
        )
    return calls


def _nodes_held(nodes: Sequence[onnx.NodeProto]) -> int:
    """The nodes of ``nodes`` and of every subgraph their attributes hold."""
    count, stack = 0, [nodes]
    while stack:
        found = stack.pop()
        count += len(found)
        for node in found:
            for attribute in node.attribute:
                if attribute.type == onnx.AttributeProto.GRAPH:
                    stack.append(attribute.g.node)
                elif attribute.type == onnx.AttributeProto.GRAPHS:
                    stack.extend(g.node for g in attribute.graphs)
    return count
