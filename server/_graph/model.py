"""ONNX models as graphs to draw: parse, check, infer shapes, group by name scope. No flask, no layout.

:func:`parse_model` turns bytes into a ``ModelProto`` or raises :class:`GraphError` (the
API answers 422) naming what is wrong: empty, truncated or random bytes, a protobuf that
is not a model, a model without a graph. :class:`Graph` flattens one graph of it (the
main graph, or an If/Loop/Scan body reached by a path of ``(node, attribute)`` steps)
into numbered nodes with readable attributes, the dtype and shape of every value, and
the parameters (initializers: name, dtype, shape and size, never their values), after
checking that it is a DAG whose every input comes from somewhere.

Name scopes: a node named ``/layer1/layer1.0/conv1/Conv`` sits in groups ``layer1`` >
``layer1/layer1.0`` > ``layer1/layer1.0/conv1``; :meth:`Graph.view` shows, for a set of
expanded groups, each node either as itself or as its outermost collapsed group, with the
edges between what is shown aggregated.
"""

from __future__ import annotations

import hashlib
import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message
from onnx import AttributeProto, GraphProto, ModelProto, TensorProto

from visualdl.errors import GraphError
from visualdl.server._graph.blocks import capped_scope, repeated_blocks, torch_scopes
from visualdl.server._graph.graphdef import CATEGORIES as GRAPHDEF_CATEGORIES

__all__ = ["COLLAPSE_ABOVE", "Graph", "GraphError", "escape_invalid_utf8", "model_properties", "parse_model"]

#: Graphs of more nodes than this open with every group collapsed.
COLLAPSE_ABOVE = 300
#: The same for groups found in the graph (repeated blocks, torch's module paths): those
#: are an overview worth opening on sooner.
COLLAPSE_FOUND_ABOVE = 100
#: Siblings alike (same op or group content, same inputs and outputs) from this many on are drawn as one stack.
STACK_ABOVE = 16
#: The ``expanded`` entries that open a stack start with this.
STACK = "stack:"
#: Attribute values (lists, strings) are cut to this many items/characters for display.
_CUT = 32
#: (feeder, consumer) pairs folded, at most (see :meth:`Graph._fold`).
_MAX_FOLDED = 500_000
#: Dimensions of a tensor's shape listed, at most.
_MAX_RANK = 64
#: Names in the answers (labels, node names, values), at most this many characters; a longer
#: one is cut and says its length.
MAX_SHOWN = 1000
#: A node's inputs and outputs listed in its details, at most (the counts say how many it has).
MAX_LISTED = 1000

CATEGORIES = {
    # Linear layers and products: not convolutions (a Transformer is mostly these).
    "matmul": {"Gemm", "MatMul", "MatMulInteger", "QLinearMatMul", "Einsum"},
    "conv": {
        "Conv",
        "ConvTranspose",
        "ConvInteger",
        "QLinearConv",
        "DeformConv",
        "DequantizeLinear",
        "QuantizeLinear",
    },
    "activation": {
        "Relu",
        "LeakyRelu",
        "PRelu",
        "Sigmoid",
        "Tanh",
        "Softmax",
        "LogSoftmax",
        "Elu",
        "Selu",
        "Gelu",
        "HardSigmoid",
        "HardSwish",
        "Softplus",
        "Softsign",
        "Mish",
        "Celu",
        "ThresholdedRelu",
        "Hardmax",
        "Erf",
    },
    "pooling": {
        "MaxPool",
        "AveragePool",
        "GlobalAveragePool",
        "GlobalMaxPool",
        "LpPool",
        "GlobalLpPool",
        "MaxUnpool",
        "MaxRoiPool",
        "RoiAlign",
    },
    "normalization": {
        "BatchNormalization",
        "LayerNormalization",
        "InstanceNormalization",
        "GroupNormalization",
        "LpNormalization",
        "MeanVarianceNormalization",
        "LRN",
        "Dropout",
        "RMSNormalization",
    },
    "shape": {
        "Reshape",
        "Transpose",
        "Flatten",
        "Squeeze",
        "Unsqueeze",
        "Concat",
        "Split",
        "Slice",
        "Gather",
        "GatherElements",
        "GatherND",
        "Scatter",
        "ScatterElements",
        "ScatterND",
        "Shape",
        "Size",
        "Expand",
        "Tile",
        "Pad",
        "Resize",
        "Upsample",
        "DepthToSpace",
        "SpaceToDepth",
        "Identity",
        "Cast",
        "CastLike",
        "Constant",
        "ConstantOfShape",
        "Range",
        "OneHot",
        "NonZero",
        "Where",
        "Compress",
        "Trilu",
    },
    "control": {"If", "Loop", "Scan", "SequenceMap"},
}
# With TensorFlow's and torch's ops, which a converted GraphDef keeps (graphdef.py): no ONNX op has their names.
_CATEGORY_OF = {op: cat for table in (CATEGORIES, GRAPHDEF_CATEGORIES) for cat, ops in table.items() for op in ops}
_SUBGRAPH_OPS = {"If", "Loop", "Scan"}


