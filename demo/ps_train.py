"""A parameter-server training job, as in PaddlePaddle Fluid's and TensorFlow's designs, logged with LogWriter.

``--pservers`` processes each hold a shard of the parameters (every parameter lives on
one pserver); ``--trainers`` processes each read their own shard of the data, pull the
parameters, compute a forward and backward pass of a numpy MLP on a mini-batch, and push
their gradients to the pservers holding them.

* ``--mode sync``: synchronous SGD. A pserver waits for one push from every connected
  trainer, applies the averaged gradient, then answers them all: a barrier per step.
* ``--mode async``: asynchronous SGD. Each push is applied at once; its *staleness* is
  how many updates the pserver applied since the trainer pulled the parameters.
* ``--elastic``: trainer 1 raises a (simulated) CUDA out-of-memory error mid-run and
  is restarted (attempt 1); it resumes from its last checkpoint, a few steps back, with
  the pservers' current parameters. Its first attempt's log records the error, its
  traceback and its last step; the reader keeps the new attempt's points from its first
  step on, and the jobs page counts the time lost and the steps done twice.

Every run also has what makes a distributed job hard to read: the last trainer is slowed
by CPU contention (a thread of its own process hogging the CPU, as a runaway data loader
does), trainer 0's loss goes NaN for a few steps (an overflowing batch, skipped), and
every process samples its system metrics (CPU, memory, threads; GPUs where NVML finds
them) beside its scalars.

Processes talk over local sockets (``multiprocessing.connection``), so a restarted
trainer simply connects again. Every process logs into the same run directory with its
role and rank: trainers their loss, accuracy, step time and samples per second (trainer
0 also validation accuracy, sample pictures with predicted labels and the network as an
ONNX graph); pservers their parameter and gradient histograms, update counts and, in
async mode, the staleness of the gradients they apply.

    python demo/ps_train.py --logdir demo_logs            # writes demo_logs/ps-sync
    visualdl --logdir demo_logs

The logdir may be a URL (``s3://bucket/logs``): the writers upload their logs as
segments every ``--upload-secs``, and the job's own state (checkpoints) stays in a
local temporary directory. ``demo/ps_train_s3.sh`` runs it all against an S3 API
server on loopback.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Client, Connection, Listener, wait
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ps_model  # the demo's own module, beside this file

from visualdl import LogWriter

AUTHKEY = b"visualdl-demo"


def owner(name: str, pservers: int) -> int:
    """The pserver holding parameter ``name``."""
    return ps_model.PARAM_NAMES.index(name) % pservers


# -- pserver ---------------------------------------------------------------------------------


def run_pserver(cfg: dict[str, Any], rank: int, address_queue: Any) -> None:
    everything = ps_model.init_params(cfg["hidden"], cfg["seed"])
    params = {k: v for k, v in everything.items() if owner(k, cfg["pservers"]) == rank}
    listener = Listener(family="AF_UNIX", authkey=AUTHKEY)  # a fresh socket path; no Nagle delays
    address_queue.put((rank, listener.address))
    writer = LogWriter(
        cfg["run_dir"],
        rank=rank,
        world_size=cfg["pservers"],
        role="pserver",
        job=cfg["job"],
        flush_secs=0.5,
        upload_secs=cfg["upload_secs"],
        system_metrics_secs=cfg["metrics_secs"],
    )
    conns: list[Connection] = []
    arrived: list[Connection] = []  # accepted by the accept thread, not yet served
    lock = threading.Lock()

    def accept() -> None:
        while True:
            try:
                conn = listener.accept()
            except (OSError, EOFError, multiprocessing.AuthenticationError):
                continue
            with lock:
                arrived.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    pending: dict[Connection, tuple[int, dict[str, np.ndarray]]] = {}  # sync: this round's pushes
    # sync: a round waits for every trainer of the job, but for those that finished (said
    # "bye") or died (connection lost without it) until they connect again.
    rank_of: dict[Connection, int] = {}
    gone: set[int] = set()

    def expected() -> int:
        return cfg["trainers"] - len(gone)

    version = 0
    lr = cfg["lr"]
    last_grads: dict[str, np.ndarray] = {}

    def apply(grads: dict[str, np.ndarray], staleness: list[int]) -> None:
        nonlocal version
        for name, g in grads.items():
            params[name] -= lr * g
        last_grads.update(grads)
        version += 1
        writer.add_scalar("pserver/updates", version, version)
        if staleness:
            writer.add_scalar("pserver/staleness_mean", float(np.mean(staleness)), version)
            writer.add_scalar("pserver/staleness_max", float(np.max(staleness)), version)
        if version % cfg["hist_every"] == 0:
            for name in params:
                writer.add_histogram(f"params/{name}", params[name], version, buckets=30)
                writer.add_histogram(f"grads/{name}", last_grads[name], version, buckets=30)

    def finish_round() -> None:
        if not pending:
            return
        names = next(iter(pending.values()))[1].keys()
        mean = {n: np.mean([g[n] for _, g in pending.values()], axis=0) for n in names}
        apply(mean, [])
        for conn in pending:
            try:
                conn.send(("ok", version))
            except OSError:
                pass
        pending.clear()

    stopping = False
    while not stopping or conns:
        with lock:
            conns.extend(arrived)
            arrived.clear()
        for conn in wait(conns, timeout=0.01):
            assert isinstance(conn, Connection)
            try:
                message = conn.recv()
            except (EOFError, OSError):
                conns.remove(conn)  # a trainer died, or the launcher left
                pending.pop(conn, None)
                if conn in rank_of:
                    gone.add(rank_of.pop(conn))
                if cfg["mode"] == "sync" and pending and len(pending) >= expected():
                    finish_round()
                continue
            kind = message[0]
            if kind == "hello":
                rank_of[conn] = message[1]
                gone.discard(message[1])
            elif kind == "bye":
                gone.add(rank_of.pop(conn))
                if cfg["mode"] == "sync" and pending and len(pending) >= expected():
                    finish_round()
            elif kind == "pull":
                conn.send((version, params))
            elif kind == "push":
                _, pulled_version, grads = message
                if cfg["mode"] == "async":
                    apply(grads, [version - pulled_version])
                    conn.send(("ok", version))
                else:
                    pending[conn] = (pulled_version, grads)
                    if len(pending) >= expected():
                        finish_round()
            elif kind == "stop":
                stopping = True
                conn.send(("ok", version))
    writer.add_text("pserver/summary", f"pserver {rank}: {version} updates of {sorted(params)}", version)
    writer.close()


# -- trainer ---------------------------------------------------------------------------------


def run_trainer(cfg: dict[str, Any], rank: int, addresses: dict[int, Any], attempt: int) -> None:
    x_train, y_train, x_val, y_val = ps_model.load_data(cfg["seed"])
    x, y = ps_model.shard(x_train, y_train, rank, cfg["trainers"])
    rng = np.random.default_rng(cfg["seed"] * 1000 + rank * 10 + attempt)
    servers = {j: Client(addresses[j], authkey=AUTHKEY) for j in range(cfg["pservers"])}
    for conn in servers.values():
        conn.send(("hello", rank))
    checkpoint = os.path.join(cfg["state_dir"], f"trainer{rank}.step")
    start = 0
    if attempt > 0 and os.path.exists(checkpoint):
        with open(checkpoint) as f:
            start = int(f.read())  # resume from the last checkpoint: steps after it are done again
    writer = LogWriter(
        cfg["run_dir"],
        rank=rank,
        world_size=cfg["trainers"],
        role="trainer",
        job=cfg["job"],
        attempt=attempt,
        flush_secs=0.5,
        upload_secs=cfg["upload_secs"],
        system_metrics_secs=cfg["metrics_secs"],
    )
    batch = cfg["batch"]
    slow = cfg["slow_ms"] / 1000 if rank == cfg["trainers"] - 1 else 0.0
    if rank == cfg["trainers"] - 1 and cfg["contention"]:
        threading.Thread(target=_hog_cpu, name="data-loader", daemon=True).start()
    nan_steps = range(cfg["nan_step"], cfg["nan_step"] + 3) if rank == 0 else range(0)
    params: dict[str, np.ndarray] = {}
    for step in range(start, cfg["steps"]):
        t0 = time.perf_counter()
        pulled = 0
        for conn in servers.values():
            conn.send(("pull",))
        for conn in servers.values():
            version, shard_params = conn.recv()
            params.update(shard_params)
            pulled = max(pulled, version)
        idx = rng.choice(len(y), size=batch, replace=False)
        loss, acc, grads = ps_model.loss_and_grads(params, x[idx], y[idx])
        if step in nan_steps:  # an overflowing batch: its loss is NaN, its update skipped
            loss = float("nan")
            grads = {n: np.zeros_like(g) for n, g in grads.items()}
        if slow:
            time.sleep(slow)  # a slower machine: this trainer is the job's straggler
        for j, conn in servers.items():
            conn.send(("push", pulled, {n: g for n, g in grads.items() if owner(n, cfg["pservers"]) == j}))
        for conn in servers.values():
            conn.recv()  # sync: returns once every trainer pushed (the barrier)
        seconds = time.perf_counter() - t0
        writer.add_scalar("train/loss", loss, step)
        writer.add_scalar("train/accuracy", acc, step)
        writer.add_scalar("perf/step_time_ms", seconds * 1e3, step)
        writer.add_scalar("perf/samples_per_second", batch / seconds, step)
        if step % cfg["checkpoint_every"] == 0:
            with open(checkpoint + ".tmp", "w") as f:
                f.write(str(step))
            os.replace(checkpoint + ".tmp", checkpoint)
        if attempt == 0 and rank == cfg["victim"] and step == cfg["kill_step"]:
            # What a real trainer meets on a busy GPU; the launcher restarts it.
            raise RuntimeError(
                "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 1; 15.78 GiB total capacity; "
                "13.91 GiB already allocated) [simulated by the demo]"
            )
        if rank == 0 and (step % cfg["eval_every"] == 0 or step == cfg["steps"] - 1):
            writer.add_scalar("val/accuracy", ps_model.accuracy(params, x_val, y_val), step)
            sample = slice(0, 16)
            predicted = ps_model.forward(params, x_val[sample])[2].argmax(axis=1)
            writer.add_image("samples/predictions", ps_model.sample_grid(x_val[sample], y_val[sample], predicted), step)
    if rank == 0:
        for conn in servers.values():
            conn.send(("pull",))
        for conn in servers.values():
            params.update(conn.recv()[1])
        writer.add_graph(ps_model.to_onnx(params), name="digits_mlp")
        final = ps_model.accuracy(params, x_val, y_val)
        summary = f"final validation accuracy **{final:.3f}** after {cfg['steps']} steps"
        writer.add_text("summary", summary, cfg["steps"])
        print(f"trainer 0: final validation accuracy {final:.3f}", flush=True)
    writer.close()
    for conn in servers.values():
        conn.send(("bye",))
        conn.close()


def _hog_cpu() -> None:
    """A runaway thread of the straggler's own process: pure Python, so it also holds the GIL."""
    x = 0
    while True:
        for i in range(10_000):
            x = (x + i * i) % 1_000_003


