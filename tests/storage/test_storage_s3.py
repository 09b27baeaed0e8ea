"""Logdirs in object storage, against a real S3 API server on loopback (moto's) through s3fs.

Writers upload immutable segments (``visualdl/_storage/objects.py``); the reader, the server,
``--inspect`` and the notebook take ``s3://`` URLs unchanged; TensorBoard's and
VisualDL 2's files placed in a bucket are read as from a disk.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
from typing import Any

import numpy as np
import pytest
from kit.paths import DATA, ROOT
from kit.requirements import require
from kit.s3 import CREDENTIALS
from kit.servers import stop_process
from kit.waiting import wait_until

from visualdl import LogReader, LogWriter
from visualdl._storage.lister import FULL_LIST_SECS_PER_PAGE, Lister
from visualdl._storage.objects import ObjectStore, filesystem
from visualdl._storage.segments import segment_name, split_segment


def _env(endpoint: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(CREDENTIALS, AWS_ENDPOINT_URL=endpoint)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _segment(name: str) -> tuple[str, int, int]:
    seg = split_segment(name)
    assert seg is not None, name
    return seg


def _lister(reader: LogReader) -> Lister:
    store = reader._index.store
    assert isinstance(store, ObjectStore)
    return store.lister


def _objects(url: str) -> list[str]:
    fs, root = filesystem(url)
    fs.invalidate_cache()
    return sorted(p.rpartition("/")[2] for p in fs.find(root))


def test_writer_uploads_segments_each_a_whole_log_file_and_the_reader_puts_them_together(bucket):
    w = LogWriter(f"{bucket}/exp/run0", upload_secs=3600, rank=1, world_size=2, role="trainer")
    for step in range(1000):
        w.add_scalar("loss", 1.0 / (step + 1), step)
    w.add_image("sample", np.arange(48, dtype=np.uint8).reshape(4, 4, 3), 7)
    w.flush()  # one segment
    for step in range(1000, 1500):
        w.add_scalar("loss", float("nan") if step == 1200 else 1.0 / (step + 1), step)
    w.close()  # the second, with the footer
    names = _objects(f"{bucket}/exp/run0")
    assert len(names) == 2 and all(n.startswith("vdls.") and n.endswith(".vdlog") for n in names)
    assert [_segment(n)[2] for n in names] == [1, 2]
    log_name = _segment(names[0])[0]
    assert w.file_name == f"{bucket}/exp/run0/{log_name}"

    reader = LogReader(f"{bucket}/exp")
    assert reader.runs() == ["run0"] and reader.problems == []
    s = reader.scalars("run0", "loss")
    assert s.steps.tolist() == list(range(1500))
    expected = [1.0 / (i + 1) for i in range(1500)]
    expected[1200] = float("nan")
    np.testing.assert_array_equal(s.values, np.array(expected))
    (info,) = reader.writers("run0")  # one log, not one entry per segment
    assert info.path == w.file_name and info.closed and (info.role, info.rank, info.world_size) == ("trainer", 1, 2)
    image = reader.images("run0", "sample")[0]
    assert image.step == 7 and reader.read_blob(image).startswith(b"\x89PNG")


def test_a_local_copy_of_a_bucket_reads_as_the_bucket(bucket, tmp_path):
    w = LogWriter(f"{bucket}/exp/run0", upload_secs=3600)
    for step in range(300):
        w.add_scalar("loss", float(step), step)
        if step % 100 == 99:
            w.flush()
    w.close()
    fs, root = filesystem(f"{bucket}/exp")
    fs.get(root, str(tmp_path / "copy"), recursive=True)
    local = LogReader(str(tmp_path / "copy"))
    remote = LogReader(f"{bucket}/exp")
    assert local.runs() == remote.runs() == ["run0"]
    assert local.scalars("run0", "loss").steps.tolist() == list(range(300))
    np.testing.assert_array_equal(local.scalars("run0", "loss").values, remote.scalars("run0", "loss").values)
    (info,) = local.writers("run0")
    assert info.closed and os.path.basename(info.path) == os.path.basename(w.file_name)
    # One segment alone (a reader that does not group them) is a whole log file too.
    seg = sorted((tmp_path / "copy" / "run0").iterdir())[0]
    alone = tmp_path / "alone" / "run"
    alone.mkdir(parents=True)
    shutil.copy(seg, alone / "plain.vdlog")
    one = LogReader(str(tmp_path / "alone"))
    assert one.scalars("run", "loss").steps.tolist() == list(range(100)) and one.problems == []


_RANK_SCRIPT = textwrap.dedent(
    """
    import sys
    from visualdl import LogWriter
    url, rank = sys.argv[1], int(sys.argv[2])
    w = LogWriter(url, upload_secs=0.2, rank=rank, world_size=3, role="trainer", job="j")
    for step in range(400):
        w.add_scalar("loss", rank * 1000 + step, step)
    w.close()
    """
)


@pytest.mark.e2e  # three ranks in processes of their own: seconds of CPU
def test_writers_in_several_processes_into_one_job_prefix(bucket, s3):
    url = f"{bucket}/job/run"
    procs = [subprocess.Popen([sys.executable, "-c", _RANK_SCRIPT, url, str(rank)], env=_env(s3)) for rank in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    reader = LogReader(bucket)
    assert reader.runs() == ["job/run"]
    assert reader.streams("job/run", "loss") == [("trainer", 0), ("trainer", 1), ("trainer", 2)]
    for rank in range(3):
        s = reader.scalars("job/run", "loss", role="trainer", rank=rank)
        assert s.steps.tolist() == list(range(400)) and s.values.tolist() == [rank * 1000 + i for i in range(400)]
    assert all(w.closed for w in reader.writers("job/run")) and len(reader.writers("job/run")) == 3


_SHARED_NAME_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from visualdl import LogWriter
    url, rank, start = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    w = LogWriter(url, file_name="train.vdlog", rank=rank, world_size=8, upload_secs=3600)
    for round in range(10):
        for i in range(20):
            step = round * 20 + i
            w.add_scalar("loss", rank * 1000.0 + step, step)
        time.sleep(max(0.0, start + 0.25 * round - time.time()))  # every rank flushes at one instant
        w.flush()
    w.close()
    """
)


