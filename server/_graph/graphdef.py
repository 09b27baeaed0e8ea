"""TensorFlow's ``GraphDef`` (what TensorBoard's writers log) as an ONNX model that the
graph model draws. No flask, no layout.

A ``GraphDef`` is written by TensorFlow's graph mode, ``tf.summary.graph``, Keras'
``write_graph``, and ``add_graph`` of torch's and tensorboardX's ``SummaryWriter`` (a
``torch.jit`` trace: ops ``aten::linear``, ``prim::GetAttr``..., nodes named by module
path, ``Net/Sequential[layers]/Linear[0]/input.3``). It is turned into a ``ModelProto``
here, once, so that everything downstream (:class:`~visualdl.server._graph.model.Graph`:
checks, folding of constants, name-scope groups, search, node details; the layout) is
the one the ONNX view has. The mapping:

* a node is a node: its name (whose ``/`` scopes are the groups), its op as the op
  type, its device and attributes as attributes (a tensor as its dtype and shape, its
  values only when it has eight or fewer; a type as ``float32``; a shape as ``[?, 4]``);
* input ``x`` is output 0 of node ``x``, ``x:k`` its output ``k``; node ``x``'s outputs
  are values ``x``, ``x:1``, ... (as many as its ``_output_shapes`` or its consumers
  say), typed by ``_output_shapes`` and the ``dtype``/``T`` attributes;
* a control input ``^x`` is the value ``^x`` that node ``x`` gives besides its outputs
  (an edge labelled ``^x``, without a type);
* ``Placeholder``, ``_Arg`` and torch's input ``IO Node`` (one without inputs) are the
  graph's inputs;
* an input naming no node of the graph (torch's ``prim::GetAttr`` reads its module, which
  the trace leaves out) is not drawn, and is named in the node's description;
* the edges that close a loop (a ``while_loop``'s ``NextIteration`` into its ``Merge``,
  or any other cycle) are not drawn either, and named alike: an ONNX graph is acyclic;
* a function of the graph's library (TensorFlow 2's ``StatelessIf``/``While`` branches,
  a ``PartitionedCall``'s tf.function) is a subgraph of each node that calls it, which
  opens as an If's branches do: its arguments the inputs, a ``_Retval`` node per output.
  The nodes this produces (each body, and its copy in each caller) are counted while they
  are: a library calling itself in layers is opened as deep as :data:`_MAX_PRODUCED` nodes
  allow, and the warnings name the calls left closed; a function reaching itself is not
  opened inside itself, and said.

Linear in the graph's nodes and edges: 20,000 nodes convert in a fraction of a second.
"""

from __future__ import annotations

import collections
import math
import warnings as _warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import AttributeProto, GraphProto, ModelProto, TensorProto

from visualdl.errors import GraphError
from visualdl.proto import tb

__all__ = ["CATEGORIES", "FORMAT", "graphdef_model"]

