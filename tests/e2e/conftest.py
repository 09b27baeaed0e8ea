"""The slow tier: every test under ``tests/e2e/`` is marked ``e2e``.

A real browser, a notebook kernel, the demos, a built wheel and mypy over the installed
package, model export through torch and paddle, the benchmarks: each test here takes
seconds to minutes. ``pytest -m "not e2e"`` is the inner loop; CI runs both tiers.
A slow test elsewhere carries ``@pytest.mark.e2e`` itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A hook of a folder's conftest still sees every item of the session: keep to this folder.
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.e2e)
