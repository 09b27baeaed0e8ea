"""``frontend_static/README.md`` names every file of the web UI, and only files that exist."""

from __future__ import annotations

import os
import re

from kit.paths import ROOT

FRONTEND = os.path.join(ROOT, "frontend_static")
#: The package's own files, not the UI's.
NOT_UI = {"__init__.py", "README.md"}


def _readme() -> str:
    with open(os.path.join(FRONTEND, "README.md"), encoding="utf-8") as f:
        return f.read()


def test_frontend_readme_lists_every_module():
    named = set(re.findall(r"`([\w.-]+)`", _readme()))
    files = sorted(name for name in os.listdir(FRONTEND) if os.path.isfile(os.path.join(FRONTEND, name)))
    assert len(files) > 40, files
    assert [name for name in files if name not in NOT_UI and name not in named] == []


def test_frontend_readme_names_no_file_that_is_gone():
    named = set(re.findall(r"`([\w-]+\.(?:js|css|html|svg))`", _readme()))
    assert sorted(name for name in named if not os.path.isfile(os.path.join(FRONTEND, name))) == []
