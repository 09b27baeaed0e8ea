"""Trains a tiny BERT classifier with the Hugging Face Trainer on 2 CPU processes (torchrun).

Run by ``test_transformers.py``: ``torchrun --nproc_per_node 2 transformers_ddp.py EVERY MAIN OUT``.
One callback logs every process into EVERY, one the main process only into MAIN; a
recorder on every process keeps what the Trainer logged there, in ``OUT.<rank>.json``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import torch
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainerCallback, TrainingArguments

from visualdl.integrations.transformers import VisualDLCallback

EVERY, MAIN, OUT = sys.argv[1:4]


class Recorder(TrainerCallback):
    def __init__(self) -> None:
        self.logs: list[tuple[int, dict[str, Any]]] = []

    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
        self.logs.append((state.global_step, dict(logs)))

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        with open(f"{OUT}.{args.process_index}.json", "w") as f:
            json.dump({"world_size": args.world_size, "logs": self.logs}, f)


if __name__ == "__main__":
    torch.manual_seed(0)
    config = BertConfig(vocab_size=32, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16)
    generator = torch.Generator().manual_seed(0)
    data = [{"input_ids": torch.randint(0, 32, (6,), generator=generator), "labels": i % 2} for i in range(32)]
    args = TrainingArguments(
        output_dir=OUT + ".trainer", max_steps=4, logging_steps=1, per_device_train_batch_size=4,
        report_to="none", save_strategy="no", use_cpu=True, disable_tqdm=True, ddp_backend="gloo",
    )  # fmt: skip
    callbacks = [VisualDLCallback(EVERY, every_process=True), VisualDLCallback(MAIN), Recorder()]
    Trainer(model=BertForSequenceClassification(config), args=args, train_dataset=data, callbacks=callbacks).train()
