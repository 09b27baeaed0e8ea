"""The README's screenshots script keeps working: the small demo, served, each view a picture.

``screenshots.py`` (beside this file) writes ``docs/images/``; here it writes a scratch
directory from the demo's quick runs, and each picture is a PNG of the script's window width.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys

from kit.pages import CHROMIUM
from kit.paths import ROOT
from kit.requirements import require

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "screenshots.py")


def _png_size(path: str) -> tuple[int, int]:
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def test_screenshots_script_takes_the_three_views_of_the_demo(tmp_path):
    require(os.path.exists(CHROMIUM), CHROMIUM, "apt-get install chromium")
    out = tmp_path / "images"
    done = subprocess.run(
        [sys.executable, SCRIPT, "--out", str(out), "--small"], cwd=ROOT,
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    names = sorted(os.listdir(out))
    assert names == ["jobs.png", "runs.png", "scalars.png"]
    for name in names:
        width, height = _png_size(str(out / name))
        assert width == 1280 and 200 <= height <= 860, (name, width, height)
        assert os.path.getsize(out / name) > 20_000, f"{name} is nearly blank"
    # The committed pictures are the same views, at the same width.
    for name in names:
        assert _png_size(os.path.join(ROOT, "docs", "images", name))[0] == 1280, name
