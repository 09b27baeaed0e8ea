"""What the tests against the S3 API server on loopback share."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator

#: Dummy credentials of the S3 API server on loopback (moto accepts any).
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


@contextlib.contextmanager
def serve_s3() -> Iterator[str]:
    """moto's S3 API server on 127.0.0.1 in a thread of this process: its endpoint URL."""
    from moto import server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    s3 = server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    s3.start()
    try:
        host, port = s3.get_host_and_port()
        yield f"http://{host}:{port}"
    finally:
        s3.stop()


@contextlib.contextmanager
def s3_environment(endpoint: str) -> Iterator[str]:
    """This process's S3 clients pointed at ``endpoint`` (the standard ``AWS_ENDPOINT_URL``
    and dummy credentials) until the block ends; the store's clients made anew on both sides."""
    from visualdl._storage.objects import _instances

    saved = {k: os.environ.get(k) for k in [*CREDENTIALS, "AWS_ENDPOINT_URL"]}
    os.environ.update(CREDENTIALS, AWS_ENDPOINT_URL=endpoint)
    _instances.clear()
    try:
        yield endpoint
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        _instances.clear()