#: The format of a graph event holding a serialized ``GraphDef``.
FORMAT = "graphdef"
#: TensorFlow's dtypes by number, as TensorFlow names them (+100: a reference to one).
DTYPES = {
    1: "float32", 2: "float64", 3: "int32", 4: "uint8", 5: "int16", 6: "int8", 7: "string",
    8: "complex64", 9: "int64", 10: "bool", 11: "qint8", 12: "quint8", 13: "qint32", 14: "bfloat16",
    15: "qint16", 16: "quint16", 17: "uint16", 18: "complex128", 19: "float16", 20: "resource",
    21: "variant", 22: "uint32", 23: "uint64", 24: "float8_e5m2", 25: "float8_e4m3fn",
    26: "float8_e4m3fnuz", 27: "float8_e4m3b11fnuz", 28: "float8_e5m2fnuz", 29: "int4", 30: "uint4",
}  # fmt: skip
#: TensorFlow's dtype -> ONNX's (those ONNX has).
_ONNX_DTYPE = {
    1: TensorProto.FLOAT, 2: TensorProto.DOUBLE, 3: TensorProto.INT32, 4: TensorProto.UINT8,
    5: TensorProto.INT16, 6: TensorProto.INT8, 7: TensorProto.STRING, 8: TensorProto.COMPLEX64,
    9: TensorProto.INT64, 10: TensorProto.BOOL, 14: TensorProto.BFLOAT16, 17: TensorProto.UINT16,
    18: TensorProto.COMPLEX128, 19: TensorProto.FLOAT16, 22: TensorProto.UINT32, 23: TensorProto.UINT64,
    24: TensorProto.FLOAT8E5M2, 25: TensorProto.FLOAT8E4M3FN, 26: TensorProto.FLOAT8E4M3FNUZ,
    28: TensorProto.FLOAT8E5M2FNUZ, 29: TensorProto.INT4, 30: TensorProto.UINT4,
}  # fmt: skip
#: TensorFlow's dtype -> (numpy dtype, the TensorProto field of its values), for small tensors' values.
_VALUES = {
    1: ("<f4", "float_val"), 2: ("<f8", "double_val"), 3: ("<i4", "int_val"), 4: ("u1", "int_val"),
    5: ("<i2", "int_val"), 6: ("i1", "int_val"), 9: ("<i8", "int64_val"), 10: ("?", "bool_val"),
    17: ("<u2", "int_val"), 19: ("<f2", "half_val"), 22: ("<u4", "uint32_val"), 23: ("<u8", "uint64_val"),
}  # fmt: skip
#: The categories (colours) of TensorFlow's and torch's ops that are not ONNX's names, by the
#: ONNX view's categories (:data:`visualdl.server._graph.model.CATEGORIES`).
CATEGORIES = {
    "matmul": {
        "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "aten::linear", "aten::matmul", "aten::mm",
        "aten::bmm", "aten::addmm", "aten::einsum",
    },
    "conv": {
        "Conv1D", "Conv2D", "Conv3D", "DepthwiseConv2dNative", "Conv2DBackpropInput", "aten::_convolution",
        "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv_transpose2d",
    },
    "activation": {
        "Relu6", "aten::relu", "aten::relu_", "aten::sigmoid", "aten::tanh", "aten::softmax", "aten::log_softmax",
        "aten::gelu", "aten::silu", "aten::leaky_relu", "aten::hardtanh", "aten::elu",
    },
    "pooling": {
        "AvgPool", "AvgPool3D", "MaxPool3D", "MaxPoolV2", "aten::max_pool1d", "aten::max_pool2d",
        "aten::avg_pool2d", "aten::adaptive_avg_pool2d", "aten::adaptive_max_pool2d",
    },
    "normalization": {
        "FusedBatchNorm", "FusedBatchNormV3", "aten::batch_norm", "aten::layer_norm", "aten::group_norm",
        "aten::instance_norm", "aten::dropout", "aten::dropout_",
    },
    "shape": {
        "Const", "ConcatV2", "Pack", "Unpack", "StridedSlice", "ExpandDims", "Fill", "aten::view", "aten::reshape",
        "aten::flatten", "aten::cat", "aten::stack", "aten::permute", "aten::transpose", "aten::t", "aten::size",
        "aten::unsqueeze", "aten::squeeze", "aten::slice", "aten::select", "aten::contiguous", "aten::expand",
        "prim::Constant", "prim::ListConstruct", "prim::TupleConstruct", "prim::ListUnpack", "prim::TupleUnpack",
    },
    "control": {
        "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "While", "StatelessWhile", "StatelessIf",
        "prim::If", "prim::Loop",
    },
}  # fmt: skip
#: Ops whose node is a graph input: it takes nothing and gives what the caller feeds.
INPUT_OPS = {"Placeholder", "PlaceholderV2", "_Arg", "IO Node"}
#: Attributes that type a node's outputs, in the order they are looked at.
_TYPE_ATTRS = ("dtype", "T", "out_type", "DstT", "output_type", "Tout", "type")
#: Tensors of at most this many elements show their values.
_SMALL = 8
#: A string attribute is cut to this many bytes (the view shows fewer).
_MAX_STRING = 1000
#: Items of a list attribute kept (the view shows fewer).
_MAX_ITEMS = 64
#: The body of a function called once, once given to its caller.
_GIVEN = GraphProto()
#: Outputs of a node made whether consumed or not, at most: those its ``_output_shapes`` list,
#: and up to this one the highest an input names; past it only the outputs consumed are values.
_MAX_OUTPUTS = 4096
#: Ops of torch's trace that read a module's attribute: their input, the module, is never a node.
_READS_MODULE = "prim::GetAttr"
#: Ops whose output feeds a loop's ``Merge`` back: the edge that closes a ``while_loop``.
_NEXT_ITERATION = {"NextIteration", "RefNextIteration"}
#: Functions opened inside functions, at most this deep.
_MAX_DEPTH = 16
#: Nodes of the library's function bodies produced, at most: each body converted and each copy
#: attached to a caller (a body is copied into each caller), the copies a body holds included.
_MAX_PRODUCED = 200_000


