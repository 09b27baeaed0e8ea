"""How a job's processes ended, from real processes to the reader, ``/api/job`` (states and
the timeline of ends), ``/api/job/end`` (the traceback) and ``visualdl --inspect``: a rank
raising, one SIGTERMed, one SIGKILLed (and restarted), one segfaulting, one calling
``os.abort()``, one whose thread raised (an event of its timeline: it closed after)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from visualdl import LogReader

pytestmark = pytest.mark.e2e  # six ranks ended by real processes, then visualdl --inspect: seconds of CPU

CHILD = """
import ctypes, os, signal, sys, threading
from visualdl import LogWriter
rank, attempt, how = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
w = LogWriter(sys.argv[1], rank=rank, world_size=6, role="trainer", job="j", attempt=attempt)
for step in range(1200, 1205):
    w.add_scalar("loss", 1.0 / step, step)
w.flush()
def crash():
    ctypes.string_at(0)
def give_up():
    os.abort()
def load():
    raise ValueError("bad shard")
if how == "raise":
    raise RuntimeError("CUDA out of memory")
if how == "sigterm":
    os.kill(os.getpid(), signal.SIGTERM)
    signal.pause()
if how == "sigkill":
    os.kill(os.getpid(), signal.SIGKILL)
if how == "segfault":
    crash()
if how == "abort":
    give_up()
if how == "thread":
    t = threading.Thread(target=load, name="loader")
    t.start()
    t.join()