# -- launcher --------------------------------------------------------------------------------


def _step_of(cfg: dict[str, Any], rank: int) -> int:
    try:
        with open(os.path.join(cfg["state_dir"], f"trainer{rank}.step")) as f:
            return int(f.read() or 0)
    except (FileNotFoundError, ValueError):
        return -1


def _url_exists(url: str) -> bool:
    import fsspec

    fs, path = fsspec.core.url_to_fs(url)
    return bool(fs.exists(path))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--logdir", default="demo_logs", help="logdir; the run is <logdir>/ps-<mode>[-elastic][-N], a new one each time"
    )
    parser.add_argument("--trainers", type=int, default=4)
    parser.add_argument("--pservers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--mode", choices=("sync", "async"), default="sync")
    parser.add_argument(
        "--elastic", action="store_true", help="trainer 1 fails mid-run (CUDA out of memory) and is restarted"
    )
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--slow-ms", type=float, default=0.0, help="extra milliseconds per step of the last trainer")
    parser.add_argument(
        "--no-contention", dest="contention", action="store_false",
        help="no CPU-hogging thread in the last trainer (it is the job's straggler by default)",
    )  # fmt: skip
    parser.add_argument("--metrics-secs", type=float, default=0.5, help="seconds between two system samples")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--upload-secs", type=float, default=2.0,
        help="a URL logdir: seconds between two uploads of each writer (the SDK's default is 60)",
    )  # fmt: skip
    parser.add_argument("--small", action="store_true", help="a quick run for tests: 2 trainers, 1 pserver, 60 steps")
    args = parser.parse_args(argv)
    if args.small:
        args.trainers, args.pservers, args.steps = 2, 1, 60
    if args.trainers < 2 and args.elastic:
        parser.error("--elastic needs at least 2 trainers")
    job = f"ps-{args.mode}" + ("-elastic" if args.elastic else "")
    remote = "://" in args.logdir and not args.logdir.startswith("file://")
    exists = _url_exists if remote else os.path.exists
    logdir = args.logdir.rstrip("/") if remote else args.logdir

    def join(name: str) -> str:
        return f"{logdir}/{name}" if remote else os.path.join(logdir, name)

    run_dir = join(job)
    again = 1
    while exists(run_dir):  # run again: a run of its own beside the earlier ones
        again += 1
        run_dir = join(f"{job}-{again}")
    job = os.path.basename(run_dir)
    # The job's own state (checkpoints) on a local disk: beside
    # the logs (readers skip dot-directories), or in a temporary directory for a URL.
    state_dir = tempfile.mkdtemp(prefix=f"{job}-state-") if remote else os.path.join(run_dir, ".state")
    os.makedirs(state_dir, exist_ok=True)
    cfg = {
        "run_dir": run_dir,
        "state_dir": state_dir,
        "job": job,
        "mode": args.mode,
        "trainers": args.trainers,
        "pservers": args.pservers,
        "steps": args.steps,
        "batch": args.batch,
        "hidden": args.hidden,
        "lr": args.lr,
        "seed": args.seed,
        "slow_ms": args.slow_ms,
        "contention": args.contention,
        "metrics_secs": args.metrics_secs,
        "nan_step": args.steps // 3,
        "upload_secs": args.upload_secs,
        "hist_every": max(1, args.steps // 10),
        "eval_every": max(1, args.steps // 10),
        "checkpoint_every": 10,
        # --elastic: trainer 1 dies at a step 5 past its last checkpoint, so its restart
        # logs steps again that the killed attempt logged.
        "victim": 1 if args.elastic else -1,
        "kill_step": (args.steps // 2) // 10 * 10 + 5,
    }
    started = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    pservers = [ctx.Process(target=run_pserver, args=(cfg, j, queue), name=f"pserver{j}") for j in range(args.pservers)]
    for p in pservers:
        p.start()
    addresses = dict(queue.get(timeout=60) for _ in pservers)
    trainers = {
        r: ctx.Process(target=run_trainer, args=(cfg, r, addresses, 0), name=f"trainer{r}")
        for r in range(args.trainers)
    }
    for p in trainers.values():
        p.start()
    if args.elastic:
        victim = cfg["victim"]
        trainers[victim].join()
        if trainers[victim].exitcode != 0:  # as an elastic launcher does: restart the failed trainer
            step = _step_of(cfg, victim)
            print(f"trainer {victim} failed; restarting it from its checkpoint of step {step}", flush=True)
            trainers[victim] = ctx.Process(target=run_trainer, args=(cfg, victim, addresses, 1), name="trainer1-retry")
            trainers[victim].start()
    failed = []
    for r, p in trainers.items():
        p.join()
        if p.exitcode != 0:
            failed.append(r)
    for j in range(args.pservers):
        with Client(addresses[j], authkey=AUTHKEY) as conn:
            conn.send(("stop",))
            conn.recv()
    for p in pservers:
        p.join(30)
    seconds = time.perf_counter() - started
    shape = f"{args.trainers} trainers, {args.pservers} pservers, {args.steps} steps"
    print(f"{job}: {shape} in {seconds:.1f} s", flush=True)
    print(f"logs in {run_dir}", flush=True)
    if remote:
        shutil.rmtree(state_dir, ignore_errors=True)
    if failed or any(p.exitcode != 0 for p in pservers):
        print(f"failed processes: trainers {failed}, pservers {[p.exitcode for p in pservers]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
