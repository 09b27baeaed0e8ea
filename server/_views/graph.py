"""Graphs as the API serves them: logged graphs and ``--model`` files, parsed once, views laid out once.

A *source* is a graph logged in a run (``run`` and ``name``; the newest of a name) or a
``--model`` file (``model``: its position in ``Settings.models``, never a path from the
request). Parsed models (with inferred shapes) are cached by the source's version (the
record's place in the log, or the file's size and mtime); a laid-out view by (model,
subgraph path, expanded groups). No flask here.
"""

from __future__ import annotations

import os
import re
from typing import Any

from onnx import ModelProto

from visualdl._index.cache import ByteCache
from visualdl.errors import InvalidArgument, NotFound
from visualdl.server._graph.blocks import (
    inline_functions,
)
from visualdl.server._graph.graphdef import FORMAT as GRAPHDEF
from visualdl.server._graph.graphdef import graphdef_model
from visualdl.server._graph.layout import layout
from visualdl.server._graph.limits import MAX_PATH_DEPTH
from visualdl.server._graph.model import (
    STACK,
    Graph,
    GraphError,
    external_data_files,
    infer_shapes,
    model_properties,
    parse_model,
    shown,
)
from visualdl.server._graph.model import subgraph as find_subgraph
from visualdl.server._provider import DataProvider

__all__ = ["GraphService", "parse_path"]

MAX_MODEL_BYTES = 2 << 30
# ASCII digits only: str.isdigit() also takes "²" and "①", which int() refuses.
_NUMBER = r"[0-9]{1,18}"
_STEP = re.compile(rf"({_NUMBER})\.([^.|]+)\.({_NUMBER})")
_NODE = re.compile(rf"n({_NUMBER})")
_MODEL = re.compile(_NUMBER)


def parse_path(text: str) -> list[tuple[int, str, int]]:
    """``"3.then_branch.0|5.body.0"`` -> ``[(3, "then_branch", 0), (5, "body", 0)]`` (node index, attribute, graph)."""
    if not text:
        return []
    out = []
    for step in text.split("|"):
        match = _STEP.fullmatch(step)
        if match is None:
            raise InvalidArgument(
                f"subgraph path step {step[:60]!r} must be NODE.ATTRIBUTE.INDEX, e.g. 3.then_branch.0"
            )
        out.append((int(match[1]), match[2], int(match[3])))
    if len(out) > MAX_PATH_DEPTH:
        raise InvalidArgument(f"subgraph path is deeper than {MAX_PATH_DEPTH} levels")
    return out


def _size(item: dict[str, Any]) -> tuple[float, float]:
    label = item.get("label", "")
    if item["kind"] in ("group", "stack"):
        about = item.get("about") or ""  # the second line: "<about> · N nodes", or "N nodes: 4 Conv, 3 Relu, ..."
        ops = ", ".join(f"{c} {op}" for op, c in list(item.get("ops", {}).items())[:3])
        second = len(about) + 14 if about else len(ops) + 12
        return max(130.0, 7.0 * len(label) + 40, 6.2 * min(second, 60) + 20), 50.0
    if item["kind"] == "op":
        return max(90.0, 6.6 * max(len(label), len(item.get("op_type", ""))) + 24), 36.0
    return max(70.0, 6.6 * min(len(label), 40) + 20), 26.0


