"""What ``test_lightning.py`` fits: a tiny LightningModule, its data and its Trainer on the CPU.

Apart from the tests so that Lightning and torch are imported by the tests that fit, not
when pytest collects them (``pytest -m "not e2e"`` collects every module too).
"""

from __future__ import annotations

from typing import Any

import lightning as L
import torch
from lightning.pytorch.loggers import Logger


class Tiny(L.LightningModule):
    def __init__(self, lr: float = 0.05, hidden: int = 8, optimizer: str = "sgd", schedule: Any = None, fail_at=-1):
        super().__init__()
        self.save_hyperparameters()
        self.net = torch.nn.Sequential(torch.nn.Linear(4, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1))
        self.example_input_array = torch.zeros(2, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def on_train_start(self) -> None:
        for logger in self.loggers:  # the metrics to compare runs by, as Lightning's docs show
            logger.log_hyperparams(dict(self.hparams), {"hp/val_loss": 0.0})

    def training_step(self, batch: Any, index: int) -> torch.Tensor:
        if self.global_step == self.hparams["fail_at"]:
            raise RuntimeError("loss went to the moon")
        x, y = batch
        loss = torch.nn.functional.mse_loss(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch: Any, index: int) -> None:
        x, y = batch
        loss = torch.nn.functional.mse_loss(self(x), y)
        self.log("val_loss", loss)
        self.log("hp/val_loss", loss)

    def test_step(self, batch: Any, index: int) -> None:
        x, y = batch
        self.log("test_loss", torch.nn.functional.mse_loss(self(x), y))

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=self.hparams["lr"])


def data() -> Any:
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(32, 4, generator=generator)
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, x.sum(1, keepdim=True)), batch_size=8)


def trainer(loggers: list[Logger], epochs: int = 2) -> Any:
    return L.Trainer(
        max_epochs=epochs,
        logger=loggers,
        accelerator="cpu",
        devices=1,
        log_every_n_steps=1,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