@pytest.mark.e2e  # eight ranks in processes of their own against the S3 server: 10 CPU seconds
def test_writers_given_one_file_name_never_overwrite_each_others_segments(bucket, s3):
    """Eight ranks of one ``file_name`` flushing at the same instants, as after a barrier:
    every upload is an object of its own and every point reads back."""
    url = f"{bucket}/job/run"
    start = f"{time.time() + 6.0:.3f}"
    procs = [
        subprocess.Popen([sys.executable, "-c", _SHARED_NAME_SCRIPT, url, str(rank), start], env=_env(s3))
        for rank in range(8)
    ]
    assert [p.wait(timeout=180) for p in procs] == [0] * 8
    objects = _objects(url)
    assert len(objects) == 8 * 11  # 10 flushes and the last upload (the footer) of each writer
    assert len({_segment(name)[0] for name in objects}) == 8  # one log per writer
    reader = LogReader(bucket)
    assert reader.streams("job/run", "loss") == [("trainer", rank) for rank in range(8)]
    for rank in range(8):
        s = reader.scalars("job/run", "loss", role="trainer", rank=rank)
        assert s.values.tolist() == [rank * 1000.0 + step for step in range(200)]


_KILLED_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from visualdl import LogWriter
    w = LogWriter(sys.argv[1], upload_secs=3600)
    for step in range(500):
        w.add_scalar("loss", float(step), step)
    w.flush()
    print("uploaded", flush=True)
    for step in range(500, 700):
        w.add_scalar("loss", float(step), step)
    print("logged", flush=True)
    time.sleep(60)  # killed here: the test signals it long before
    """
)


@pytest.mark.e2e  # a writer in a process of its own: a CPU second
def test_a_writer_killed_after_an_upload_keeps_every_uploaded_point(bucket, s3):
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_SCRIPT, f"{bucket}/run"], env=_env(s3), stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "uploaded"
    # The 200 later points are logged: with them in the writer, not the store (upload_secs is an hour).
    assert proc.stdout.readline().strip() == "logged"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    reader = LogReader(bucket)
    s = reader.scalars("run", "loss")
    assert s.steps.tolist() == list(range(500)) and reader.problems == []
    (info,) = reader.writers("run")
    assert not info.closed


@pytest.mark.e2e  # a writer in a process of its own: a CPU second
def test_sigterm_uploads_what_waits(bucket, s3):
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_SCRIPT, f"{bucket}/run"], env=_env(s3), stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "uploaded"
    assert proc.stdout.readline().strip() == "logged"  # the 200 later points wait in the writer
    proc.send_signal(signal.SIGTERM)  # what Kubernetes sends a pod it deletes
    assert proc.wait(timeout=30) == -signal.SIGTERM
    proc.stdout.close()
    assert LogReader(bucket).scalars("run", "loss").steps.tolist() == list(range(700))


def test_a_failing_store_is_reported_on_the_callers_thread_and_nothing_is_lost(bucket, monkeypatch):
    from visualdl._storage import objects
    from visualdl.errors import WriterError

    monkeypatch.setattr(objects, "_BACKOFF_SECS", 0.01)
    w = LogWriter(f"{bucket}/run", upload_secs=3600, upload_timeout=0.5)
    real = objects._put
    calls = {"n": 0}

    def failing(*args, **kwargs):
        calls["n"] += 1
        raise ConnectionError("the store is down")

    monkeypatch.setattr(objects, "_put", failing)
    for step in range(100):
        w.add_scalar("loss", float(step), step)
    with pytest.raises(WriterError, match="the store is down"):
        w.flush()
    assert calls["n"] >= 2  # retried with backoff until the upload_timeout
    monkeypatch.setattr(objects, "_put", real)
    for step in range(100, 200):
        w.add_scalar("loss", float(step), step)
    w.close()
    assert LogReader(bucket).scalars("run", "loss").steps.tolist() == list(range(200))


def test_upload_options_are_checked_on_the_callers_thread(bucket):
    with pytest.raises(ValueError, match="upload_secs"):
        LogWriter(f"{bucket}/run", upload_secs=0)
    with pytest.raises(ValueError, match=r"upload_bytes .* must be less than max_pending_bytes"):
        LogWriter(f"{bucket}/run", upload_bytes=64 << 20, max_pending_bytes=64 << 20)
    with pytest.raises(ValueError, match="upload_timeout must be a positive, finite number of seconds; got -1"):
        LogWriter(f"{bucket}/run", upload_timeout=-1)
    with pytest.raises(ValueError, match="close_timeout must be a positive, finite number of seconds; got 0"):
        LogWriter(f"{bucket}/run", close_timeout=0)


def test_a_missing_store_package_is_named_with_its_install_line():
    try:  # gcsfs is not in the test extra
        import gcsfs  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"gcsfs.*pip install 'visualdl\[gcs\]'"):
            LogReader("gs://bucket/logs")
    else:  # pragma: no cover
        pytest.fail("gcsfs is installed: this test checks the message when it is not")


def test_tensorboard_and_visualdl2_files_in_a_bucket_are_read_as_from_a_disk(bucket, tmp_path):
    from tensorboardX import SummaryWriter

    local = tmp_path / "logs"
    tb = SummaryWriter(str(local / "tb"))
    for step in range(50):
        tb.add_scalar("loss", 0.5**step, step)
    tb.add_text("note", "**bold**", 3)
    tb.close()
    shutil.copytree(os.path.join(DATA, "vdl2", "script"), local / "vdl2")
    fs, root = filesystem(f"{bucket}/logs")
    fs.put(str(local), root, recursive=True)

    disk, store = LogReader(str(local)), LogReader(f"{bucket}/logs")
    assert disk.runs() == store.runs() == ["tb", "vdl2"]
    for run in disk.runs():
        assert disk.tags(run) == store.tags(run)
        for tag in disk.tags(run)["scalars"]:
            a, b = disk.scalars(run, tag), store.scalars(run, tag)
            np.testing.assert_array_equal(a.steps, b.steps)
            np.testing.assert_array_equal(a.values, b.values)
        for tag in disk.tags(run)["images"]:
            assert [disk.read_blob(e) for e in disk.images(run, tag)] == [
                store.read_blob(e) for e in store.images(run, tag)
            ]
    assert [w.format for w in store.writers("vdl2")] == ["vdl2"]
    (note,) = store.tags("tb")["text"]
    assert store.texts("tb", note)[0].text == disk.texts("tb", note)[0].text == "**bold**"


def test_an_object_that_grows_by_being_replaced_is_read_on_from_its_last_offset(bucket, tmp_path):
    from tensorboardX import SummaryWriter

    tb = SummaryWriter(str(tmp_path / "tb"))
    for step in range(200):
        tb.add_scalar("loss", float(step), step)
    tb.close()
    (path,) = [p for p in (tmp_path / "tb").iterdir()]
    data = path.read_bytes()
    fs, root = filesystem(f"{bucket}/run")
    half = len(data) // 2
    fs.pipe_file(f"{root}/{path.name}", data[:half])  # TensorFlow uploads the whole file again at each flush
    reader = LogReader(bucket)
    first = len(reader.scalars("run", "loss"))
    assert 0 < first < 200
    lister = _lister(reader)
    got = lister.requests["GET"]
    fs.pipe_file(f"{root}/{path.name}", data)
    reader.poll()
    assert reader.scalars("run", "loss").steps.tolist() == list(range(200)) and reader.problems == []
    # Read on from the offset: the new bytes and the file's first bytes (it is still the same file).
    assert lister.requests["GET"] - got == 2


def test_a_reload_lists_only_live_runs_from_their_newest_segment(bucket, monkeypatch):
    # Twenty finished runs whose segments were uploaded long ago, and one live run.
    w = LogWriter(f"{bucket}/template", upload_secs=3600)
    w.add_scalar("loss", 1.0, 0)
    w.close()
    fs, root = filesystem(bucket)
    (template,) = _objects(f"{bucket}/template")
    body = fs.cat_file(f"{root}/template/{template}")
    fs.rm(f"{root}/template", recursive=True)
    old_ms = int((time.time() - 86400) * 1000)
    for i in range(20):
        fs.pipe_file(f"{root}/old{i:02d}/{segment_name(old_ms + i, 1, 'vdl.old.vdlog')}", body)
    live = LogWriter(f"{bucket}/live", upload_secs=3600)
    live.add_scalar("loss", 0.0, 0)
    live.flush()
    fs.pipe_file(f"{root}/live/checkpoint.pt", b"weights")  # beside the logs: never asked for

    reader = LogReader(bucket)
    assert len(reader.runs()) == 21
    lister = _lister(reader)
    frozen = time.monotonic()
    monkeypatch.setattr(lister, "now", lambda: frozen)  # no full listing due yet
    before = dict(lister.requests)
    live.add_scalar("loss", 1.0, 1)
    live.flush()
    reader.poll()
    assert lister.requests["LIST"] - before["LIST"] == 1  # the live run only, from its newest segment on
    assert lister.requests["HEAD"] == before["HEAD"]  # not even for the checkpoint
    assert reader.scalars("live", "loss").steps.tolist() == [0, 1]
    # A full listing (new runs, foreign files) comes after FULL_LIST_SECS_PER_PAGE per page.
    monkeypatch.setattr(lister, "now", lambda: frozen + FULL_LIST_SECS_PER_PAGE + 1)
    fs.pipe_file(f"{root}/new/{segment_name(old_ms, 1, 'vdl.new.vdlog')}", body)
    reader.poll()
    assert "new" in reader.runs()
    live.close()


def test_a_writer_whose_clock_is_behind_is_listed_at_each_reload_and_reported(bucket, monkeypatch):
    """Rank 1's host clock is three minutes behind rank 0's: its new segments are named
    further back than the window before rank 0's newest, yet each reload lists them (no
    full listing needed), and the reader reports the writer's clock."""
    fs, root = filesystem(bucket)
    lag_ms = 180_000

    def upload_lagging(writer: LogWriter) -> None:
        """``writer`` (in a staging prefix) flushes; its new segments move into the run named
        as a host whose clock is ``lag_ms`` behind would have named them."""
        writer.flush()
        for name in _objects(f"{bucket}/stage"):
            log_name, ms, seq = _segment(name)
            fs.pipe_file(f"{root}/job/{segment_name(ms - lag_ms, seq, log_name)}", fs.cat_file(f"{root}/stage/{name}"))
            fs.rm(f"{root}/stage/{name}")

    on_time = LogWriter(f"{bucket}/job", upload_secs=3600, rank=0, world_size=2, role="trainer")
    behind = LogWriter(f"{bucket}/stage", upload_secs=3600, rank=1, world_size=2, role="trainer")
    for step in range(2):
        on_time.add_scalar("loss", float(step), step)
        on_time.flush()
        behind.add_scalar("loss", float(step), step)
        upload_lagging(behind)
    reader = LogReader(bucket)  # lists in full and reads steps 0 and 1
    lister = _lister(reader)
    frozen = lister.now()
    monkeypatch.setattr(lister, "now", lambda: frozen)  # no full listing from here on
    before = lister.requests["LIST"]
    for step in range(2, 4):
        on_time.add_scalar("loss", float(step), step)
        on_time.flush()
        behind.add_scalar("loss", float(step), step)
        upload_lagging(behind)
        reader.poll()
    assert lister.requests["LIST"] - before == 2  # one incremental LIST per reload, no full listing
    for rank in range(2):
        assert reader.scalars("job", "loss", role="trainer", rank=rank).steps.tolist() == [0, 1, 2, 3]
    (problem,) = [p for p in reader.problems if "clock" in p.message]
    assert problem.path.endswith(os.path.basename(behind.file_name))
    assert "behind" in problem.message and "NTP" in problem.message
    on_time.close()
    behind.close()


