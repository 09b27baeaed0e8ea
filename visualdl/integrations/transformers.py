"""A Hugging Face ``Trainer`` callback that writes VisualDL logs: ``Trainer(..., callbacks=[VisualDLCallback()])``.

It logs what ``transformers.integrations.TensorBoardCallback`` logs, under the same tags:
at the start of training the ``TrainingArguments`` (text ``args``, as JSON) and the model's
config (text ``model_config``); at each log the numbers as scalars at the global step, with
Hugging Face's keys rewritten as TensorBoard's callback does (``eval_loss`` ->
``eval/loss``, ``test_x`` -> ``test/x``, any other ``k`` -> ``train/k``) and strings as
text; the writer is closed at the end of training, and after an evaluate outside
training. Besides, the arguments are recorded as hyperparameters (as TensorBoard's callback
did before Transformers 5), whose metrics are every scalar tag logged (updated at the end
of training).

Processes: as Hugging Face's own callbacks, only the world's main process logs by
default. ``every_process=True`` logs on each process instead, into one run, each its own
file, with its rank and the world size from the ``TrainingArguments``
(``process_index``, ``world_size``, ``local_process_index``).
"""

from __future__ import annotations

import inspect
import os
import socket
import time
import warnings
from collections.abc import Mapping
from typing import Any

from visualdl.integrations._hparams import hparam_value
from visualdl.sdk._writer import LogWriter

try:
    from transformers import TrainerCallback
except ImportError as e:
    raise ImportError(
        "visualdl.integrations.transformers needs Hugging Face Transformers: pip install transformers"
    ) from e

__all__ = ["VisualDLCallback", "rewrite_logs"]

_OWN = frozenset({"logdir", "comment", "rank", "world_size", "local_rank"})
_WRITER_ARGS = frozenset(inspect.signature(LogWriter).parameters) - _OWN


def rewrite_logs(logs: Mapping[str, Any]) -> dict[str, Any]:
    """Hugging Face's log keys as TensorBoard's callback names them: ``eval_`` -> ``eval/``,
    ``test_`` -> ``test/``, everything else under ``train/``."""
    out: dict[str, Any] = {}
    for key, value in logs.items():
        if key.startswith("eval_"):
            out["eval/" + key[len("eval_") :]] = value
        elif key.startswith("test_"):
            out["test/" + key[len("test_") :]] = value
        else:
            out["train/" + key] = value
    return out


class VisualDLCallback(TrainerCallback):
    """Log a Hugging Face ``Trainer``'s run into ``logdir``.

    Args:
        logdir: the run's directory. Default: ``<output_dir>/runs/<time>_<host>``, as
            TensorBoard's callback (a hyperparameter search's trial: its name below it).
        writer: a :class:`~visualdl.LogWriter` to log into instead (the callback then does
            not close it).
        every_process: log on every process, each into its own file of ``logdir``, which
            must then be given (the processes must agree on it); default: the main one only.
        **writer_args: passed to :class:`~visualdl.LogWriter` (``flush_secs``,
            ``system_metrics``, ``display_name``, ...).
    """

    def __init__(
        self,
        logdir: str | os.PathLike[str] | None = None,
        *,
        writer: LogWriter | None = None,
        every_process: bool = False,
        **writer_args: Any,
    ) -> None:
        unknown = sorted(set(writer_args) - _WRITER_ARGS)
        if unknown:
            raise TypeError(
                f"VisualDLCallback got unexpected argument(s) {unknown}: logdir is its own argument, the rank and "
                "world size come from the TrainingArguments, and LogWriter takes no other"
            )
        if writer is not None and (logdir is not None or writer_args):
            raise TypeError("pass either writer or logdir and LogWriter's arguments to VisualDLCallback, not both")
        if writer is not None and every_process:
            raise TypeError("every_process=True makes a writer per process: pass logdir, not writer")
        self._logdir = None if logdir is None else os.fspath(logdir)
        self._every_process = bool(every_process)
        self._writer_args = writer_args
        self._given = writer
        self.writer: LogWriter | None = writer
        self._hparams: dict[str, bool | int | float | str] = {}
        self._metrics: dict[str, None] = {}  # the scalar tags logged, in order
        self._dropped: set[str] = set()
        self._training = False

    def _logs_here(self, state: Any) -> bool:
        return self._every_process or bool(state.is_world_process_zero)

    def _open(self, args: Any, state: Any) -> LogWriter:
        if self.writer is not None:
            return self.writer
        if self._every_process and self._logdir is None and args.world_size > 1:
            raise ValueError(
                "VisualDLCallback(every_process=True) needs logdir= when training on several processes: "
                "each process names the default folder by its own clock"
            )
        if self._logdir is None:  # kept: logging again after training (an evaluate) goes to the same run
            stamp = time.strftime("%b%d_%H-%M-%S")
            self._logdir = os.path.join(args.output_dir, "runs", f"{stamp}_{socket.gethostname()}")
        logdir = self._logdir
        if getattr(state, "is_hyper_param_search", False) and state.trial_name is not None:
            logdir = os.path.join(logdir, state.trial_name)
        placement: dict[str, int] = {}
        if self._every_process or args.world_size > 1:
            placement = {"rank": args.process_index, "world_size": args.world_size}
            placement["local_rank"] = args.local_process_index
        self.writer = LogWriter(logdir, **{**placement, **self._writer_args})
        return self.writer

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._training = True
        if not self._logs_here(state):
            return
        writer = self._open(args, state)
        writer.add_text("args", args.to_json_string())
        model = kwargs.get("model")
        config = getattr(model, "config", None)
        if config is not None:
            writer.add_text("model_config", config.to_json_string())
        self._hparams = {k: hparam_value(v) for k, v in args.to_sanitized_dict().items()}
        writer.add_hparams(self._hparams, list(self._metrics))

    def on_log(self, args: Any, state: Any, control: Any, logs: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        if not self._logs_here(state):
            return
        writer = self._open(args, state)
        for tag, value in rewrite_logs(logs or {}).items():
            if isinstance(value, int | float):
                writer.add_scalar(tag, float(value), state.global_step)
                self._metrics[tag] = None
            elif isinstance(value, str):
                writer.add_text(tag, value, state.global_step)
            elif tag not in self._dropped:  # as TensorBoard's callback, dropped with a warning (once per tag)
                self._dropped.add(tag)
                warnings.warn(
                    f"VisualDLCallback dropped {tag!r}: a {type(value).__name__} is neither a number nor a string",
                    stacklevel=2,
                )
        writer.flush()

    def __getstate__(self) -> dict[str, Any]:
        """A copy for another process (a Ray trial pickles the Trainer with its callbacks) opens
        its own writer in the same logdir; a writer that was given cannot go with it."""
        if self._given is not None:
            raise TypeError(
                "a VisualDLCallback given a writer cannot be pickled (another process needs a writer of its own): "
                "pass logdir instead"
            )
        state = self.__dict__.copy()
        state["writer"] = None
        return state

    def on_evaluate(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """An evaluate outside training (its metrics were logged just before): its file is closed,
        so the run does not look alive until the process ends; the next evaluate opens another."""
        if not self._training and self._given is None and self.writer is not None:
            writer, self.writer = self.writer, None
            writer.close()

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._training = False
        if self.writer is None:
            return
        if self._hparams:
            self.writer.add_hparams(self._hparams, list(self._metrics))
        if self._given is None:
            self.writer.close()
            self.writer = None
        else:
            self.writer.flush()
