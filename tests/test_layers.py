"""The layers of ARCHITECTURE.md, checked: each module imports only from layers below its own.

From the bottom, as ARCHITECTURE.md's table gives them: schema and errors, kinds, formats,
storage, the SDK and the index (side by side), job analysis, queries and views, HTTP, the
frontend (JavaScript, not checked here), the edges.

Every ``import`` and ``from ... import`` of ``visualdl`` in the package's source is
read with :mod:`ast` (function-level imports too), its target module placed in a
layer, and compared with the importer's. A new module lands in a layer by its folder,
so a wrong-way import fails here with the file and the line.
"""

from __future__ import annotations

import ast
import os

import pytest
from kit.paths import ROOT

#: Folder of the checkout -> the package it is installed as.
PACKAGES = {"visualdl": "visualdl", "sdk": "visualdl.sdk", "server": "visualdl.server", "proto": "visualdl.proto"}

#: Layer numbers, from the bottom (ARCHITECTURE.md, "The layers"). The SDK and the index
#: stand side by side (neither imports the other); the frontend (JavaScript) has no number here.
SCHEMA, KINDS, FORMATS, STORAGE, SDK, INDEX, JOBS, QUERIES, HTTP, EDGE = 0, 1, 2, 3, 4, 4, 5, 6, 7, 9

#: The edges, by the module or package of ``visualdl`` they are, and the layers each may not
#: import (``None``: it may import only the layers listed in :data:`EDGE_ONLY`).
EDGES = {
    "_cli": "cli",
    "__main__": "cli",
    "notebook": "notebook",
    "_notebook": "notebook",
    "integrations": "integrations",
    "_logreader": "reader",
    "__init__": "face",
}
#: What an edge must never reach: the CLI and the notebook read the provider's values, never
#: the server's JSON (``server._views``); the notebook never the HTTP layer either; LogReader
#: (the public facade over the index and the job analysis) never the server nor the writer.
EDGE_MAY_NOT = {
    "cli": ("server._views", "notebook"),
    "notebook": ("server._views", "server._http", "cli"),
    "reader": ("server", "sdk", "notebook", "cli", "integrations"),
    "face": (),
}
#: The integrations are on the SDK only (and the package's face, for ``LogWriter``).
EDGE_ONLY = {"integrations": ("proto", "errors", "__version__", "_kinds", "_formats", "_storage", "sdk", "face")}


def _is_module(second: str) -> bool:
    """Whether ``visualdl.<second>`` is a module or package of the checkout (else a name of the face)."""
    return second in PACKAGES.values() or any(
        os.path.exists(os.path.join(ROOT, "visualdl", second + suffix)) for suffix in (".py", "")
    )


def layer(module: str) -> tuple[int, str]:
    """``(rank, name)`` of a module of the package."""
    parts = module.split(".")
    second = parts[1] if len(parts) > 1 else "__init__"
    if second in ("proto", "errors", "__version__", "_version"):
        return SCHEMA, second if second != "_version" else "__version__"
    if second == "sdk":
        return SDK, "sdk"
    if second == "server":
        third = parts[2] if len(parts) > 2 else ""
        if third in ("_http", "app"):
            return HTTP, "server._http"
        if third == "":
            return HTTP, "server"
        return QUERIES, "server." + third
    named = {"_kinds": KINDS, "_formats": FORMATS, "_storage": STORAGE, "_index": INDEX, "_jobs": JOBS, "types": JOBS}
    if second in named:
        return named[second], second
    if second in EDGES:
        return EDGE, EDGES[second]
    if not _is_module(second):  # ``from visualdl import LogWriter``: the face
        return EDGE, "face"
    return EDGE, second


def _modules() -> list[tuple[str, str]]:
    """``(module name, path)`` of every source module of the package."""
    out = []
    for folder, package in PACKAGES.items():
        base = os.path.join(ROOT, folder)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for name in filenames:
                if not name.endswith(".py") or name.endswith("_pb2.py"):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), base)[: -len(".py")].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                out.append((".".join([package, *rel]), os.path.join(dirpath, name)))
    return out


