"""A Lightning logger that keeps what Lightning hands its loggers, as it hands them: the
reference the integration tests compare a ``VisualDLLogger``'s log with (imported by
``test_lightning.py`` and by ``lightning_ddp.py`` on each rank)."""

from __future__ import annotations

from typing import Any

from lightning.pytorch.loggers import Logger


class Recorder(Logger):
    """Every ``log_metrics`` call Lightning makes on this process, as given."""

    def __init__(self) -> None:
        super().__init__()
        self.metrics: list[tuple[int | None, dict[str, float]]] = []

    @property
    def name(self) -> str:
        return "recorder"

    @property
    def version(self) -> int:
        return 0

    def log_metrics(self, metrics: dict[str, float], step: int | None = None) -> None:
        self.metrics.append((step, {k: float(v) for k, v in metrics.items()}))

    def log_hyperparams(self, params: Any, *args: Any, **kwargs: Any) -> None:
        pass
