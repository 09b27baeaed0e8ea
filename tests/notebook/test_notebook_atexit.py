"""The notebook stops the servers it started when the kernel exits; importing it registers
nothing for that exit, its first start does, once."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

_CHILD = textwrap.dedent(
    """
    import atexit
    import json

    registered = []
    real = atexit.register

    def register(func, *args, **kwargs):
        registered.append(f"{func.__module__}.{func.__qualname__}")
        return real(func, *args, **kwargs)

    atexit.register = register
    from visualdl import notebook

    at_import = [name for name in registered if name.startswith("visualdl.notebook")]
    notebook._stop_at_exit()  # what start() calls before it starts a server
    notebook._stop_at_exit()
    at_start = [name for name in registered if name.startswith("visualdl.notebook")]
    print(json.dumps([at_import, at_start]))
    """
)


@pytest.mark.e2e  # a Python process of its own (it imports visualdl: half a CPU second)
def test_notebook_registers_its_exit_at_the_first_start_not_at_import(child_env):
    out = subprocess.run(
        [sys.executable, "-c", _CHILD], env=child_env, capture_output=True, text=True, timeout=120, check=True
    )
    at_import, at_start = json.loads(out.stdout.strip().splitlines()[-1])
    assert at_import == []
    assert at_start == ["visualdl.notebook.stop"]  # once