def parse_model(data: bytes, *, source: str = "model", warnings: list[str] | None = None) -> ModelProto:
    """The ``ModelProto`` in ``data``, structure only (external weights are not loaded).

    Text that is not valid UTF-8 is escaped (:func:`escape_invalid_utf8`) and, when
    ``warnings`` is given, said there.
    """
    if not data:
        raise GraphError(f"{source} is empty (0 bytes): not an ONNX model")
    try:
        model = ModelProto.FromString(data)
    except (DecodeError, RuntimeError, ValueError) as e:
        raise GraphError(
            f"{source} is not an ONNX model: the protobuf cannot be decoded ({e}); truncated or another format"
        ) from e
    if not model.HasField("graph"):
        what = "a model without a graph" if model.ir_version or model.opset_import else "not an ONNX ModelProto"
        raise GraphError(f"{source} is {what}: it has no graph to show")
    if not model.graph.node and not model.graph.input and not model.graph.output:
        raise GraphError(f"{source} has an empty graph (no nodes, inputs or outputs)")
    escaped = escape_invalid_utf8(model)
    if escaped and warnings is not None:
        warnings.append(
            f"{escaped} text field(s) of {source} are not valid UTF-8; they are shown with the bad bytes as \\xNN"
        )
    return model


def escape_invalid_utf8(message: Message) -> int:
    """Make every string field of ``message`` (and of the messages in it) a ``str``; how many were not.

    ONNX is proto2, whose strings protobuf does not check: a field holding invalid UTF-8
    reads back as ``bytes``. Such a field is set to its text with each bad byte written
    as ``\\xNN``, so everything downstream (labels, search, JSON) sees only ``str``.
    """
    count = 0
    for fd, value in message.ListFields():
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            for item in value if fd.is_repeated else (value,):
                count += escape_invalid_utf8(item)
        elif fd.type == FieldDescriptor.TYPE_STRING:
            if fd.is_repeated:
                bad = [isinstance(v, bytes) for v in value]
                if any(bad):
                    count += sum(bad)
                    texts = [_escaped(v) for v in value]
                    del value[:]
                    value.extend(texts)
            elif isinstance(value, bytes):
                count += 1
                setattr(message, fd.name, _escaped(value))
    return count


def _escaped(value: str | bytes) -> str:
    return value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else value


def infer_shapes(model: ModelProto) -> tuple[ModelProto, list[str]]:
    """``model`` with inferred value shapes, or as it is with a warning when inference fails."""
    try:
        return onnx.shape_inference.infer_shapes(model, strict_mode=False), []
    except Exception as e:  # noqa: BLE001 - boundary: onnx raises many kinds; shown without shapes
        return model, [f"shape inference failed, shapes shown are those stored in the model: {str(e)[:300]}"]


def external_data_files(model: ModelProto, base_dir: str | None) -> tuple[list[str], list[str]]:
    """The external weight files the model names, and those missing beside ``base_dir``."""
    import os

    names: list[str] = []
    for graph in _all_graphs(model.graph):
        for tensor in graph.initializer:
            if tensor.data_location == TensorProto.EXTERNAL:
                for entry in tensor.external_data:
                    if entry.key == "location" and entry.value not in names:
                        names.append(entry.value)
    missing = [n for n in names if base_dir is None or not os.path.exists(os.path.join(base_dir, n))]
    return names, missing


def _all_graphs(graph: GraphProto) -> list[GraphProto]:
    out = [graph]
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == AttributeProto.GRAPH:
                out.extend(_all_graphs(attr.g))
            elif attr.type == AttributeProto.GRAPHS:
                for g in attr.graphs:
                    out.extend(_all_graphs(g))
    return out


