"""What ``test_transformers.py`` trains: a tiny BERT's Trainer on the CPU, and a recorder of
what the Trainer logs.

Apart from the tests so that transformers and torch are imported by the tests that train,
not when pytest collects them (``pytest -m "not e2e"`` collects every module too).
"""

from __future__ import annotations

from typing import Any

import torch
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainerCallback, TrainingArguments


class Recorder(TrainerCallback):
    """Every ``on_log`` of the Trainer: its global step and the logs, as given."""

    def __init__(self) -> None:
        self.logs: list[tuple[int, dict[str, Any]]] = []

    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
        self.logs.append((state.global_step, dict(logs)))


def trainer(tmp_path: Any, callbacks: list[TrainerCallback]) -> Trainer:
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=32, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16,
        max_position_embeddings=16,
    )  # fmt: skip
    generator = torch.Generator().manual_seed(0)
    data = [{"input_ids": torch.randint(0, 32, (6,), generator=generator), "labels": i % 2} for i in range(16)]
    args = TrainingArguments(
        output_dir=str(tmp_path / "out"), max_steps=4, logging_steps=1, eval_strategy="steps", eval_steps=2,
        per_device_train_batch_size=4, per_device_eval_batch_size=8, report_to="none", save_strategy="no",
        use_cpu=True, disable_tqdm=True,
    )  # fmt: skip
    model = BertForSequenceClassification(config)
    return Trainer(model=model, args=args, train_dataset=data, eval_dataset=data[:8], callbacks=callbacks)