def test_two_servers_over_one_bucket_answer_alike(bucket, make_app):
    for rank in range(2):
        w = LogWriter(f"{bucket}/job", upload_secs=3600, rank=rank, world_size=2, role="trainer")
        for step in range(300):
            w.add_scalar("loss", np.sin(step / 10) + rank, step)
        w.add_text("note", f"rank {rank}", 0)
        w.close()
    apps = [make_app(bucket) for _ in range(2)]
    clients = [app.test_client() for app in apps]
    urls = ["/api/runs", "/api/tags", "/api/scalars?tag=loss&run=job", "/api/scalars?tag=loss&run=job&ranks=each",
            "/api/text?run=job&tag=note", "/api/job?run=job", "/api/kinds", "/api/health"]  # fmt: skip
    for url in urls:
        a, b = (client.get(url).get_json() for client in clients)
        if url == "/api/health":  # the same but each server's own poll timing
            a, b = ({k: v for k, v in h.items() if "poll" not in k} for h in (a, b))
        assert a == b, url
    assert "job" in json.dumps(clients[0].get("/api/runs").get_json())


@pytest.mark.e2e  # visualdl --inspect in a process of its own
def test_the_server_inspect_and_notebook_take_a_url(bucket, s3):
    w = LogWriter(f"{bucket}/exp/run0", upload_secs=3600)
    for step in range(20):
        w.add_scalar("acc", step / 20, step)
    w.close()
    out = subprocess.run(
        [sys.executable, "-m", "visualdl", "--inspect", "--logdir", f"{bucket}/exp"],
        env=_env(s3), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert f"{bucket}/exp: 1 run(s)" in out.stdout and "acc" in out.stdout
    from visualdl import notebook

    figure = notebook.scalars(f"{bucket}/exp", "acc")
    assert any(list(trace.y) == pytest.approx([s / 20 for s in range(20)]) for trace in figure.data)


@pytest.mark.e2e  # visualdl --inspect in a process of its own
def test_a_logdir_url_that_is_itself_a_run_is_run_dot_everywhere(bucket, s3, make_app):
    """``visualdl --logdir s3://bkt/exp/job42`` where job42 holds the logs: run ``.``, as a
    local directory with the same layout is, for the server, ``--inspect`` and the reader."""
    url = f"{bucket}/exp/job42"
    with LogWriter(url, upload_secs=3600) as w:
        for step in range(5):
            w.add_scalar("loss", float(step), step)
    client = make_app(url).test_client()
    assert [r["name"] for r in client.get("/api/runs").get_json()["runs"]] == ["."]
    (series,) = client.get("/api/scalars?run=.&tag=loss").get_json()["runs"]
    assert series["steps"] == list(range(5)) and series["values"] == [0.0, 1.0, 2.0, 3.0, 4.0]
    out = subprocess.run(
        [sys.executable, "-m", "visualdl", "--inspect", "--logdir", url],
        env=_env(s3), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0 and f"{url}: 1 run(s)" in out.stdout and "loss: 5 points" in out.stdout, out
    assert LogReader(url).runs() == ["."]


@pytest.mark.e2e  # a writer and visualdl, each in a process of its own: seconds of CPU
def test_a_live_writers_points_reach_the_server_within_the_upload_and_reload_intervals(bucket, s3):
    port_probe = __import__("socket").socket()
    port_probe.bind(("127.0.0.1", 0))
    port = port_probe.getsockname()[1]
    port_probe.close()
    w = LogWriter(f"{bucket}/live", upload_secs=1.0)
    w.add_scalar("loss", 0.0, 0)
    w.flush()
    proc = subprocess.Popen(
        [sys.executable, "-m", "visualdl", "--logdir", bucket, "--port", str(port), "--reload-interval", "1"],
        env=_env(s3), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        proc.stdout.readline()

        def steps() -> list[int]:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/scalars?tag=loss&run=live", timeout=5) as r:
                    return json.loads(r.read())["runs"][0]["steps"]
            except OSError:
                return []

        start = time.monotonic()
        wait_until(lambda: steps() == [0], 60, "the first point", interval=0.1)
        logged = time.monotonic()
        w.add_scalar("loss", 1.0, 1)  # no flush: the writer's own upload interval
        wait_until(lambda: steps() == [0, 1], 60 - (logged - start), "a live point", interval=0.1)
        print(f"live point shown {time.monotonic() - logged:.2f} s after add_scalar (upload 1 s + reload 1 s)")
    finally:
        stop_process(proc, signal.SIGINT, timeout=30)
        w.close()


def test_memory_urls_write_and_read_through_a_generic_filesystem():
    url = f"memory://vdl-test-{os.getpid()}-{time.time_ns()}"
    w = LogWriter(f"{url}/run", upload_secs=3600)
    w.add_scalar("loss", 2.0, 0)
    w.flush()
    w.add_scalar("loss", 3.0, 1)
    w.close()
    reader = LogReader(url)
    assert reader.scalars("run", "loss").values.tolist() == [2.0, 3.0]
    assert reader.writers("run")[0].closed


@pytest.mark.e2e  # a writer in a process of its own: a CPU second
def test_a_writer_left_open_uploads_what_waits_at_exit(bucket, s3):
    script = "import sys\nfrom visualdl import LogWriter\nw = LogWriter(sys.argv[1], upload_secs=3600)\n"
    script += "for step in range(300):\n    w.add_scalar('loss', float(step), step)\n"
    subprocess.run([sys.executable, "-c", script, f"{bucket}/run"], env=_env(s3), check=True, timeout=60)
    reader = LogReader(bucket)
    assert reader.scalars("run", "loss").steps.tolist() == list(range(300))
    assert reader.writers("run")[0].closed  # closed at exit: one segment with the footer
    assert len(_objects(bucket)) == 1


@pytest.mark.e2e  # the README's demo job, end to end
def test_the_readmes_s3_variant_of_the_main_job_runs_end_to_end(tmp_path):
    """``bash demo/ps_train_s3.sh``: an S3 API server on loopback, the elastic
    parameter-server demo writing to it, ``visualdl`` reading from it (``--inspect`` here,
    where the README serves)."""
    tools = [shutil.which("moto_server"), shutil.which("visualdl")]
    require(all(tools), "moto_server and visualdl on PATH", "pip install -e '.[test]'")
    sock = __import__("socket").socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(S3_PORT=str(port), S3_BUCKET="readme-demo")
    done = subprocess.run(
        ["bash", os.path.join(ROOT, "demo", "ps_train_s3.sh"), "--small", "--", "--inspect"],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    out = done.stdout
    assert "trainer 1 failed; restarting it" in out
    assert "s3://readme-demo/logs: 1 run(s)" in out
    assert "ps-sync-elastic" in out and "train/loss" in out


@pytest.mark.e2e  # visualdl in a process of its own, once per URL
@pytest.mark.parametrize(
    ("url", "message"),
    [("nosuch://bucket/logs", "unknown protocol 'nosuch'"), ("gs://bucket/logs", "pip install 'visualdl[gcs]'")],
)
def test_the_cli_names_a_bad_url_in_one_line(url, message, child_env):
    for args in (["--logdir", url], ["--inspect", "--logdir", url]):
        done = subprocess.run([sys.executable, "-m", "visualdl", *args], env=child_env, capture_output=True, text=True)
        assert done.returncode == 2, done.stderr
        assert message in done.stderr and "Traceback" not in done.stderr


def _log_in_child(i: int) -> int:
    # Each task waits for a task on the other worker: neither worker can take every task,
    # however the pool hands them out, so both workers log (and write a file of their own).
    _inherited_barrier[0].wait(timeout=60)
    w = _inherited[0]
    for step in range(100):
        w.add_scalar("loss", float(i * 1000 + step), step)
    return i


_inherited: list[LogWriter] = []
_inherited_barrier: list[Any] = []


@pytest.mark.e2e  # forked pool workers uploading: a CPU second
def test_a_writer_inherited_by_forked_pool_workers_uploads_their_points(bucket):
    import multiprocessing

    w = LogWriter(f"{bucket}/run", upload_secs=3600)
    w.add_scalar("parent", 1.0, 0)
    fork = multiprocessing.get_context("fork")
    _inherited[:] = [w]
    _inherited_barrier[:] = [fork.Barrier(2)]
    try:
        with fork.Pool(2) as pool:
            assert sorted(pool.map(_log_in_child, range(4), chunksize=1)) == [0, 1, 2, 3]
    finally:
        _inherited.clear()
        _inherited_barrier.clear()
    w.close()
    reader = LogReader(bucket)
    # Every task's points, from the workers' own logs (overlapping steps of unranked writers are
    # resolved as restarts in the chart; every point is stored).
    assert reader.count("run", "scalars", "loss") == 400
    assert reader.scalars("run", "parent").values.tolist() == [1.0]
    assert len(reader.writers("run")) == 3  # the parent's log and one per worker
