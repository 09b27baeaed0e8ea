"""Fits a tiny LightningModule with DDP on 2 CPU processes, logging with VisualDLLogger twice.

Run by ``test_lightning.py``: ``python lightning_ddp.py ALL_RANKS_DIR RANK_ZERO_DIR OUT``.
Lightning's launcher runs this script again for rank 1. One logger logs every rank, one
rank 0 only (Lightning's default); a recording logger on every rank keeps what Lightning
reported there, written to ``OUT.<rank>.json`` at the end.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import lightning as L
import torch
from lightning_recorder import Recorder as BaseRecorder

from visualdl.integrations.lightning import VisualDLLogger

ALL_RANKS, RANK_ZERO, OUT = sys.argv[1:4]


class Recorder(BaseRecorder):
    """The reference logger, which also writes what it kept when the fit ends."""

    def finalize(self, status: str) -> None:
        rank = self.trainer_rank
        with open(f"{OUT}.{rank}.json", "w") as f:
            json.dump({"status": status, "metrics": self.metrics}, f)

    trainer_rank = -1


class Tiny(L.LightningModule):
    def __init__(self, lr: float = 0.05) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch: Any, index: int) -> torch.Tensor:
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        self.log("train_loss", loss)  # each rank's own loss (no sync_dist)
        return loss

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=self.hparams["lr"])


class RankOfRecorder(L.Callback):
    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def setup(self, trainer: L.Trainer, pl_module: L.LightningModule, stage: str) -> None:
        self.recorder.trainer_rank = trainer.global_rank


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(32, 4)
    data = torch.utils.data.TensorDataset(x, x.sum(1, keepdim=True))
    recorder = Recorder()
    trainer = L.Trainer(
        strategy="ddp",
        accelerator="cpu",
        devices=2,
        max_epochs=2,
        logger=[VisualDLLogger(ALL_RANKS, all_ranks=True), VisualDLLogger(RANK_ZERO), recorder],
        callbacks=[RankOfRecorder(recorder)],
        log_every_n_steps=1,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(Tiny(), torch.utils.data.DataLoader(data, batch_size=4))