def graphdef_model(
    data: bytes, *, source: str = "graph", name: str = "", warnings: list[str] | None = None
) -> ModelProto:
    """The ``GraphDef`` in ``data`` as a ``ModelProto`` (see the module docstring); what
    is not drawn is said in ``warnings``. :class:`GraphError` (the API answers 422) when
    the bytes are no ``GraphDef`` or it has no nodes."""
    if not data:
        raise GraphError(f"{source} is empty (0 bytes): not a TensorFlow GraphDef")
    try:
        graph = tb.GraphDef.FromString(data)
    except (DecodeError, RuntimeError, ValueError) as e:
        raise GraphError(
            f"{source} is not a TensorFlow GraphDef: the protobuf cannot be decoded ({e}); truncated or another format"
        ) from e
    if not graph.node:
        raise GraphError(f"{source} is a GraphDef without nodes: there is nothing to draw")
    notes = warnings if warnings is not None else []
    library = _Library(graph.library.function, notes)
    if library.functions:
        library.limit = library.levels(graph.node)
    model = _Converter(graph.node, notes, library).model(graph, name or "graph", source)
    notes.extend(library.warnings())
    unused = [name for name in library.functions if name not in library.called]
    if unused:
        notes.append(
            f"{len(unused)} function(s) of the graph's library are called by no node and not shown: "
            + ", ".join(repr(f) for f in unused[:5])
            + (", ..." if len(unused) > 5 else "")
        )
    return model