def _imports(module: str, path: str) -> list[tuple[int, str]]:
    """``(line, module)`` of every module of the package that ``path`` imports."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "visualdl"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: -node.level + (1 if path.endswith("__init__.py") else 0) or None]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target.split(".")[0] != "visualdl":
                continue
            # ``from visualdl import _x`` imports the module ``visualdl._x``.
            out += [(node.lineno, f"{target}.{a.name}" if target.count(".") < 2 else target) for a in node.names]
    return out


def _edge_violation(name: str, their_name: str) -> bool:
    """Whether the edge ``name`` may not import from ``their_name`` (see :data:`EDGE_MAY_NOT`)."""
    if name in EDGE_ONLY:
        return their_name not in EDGE_ONLY[name]
    barred = EDGE_MAY_NOT.get(name)
    if barred is None:
        return True  # an edge nobody placed: place it in EDGES
    return any(their_name == b or their_name.startswith(b + ".") for b in barred)


def _violations() -> list[str]:
    found = []
    for module, path in _modules():
        rank, name = layer(module)
        for line, target in sorted(set(_imports(module, path))):
            their_rank, their_name = layer(target)
            if their_name == name:
                continue
            if rank == EDGE:
                wrong = _edge_violation(name, their_name)
            else:
                wrong = their_rank > rank
                wrong |= {name, their_name} == {"sdk", "_index"}  # writing never needs the reader, nor the reverse
                wrong |= name.startswith("server.") and their_name == "server._http"  # views and queries: no HTTP
            if wrong:
                where = f"{os.path.relpath(path, ROOT)}:{line}"
                found.append(f"{where}: {name} (layer {rank}) imports {target} ({their_name}, layer {their_rank})")
    return found


def test_layers_every_import_goes_down():
    assert _violations() == []


def test_layers_only_the_http_layer_imports_flask():
    users = []
    for module, path in _modules():
        if layer(module)[1] in ("server._http",):
            continue
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            else:
                continue
            if any(n.split(".")[0] in ("flask", "werkzeug") for n in names):
                users.append(f"{os.path.relpath(path, ROOT)}:{node.lineno}")
    assert users == []


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("visualdl._kinds.table", "_kinds"),
        ("visualdl._formats.tfevents.decode", "_formats"),
        ("visualdl.server._views.scalars", "server._views"),
        ("visualdl.server._http.routes", "server._http"),
        ("visualdl.server.app", "server._http"),
        ("visualdl.sdk._sink", "sdk"),
        ("visualdl._jobs.goodput", "_jobs"),
        ("visualdl._cli.inspect", "cli"),
        ("visualdl._notebook.figures", "notebook"),
        ("visualdl.integrations.keras", "integrations"),
        ("visualdl.LogWriter", "face"),
        ("visualdl._logreader", "reader"),
        ("visualdl.types", "types"),
    ],
)
def test_layers_a_module_is_placed_by_its_folder(module, expected):
    assert layer(module)[1] == expected


def test_layers_an_edge_reaching_past_its_layers_is_found(tmp_path, monkeypatch):
    """The CLI may not read the server's JSON, nor an integration the index."""
    (tmp_path / "visualdl" / "_cli").mkdir(parents=True)
    (tmp_path / "visualdl" / "_cli" / "wrong.py").write_text("from visualdl.server._views.jobs import job_json\n")
    (tmp_path / "visualdl" / "integrations").mkdir(parents=True)
    (tmp_path / "visualdl" / "integrations" / "wrong.py").write_text(
        "from visualdl import LogWriter\nfrom visualdl._index.index import Index\n"
    )
    monkeypatch.setitem(globals(), "ROOT", str(tmp_path))
    assert sorted(_violations()) == [
        "visualdl/_cli/wrong.py:1: cli (layer 9) imports visualdl.server._views.jobs (server._views, layer 6)",
        "visualdl/integrations/wrong.py:2: integrations (layer 9) imports visualdl._index.index (_index, layer 4)",
    ]


def test_layers_a_wrong_way_import_is_found(tmp_path, monkeypatch):
    """The check can fail: a kind that imports the index is reported with its line."""
    kinds = tmp_path / "visualdl" / "_kinds"
    kinds.mkdir(parents=True)
    (kinds / "wrong.py").write_text("import os\nfrom visualdl._index.index import Index\n")
    monkeypatch.setitem(globals(), "ROOT", str(tmp_path))
    assert _violations() == [
        "visualdl/_kinds/wrong.py:2: _kinds (layer 1) imports visualdl._index.index (_index, layer 4)"
    ]
