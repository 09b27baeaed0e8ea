"""The real TensorBoard writers tests write event files with: tensorboardX's and torch's ``SummaryWriter``.

torch is an e2e extra and takes seconds to import: a test that writes with torch's writer is
in the e2e tier and imports it itself, through ``torch_writer()`` (never at the top of its
module, which pytest imports to collect it in either tier). ``WRITERS`` parametrizes a test
by both writers, torch's parameter marked ``e2e``; ``summary_writer(name)`` is the class.
"""

from __future__ import annotations

from typing import Any

import pytest

from kit.requirements import require_import

E2E_INSTALL = "pip install -e '.[e2e]'"
BENCH_INSTALL = "pip install -e '.[bench]'"

#: ``@pytest.mark.parametrize("writer", WRITERS)``: tensorboardX's writer in the inner tier, torch's in e2e.
WRITERS = (pytest.param("tensorboardX"), pytest.param("torch", marks=pytest.mark.e2e))


def summary_writer(name: str) -> Any:
    """The ``SummaryWriter`` class of ``"tensorboardX"`` or ``"torch"``."""
    return torch_writer() if name == "torch" else tensorboardx_writer()


def torch_writer() -> Any:
    """torch's ``SummaryWriter`` (``torch.utils.tensorboard``), imported by the test that writes with it."""
    return require_import("torch.utils.tensorboard", E2E_INSTALL, "torch").SummaryWriter


def tensorboardx_writer() -> Any:
    """tensorboardX's ``SummaryWriter``."""
    return require_import("tensorboardX", BENCH_INSTALL).SummaryWriter


def import_torch() -> Any:
    """torch itself, imported by the test that uses it: ``torch = import_torch()``."""
    return require_import("torch", E2E_INSTALL)