def model_properties(model: ModelProto) -> dict[str, Any]:
    return {
        "ir_version": model.ir_version,
        "opset_import": [{"domain": o.domain or "ai.onnx", "version": o.version} for o in model.opset_import],
        "producer_name": model.producer_name,
        "producer_version": model.producer_version,
        "domain": model.domain,
        "model_version": model.model_version,
        "doc_string": model.doc_string[:2000],
        "metadata_props": {p.key: p.value[:500] for p in model.metadata_props},
        "graph_name": model.graph.name,
        "functions": [
            {
                "domain": f.domain,
                "name": f.name,
                "inputs": list(f.input),
                "outputs": list(f.output),
                "nodes": len(f.node),
                "ops": sorted({n.op_type for n in f.node}),
            }
            for f in model.functions
        ],
    }


def _dtype(elem_type: int) -> str:
    try:
        return TensorProto.DataType.Name(elem_type).lower() if elem_type else ""
    except ValueError:
        return f"type{elem_type}"


def _type_of(vi: onnx.ValueInfoProto) -> tuple[str, list[Any] | None]:
    t = vi.type
    kind = t.WhichOneof("value")
    if kind == "tensor_type":
        tt = t.tensor_type
        shape = None
        if tt.HasField("shape"):
            shape = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in tt.shape.dim]
        return _dtype(tt.elem_type), shape
    if kind == "sequence_type":
        return "sequence", None
    if kind == "map_type":
        return "map", None
    if kind == "optional_type":
        return "optional", None
    return "", None


def _tensor_summary(t: TensorProto) -> dict[str, Any]:
    """A tensor's name, dtype, shape and size, never its values (a shape past 64 dimensions is
    cut, its ``rank`` said)."""
    dims = list(t.dims)
    out = {
        "tensor": True,
        "name": shown(t.name),
        "dtype": _dtype(t.data_type),
        "shape": dims[:_MAX_RANK],
        "size": int(np.prod(dims, dtype=object)) if dims else 1,
    }
    if len(dims) > _MAX_RANK:
        out["rank"] = len(dims)
    return out


def _attribute(attr: AttributeProto) -> dict[str, Any]:
    """A readable attribute: numbers and short lists as they are, tensors summarised, graphs named."""
    kind = AttributeProto.AttributeType.Name(attr.type).lower()
    value: Any
    cut = False
    if attr.type == AttributeProto.FLOAT:
        value = attr.f
    elif attr.type == AttributeProto.INT:
        value = attr.i
    elif attr.type == AttributeProto.STRING:
        value = attr.s[:800].decode("utf-8", "replace")  # 200 characters take 800 bytes at most
        cut = len(attr.s) > 800 or len(value) > 200
        value = value[:200]
    elif attr.type == AttributeProto.TENSOR:
        value = _tensor_summary(attr.t)
        if value["size"] <= 8:
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    value["values"] = onnx.numpy_helper.to_array(attr.t).ravel().tolist()
            except Exception:  # noqa: BLE001 - odd dtypes or external data: the summary stays
                pass
    elif attr.type == AttributeProto.GRAPH:
        value = {"graph": attr.g.name, "nodes": len(attr.g.node)}
    elif attr.type == AttributeProto.FLOATS:
        value = list(attr.floats[:_CUT])
    elif attr.type == AttributeProto.INTS:
        value = list(attr.ints[:_CUT])
    elif attr.type == AttributeProto.STRINGS:
        value = [s.decode("utf-8", "replace")[:80] for s in attr.strings[:_CUT]]
    elif attr.type == AttributeProto.TENSORS:
        value = [_tensor_summary(t) for t in attr.tensors[:_CUT]]
    elif attr.type == AttributeProto.GRAPHS:
        value = [{"graph": g.name, "nodes": len(g.node)} for g in attr.graphs[:_CUT]]
    else:
        value = None
    out = {"name": shown(attr.name), "type": kind, "value": value}
    # What was cut says how much there is: bytes of a string, items of a list.
    if attr.type == AttributeProto.STRING and cut:
        out["length"] = len(attr.s)
    if attr.doc_string:  # a GraphDef's attribute cut says its true size here
        out["about"] = shown(attr.doc_string[: MAX_SHOWN + 1])
    for kind_of, items in (
        (AttributeProto.FLOATS, attr.floats),
        (AttributeProto.INTS, attr.ints),
        (AttributeProto.STRINGS, attr.strings),
        (AttributeProto.TENSORS, attr.tensors),
        (AttributeProto.GRAPHS, attr.graphs),
    ):
        if attr.type == kind_of and len(items) > _CUT:
            out["length"] = len(items)
    return out