class _Converter:
    """One ``GraphDef`` converted (see :func:`graphdef_model`)."""

    def __init__(self, nodes: Any, notes: list[str], library: _Library) -> None:
        self.nodes = nodes
        self.notes = notes
        self.library = library
        n = len(nodes)
        names: list[str] = []
        index: dict[str, int] = {}
        renamed = 0
        for i, node in enumerate(nodes):
            label = node.name or f"{node.op or 'node'}_{i}"
            if label in index:
                label = f"{label}#{i}"
                renamed += 1
            index[label] = i
            names.append(label)
        if renamed:
            notes.append(f"{renamed} node(s) have the name of an earlier node; they are shown as NAME#INDEX")
        self.names = names
        self.is_input = [node.op in INPUT_OPS and not node.input for node in nodes]
        #: Per node: (producer index, output index; -1 for a control input), and what is not drawn.
        self.edges: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self.missing: list[list[str]] = [[] for _ in range(n)]
        self.loops: list[list[str]] = [[] for _ in range(n)]
        outputs = [1] * n
        sparse: list[set[int]] = [set() for _ in range(n)]
        for i, node in enumerate(nodes):
            edges = self.edges[i]
            for text in node.input:
                control = text.startswith("^")
                producer, k = (text[1:], -1) if control else _output_of(text)
                p = index.get(producer)
                if p is None or (self.is_input[p] and k > 0):
                    self.missing[i].append(text)
                    continue
                edges.append((p, k))
                if k >= _MAX_OUTPUTS:
                    sparse[p].add(k)  # past the dense outputs: only the outputs consumed
                elif k >= outputs[p]:
                    outputs[p] = k + 1
        self.shapes = [_output_shapes(node) for node in nodes]
        self.outputs = [max(outputs[i], len(self.shapes[i])) for i in range(n)]
        #: Per node: the outputs past :attr:`outputs` that are consumed (an input ``x:3000000``
        #: makes one value, not three million).
        self.sparse = [sorted(k for k in sparse[i] if k >= self.outputs[i]) for i in range(n)]
        self._break_loops()
        missing = [(names[i], text) for i in range(n) if nodes[i].op != _READS_MODULE for text in self.missing[i]]
        if missing:
            shown = ", ".join(f"{v!r} (input of {o!r})" for o, v in missing[:3])
            notes.append(
                f"{len(missing)} input(s) name nodes that are not in the graph and are not drawn: {shown}"
                + (", ..." if len(missing) > 3 else "")
            )

    def _break_loops(self) -> None:
        """Drop the edges that close cycles: a ``NextIteration`` into anything first, then
        the back edges of a depth-first walk (iterative, each node and edge once)."""
        nodes = self.nodes
        nexts = {i for i, node in enumerate(nodes) if node.op in _NEXT_ITERATION}
        for i, edges in enumerate(self.edges) if nexts else ():
            if any(p in nexts for p, _ in edges):
                self.loops[i] += [self._text(p, k) for p, k in edges if p in nexts]
                self.edges[i] = [(p, k) for p, k in edges if p not in nexts]
        state = [0] * len(nodes)  # 0 unseen, 1 on the walk's path, 2 done
        for root in range(len(nodes)):
            if state[root]:
                continue
            state[root] = 1
            stack = [(root, 0)]
            while stack:
                i, at = stack[-1]
                edges = self.edges[i]
                if at == len(edges):
                    state[i] = 2
                    stack.pop()
                    continue
                stack[-1] = (i, at + 1)
                p, k = edges[at]
                if state[p] == 1:  # closes a cycle: not drawn
                    self.loops[i].append(self._text(p, k))
                    edges[at] = (-1, 0)
                elif state[p] == 0:
                    state[p] = 1
                    stack.append((p, 0))
        for i, edges in enumerate(self.edges):
            if any(p < 0 for p, _ in edges):
                self.edges[i] = [e for e in edges if e[0] >= 0]
        cut = sum(len(x) for x in self.loops)
        if cut:
            example = next((self.names[i] for i, x in enumerate(self.loops) if x), "")
            self.notes.append(
                f"{cut} edge(s) close loops (a while loop's NextIteration into its Merge, or a cycle) and are not "
                f"drawn; the details of the nodes they enter name them (e.g. {example!r})"
            )

    def _text(self, p: int, k: int) -> str:
        return f"^{self.names[p]}" if k < 0 else _value(self.names[p], k)

    def model(self, graph: Any, name: str, source: str) -> ModelProto:
        model = ModelProto(producer_name="GraphDef", ir_version=onnx.IR_VERSION)
        if graph.HasField("versions"):
            model.producer_version = str(graph.versions.producer)
        torch = any("::" in node.op for node in self.nodes[:200])
        model.doc_string = (
            "A TensorFlow GraphDef from a TensorBoard event file"
            + (", traced by torch.jit (add_graph of torch's or tensorboardX's SummaryWriter)" if torch else "")
            + f": {source}"
        )
        self.fill(model.graph, name)
        return model

    def fill(self, out: GraphProto, name: str) -> None:
        """``out`` made the converted graph, named ``name``."""
        nodes = self.nodes
        out.name = name
        controlled = [False] * len(nodes)
        for edges in self.edges:
            for p, k in edges:
                if k < 0:
                    controlled[p] = True
        for i, node in enumerate(nodes):
            label = self.names[i]
            dtype = _output_dtype(node)
            if self.is_input[i]:
                _value_info(out.input.add(), label, dtype, self.shapes[i][0] if self.shapes[i] else _shape_attr(node))
                continue
            proto = out.node.add(name=label, op_type=node.op or "?")
            proto.input.extend(self._text(p, k) for p, k in self.edges[i] if not (k < 0 and self.is_input[p]))
            values = [_value(label, k) for k in range(self.outputs[i])]
            numbers = list(range(self.outputs[i])) + self.sparse[i]
            values += [_value(label, k) for k in self.sparse[i]]
            proto.output.extend(values)
            if controlled[i]:
                proto.output.append(f"^{label}")
            shapes = self.shapes[i]
            for k, value in zip(numbers, values, strict=True):
                shape = shapes[k] if k < len(shapes) else None
                if shape is not None or dtype:
                    _value_info(out.value_info.add(), value, dtype if k == 0 or "T" in node.attr else 0, shape)
            if node.device:
                proto.attribute.append(_text_attribute("device", node.device))
            for key in sorted(node.attr):
                if key != "_output_shapes":
                    proto.attribute.append(_attribute(key, node.attr[key], self.library.body))
            about = []
            if self.missing[i]:
                about.append("inputs naming no node of the graph: " + ", ".join(self.missing[i][:_MAX_ITEMS]))
            if self.loops[i]:
                about.append("inputs closing a loop, not drawn: " + ", ".join(self.loops[i][:_MAX_ITEMS]))
            if any(k < 0 and self.is_input[p] for p, k in self.edges[i]):
                about.append(
                    "control inputs from graph inputs: "
                    + ", ".join(f"^{self.names[p]}" for p, k in self.edges[i] if k < 0 and self.is_input[p])
                )
            if about:
                proto.doc_string = "; ".join(about)


