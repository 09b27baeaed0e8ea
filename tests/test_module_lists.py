"""Each package's ``__init__.py`` docstring names every module and subpackage of it.

ARCHITECTURE.md gives a line per layer; the modules of a layer, one concern each, are
listed where they live: in the docstring of their package, as ``name.py`` (or ``name/`` for
a subpackage). A module added without its line fails here.
"""

from __future__ import annotations

import ast
import os

import pytest
from kit.paths import ROOT

#: The packages of the checkout whose docstring lists their modules, in the layers' order.
PACKAGES = (
    "visualdl/_kinds",
    "visualdl/_formats",
    "visualdl/_storage",
    "sdk",
    "visualdl/_index",
    "visualdl/_jobs",
    "server",
    "server/_provider",
    "server/_views",
    "server/_graph",
    "server/_http",
    "visualdl/_notebook",
    "visualdl/integrations",
)


def _members(package: str) -> list[str]:
    """``name.py`` of each module and ``name/`` of each subpackage of ``package``."""
    base = os.path.join(ROOT, package)
    out = []
    for name in sorted(os.listdir(base)):
        path = os.path.join(base, name)
        if name.endswith(".py") and name != "__init__.py" and not name.endswith("_pb2.py"):
            out.append(name)
        elif os.path.isfile(os.path.join(path, "__init__.py")):
            out.append(name + "/")
    return out


@pytest.mark.parametrize("package", PACKAGES)
def test_package_docstring_lists_its_modules(package):
    with open(os.path.join(ROOT, package, "__init__.py"), encoding="utf-8") as f:
        docstring = ast.get_docstring(ast.parse(f.read())) or ""
    members = _members(package)
    assert members, f"{package} has no modules"
    assert [m for m in members if f"``{m}``" not in docstring] == [], f"{package}/__init__.py's docstring"