class _Values:
    """dtype and shape of values by name, converted from their ValueInfoProto when first asked."""

    def __init__(self, infos: dict[str, onnx.ValueInfoProto], params: dict[str, dict[str, Any]]) -> None:
        self._infos = infos
        self._params = params
        self._done: dict[str, dict[str, Any]] = {}

    def get(self, name: str, default: dict[str, Any] | None = None) -> dict[str, Any]:
        hit = self._done.get(name)
        if hit is None:
            vi = self._infos.get(name)
            if vi is not None:
                dtype, shape = _type_of(vi)
                hit = {"dtype": dtype, "shape": shape}
            elif name in self._params:
                hit = {"dtype": self._params[name]["dtype"], "shape": self._params[name]["shape"]}
            else:
                return default if default is not None else {}
            self._done[name] = hit
        return hit


def _short_label(name: str, op_type: str) -> str:
    """``/layer1/conv1/Conv`` -> ``conv1`` (the op type is shown apart); ``relu_7`` -> ``relu_7``."""
    parts = [p for p in name.split("/") if p]
    if not parts:
        return op_type
    if parts[-1] in (op_type, f"{op_type}_0") and len(parts) > 1:
        return parts[-2]
    return parts[-1]


def scope_of(name: str) -> tuple[str, ...]:
    """The group path of a node name: ``/a/b/Conv`` -> ``("a", "a/b")``; at most
    ``blocks.MAX_SCOPE_DEPTH`` levels, each path at most ``blocks.MAX_SCOPE_CHARS`` long."""
    parts = [p for p in name.split("/") if p]
    return capped_scope(parts[:-1])


def shown(text: str) -> str:
    """``text`` as the answers show it: cut past :data:`MAX_SHOWN` characters, saying its length."""
    if len(text) <= MAX_SHOWN:
        return text
    return f"{text[:MAX_SHOWN]}\u2026 ({len(text):,} characters)"


def _io_id(prefix: str, name: str) -> str:
    """The id of a graph input (``in:``) or output (``out:``): its name, or for a name past
    :data:`MAX_SHOWN` characters its start and a digest (ids stay unique and short)."""
    if len(name) <= MAX_SHOWN:
        return prefix + name
    return f"{prefix}{name[:MAX_SHOWN]}#{hashlib.sha1(name.encode('utf-8', 'replace')).hexdigest()[:16]}"


