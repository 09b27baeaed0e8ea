"""The storage tests' shared kit: an S3 API server on loopback (moto's) and fresh buckets.

The fixtures are here, not in a test module, so that every storage test takes them by name.
"""

from __future__ import annotations

from typing import Any

import fsspec
import pytest
from kit.faultproxy import FAST_CLIENT, fault_proxy
from kit.requirements import require
from kit.s3 import s3_environment, serve_s3

from visualdl._storage.objects import _instances, filesystem

moto_server: Any = None
try:
    import s3fs  # noqa: F401
    from moto import server as moto_server
except ImportError:  # pragma: no cover - the test extra installs both
    pass
require(moto_server is not None, "moto and s3fs", "pip install -e '.[test]'")


@pytest.fixture(scope="module")
def s3():
    """An S3 API server on 127.0.0.1, found through the standard AWS_ENDPOINT_URL."""
    with serve_s3() as url, s3_environment(url):
        yield url


_buckets = iter(range(1_000_000))


@pytest.fixture
def bucket(s3):
    """A fresh bucket: ``s3://name``."""
    fs, _ = filesystem("s3://x")
    name = f"bucket{next(_buckets)}"
    fs.mkdir(name)
    return f"s3://{name}"


@pytest.fixture
def faults(s3, monkeypatch):
    """A :class:`~kit.faultproxy.FaultProxy` in front of the S3 API server; this process's S3
    client goes through it and gives up fast (``kit.faultproxy.FAST_CLIENT``) until the end
    of the test. Make the ``bucket`` first (it is made through the client of the moment)."""
    with fault_proxy(s3) as proxy:
        monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.url)
        monkeypatch.setitem(fsspec.config.conf, "s3", FAST_CLIENT)
        _instances.clear()
        yield proxy
        _instances.clear()