class _Library:
    """The graph's functions, each converted once into the graph its callers open.

    A body is copied into each caller (an ONNX subgraph is the caller's own), and a body that
    calls functions holds their copies: a library of a few kilobytes that calls itself in layers
    would give a graph of billions of nodes. So the nodes produced are counted as they are:
    each body converted, with the copies it holds, and each copy attached (a function called
    once gives its caller the body converted, not a copy). Past
    :data:`_MAX_PRODUCED` a call is not opened (its attribute names the function) and the
    warnings say how many calls of which functions were cut; a function reaching itself
    (directly or through others) is not opened inside itself, and that is said too."""

    def __init__(self, functions: Any, notes: list[str]) -> None:
        self.functions = {f.signature.name: f for f in functions}
        self.notes = notes
        #: name -> the converted body (None: being converted, or too deep).
        self.done: dict[str, GraphProto | None] = {}
        #: name -> the nodes of its converted body, the copies of bodies it holds included.
        self.sizes: dict[str, int] = {}
        #: Nodes produced so far (bodies converted and copies attached).
        self.produced = 0
        #: The nodes of the bodies being converted (innermost last), copies attached included.
        self.open: list[int] = []
        #: Calls not opened, by function: past the budget, too deep, or of a function inside itself.
        self.cut: dict[str, int] = {}
        self.deep: dict[str, int] = {}
        self.recursive: set[str] = set()
        self.depth = 0
        #: Calls are opened this many functions deep at most: :data:`_MAX_DEPTH`, or fewer when
        #: opening that deep would pass the budget (:meth:`levels`), so that the budget is spent
        #: on the outer calls, which the graph shows first, rather than on the innermost.
        self.limit = _MAX_DEPTH
        #: The functions some node calls (the graph's or a function's), and those called once.
        self.called: set[str] = set()
        self.once: set[str] = set()

    def body(self, name: str) -> GraphProto | None:
        """The body of function ``name`` to attach to one more caller; None when the graph has
        no such function, it reaches itself, it is nested deeper than :data:`_MAX_DEPTH`, or
        the nodes produced would pass :data:`_MAX_PRODUCED`."""
        function = self.functions.get(name)
        if function is None:
            return None
        if name not in self.done:
            if self.depth >= self.limit:
                self.deep[name] = self.deep.get(name, 0) + 1
                return None
            if self.produced + len(function.node_def) > _MAX_PRODUCED:
                self.cut[name] = self.cut.get(name, 0) + 1
                return None
            self.done[name] = None  # a function reaching itself is not opened inside itself
            self.depth += 1
            self.open.append(0)
            try:
                notes: list[str] = []
                built = GraphProto()
                _Converter(_function_nodes(function), notes, self).fill(built, name)
                self.notes.extend(f"function {name!r}: {note}" for note in notes)
                self.done[name] = built
                self.sizes[name] = len(built.node) + self.open[-1]
                self.produced += len(built.node)
            finally:
                self.depth -= 1
                self.open.pop()
            if name in self.once and self.done[name] is not None:
                # Its one caller takes the body itself (the copy its attribute makes replaces it).
                graph, self.done[name] = self.done[name], _GIVEN
                if self.open:
                    self.open[-1] += self.sizes[name]
                return graph
        graph = self.done[name]
        if graph is None:  # being converted: reached from itself
            self.recursive.add(name)
            return None
        if graph is _GIVEN:  # called once, given to that call
            return None
        size = self.sizes[name]
        if self.produced + size > _MAX_PRODUCED:
            self.cut[name] = self.cut.get(name, 0) + 1
            return None
        self.produced += size
        if self.open:
            self.open[-1] += size
        return graph

    def levels(self, graph_nodes: Any) -> int:
        """The depth to open calls to, from the call counts alone (nothing is built): the
        deepest, up to :data:`_MAX_DEPTH`, whose copies (twice over, the body converted and its
        copy, but for a function called once, whose caller takes the body itself) stay within
        :data:`_MAX_PRODUCED` nodes; 1 when none does."""
        calls = {name: _calls(f.node_def, self.functions) for name, f in self.functions.items()}
        own = {name: len(f.node_def) + len(f.signature.input_arg) + len(f.signature.output_arg)
               for name, f in self.functions.items()}  # fmt: skip
        top = _calls(graph_nodes, self.functions)
        sites = collections.Counter(top)
        for called in calls.values():
            sites.update(called)
        self.called = set(sites)
        self.once = {name for name, count in sites.items() if count == 1}
        cap = _MAX_PRODUCED + 1
        size = dict(own)  # opened 0 levels below: the body alone
        for depth in range(1, _MAX_DEPTH + 1):
            total = sum(size[name] * (1 if name in self.once else 2) for name in top)
            if total > _MAX_PRODUCED:
                return max(1, depth - 1)
            size = {name: min(cap, own[name] + sum(size[c] for c in calls[name])) for name in self.functions}
        return _MAX_DEPTH

    def warnings(self) -> list[str]:
        """What was not opened, said once for the whole library."""
        out = []
        if self.recursive:
            names = sorted(self.recursive)
            out.append(
                f"{len(names)} function(s) of the graph's library reach themselves (directly or through others): "
                + _names(names)
                + "; inside itself such a function is not opened, its call names it"
            )
        if self.cut:
            out.append(
                f"the library's function bodies opened in their callers reached {_MAX_PRODUCED:,} nodes: "
                f"{sum(self.cut.values()):,} call(s) are not opened and name their function instead ("
                + _counts(self.cut)
                + ")"
            )
        if self.deep:
            why = "" if self.limit == _MAX_DEPTH else f", to keep the graph within {_MAX_PRODUCED:,} nodes"
            out.append(
                f"functions called more than {self.limit} deep are not opened{why}: "
                f"{sum(self.deep.values()):,} call(s) (" + _counts(self.deep) + ")"
            )
        return out


