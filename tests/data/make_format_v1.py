"""Write ``tests/data/format_v1``: log files of format version 1, made by the real LogWriter.

This script was run ONCE to make the committed fixture. Do not re-run it to "fix" a
failing ``tests/formats/test_format_golden.py``: the fixture stands for the logs already on
users' disks, which nobody can regenerate. A test that fails against it means the
reader no longer reads version 1 (fix the reader), or the writer no longer writes
version 1 (bump ``FORMAT_VERSION`` and keep reading version 1). A new format version
gets a new fixture made by a new script (``make_format_v2.py``) beside this one.

How it was run: from the repository root at commit f3d1d1f (VisualDL 3.0.0.dev0),
Python 3.11.7, numpy 2.4.6, Pillow 13.0.0, onnx 1.23.2, protobuf 7.36.2::

    python3 tests/data/make_format_v1.py

It refuses to write over an existing ``tests/data/format_v1``.

Every writer runs in a child process of its own (``--child <scenario> <run dir>``),
with an empty launcher environment, a fixed host name and a clock that only moves
when the script says so (``time.time`` is replaced before visualdl is imported), so
that start times, file-name stamps, graph and footer wall times are known values.
Points carry explicit wall times. What comes out:

``logdir/kinds/``  one unranked writer, every kind of record, closed cleanly.
``logdir/job/``    a job of three trainers (rank, world size, local rank, role, job and
                   attempt given explicitly). Rank 1's first attempt is killed (SIGKILL,
                   no footer) after one flush, with one point still unflushed; its second
                   attempt resumes from step 3, so steps 3 to 5 of the first are replaced.
``logdir/torn/``   an unranked writer killed in the middle of writing its second flush:
                   the file ends in the first half of a record.
``torn_write.bin`` the whole of that torn write, to append in a test (the file growing).
``records/``       the framed bytes of one record of each kind (three scalar batches:
                   RAW, ARITHMETIC and SHUFFLE_DEFLATE columns), cut from
                   ``logdir/kinds``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from visualdl import LogWriter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "format_v1")

#: The fixed clock starts here: 2023-11-14 22:13:20 UTC.
T0 = 1_700_000_000.0
#: A quiet NaN with a payload and the sign bit set: must come back bit for bit.
NAN_PAYLOAD_BITS = 0xFFF80000DEADBEEF


class _Clock:
    now = T0


def _install_clock_and_host(host: str) -> None:
    """Before visualdl is imported: the writer reads this clock and host name."""
    import socket
    import time

    time.time = lambda: _Clock.now
    socket.gethostname = lambda: host


def _tick(seconds_after_t0: float) -> None:
    _Clock.now = T0 + seconds_after_t0


def _onnx_model(op: str) -> object:
    """A one-node ``onnx.ModelProto`` whose graph is named ``tiny``: ``y = Relu(x)`` or ``y = Add(x, x)``."""
    from onnx import TensorProto, helper

    inputs = ["x"] if op == "Relu" else ["x", "x"]
    graph = helper.make_graph(
        [helper.make_node(op, inputs, ["y"], name=f"{op.lower()}0")],
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
    )
    model = helper.make_model(
        graph, producer_name="visualdl-format-v1", ir_version=8, opset_imports=[helper.make_opsetid("", 17)]
    )
    return model


def _child_kinds(run_dir: str) -> None:
    import struct

    import numpy as np

    from visualdl import LogWriter

    nan_payload = struct.unpack("<d", struct.pack("<Q", NAN_PAYLOAD_BITS))[0]
    _tick(0)
    w = LogWriter(run_dir, flush_secs=3600, display_name="every kind")
    # Flush 1: 7 scalar points of two tags (RAW columns), images, a histogram, a text, a graph.
    w.add_scalar("train/loss", 0.5, 0, walltime=T0 + 1.0)
    w.add_scalar("special", float("nan"), 0, walltime=T0 + 1.0)
    w.add_scalar("train/loss", 0.25, 1, walltime=T0 + 2.0)
    w.add_scalar("special", float("inf"), 1, walltime=T0 + 2.0)
    w.add_scalar("train/loss", 0.1, 2, walltime=T0 + 3.25)
    w.add_scalar("special", float("-inf"), 2, walltime=T0 + 3.0)
    w.add_scalar("special", nan_payload, 3, walltime=T0 + 3.0)
    rgb = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255]], [[0, 0, 0], [128, 128, 128], [255, 255, 255]]], np.uint8)
    w.add_image("samples/rgb", rgb, 0, walltime=T0 + 3.5)
    w.add_image("samples/gray", np.array([[0.0, 0.5], [1.0, 0.25]]), 0, walltime=T0 + 3.5, dataformats="HW")
    rgba_chw = np.array([[[10, 20]], [[30, 40]], [[50, 60]], [[255, 0]]], np.uint8)  # 4 x 1 x 2
    w.add_image("samples/rgba", rgba_chw, 7, walltime=T0 + 3.75, dataformats="CHW")
    values = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, np.nan, np.inf, -np.inf, np.inf])
    w.add_histogram("weights", values, 0, walltime=T0 + 3.5, buckets=4)
    w.add_text("notes", "hello **markdown**", 0, walltime=T0 + 3.5)
    _tick(4)
    w.add_graph(_onnx_model("Relu"))
    w.flush()
    # Flush 2: one tag with steps 10, 20, 30, 40 (an ARITHMETIC steps column), more of the rest.
    for step, value in ((10, -0.0), (20, 5e-324), (30, 1.7976931348623157e308), (40, 1e-300)):
        w.add_scalar("train/loss", value, step, walltime=T0 + step)
    w.add_histogram("weights", [float("nan"), float("nan")], 1, walltime=T0 + 41.0)
    w.add_histogram("weights", np.array([3, 3, 3], np.int32), 2, walltime=T0 + 42.0, buckets=2)
    w.add_text("notes", "étape 5 — 训练 ✓\nline two", 5, walltime=T0 + 42.5)
    w.add_text("notes", "", 6, walltime=T0 + 43.0)
    _tick(44)
    w.add_graph(_onnx_model("Add"))
    w.flush()
    # Flush 3: 17 points of three tags (deflated columns).
    w.add_scalar("train/loss", 0.0625, 50, walltime=T0 + 50.0)
    for step in range(8):
        w.add_scalars("eval", {"acc": step / 8, "f1": 1 - step / 16}, step, walltime=T0 + 51.0 + step * 0.5)
    _tick(60)
    w.close()


def _job_writer(run_dir: str, rank: int, attempt: int, local_rank: int) -> LogWriter:
    from visualdl import LogWriter

    return LogWriter(
        run_dir,
        flush_secs=3600,
        display_name=f"rank {rank}",
        rank=rank,
        world_size=3,
        local_rank=local_rank,
        role="trainer",
        job="fmt-v1",
        attempt=attempt,
    )


def _loss(rank: int, step: int, attempt: int) -> float:
    return 2.0 - step * 0.125 + rank * 0.5 + attempt * 0.0625


def _child_rank(run_dir: str, rank: int) -> None:
    _tick(0)
    w = _job_writer(run_dir, rank, 0, local_rank=0)
    for step in range(8):
        w.add_scalar("train/loss", _loss(rank, step, 0), step, walltime=T0 + 10 + step + rank * 0.25)
    if rank == 0:
        w.add_scalar("lr", 0.1, 0, walltime=T0 + 10)
        w.add_scalar("lr", 0.05, 4, walltime=T0 + 14)
    w.flush()
    _tick(100)
    w.close()


def _child_rank1_killed(run_dir: str) -> None:
    _tick(0)
    w = _job_writer(run_dir, 1, 0, local_rank=1)
    for step in range(6):
        w.add_scalar("train/loss", _loss(1, step, 0), step, walltime=T0 + 10 + step + 0.25)
    w.flush()
    w.add_scalar("train/loss", _loss(1, 6, 0), 6, walltime=T0 + 16.25)  # never flushed: lost
    os.kill(os.getpid(), signal.SIGKILL)


def _child_rank1_resumed(run_dir: str) -> None:
    _tick(65)
    w = _job_writer(run_dir, 1, 1, local_rank=1)
    for step in range(3, 8):  # resumed from the checkpoint of step 3
        w.add_scalar("train/loss", _loss(1, step, 1), step, walltime=T0 + 70 + step)
    w.flush()
    _tick(100)
    w.close()


def _child_torn(run_dir: str, whole_write: str) -> None:
    from visualdl import LogWriter

    real_write = os.write
    flushes: list[int] = []

    def tearing_write(fd: int, data: Any) -> int:
        """The write of the second flush stops halfway, as a kill in the middle of a write leaves it."""
        flushes.append(len(data))
        if len(flushes) == 1:
            return real_write(fd, data)
        with open(whole_write, "wb") as f:
            f.write(bytes(data))
        real_write(fd, bytes(data)[: len(data) // 2])
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")

    _tick(0)
    w = LogWriter(run_dir, flush_secs=3600)  # writes its header before os.write is replaced
    os.write = tearing_write
    for step in range(3):
        w.add_scalar("loss", 1.0 + step, step, walltime=T0 + 1 + step)
    w.flush()
    for step in range(3, 6):
        w.add_scalar("loss", 1.0 + step, step, walltime=T0 + 1 + step)
    w.flush()


_HOSTS = {
    "kinds": "node-a",
    "rank0": "node-a",
    "rank1-killed": "node-a",
    "rank1-resumed": "node-a",
    "rank2": "node-b",
    "torn": "node-c",
}


def _child(scenario: str, args: list[str]) -> None:
    _install_clock_and_host(_HOSTS[scenario])
    if scenario == "kinds":
        _child_kinds(args[0])
    elif scenario in ("rank0", "rank2"):
        _child_rank(args[0], int(scenario[-1]))
    elif scenario == "rank1-killed":
        _child_rank1_killed(args[0])
    elif scenario == "rank1-resumed":
        _child_rank1_resumed(args[0])
    elif scenario == "torn":
        _child_torn(args[0], args[1])
    else:
        raise SystemExit(f"unknown scenario {scenario!r}")


def _run(scenario: str, *args: str, killed: bool = False) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": ROOT, "LC_ALL": "C.UTF-8"}
    proc = subprocess.run([sys.executable, __file__, "--child", scenario, *args], env=env, cwd=ROOT, check=False)
    expected = -signal.SIGKILL if killed else 0
    if proc.returncode != expected:
        raise SystemExit(f"scenario {scenario} ended with {proc.returncode}, expected {expected}")


#: Golden records cut from logdir/kinds: name -> (record field, which one of that field, 0-based).
GOLDEN = {
    "header": ("header", 0),
    "scalars_raw": ("scalars", 0),
    "scalars_arithmetic": ("scalars", 1),
    "scalars_deflate": ("scalars", 2),
    "image": ("image", 0),
    "histogram": ("histogram", 0),
    "text": ("text", 1),
    "graph": ("graph", 0),
    "footer": ("footer", 0),
}


def _cut_golden_records(kinds_dir: str, records_dir: str) -> None:
    from visualdl._formats import framing as framing
    from visualdl._formats.vdlog.logformat import parse_record

    (name,) = os.listdir(kinds_dir)
    with open(os.path.join(kinds_dir, name), "rb") as f:
        data = f.read()
    frames: dict[str, list[bytes]] = {}
    for item in framing.scan(data):
        if isinstance(item, framing.Frame):
            field = parse_record(item.payload).WhichOneof("kind")
            end = item.offset + framing.HEADER_SIZE + len(item.payload) + framing.FOOTER_SIZE
            frames.setdefault(field, []).append(data[item.offset : end])
        elif isinstance(item, framing.Corruption):
            raise SystemExit(f"corruption in {name}: {item}")
    os.makedirs(records_dir)
    for golden, (field, index) in GOLDEN.items():
        with open(os.path.join(records_dir, f"{golden}.bin"), "wb") as f:
            f.write(frames[field][index])


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3:])
        return
    if os.path.exists(OUT):
        raise SystemExit(f"{OUT} exists; the committed fixture is never regenerated (see this script's docstring)")
    logdir = os.path.join(OUT, "logdir")
    kinds, job, torn = (os.path.join(logdir, run) for run in ("kinds", "job", "torn"))
    _run("kinds", kinds)
    _run("rank0", job)
    _run("rank1-killed", job, killed=True)
    _run("rank1-resumed", job)
    _run("rank2", job)
    _run("torn", torn, os.path.join(OUT, "torn_write.bin"), killed=True)
    _cut_golden_records(kinds, os.path.join(OUT, "records"))


if __name__ == "__main__":
    main()
