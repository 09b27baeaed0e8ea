"""A process that lives on after a handled exception or signal keeps uploading: the exit
path's cutoff (``Sink.flush_before_exit``) holds only for a process that really ends.

Real processes writing 400 points to the S3 API server on loopback (moto's): a helper
thread that raises, and a SIGTERM the program's own handler takes, both mid-way; the
script goes on for longer than the exit path's wait (5 s) after it, closes and exits 0,
and every point is in the bucket.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from kit.paths import ROOT
from kit.requirements import require
from kit.s3 import CREDENTIALS, s3_environment, serve_s3

from visualdl import LogReader
from visualdl._storage.objects import filesystem

moto_server: Any = None
try:
    import s3fs  # noqa: F401
    from moto import server as moto_server
except ImportError:  # pragma: no cover - the test extra installs both
    pass
require(moto_server is not None, "moto and s3fs", "pip install -e '.[test]'")

_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, threading, time
    from visualdl import LogWriter
    w = LogWriter(sys.argv[1], upload_secs=0.2)
    handled = []
    for step in range(400):
        if step == 100:
            if sys.argv[2] == "thread":
                t = threading.Thread(target=lambda: 1 / 0, name="helper")
                t.start()
                t.join()
            else:
                signal.signal(signal.SIGTERM, lambda signum, frame: handled.append(signum))
                os.kill(os.getpid(), signal.SIGTERM)
        w.add_scalar("loss", float(step), step)
        time.sleep(0.02)  # 300 points after the event: 6 s, past the exit path's 5 s
    w.close()
    if sys.argv[2] == "sigterm":
        assert handled == [signal.SIGTERM], handled
    print("done", flush=True)
    """
)


@pytest.fixture(scope="module")
def s3():
    with serve_s3() as url, s3_environment(url):
        yield url


def _env(endpoint: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(CREDENTIALS, AWS_ENDPOINT_URL=endpoint)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.mark.e2e  # a writer in a process of its own for 8 s against the S3 server
@pytest.mark.parametrize("event", ["thread", "sigterm"])
def test_exit_cutoff_a_process_that_lives_on_keeps_uploading(s3, event):
    fs, _ = filesystem("s3://x")
    bucket = f"cutoff-{event}"
    fs.mkdir(bucket)
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, f"s3://{bucket}/run", event],
        env=_env(s3),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    assert "WriterError" not in done.stderr, done.stderr
    reader = LogReader(f"s3://{bucket}")
    assert reader.scalars("run", "loss").steps.tolist() == list(range(400))
    (info,) = reader.writers("run")
    assert info.closed and info.ended is not None and info.ended.how == "closed"
    # the event, written at once, holds across the later segments' headers
    assert [e.how for e in info.events] == ["exception" if event == "thread" else "signal"]