def _calls(nodes: Any, functions: dict[str, Any]) -> list[str]:
    """The functions of the library that ``nodes`` call, once per call."""
    out = []
    for node in nodes:
        for attr in node.attr.values():
            kind = attr.WhichOneof("value")
            if kind == "func" and attr.func.name in functions:
                out.append(attr.func.name)
            elif kind == "list":
                out.extend(f.name for f in attr.list.func[:_MAX_ITEMS] if f.name in functions)
    return out


def _names(names: list[str]) -> str:
    return ", ".join(repr(n[:80]) for n in names[:5]) + (", ..." if len(names) > 5 else "")


def _counts(calls: dict[str, int]) -> str:
    top = sorted(calls.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{n:,} of {f[:80]!r}" for f, n in top[:5]) + (", ..." if len(top) > 5 else "")


def _function_nodes(function: Any) -> Any:
    """A function's body as a GraphDef's nodes: its arguments as ``_Arg`` nodes (typed), its
    nodes with inputs ``node:output_arg:index`` renumbered ``node:k`` (k in the order of the
    output names, ``node`` alone for the first), and a ``_Retval`` node per output argument."""
    outputs: dict[str, dict[str, int]] = {}
    texts = [text for node in function.node_def for text in node.input] + list(function.ret.values())
    for text in texts:
        parts = text.split(":")
        if len(parts) == 3 and not text.startswith("^"):
            outputs.setdefault(parts[0], {})[f"{parts[1]}:{parts[2]}"] = 0
    for found in outputs.values():
        order = sorted(found, key=lambda key: (key.rpartition(":")[0], _index_of(key)))
        found.update((key, k) for k, key in enumerate(order))

    def renamed(text: str) -> str:
        parts = text.split(":")
        if len(parts) != 3 or text.startswith("^"):
            return text
        return _value(parts[0], outputs[parts[0]][f"{parts[1]}:{parts[2]}"])

    graph = tb.GraphDef()
    for arg in function.signature.input_arg:
        node = graph.node.add(name=arg.name, op="_Arg")
        if arg.type:
            node.attr["T"].type = arg.type
    for node_def in function.node_def:
        node = graph.node.add()
        node.CopyFrom(node_def)
        del node.input[:]
        node.input.extend(renamed(text) for text in node_def.input)
        if len(outputs.get(node_def.name, ())) > 1 and "_output_shapes" in node.attr:
            del node.attr["_output_shapes"]  # which output arg is which output is not known here
    for arg in function.signature.output_arg:
        source = function.ret.get(arg.name)
        if source:
            graph.node.add(name=arg.name, op="_Retval", input=[renamed(source)])
    return graph.node


def _index_of(key: str) -> int:
    tail = key.rpartition(":")[2]
    return int(tail) if tail.isdigit() and tail.isascii() else 0


def _output_of(text: str) -> tuple[str, int]:
    """``"a/b:2"`` -> ``("a/b", 2)``; ``"a/b"`` -> ``("a/b", 0)``."""
    head, sep, tail = text.rpartition(":")
    if sep and tail.isdigit() and tail.isascii():
        return head, int(tail)
    return text, 0


def _value(node: str, k: int) -> str:
    return node if k == 0 else f"{node}:{k}"


def _output_shapes(node: Any) -> list[list[int] | None]:
    """``_output_shapes`` (one shape per output; -1 an unknown size, None an unknown rank)."""
    attr = node.attr.get("_output_shapes")
    if attr is None or attr.WhichOneof("value") != "list":
        return []
    return [None if s.unknown_rank else [int(d.size) for d in s.dim] for s in attr.list.shape]


def _shape_attr(node: Any) -> list[int] | None:
    """A placeholder's ``shape`` attribute (None: unknown rank, or none)."""
    attr = node.attr.get("shape")
    if attr is None or attr.WhichOneof("value") != "shape" or attr.shape.unknown_rank:
        return None
    return [int(d.size) for d in attr.shape.dim]


def _output_dtype(node: Any) -> int:
    """The dtype of a node's first output, from its attributes; 0 when they do not say."""
    for key in _TYPE_ATTRS:
        attr = node.attr.get(key)
        if attr is not None and attr.WhichOneof("value") == "type":
            return int(attr.type)
    return 0


def _value_info(vi: Any, name: str, dtype: int, shape: list[int] | None) -> None:
    vi.name = name
    tt = vi.type.tensor_type
    tt.elem_type = _ONNX_DTYPE.get(dtype % 100, 0)
    if shape is not None:
        dims = tt.shape.dim
        for size in shape:
            dim = dims.add()
            if size >= 0:
                dim.dim_value = size
            else:
                dim.dim_param = "?"


def _dtype_name(dtype: int) -> str:
    base = DTYPES.get(dtype % 100, f"dtype{dtype % 100}")
    return f"{base}_ref" if dtype > 100 else base


def _shape_text(shape: Any) -> str:
    if shape.unknown_rank:
        return "unknown rank"
    return "[" + ", ".join(str(d.size) if d.size >= 0 else "?" for d in shape.dim) + "]"


def _tensor(t: Any) -> TensorProto:
    """A TensorFlow tensor as an ONNX one: its dtype and shape, and its values when it
    has at most :data:`_SMALL` (a tensor's bytes are never copied whole)."""
    dims = [int(d.size) for d in t.tensor_shape.dim]
    size = math.prod(dims)
    out = TensorProto(data_type=_ONNX_DTYPE.get(t.dtype, TensorProto.UNDEFINED), dims=dims)
    if 0 < size <= _SMALL:
        values = _small_values(t, size)
        if values is not None:
            try:
                with _warnings.catch_warnings():
                    _warnings.simplefilter("ignore")
                    filled = onnx.numpy_helper.from_array(values.reshape(dims))
            except (ValueError, TypeError):
                return out
            out.CopyFrom(filled)
    return out


def _small_values(t: Any, size: int) -> np.ndarray | None:
    """The elements of a small tensor, or None when they cannot be told."""
    if t.dtype == 7:
        strings = list(t.string_val)
        if not strings:
            return None
        strings += [strings[-1]] * (size - len(strings))
        return np.array([s[:80] for s in strings[:size]], dtype=object)
    spec = _VALUES.get(t.dtype)
    if spec is None:
        return None
    dtype, field = spec
    if t.tensor_content:
        raw = np.frombuffer(t.tensor_content, np.uint8)
        width = np.dtype(dtype).itemsize
        if len(raw) != size * width:
            return None
        return raw.view(dtype)
    found = list(getattr(t, field))
    if not found:
        return np.zeros(size, dtype)
    found += [found[-1]] * (size - len(found))  # TensorFlow's fill: the last value repeats
    if field == "half_val":
        return np.array(found[:size], np.uint16).view(np.float16)
    return np.array(found[:size], dtype)


def _text_attribute(key: str, text: str | bytes) -> AttributeProto:
    return AttributeProto(name=key, type=AttributeProto.STRING, s=text if isinstance(text, bytes) else text.encode())


def _texts_attribute(key: str, texts: list[str]) -> AttributeProto:
    return AttributeProto(name=key, type=AttributeProto.STRINGS, strings=[t.encode() for t in texts])


def _attribute(key: str, attr: Any, body: Callable[[str], GraphProto | None]) -> AttributeProto:
    """An attribute as ONNX keeps one; what ONNX has no type for, as text; a function of
    the library as its ``body`` (a subgraph that opens), or its name. One cut (a string past
    :data:`_MAX_STRING` bytes, a list past :data:`_MAX_ITEMS` items) says its true size in its
    ``doc_string``."""
    out = _converted(key, attr, body)
    kind = attr.WhichOneof("value")
    if kind == "s" and len(attr.s) > _MAX_STRING:
        out.doc_string = f"{len(attr.s):,} bytes, the first {_MAX_STRING:,} kept"
    elif kind == "list":
        lst = attr.list
        longest = max(len(lst.i), len(lst.f), len(lst.s), len(lst.b), len(lst.type), len(lst.shape),
                      len(lst.func), len(lst.tensor))  # fmt: skip
        if longest > _MAX_ITEMS:
            out.doc_string = f"{longest:,} items, the first {_MAX_ITEMS} kept"
    return out


def _converted(key: str, attr: Any, body: Callable[[str], GraphProto | None]) -> AttributeProto:
    kind = attr.WhichOneof("value")
    if kind == "s":
        return _text_attribute(key, attr.s[:_MAX_STRING])
    if kind == "i":
        return AttributeProto(name=key, type=AttributeProto.INT, i=attr.i)
    if kind == "f":
        return AttributeProto(name=key, type=AttributeProto.FLOAT, f=attr.f)
    if kind == "b":
        return _text_attribute(key, "true" if attr.b else "false")
    if kind == "type":
        return _text_attribute(key, _dtype_name(attr.type))
    if kind == "shape":
        return _text_attribute(key, _shape_text(attr.shape))
    if kind == "tensor":
        return AttributeProto(name=key, type=AttributeProto.TENSOR, t=_tensor(attr.tensor))
    if kind == "placeholder":
        return _text_attribute(key, f"${attr.placeholder}")
    if kind == "func":
        graph = body(attr.func.name)
        if graph is not None:
            return AttributeProto(name=key, type=AttributeProto.GRAPH, g=graph)
        return _text_attribute(key, attr.func.name)
    if kind == "list":
        return _list_attribute(key, attr.list, body)
    return _text_attribute(key, "")


def _list_attribute(key: str, lst: Any, body: Callable[[str], GraphProto | None]) -> AttributeProto:
    if lst.i:
        return AttributeProto(name=key, type=AttributeProto.INTS, ints=lst.i[:_MAX_ITEMS])
    if lst.f:
        return AttributeProto(name=key, type=AttributeProto.FLOATS, floats=lst.f[:_MAX_ITEMS])
    if lst.s:
        return AttributeProto(name=key, type=AttributeProto.STRINGS, strings=[s[:80] for s in lst.s[:_MAX_ITEMS]])
    if lst.b:
        return _texts_attribute(key, ["true" if v else "false" for v in lst.b[:_MAX_ITEMS]])
    if lst.type:
        return _texts_attribute(key, [_dtype_name(v) for v in lst.type[:_MAX_ITEMS]])
    if lst.shape:
        return _texts_attribute(key, [_shape_text(v) for v in lst.shape[:_MAX_ITEMS]])
    if lst.func:
        funcs = lst.func[:_MAX_ITEMS]
        graphs = [g for g in (body(f.name) for f in funcs) if g is not None]
        if len(graphs) == len(funcs):
            return AttributeProto(name=key, type=AttributeProto.GRAPHS, graphs=graphs)
        return _texts_attribute(key, [f.name for f in lst.func[:_MAX_ITEMS]])
    if lst.tensor:
        return AttributeProto(
            name=key, type=AttributeProto.TENSORS, tensors=[_tensor(t) for t in lst.tensor[:_MAX_ITEMS]]
        )
    return AttributeProto(name=key, type=AttributeProto.INTS)