@dataclass
class Graph:
    """One graph of a model, flattened and checked (see the module docstring)."""

    name: str
    nodes: list[dict[str, Any]]
    values: _Values
    inputs: list[str]
    outputs: list[str]
    params: dict[str, dict[str, Any]]
    producer: dict[str, int]
    consumers: dict[str, list[int]]
    scopes: list[tuple[str, ...]]
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    protos: list[onnx.NodeProto] = field(default_factory=list)
    #: ``[i]``: the nodes whose values node ``i`` takes, folded into it (see :meth:`_fold`).
    folded: list[list[int]] = field(default_factory=list)
    #: The nodes folded into a consumer: not drawn on their own.
    hidden: set[int] = field(default_factory=set)
    #: Where the groups came from: "names", "torch" (dynamo's module paths), "blocks" (repeated
    #: blocks found in the graph) or "" (none).
    structure: str = ""
    #: A word about some groups: a torch module's class, a run of blocks alike.
    about: dict[str, str] = field(default_factory=dict)

    @classmethod
    def build(cls, graph: GraphProto, outer: set[str] | None = None) -> Graph:
        outer = outer or set()
        params = {t.name: _tensor_summary(t) for t in graph.initializer}
        for t in graph.sparse_initializer:
            params[t.values.name] = _tensor_summary(t.values)
        values = _Values({vi.name: vi for vi in [*graph.input, *graph.value_info, *graph.output]}, params)
        inputs = [vi.name for vi in graph.input if vi.name not in params]
        producer: dict[str, int] = {}
        nodes = []
        names_seen: set[str] = set()
        for i, node in enumerate(graph.node):
            label = node.name or f"{node.op_type}_{i}"
            if label in names_seen:
                label = f"{label}#{i}"
            names_seen.add(label)
            for out in node.output:
                if out:
                    producer[out] = i
            nodes.append(
                {
                    "id": f"n{i}",
                    "name": label,
                    "op_type": node.op_type,
                    "domain": node.domain,
                    "category": _CATEGORY_OF.get(node.op_type, "other")
                    if not node.domain or node.domain == "ai.onnx"
                    else "custom",
                    "inputs": list(node.input),
                    "outputs": list(node.output),
                    "subgraphs": [
                        a.name for a in node.attribute if a.type in (AttributeProto.GRAPH, AttributeProto.GRAPHS)
                    ],
                }
            )
        known = set(producer) | set(params) | {vi.name for vi in graph.input} | outer
        consumers: dict[str, list[int]] = defaultdict(list)
        dangling = []
        for i, node in enumerate(graph.node):
            for name in node.input:
                if not name:
                    continue  # an omitted optional input
                consumers[name].append(i)
                if name not in known:
                    dangling.append((nodes[i]["name"], name))
        if dangling:
            shown = ", ".join(f"{v!r} (input of {n!r})" for n, v in dangling[:5])
            raise GraphError(
                f"graph {graph.name!r} has {len(dangling)} dangling input(s): {shown}; no node, graph input or "
                "initializer produces them"
            )
        missing_outputs = [o.name for o in graph.output if o.name not in producer and o.name not in known]
        if missing_outputs:
            raise GraphError(f"graph {graph.name!r} outputs {missing_outputs[:5]!r}, which nothing produces")
        order = _check_acyclic(nodes, producer, graph.name)
        scopes = [scope_of(n.name) for n in graph.node]
        self = cls(
            graph.name, nodes, values, inputs, [o.name for o in graph.output], params, producer, dict(consumers), scopes
        )
        self.protos = list(graph.node)
        self._fold(order)
        self._find_structure()
        self._build_groups()
        return self

    def _fold(self, order: list[int]) -> None:
        """Fold the nodes that only compute constants into the nodes that take their values.

        A node feeds constants when it has no subgraph, gives no graph output, and takes
        only initializers and values of such nodes (``Constant``, ``ConstantOfShape`` of
        a constant, a ``Cast`` or ``Reshape`` of weights...). Drawn on their own they fill
        the first rows of a layout with hundreds of boxes; folded, they are listed in
        their consumers' details (as Netron shows initializers) and counted on their
        boxes. A feeder is folded into every other node that takes one of its values,
        directly or through other feeders; one that reaches no other node stays drawn.

        Linear: feeders are decided in one pass in topological order, what they reach in one
        pass in reverse. What is folded into what is at most :data:`_MAX_FOLDED` pairs (a
        chain of feeders each also feeding an op of its own would fold quadratically many):
        the feeders past that are drawn, as the nodes they feed.
        """
        n = len(self.nodes)
        outputs = set(self.outputs)
        feeds = [False] * n
        # One pass in topological order: a node's producers are decided before it is.
        for i in order:
            node = self.nodes[i]
            if node["subgraphs"] or any(o in outputs for o in node["outputs"]):
                continue
            # A value no node produces (a graph input, an outer graph's value) is no constant:
            # its lookup falls back to feeds[i], still False here.
            if all(not v or v in self.params or feeds[self.producer.get(v, i)] for v in node["inputs"]):
                feeds[i] = True
        # The non-feeders each feeder reaches through feeders, in reverse topological order: a
        # feeder's set is its consumers' (shared, never copied, when one feeder alone is all it feeds).
        empty: frozenset[int] = frozenset()
        reaches: list[frozenset[int]] = [empty] * n
        folded: list[set[int]] = [set() for _ in range(n)]
        hidden = set()
        pairs = 0
        for i in reversed(order):
            if not feeds[i]:
                continue
            parts: list[frozenset[int]] = []
            direct: set[int] = set()
            for value in self.nodes[i]["outputs"]:
                for k in self.consumers.get(value, ()):
                    if feeds[k]:
                        if reaches[k] and (not parts or parts[-1] is not reaches[k]):
                            parts.append(reaches[k])
                    else:
                        direct.add(k)
            if direct or len(parts) > 1:
                reached = frozenset(direct.union(*parts))
            else:
                reached = parts[0] if parts else empty
            pairs += len(reached)
            if pairs > _MAX_FOLDED:  # a chain of feeders each feeding ops of its own: drawn from here on
                feeds[i] = False
                continue
            reaches[i] = reached
            if reached:
                hidden.add(i)
                for k in reached:
                    folded[k].add(i)
        self.folded = [sorted(f) for f in folded]
        self.hidden = hidden

    def _find_structure(self) -> None:
        """Groups from name scopes; without any, from torch's module paths or the repeated
        blocks of the graph (:mod:`visualdl.server._graph.blocks`)."""
        if any(self.scopes):
            self.structure = "names"
            return
        found = torch_scopes(self.protos)
        kind = "torch"
        if found is None:
            found = repeated_blocks(self.nodes, self.hidden, self.producer)
            kind = "blocks"
        if found is not None:
            self.scopes, self.about = found
            self.structure = kind

    def _build_groups(self) -> None:
        groups: dict[str, dict[str, Any]] = {}
        for i, scope in enumerate(self.scopes):
            if i in self.hidden:
                continue  # drawn in its consumers, counted there
            for depth, gid in enumerate(scope):
                g = groups.get(gid)
                if g is None:
                    g = groups[gid] = {
                        "id": f"g:{gid}",
                        "name": gid.rsplit("/", 1)[-1],
                        "path": gid,
                        "parent": scope[depth - 1] if depth else None,
                        "count": 0,
                        "ops": defaultdict(int),
                        "about": self.about.get(gid, ""),
                    }
                g["count"] += 1
                g["ops"][self.nodes[i]["op_type"]] += 1
        for g in groups.values():
            g["ops"] = dict(sorted(g["ops"].items(), key=lambda kv: -kv[1])[:8])
        self.groups = groups

    def default_expanded(self) -> set[str]:
        """Everything open up to COLLAPSE_ABOVE nodes (:data:`COLLAPSE_FOUND_ABOVE` when the
        groups were found, not named: ResNet-50's 176 drawn nodes open as its 12 blocks);
        above, closed but for chains of single groups."""
        limit = COLLAPSE_FOUND_ABOVE if self.structure in ("blocks", "torch") else COLLAPSE_ABOVE
        if len(self.nodes) - len(self.hidden) <= limit:
            return set(self.groups)
        expanded: set[str] = set()
        while True:
            shown = {item for item in self._visible(expanded) if item.startswith("g:")}
            top = [gid[2:] for gid in shown]
            if len(top) == 1 and len(self._visible(expanded)) <= 3:
                expanded.add(top[0])  # one group holding (nearly) everything: open it
                continue
            return expanded

    def _visible(self, expanded: set[str]) -> list[str]:
        """What draws each node: itself, its outermost collapsed group, or "" when folded."""
        out = []
        for i, scope in enumerate(self.scopes):
            if i in self.hidden:
                out.append("-")
                continue
            item = None
            for gid in scope:
                if gid not in expanded and self.groups[gid]["count"] > 1:  # a group of one node is the node
                    item = f"g:{gid}"
                    break
            out.append(item or "")
        return ["" if item == "-" else item or self.nodes[i]["id"] for i, item in enumerate(out)]

    def view(self, expanded: set[str]) -> dict[str, Any]:
        """What to draw with ``expanded`` groups open: items (nodes, collapsed groups, graph
        inputs and outputs) and the edges between them, aggregated, labelled by value."""
        opened = expanded
        expanded = {g for g in expanded if g in self.groups}
        owner = self._visible(expanded)
        items = self._items(owner)
        edges = self._edges(owner)
        stacks = {g for g in opened if g.startswith(STACK)}
        out_items, out_edges = _stacked(list(items.values()), list(edges.values()), stacks)
        return {"items": out_items, "edges": out_edges, "expanded": sorted(expanded | stacks)}

    def _items(self, owner: list[str]) -> dict[str, dict[str, Any]]:
        """The items drawn, by id: graph inputs, then each visible node or collapsed group
        (``owner``: the item each node is drawn in, "" if folded away), then graph outputs."""
        items: dict[str, dict[str, Any]] = {}
        for name in self.inputs:
            key = _io_id("in:", name)
            items[key] = {"id": key, "kind": "input", "label": shown(name), **self.values.get(name, {})}
        for i, item in enumerate(owner):
            if not item or item in items:
                continue
            if item.startswith("g:"):
                g = self.groups[item[2:]]
                items[item] = {
                    "id": item,
                    "kind": "group",
                    "label": g["name"],
                    "path": g["path"],
                    "count": g["count"],
                    "ops": g["ops"],
                    "parent": g["parent"],
                    "about": g["about"],
                }
            else:
                n = self.nodes[i]
                scope = self.scopes[i]
                items[item] = {
                    "id": item,
                    "kind": "op",
                    "label": shown(_short_label(n["name"], n["op_type"])),
                    "name": shown(n["name"]),
                    "op_type": shown(n["op_type"]),
                    "category": n["category"],
                    "group": scope[-1] if scope else None,
                    "subgraphs": n["subgraphs"],
                    "folded": len(self.folded[i]),
                }
        for name in self.outputs:
            key = _io_id("out:", name)
            items[key] = {"id": key, "kind": "output", "label": shown(name), **self.values.get(name, {})}
        return items

    def _edges(self, owner: list[str]) -> dict[tuple[str, str], dict[str, Any]]:
        """The edges between the items of ``owner``, one per pair, counting the values it
        carries and labelled by the first (a group's inner edges are not drawn)."""
        edges: dict[tuple[str, str], dict[str, Any]] = {}
        input_set = set(self.inputs)

        def add(src: str, dst: str, value: str) -> None:
            if src == dst:
                return
            e = edges.get((src, dst))
            if e is None:
                info = self.values.get(value, {})
                edges[(src, dst)] = {
                    "source": src,
                    "target": dst,
                    "value": shown(value),
                    "dtype": info.get("dtype", ""),
                    "shape": info.get("shape"),
                    "count": 1,
                }
            else:
                e["count"] += 1

        for i, node in enumerate(self.nodes):
            dst = owner[i]
            if not dst:
                continue
            for value in node["inputs"]:
                if not value:
                    continue
                if value in self.producer:
                    src = owner[self.producer[value]]
                    if src:  # not a folded constant
                        add(src, dst, value)
                elif value in input_set:
                    add(_io_id("in:", value), dst, value)
        for value in self.outputs:
            if value in self.producer:
                add(owner[self.producer[value]], _io_id("out:", value), value)
            elif value in input_set:
                add(_io_id("in:", value), _io_id("out:", value), value)
        return edges

    def node_detail(self, index: int) -> dict[str, Any]:
        """A node's details: its attributes (values cut, their sizes said), its inputs and outputs
        (the first :data:`MAX_LISTED`, counted in full), parameters and the nodes folded into it."""
        n = self.nodes[index]

        def value(name: str) -> dict[str, Any]:
            info = self.values.get(name, {})
            out = {"name": shown(name), "dtype": info.get("dtype", ""), "shape": info.get("shape")}
            if name in self.params:
                out["param"] = self.params[name]
            return out

        params = [self.params[v] for v in n["inputs"] if v in self.params]
        proto = self.protos[index]
        inputs = [v for v in n["inputs"] if v]
        outputs = [v for v in n["outputs"] if v]
        folded = [
            {
                "name": shown(self.nodes[j]["name"]),
                "op_type": shown(self.nodes[j]["op_type"]),
                "outputs": [value(v) for v in self.nodes[j]["outputs"][:MAX_LISTED] if v],
                "attributes": [_attribute(a) for a in self.protos[j].attribute[:MAX_LISTED]],
            }
            for j in self.folded[index][:MAX_LISTED]
        ]
        out = {
            **n,
            "name": shown(n["name"]),
            "op_type": shown(n["op_type"]),
            "attributes": [_attribute(a) for a in proto.attribute[:MAX_LISTED]],
            "doc_string": proto.doc_string[:500],
            "inputs": [value(v) for v in inputs[:MAX_LISTED]],
            "outputs": [value(v) for v in outputs[:MAX_LISTED]],
            "parameters": params[:MAX_LISTED],
            "parameter_count": int(sum(p["size"] for p in params)),
            "groups": list(self.scopes[index]),
            "folded": folded,
        }
        # Lists cut: how long they are (a node of 40,000 inputs lists 1,000 of them).
        for key, full in (
            ("inputs", len(inputs)),
            ("outputs", len(outputs)),
            ("attributes", len(proto.attribute)),
            ("parameters", len(params)),
            ("folded", len(self.folded[index])),
        ):
            if full > MAX_LISTED:
                out[f"{key}_count"] = full
        return out

    def search(self, query: str, limit: int = 200) -> list[dict[str, Any]]:
        q = query.lower()
        hits = []
        into = {j: i for i, js in enumerate(self.folded) for j in js}  # a folded node: found in one consumer
        for i, n in enumerate(self.nodes):
            if q in n["name"].lower() or q == n["op_type"].lower() or q in n["op_type"].lower():
                at = into.get(i, i)
                name = shown(n["name"]) if at == i else f"{shown(n['name'])} (in {shown(self.nodes[at]['name'])})"
                hits.append({"id": self.nodes[at]["id"], "name": name, "op_type": shown(n["op_type"]),
                             "groups": list(self.scopes[at])})  # fmt: skip
                if len(hits) >= limit:
                    break
        return hits


