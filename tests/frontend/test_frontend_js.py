"""The frontend's pure modules, unit-tested under Node's built-in test runner (tests/js/*.test.mjs).

The JavaScript tests read the same golden vectors as the Python ones (tests/data/smoothing.json
and colors.json); this test runs them so that they are part of the one test command.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from pathlib import Path

from kit.paths import JS, ROOT
from kit.requirements import require

JS_TESTS = sorted(glob.glob(os.path.join(JS, "*.test.mjs")))


def _node_major(node: str) -> int:
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
    match = re.match(r"v(\d+)\.", version)
    return int(match.group(1)) if match else 0


def test_frontend_js_units_pass_under_node():
    node = shutil.which("node")
    require(node is not None, "node", "apt-get install nodejs")
    assert node is not None
    require(_node_major(node) >= 18, "node 18 or newer (for node --test)", "apt-get install nodejs")
    assert len(JS_TESTS) >= 5, JS_TESTS
    # The files by name rather than the directory: newer Node versions read arguments as globs.
    out = subprocess.run(
        [node, "--test", "--test-reporter=tap", *(os.path.relpath(p, ROOT) for p in JS_TESTS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = f"node --test tests/js/ exited {out.returncode}:\n{out.stdout}\n{out.stderr}"
    assert out.returncode == 0, report
    # Every test() of every file ran (none skipped, no file left out).
    declared = sum(len(re.findall(r"^test\(", Path(p).read_text(encoding="utf-8"), re.M)) for p in JS_TESTS)
    assert re.search(rf"^# pass {declared}$", out.stdout, re.M), report