w.close()
"""

#: (rank, attempt, how, exit status), in the order they run: their ends come in this order.
PLAN = (
    (0, 0, "raise", 1),
    (1, 0, "sigterm", -signal.SIGTERM),
    (2, 0, "sigkill", -signal.SIGKILL),
    (2, 1, "close", 0),
    (3, 0, "segfault", -signal.SIGSEGV),
    (4, 0, "abort", -signal.SIGABRT),
    (5, 0, "thread", 0),
)


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    root = tmp_path_factory.mktemp("ends")
    env = dict(os.environ)
    env.pop("PYTHONFAULTHANDLER", None)  # the program's own faulthandler would be left alone
    for rank, attempt, how, status in PLAN:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(root / "job"), str(rank), str(attempt), how],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == status, (how, done.returncode, done.stderr)
    return root


def _by_place(items, key=lambda x: (x.rank, x.attempt)):
    return {key(x): x for x in items}


def test_server_job_ends_each_end_read_exactly(job):
    ends = {k: w.ended for k, w in _by_place(LogReader(str(job)).writers("job")).items()}
    got = {k: (e.how, e.signal, e.exception_type, e.thread, e.step) for k, e in ends.items() if e is not None}
    assert got == {
        (0, 0): ("exception", "", "RuntimeError", "MainThread", 1204),
        (1, 0): ("signal", "SIGTERM", "", "MainThread", 1204),
        (2, 0): ("killed", "", "", "", 1204),
        (2, 1): ("closed", "", "", "MainThread", 1204),
        (3, 0): ("fatal signal", "SIGSEGV", "", "", 1204),
        (4, 0): ("fatal signal", "SIGABRT", "", "", 1204),
        (5, 0): ("closed", "", "", "MainThread", 1204),
    }
    (event,) = _by_place(LogReader(str(job)).writers("job"))[(5, 0)].events
    assert (event.how, event.exception_type, event.thread, event.message) == (
        "exception",
        "ValueError",
        "loader",
        "bad shard",
    )
    assert ends[(2, 0)].cause == ""  # superseded by its restart: no guess
    segv, abort = ends[(3, 0)].traceback, ends[(4, 0)].traceback
    assert segv.startswith("Fatal Python error: Segmentation fault") and " in crash" in segv
    assert abort.startswith("Fatal Python error: Aborted") and " in give_up" in abort
    assert ends[(0, 0)].message == "CUDA out of memory"
    # In the order the processes ended.
    order = sorted(ends, key=lambda k: ends[k].wall_time)
    assert order == [(r, a) for r, a, _, _ in PLAN]


def test_server_job_ends_sidecars_are_not_logs(job):
    names = sorted(os.listdir(job / "job"))
    texts = [(job / "job" / n).read_text() for n in names if n.endswith(".fatal")]
    # A close and SIGTERM take their sidecar back; the SIGKILLed rank's, left alone, is removed
    # by its restart (its process is gone); the fatal signals' dumps stay.
    assert [t.count("\n") > 1 for t in texts] == [True, True]
    assert all(t.startswith("visualdl fatal-signal sidecar: writer ") for t in texts)
    reader = LogReader(str(job))
    assert len(reader.writers("job")) == len(PLAN) and reader.problems == []


def test_server_job_ends_states_and_timeline(job, make_app):
    client = make_app(str(job)).test_client()
    body = client.get("/api/job?run=job").get_json()
    states = {(w["rank"], w["attempt"]): w["state"] for w in body["writers"]}
    assert states == {
        (0, 0): "raised",
        (1, 0): "signalled",
        (2, 0): "killed",
        (2, 1): "closed",
        (3, 0): "crashed",
        (4, 0): "crashed",
        (5, 0): "closed",
    }
    ended = {(w["rank"], w["attempt"]): w["ended"] for w in body["writers"]}
    got = {k: (e["how"], e["signal"], e["exception_type"], e["thread"], e["step"]) for k, e in ended.items()}
    assert got == {
        (0, 0): ("exception", "", "RuntimeError", "MainThread", 1204),
        (1, 0): ("signal", "SIGTERM", "", "MainThread", 1204),
        (2, 0): ("killed", "", "", "", 1204),
        (2, 1): ("closed", "", "", "MainThread", 1204),
        (3, 0): ("fatal signal", "SIGSEGV", "", "", 1204),
        (4, 0): ("fatal signal", "SIGABRT", "", "", 1204),
        (5, 0): ("closed", "", "", "MainThread", 1204),
    }
    assert [k for k, e in ended.items() if e["has_traceback"]] == [(0, 0), (3, 0), (4, 0)]
    assert all("traceback" not in e for e in ended.values())
    ends = body["ends"]
    assert (ends["ended"], ends["running"]) == (7, 0)
    first = ends["first"]
    assert (first["rank"], first["how"], first["step"]) == (0, "exception", 1204)
    assert first["text"] == "trainer 0 raised `RuntimeError: CUDA out of memory` at step 1,204"
    groups = [(g["how"], g["signal"], g["exception_type"], g["count"]) for g in ends["groups"]]
    assert groups == [
        ("signal", "SIGTERM", "", 1),
        ("killed", "", "", 1),
        ("closed", "", "", 2),
        ("fatal signal", "SIGSEGV", "", 1),
        ("fatal signal", "SIGABRT", "", 1),
    ]
    assert [g["text"].split(" within ")[0] for g in ends["groups"]] == [
        "1 other ended by SIGTERM",
        "1 other was killed without a trace",
        "2 others closed",
        "1 other crashed with SIGSEGV",
        "1 other crashed with SIGABRT",
    ]
    for g in ends["groups"]:
        assert g["from_seconds"] >= 0 and g["members"][0]["step"] == 1204 and g["more"] == 0


def test_server_job_ends_traceback_one_route_away(job, make_app):
    client = make_app(str(job)).test_client()
    files = {(w["rank"], w["attempt"]): w["file"] for w in client.get("/api/job?run=job").get_json()["writers"]}
    answer = client.get(f"/api/job/end?run=job&file={files[(3, 0)]}").get_json()
    assert (answer["rank"], answer["ended"]["how"], answer["ended"]["signal"]) == (3, "fatal signal", "SIGSEGV")
    assert " in crash" in answer["ended"]["traceback"]
    raised = client.get(f"/api/job/end?run=job&file={files[(0, 0)]}").get_json()["ended"]
    assert raised["traceback"].endswith("RuntimeError: CUDA out of memory\n")
    killed = client.get(f"/api/job/end?run=job&file={files[(2, 0)]}").get_json()["ended"]
    assert (killed["how"], killed["traceback"], killed["has_traceback"]) == ("killed", "", False)
    missing = client.get("/api/job/end?run=job&file=nope.vdlog")
    assert missing.status_code == 404 and "nope.vdlog" in missing.get_json()["error"]


def test_server_job_ends_inspect_prints_the_timeline(job, child_env):
    done = subprocess.run(
        [sys.executable, "-m", "visualdl", "--inspect", "--logdir", str(job)],
        env=child_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    at = next(i for i, line in enumerate(out) if line.startswith("    trainer 0 raised"))
    head = out[at].strip()
    assert head.startswith("trainer 0 raised `RuntimeError: CUDA out of memory` at step 1,204, ")
    time.strptime(head.rsplit(", ", 1)[1], "%H:%M:%S")
    groups = [line.strip().split(" within ")[0] for line in out[at + 1 : at + 6]]
    assert groups == [
        "1 other ended by SIGTERM",
        "1 other was killed without a trace",
        "2 others closed",
        "1 other crashed with SIGSEGV",
        "1 other crashed with SIGABRT",
    ]