def _stacked(
    items: list[dict[str, Any]], edges: list[dict[str, Any]], opened: set[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Siblings alike drawn as one stack: at least :data:`STACK_ABOVE` ops of one type, or
    groups of the same ops, that take from the same items and give to the same items
    (2,000 parallel branches of one model are one "x2,000" box, not a row 300,000 px wide).
    A stack whose key (``stack:`` and its first member's id) is in ``opened`` is drawn open."""
    preds: dict[str, set[str]] = defaultdict(set)
    succs: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        succs[e["source"]].add(e["target"])
        preds[e["target"]].add(e["source"])
    alike: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        if item["kind"] == "op":
            what: Any = ("op", item["op_type"])
        elif item["kind"] == "group":
            what = ("group", item["count"], tuple(sorted(item["ops"].items())))
        else:
            continue
        alike[(what, frozenset(preds[item["id"]]), frozenset(succs[item["id"]]))].append(item)
    into: dict[str, str] = {}
    stacks: dict[str, dict[str, Any]] = {}
    for members in alike.values():
        if len(members) < STACK_ABOVE:
            continue
        first = members[0]
        key = STACK + first["id"]
        if key in opened:
            continue
        sid = "s:" + first["id"]
        stacks[sid] = {
            "id": sid,
            "kind": "stack",
            "label": f"{first.get('op_type') or first['label']} \u00d7{len(members):,}",  # a multiplication sign
            "count": len(members),
            "stack": key,
            "sample": first.get("name") or first.get("path") or first["label"],
            "ops": first.get("ops") or {first.get("op_type", ""): 1},
        }
        for m in members:
            into[m["id"]] = sid
    if not stacks:
        return items, edges
    out_items: list[dict[str, Any]] = []
    for item in items:
        sid = into.get(item["id"])
        if sid is None:
            out_items.append(item)
        elif sid in stacks:
            out_items.append(stacks.pop(sid))
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for e in edges:
        src, dst = into.get(e["source"], e["source"]), into.get(e["target"], e["target"])
        hit = merged.get((src, dst))
        if hit is None:
            merged[(src, dst)] = {**e, "source": src, "target": dst}
        else:
            hit["count"] += e["count"]
    return out_items, list(merged.values())


def _check_acyclic(nodes: list[dict[str, Any]], producer: dict[str, int], graph_name: str) -> list[int]:
    """The nodes in a topological order (Kahn's algorithm); a cycle is a GraphError naming some of its nodes."""
    n = len(nodes)
    indegree = np.zeros(n, np.int64)
    succ: list[list[int]] = [[] for _ in range(n)]
    for i, node in enumerate(nodes):
        for value in node["inputs"]:
            p = producer.get(value)
            if p is not None:
                succ[p].append(i)
                indegree[i] += 1
    ready = [i for i in range(n) if indegree[i] == 0]
    order: list[int] = []
    while ready:
        i = ready.pop()
        order.append(i)
        for j in succ[i]:
            indegree[j] -= 1
            if indegree[j] == 0:
                ready.append(j)
    if len(order) < n:
        stuck = [nodes[i]["name"] for i in np.flatnonzero(indegree > 0)[:5]]
        raise GraphError(f"graph {graph_name!r} has a cycle through nodes {stuck!r}: an ONNX graph must be acyclic")
    return order


def subgraph(model: ModelProto, path: list[tuple[int, str, int]]) -> tuple[GraphProto, set[str], list[str]]:
    """The graph reached from the main one by ``(node index, attribute name, graph index)``
    steps; the names visible from enclosing scopes; the breadcrumb labels."""
    graph = model.graph
    outer: set[str] = set()
    crumbs = [graph.name or "main graph"]
    for node_index, attr_name, graph_index in path:
        if not 0 <= node_index < len(graph.node):
            raise GraphError(f"subgraph path: no node {node_index} in graph {graph.name!r}")
        node = graph.node[node_index]
        attrs = {a.name: a for a in node.attribute}
        attr = attrs.get(attr_name)
        if attr is None or attr.type not in (AttributeProto.GRAPH, AttributeProto.GRAPHS):
            raise GraphError(f"subgraph path: node {node.name or node.op_type!r} has no graph attribute {attr_name!r}")
        outer |= {vi.name for vi in graph.input} | {t.name for t in graph.initializer}
        outer |= {o for nd in graph.node for o in nd.output}
        if attr.type == AttributeProto.GRAPH:
            graph = attr.g
        else:
            if not 0 <= graph_index < len(attr.graphs):
                raise GraphError(f"subgraph path: attribute {attr_name!r} has no graph {graph_index}")
            graph = attr.graphs[graph_index]
        crumbs.append(f"{node.name or node.op_type}: {attr_name}")
    return graph, outer, crumbs