class GraphService:
    def __init__(self, provider: DataProvider) -> None:
        self.provider = provider
        self._models: ByteCache[tuple[ModelProto, list[str]]] = ByteCache(max_entries=8)
        self._graphs: ByteCache[Graph] = ByteCache(max_entries=16)
        self._views: ByteCache[dict[str, Any]] = ByteCache(max_entries=64)

    # -- sources -----------------------------------------------------------------------

    def list_sources(self) -> list[dict[str, Any]]:
        logged = [
            {"run": g.run, "name": g.name, "size": g.size, "wall_time": g.wall_time, "source": "log"}
            for g in self.provider.list_graphs()
        ]
        files = [
            {"model": str(i), "name": os.path.basename(path), "size": _file_size(path), "source": "file"}
            for i, path in enumerate(self.provider.settings.models)
        ]
        return files + logged

    def _chosen(self, *, run: str | None, name: str | None, model: str | None) -> tuple[str | None, str | None]:
        """(model, run) as given, or, when neither is, of the first graph of /api/graphs (named ``name``)."""
        if model is not None or run is not None:
            return model, run
        for source in self.list_sources():
            if name is None or source["name"] == name:
                return (source["model"], None) if source["source"] == "file" else (None, source["run"])
        if name is not None:
            raise NotFound(f"no graph named {name!r}")
        raise NotFound("no graph to show: log one with LogWriter.add_graph, or start visualdl with --model FILE")

    def _load(self, *, run: str | None, name: str | None, model: str | None) -> tuple[Any, ModelProto, list[str], str]:
        """(cache key, model with inferred shapes, warnings, label)."""
        if model is not None:
            models = self.provider.settings.models
            if _MODEL.fullmatch(model) is None:
                raise InvalidArgument(
                    f"model must be a number, the model's position in /api/graphs; got {model[:40]!r}"
                )
            if int(model) >= len(models):
                raise NotFound(f"unknown model {model!r}: there are {len(models)} --model files")
            path = models[int(model)]
            try:
                st = os.stat(path)
            except OSError as e:
                raise NotFound(f"model file {os.path.basename(path)!r} cannot be read: {e.strerror}") from e
            key: Any = ("file", path, st.st_size, st.st_mtime_ns)
            label = os.path.basename(path)

            def read() -> bytes:
                if st.st_size > MAX_MODEL_BYTES:
                    raise GraphError(f"{label} is larger than 2 GiB; save its weights as external data")
                with open(path, "rb") as f:
                    return f.read()

            base_dir: str | None = os.path.dirname(path)
            fmt, title = "onnx", label
        else:
            if not run:
                raise InvalidArgument("give either model=ID or run=RUN (and name=NAME)")
            graphs = [g for g in self.provider.list_graphs() if g.run == run]
            if not graphs:
                raise NotFound(f"run {run!r} has no graph")
            chosen = graphs[0] if name is None else next((g for g in graphs if g.name == name), None)
            if chosen is None:
                raise NotFound(f"run {run!r} has no graph {name!r}; it has {[g.name for g in graphs]!r}")
            event, read = self.provider.graph(run=run, name=chosen.name)  # read only when not cached
            key = ("log", run, event.name, event.ref.path, event.ref.offset)
            label = f"{run} / {event.name}"
            fmt, title = event.format, event.name

            base_dir = None
        hit = self._models.get(key)
        if hit is not None:
            return key, hit[0], hit[1], label
        try:
            data = read()
        except OSError as e:
            raise NotFound(f"{label} cannot be read: {e}") from e
        notes: list[str] = []
        if fmt == GRAPHDEF:  # converted whole: no functions to inline, shapes as TensorFlow recorded them
            converted = graphdef_model(data, source=label, name=title, warnings=notes)
            self._models.put(key, (converted, notes), 0)
            return key, converted, notes, label
        parsed = parse_model(data, source=label, warnings=notes)
        inline_functions(parsed, notes)  # each call a group to open
        inferred, warnings = infer_shapes(parsed)
        warnings = notes + warnings
        names, missing = external_data_files(parsed, base_dir)
        if names:
            where = "missing" if missing else "not loaded"
            files = missing or names
            warnings.append(
                f"weights are stored in external data files ({where}: {', '.join(files[:5])}); "
                "the structure is shown without them"
            )
        self._models.put(key, (inferred, warnings), 0)
        return key, inferred, warnings, label

    def _graph(self, key: Any, model: ModelProto, path: list[tuple[int, str, int]]) -> tuple[Graph, list[str]]:
        gkey = (key, tuple(path))
        try:
            graph_proto, outer, crumbs = find_subgraph(model, path)
        except GraphError as e:  # a path to no subgraph: unknown, like an unknown node
            raise NotFound(str(e)) from e
        hit = self._graphs.get(gkey)
        if hit is None:
            hit = Graph.build(graph_proto, outer)
            self._graphs.put(gkey, hit, 0)
        return hit, crumbs

    # -- views -------------------------------------------------------------------------

    def view(
        self,
        *,
        run: str | None = None,
        name: str | None = None,
        model: str | None = None,
        path: str = "",
        expand: list[str] | None = None,
        expand_all: bool = False,
    ) -> dict[str, Any]:
        steps = parse_path(path)
        model, run = self._chosen(run=run, name=name, model=model)
        key, proto, warnings, label = self._load(run=run, name=name, model=model)
        graph, crumbs = self._graph(key, proto, steps)
        if expand_all:
            expanded = set(graph.groups)
        elif expand is None:
            expanded = graph.default_expanded()
        else:
            expanded = {g for g in expand if g in graph.groups or g.startswith(STACK)}
            for g in [g for g in expanded if g in graph.groups]:  # opening a group opens its parents
                parent = graph.groups[g]["parent"]
                while parent:
                    expanded.add(parent)
                    parent = graph.groups[parent]["parent"]
        vkey = (key, tuple(steps), frozenset(expanded))
        cached = self._views.get(vkey)
        if cached is None:
            cached = self._lay_out(graph, expanded)
            self._views.put(vkey, cached, 0)
        total_params = sum(p["size"] for p in graph.params.values())
        return {
            "source": {"run": run, "name": name, "model": model, "label": label},
            "model": model_properties(proto),
            "warnings": warnings,
            "path": path,
            "breadcrumb": crumbs,
            "graph": {
                "name": graph.name,
                "inputs": [{"name": shown(n), **graph.values.get(n, {})} for n in graph.inputs],
                "outputs": [{"name": shown(n), **graph.values.get(n, {})} for n in graph.outputs],
                "node_count": len(graph.nodes),
                "group_count": len(graph.groups),
                "parameter_tensors": len(graph.params),
                "parameter_count": int(total_params),
            },
            **cached,
        }

    def _lay_out(self, graph: Graph, expanded: set[str]) -> dict[str, Any]:
        view = graph.view(expanded)
        items = view["items"]
        index = {item["id"]: i for i, item in enumerate(items)}
        sizes = [_size(item) for item in items]
        pairs = [(index[e["source"]], index[e["target"]]) for e in view["edges"]]
        placed = layout(sizes, pairs)
        for i, item in enumerate(items):
            item["x"], item["y"] = placed["x"][i], placed["y"][i]
            item["w"], item["h"] = sizes[i]
        for e, points in zip(view["edges"], placed["edges"], strict=True):
            e["points"] = points
        return {
            "nodes": items,
            "edges": view["edges"],
            "expanded": view["expanded"],
            "width": placed["width"],
            "height": placed["height"],
        }

    def node(
        self, *, node: str, run: str | None, name: str | None, model: str | None, path: str = ""
    ) -> dict[str, Any]:
        match = _NODE.fullmatch(node)
        if match is None:
            raise InvalidArgument(f"node must be a node id from /api/graph, like n12; got {node[:40]!r}")
        model, run = self._chosen(run=run, name=name, model=model)
        key, proto, _, _ = self._load(run=run, name=name, model=model)
        graph, _ = self._graph(key, proto, parse_path(path))
        if int(match[1]) >= len(graph.nodes):
            raise NotFound(f"no node {node[:40]!r} in graph {graph.name!r}")
        return graph.node_detail(int(match[1]))

    def search(self, *, q: str, run: str | None, name: str | None, model: str | None, path: str = "") -> dict[str, Any]:
        model, run = self._chosen(run=run, name=name, model=model)
        key, proto, _, _ = self._load(run=run, name=name, model=model)
        graph, _ = self._graph(key, proto, parse_path(path))
        hits = graph.search(q)
        return {"query": q, "hits": hits, "truncated": len(hits) >= 200}


def _file_size(path: str) -> int | None:
    try:
        return os.path.getsize(path)
    except OSError:
        return None
