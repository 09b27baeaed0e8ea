"""One import namespace: the wheel holds only visualdl/, and a checkout resolves the mapped folders."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

import pytest
from kit.paths import ROOT

SMOKE = """
import os, sys, tempfile
import visualdl, visualdl.sdk, visualdl.server, visualdl.proto
from visualdl import LogReader, LogWriter
d = tempfile.mkdtemp()
with LogWriter(d) as w:
    w.add_scalar("x", 1.5, 3)
assert LogReader(d).scalars(".", "x").values.tolist() == [1.5]
print(os.path.dirname(visualdl.__file__))
print(os.path.dirname(visualdl.sdk.__file__))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", ROOT, "--no-deps", "--no-build-isolation", "-q", "-w", str(out)],
        check=True,
        cwd=str(out),
    )
    (path,) = [p for p in os.listdir(out) if p.endswith(".whl")]
    return str(out / path)


def test_wheel_holds_only_the_visualdl_namespace(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"visualdl"}
    needed = [
        "visualdl/sdk/_writer.py",
        "visualdl/server/__init__.py",
        "visualdl/proto/visualdl_log_pb2.py",
        "visualdl/proto/visualdl_log.proto",
        "visualdl/frontend_static/README.md",
        "visualdl/_cli/__init__.py",
        "visualdl/_jobs/overview.py",
        "visualdl/server/_provider/__init__.py",
    ]
    assert [n for n in needed if n not in names] == []
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "visualdl = visualdl._cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_installed_copy_works_outside_the_checkout(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), wheel], check=True
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    out = subprocess.run(
        [sys.executable, "-c", SMOKE], env=env, cwd=str(tmp_path), capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == [str(target / "visualdl"), str(target / "visualdl" / "sdk")]


def test_checkout_shadows_an_installed_copy_and_resolves_mapped_folders(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), wheel], check=True
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    # Run the smoke script with the checkout first on sys.path, as `python -m pytest` at the root does.
    script = tmp_path / "smoke.py"
    script.write_text(SMOKE)
    out = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {ROOT!r}); exec(open({str(script)!r}).read())"],
        env=env,
        cwd=str(tmp_path),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == [os.path.join(ROOT, "visualdl"), os.path.join(ROOT, "sdk")]


def test_python_dash_m_and_console_script_agree(child_env):
    script = shutil.which("visualdl")
    assert script is not None, "the visualdl console script is not installed: pip install -e ."
    via_m = subprocess.run([sys.executable, "-m", "visualdl", "--help"], env=child_env, capture_output=True, text=True)
    via_script = subprocess.run([script, "--help"], env=child_env, capture_output=True, text=True)
    assert via_m.returncode == via_script.returncode == 0
    assert "--logdir" in via_m.stdout and via_m.stdout == via_script.stdout
