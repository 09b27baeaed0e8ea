"""Where the checkout and the tests' own data are, wherever a test module sits."""

from __future__ import annotations

import os

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TESTS)
DATA = os.path.join(TESTS, "data")
JS = os.path.join(TESTS, "js")
ARTIFACTS = os.path.join(TESTS, "artifacts")
