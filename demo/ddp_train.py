"""The same digits MLP on a real engine: PyTorch DistributedDataParallel under torchrun (gloo, CPU).

    torchrun --nproc_per_node 2 demo/ddp_train.py --logdir demo_logs
    visualdl --logdir demo_logs

Every rank logs into ``<logdir>/ddp``. Nothing tells LogWriter its rank: it reads it
from torchrun's environment (RANK, WORLD_SIZE, LOCAL_RANK, TORCHELASTIC_RUN_ID,
TORCHELASTIC_RESTART_COUNT), as it does for PaddlePaddle, TF_CONFIG, Horovod, MPI and
SLURM. Each rank trains on its own shard (DistributedSampler), gradients are averaged
by all-reduce; ranks log loss, accuracy, step time and samples per second; rank 0 also
logs validation accuracy, weight histograms, sample pictures with predicted labels and
the network as an ONNX graph (built with onnx.helper from the trained weights).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ps_model  # the demo's data, ONNX export and pictures, shared with ps_train.py

from visualdl import LogWriter


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logdir", default="demo_logs")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    x_train, y_train, x_val, y_val = ps_model.load_data(args.seed)
    data = TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train))
    sampler: DistributedSampler[tuple[torch.Tensor, ...]] = DistributedSampler(
        data, num_replicas=world, rank=rank, shuffle=True, seed=args.seed
    )
    loader = DataLoader(data, batch_size=args.batch, sampler=sampler)
    model = nn.Sequential(nn.Linear(64, args.hidden), nn.ReLU(), nn.Linear(args.hidden, 10))
    ddp = DistributedDataParallel(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    writer = LogWriter(os.path.join(args.logdir, "ddp"), flush_secs=0.5)  # rank & co from torchrun
    step = 0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for xb, yb in loader:
            t0 = time.perf_counter()
            optimizer.zero_grad()
            logits = ddp(xb)
            loss = loss_fn(logits, yb)
            loss.backward()  # all-reduce of the gradients
            optimizer.step()
            seconds = time.perf_counter() - t0
            writer.add_scalar("train/loss", loss.detach(), step)  # a tensor: LogWriter takes .item()
            writer.add_scalar("train/accuracy", (logits.argmax(1) == yb).float().mean(), step)
            writer.add_scalar("perf/step_time_ms", seconds * 1e3, step)
            writer.add_scalar("perf/samples_per_second", len(yb) / seconds, step)
            step += 1
        if rank == 0:
            params = _params(model)
            writer.add_scalar("val/accuracy", ps_model.accuracy(params, x_val, y_val), step)
            for name, value in params.items():
                writer.add_histogram(f"params/{name}", value, step, buckets=30)
            predicted = ps_model.forward(params, x_val[:16])[2].argmax(axis=1)
            writer.add_image("samples/predictions", ps_model.sample_grid(x_val[:16], y_val[:16], predicted), step)
    if rank == 0:
        writer.add_graph(ps_model.to_onnx(_params(model)), name="digits_mlp")
        final = ps_model.accuracy(_params(model), x_val, y_val)
        print(f"rank 0: final validation accuracy {final:.3f} after {step} steps", flush=True)
    writer.close()
    dist.barrier()
    dist.destroy_process_group()
    return 0


def _params(model: nn.Sequential) -> dict[str, np.ndarray]:
    """The weights in the layout of ps_model (inputs x outputs)."""
    fc1, fc2 = model[0], model[2]
    assert isinstance(fc1, nn.Linear) and isinstance(fc2, nn.Linear)
    return {
        "fc1.weight": fc1.weight.detach().numpy().T.copy(),
        "fc1.bias": fc1.bias.detach().numpy().copy(),
        "fc2.weight": fc2.weight.detach().numpy().T.copy(),
        "fc2.bias": fc2.bias.detach().numpy().copy(),
    }


if __name__ == "__main__":
    sys.exit(main())
