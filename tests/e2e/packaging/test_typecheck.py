"""The type checker sees the package as installed: a wrong-typed call across its packages fails.

.ci/typecheck checks ``build/typecheck/visualdl``, a tree of links with the installed
layout. Here the same tree gets one more module with wrong calls into visualdl.sdk,
visualdl.server and visualdl.proto; if any of those imports resolved to ``Any`` (as they
did before the tree), mypy would pass them and this test fails.
"""

from __future__ import annotations

import os
import subprocess
import sys

from kit.paths import ROOT
from kit.requirements import require

WRONG = """
from visualdl.proto import pb
from visualdl.sdk._sink import Sink
from visualdl.server.app import Settings, create_app

create_app("not settings")
Settings(max_points="many")
pb.Histogram(count="three")
Sink.flush(42)
"""

RIGHT = """
from visualdl.proto import pb
from visualdl.server.app import Settings, create_app

create_app(Settings(max_points=10))
pb.Histogram(count=3)
"""


def _mypy(tmp_path, source: str) -> subprocess.CompletedProcess[str]:
    tree = tmp_path / "build" / "typecheck" / "visualdl"
    tree.mkdir(parents=True)
    for name in os.listdir(os.path.join(ROOT, "visualdl")):
        subpackage = os.path.isfile(os.path.join(ROOT, "visualdl", name, "__init__.py"))
        if name.endswith(".py") or name == "py.typed" or subpackage:
            os.symlink(os.path.join(ROOT, "visualdl", name), tree / name)
    for package in ("sdk", "server", "proto"):
        os.symlink(os.path.join(ROOT, package), tree / package)
    (tree / "_typecheck_probe.py").write_text(source)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            os.path.join(ROOT, "pyproject.toml"),
            "-m",
            "visualdl._typecheck_probe",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_wrong_typed_calls_across_packages_fail_the_type_check(tmp_path):
    require(_has_mypy(), "mypy", 'pip install -e ".[dev]"')
    result = _mypy(tmp_path, WRONG)
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    for expected in (
        'Argument 1 to "create_app" has incompatible type "str"; expected "Settings"',
        'Argument "max_points" to "Settings" has incompatible type "str"; expected "int"',
        'Argument "count" to "Histogram" has incompatible type "str"',
        'Argument 1 to "flush" of "Sink" has incompatible type "int"; expected "Sink"',
    ):
        assert expected in out, out


def test_right_typed_calls_pass(tmp_path):
    require(_has_mypy(), "mypy", 'pip install -e ".[dev]"')
    result = _mypy(tmp_path, RIGHT)
    assert result.returncode == 0, result.stdout + result.stderr


def _has_mypy() -> bool:
    try:
        import mypy  # noqa: F401
    except ImportError:
        return False
    return True
