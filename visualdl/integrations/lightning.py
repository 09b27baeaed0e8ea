"""A PyTorch Lightning logger that writes VisualDL logs: ``Trainer(logger=VisualDLLogger("logs"))``.

It lays out its runs as Lightning's ``TensorBoardLogger`` does (``save_dir/name/version_N``,
``hparams.yaml`` beside the log) and writes the same tags: what ``self.log`` logs under its
own name (``train_loss``, ``epoch``, ...), dict values as ``key/sub``, ``hp_metric``. Works
with the ``lightning`` package and with the older ``pytorch_lightning`` one (the first
that imports is the base class; either's Trainer takes it).

Ranks: as Lightning's own loggers, only global rank 0 logs by default, and the other ranks'
calls do nothing (their ``experiment`` is a stand-in that ignores every call).
``all_ranks=True`` logs on every rank instead, each process into its own file of the same
run. Either way a writer takes its rank from Lightning (the rank its strategy sets, in
``rank_zero_only.rank``) and its world size from the process group, so the file says
which rank of how many wrote it, whatever launched the job.
"""

from __future__ import annotations

import inspect
import os
import posixpath
import sys
import warnings
from argparse import Namespace
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fsspec.core import url_to_fs  # Lightning's own dependency, with which its loggers list folders

from visualdl.integrations._hparams import flatten_params, hparam_values
from visualdl.sdk._writer import LogWriter

if TYPE_CHECKING:
    from lightning.pytorch.core.saving import save_hparams_to_yaml
    from lightning.pytorch.loggers.logger import Logger
    from lightning_utilities.core.rank_zero import rank_zero_only
else:
    try:
        from lightning.pytorch.core.saving import save_hparams_to_yaml
        from lightning.pytorch.loggers.logger import Logger
    except ImportError:
        try:
            from pytorch_lightning.core.saving import save_hparams_to_yaml
            from pytorch_lightning.loggers.logger import Logger
        except ImportError as e:
            raise ImportError("visualdl.integrations.lightning needs PyTorch Lightning: pip install lightning") from e
    # Both packages' strategies set this one object's rank (lightning_utilities is shared).
    from lightning_utilities.core.rank_zero import rank_zero_only

__all__ = ["VisualDLLogger"]

#: LogWriter arguments the logger sets itself.
_OWN = frozenset({"logdir", "comment"})
_WRITER_ARGS = frozenset(inspect.signature(LogWriter).parameters) - _OWN


class _Ignored:
    """The ``experiment`` of a rank that does not log: every call does nothing."""

    def _nothing(self, *args: Any, **kwargs: Any) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        return self._nothing


def _rank() -> int:
    """The global rank Lightning's strategy set (0 before it sets one, or from the launcher's environment)."""
    return int(getattr(rank_zero_only, "rank", 0))


def _world() -> dict[str, int]:
    """This process's rank and world size as Lightning knows them (none in a single process)."""
    rank = _rank()
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        return {"rank": rank, "world_size": dist.get_world_size()}
    return {"rank": rank} if rank > 0 else {}


class VisualDLLogger(Logger):
    """Log a Lightning run into ``save_dir/name/version_N`` (the next free N, as TensorBoard's logger).

    Args:
        save_dir: the directory of all experiments (a local path or an object-store URL).
        name: the experiment's folder under ``save_dir``; ``""`` or None: none.
        version: the run's folder: an int for ``version_<int>``, a string for itself; None: the
            next free ``version_N``.
        log_graph: export the model to ONNX when Lightning calls :meth:`log_graph` (at the start
            of ``fit``, with ``model.example_input_array``).
        default_hp_metric: log ``hp_metric`` = -1 with hyperparameters given without metrics,
            as TensorBoard's logger does, so a run has a metric to compare by.
        prefix: put before every metric's name, joined by ``-``.
        sub_dir: a folder inside the run's folder to log into.
        all_ranks: log on every rank, each process into a file of its own; default: global
            rank 0 only (the graph and ``hparams.yaml``: rank 0 only in either case).
        **writer_args: passed to :class:`~visualdl.LogWriter` (``flush_secs``,
            ``system_metrics``, ``display_name``, ...).
    """

    LOGGER_JOIN_CHAR = "-"
    NAME_HPARAMS_FILE = "hparams.yaml"

    def __init__(
        self,
        save_dir: str | os.PathLike[str],
        name: str | None = "lightning_logs",
        version: int | str | None = None,
        log_graph: bool = False,
        default_hp_metric: bool = True,
        prefix: str = "",
        sub_dir: str | os.PathLike[str] | None = None,
        *,
        all_ranks: bool = False,
        **writer_args: Any,
    ) -> None:
        super().__init__()
        unknown = sorted(set(writer_args) - _WRITER_ARGS)
        if unknown:
            owned = [k for k in unknown if k in _OWN]
            why = "the logger sets it from save_dir, name and version" if owned else "LogWriter takes no such argument"
            raise TypeError(f"VisualDLLogger got unexpected argument(s) {unknown}: {why}")
        if version is not None and (isinstance(version, bool) or not isinstance(version, int | str)):
            raise TypeError(f"version must be an int, a string or None; got {version!r}")
        self._save_dir = os.fspath(save_dir)
        self._name = name or ""
        self._sub_dir = None if sub_dir is None else os.fspath(sub_dir)
        self._log_graph = bool(log_graph)
        self._default_hp_metric = bool(default_hp_metric)
        self._prefix = prefix
        self._all_ranks = bool(all_ranks)
        self._writer_args = writer_args
        self._writer: LogWriter | None = None
        #: Every hyperparameter logged so far (what hparams.yaml holds), and the metrics' tags.
        self.hparams: dict[str, Any] = {}
        self._hp_values: dict[str, bool | int | float | str] = {}
        self._hp_metrics: dict[str, None] = {}
        # Every rank must agree on version_N: with all ranks logging, each takes it now, before
        # any rank can have made its folder (a launched rank builds its logger before it joins
        # the process group, and no rank makes folders before that).
        self._version = version if version is not None or not all_ranks else self._next_version()

    # -- where -------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._name

    @property
    def version(self) -> int | str:
        if self._version is None:
            self._version = self._next_version()
        return self._version

    @property
    def save_dir(self) -> str:
        return self._save_dir

    @property
    def root_dir(self) -> str:
        """``save_dir/name``: the folder of every version of this experiment."""
        return os.path.join(self._save_dir, self._name)

    @property
    def sub_dir(self) -> str | None:
        return self._sub_dir

    @property
    def log_dir(self) -> str:
        """``save_dir/name/version_N`` (or ``.../<version>`` for a string version), then ``sub_dir``."""
        version = self.version if isinstance(self.version, str) else f"version_{self.version}"
        path = os.path.join(self.root_dir, version)
        if self._sub_dir is not None:
            path = os.path.join(path, self._sub_dir)
        return os.path.expanduser(os.path.expandvars(path))

    def _next_version(self) -> int:
        fs, root = url_to_fs(self.root_dir)
        try:
            entries = fs.listdir(root, detail=True)
        except OSError:  # no such folder yet
            return 0
        found = [
            int(number)
            for entry in entries
            if entry.get("type") == "directory"
            and (name := posixpath.basename(str(entry["name"]).rstrip("/")))
            and (number := name.removeprefix("version_")) != name
            and number.isdigit()
        ]
        return max(found) + 1 if found else 0

    # -- the writer --------------------------------------------------------------------

    def _logs_here(self) -> bool:
        return self._all_ranks or _rank() == 0

    @property
    def experiment(self) -> LogWriter | Any:
        """This rank's :class:`~visualdl.LogWriter` (made on first use), or, on a rank that does
        not log, a stand-in that ignores every call: ``self.logger.experiment.add_image(...)``."""
        if not self._logs_here():
            return _Ignored()
        if self._writer is None:
            self._writer = LogWriter(self.log_dir, **{**_world(), **self._writer_args})
        return self._writer

    # -- what Lightning calls ----------------------------------------------------------

    def log_metrics(self, metrics: Mapping[str, Any], step: int | None = None) -> None:
        """Each metric a scalar at ``step`` (None: 0, as TensorBoard's); a dict as ``key/sub`` tags."""
        if not self._logs_here():
            return
        writer = self.experiment
        at = 0 if step is None else int(step)
        for key, value in self._prefixed(metrics).items():
            try:
                if isinstance(value, Mapping):
                    writer.add_scalars(key, {k: _number(v) for k, v in value.items()}, at)
                else:
                    writer.add_scalar(key, _number(value), at)
            except (TypeError, ValueError, RuntimeError) as e:
                raise ValueError(
                    f"metric {key!r}: could not log {value!r} as a scalar ({e}); log a number, a one-element "
                    "tensor or a dict of them"
                ) from e

    def log_hyperparams(
        self, params: Mapping[str, Any] | Namespace | None, metrics: Any = None, step: int | None = None
    ) -> None:
        """Record hyperparameters (nested ones flattened to ``a/b``) with the metrics to compare runs
        by: ``metrics`` (a dict, logged at ``step``; a bare value is ``hp_metric``'s), or, with
        none given, ``hp_metric`` = -1 when ``default_hp_metric`` is on.

        Unlike TensorBoard's logger, hyperparameters given with no metric at all are still
        recorded, and each call adds to the earlier ones (values and metrics alike) rather
        than replacing them."""
        given = vars(params) if isinstance(params, Namespace) else dict(params or {})
        self.hparams.update(given)
        if not self._logs_here():
            return
        if metrics is None:
            metrics = {"hp_metric": -1} if self._default_hp_metric else {}
        elif not isinstance(metrics, Mapping):
            metrics = {"hp_metric": metrics}
        if metrics:
            self.log_metrics(metrics, step)
        for key, value in self._prefixed(metrics).items():
            for tag in [f"{key}/{sub}" for sub in value] if isinstance(value, Mapping) else [key]:
                self._hp_metrics[tag] = None
        values = {**self._hp_values, **hparam_values(flatten_params(given), "VisualDLLogger.log_hyperparams")}
        self.experiment.add_hparams(values, list(self._hp_metrics))
        self._hp_values = values  # kept once written: a call that raised leaves no value behind

    def log_graph(self, model: Any, input_array: Any = None) -> None:
        """The model as an ONNX graph, when ``log_graph=True``: exported on ``input_array``
        (default: ``model.example_input_array``) by ``torch.onnx.export``. A model without an
        example input, or one the exporter cannot take, is skipped with a warning."""
        if not self._log_graph or _rank() != 0:
            return
        example = getattr(model, "example_input_array", None) if input_array is None else input_array
        if example is None:
            warnings.warn(
                "VisualDLLogger(log_graph=True) logged no graph: set model.example_input_array or pass input_array",
                stacklevel=2,
            )
            return
        before = getattr(model, "_on_before_batch_transfer", None)
        transfer = getattr(model, "_apply_batch_transfer_handler", None)
        if callable(before) and callable(transfer):  # a LightningModule: the batch hooks, as for a batch
            example = transfer(before(example))
        try:
            self.experiment.add_graph(model, input_spec=example)
        except ValueError as e:  # the exporter's failure, named by add_graph
            warnings.warn(f"VisualDLLogger logged no graph: {e}", stacklevel=2)

    def save(self) -> None:
        """Flush the log; on rank 0, write ``hparams.yaml`` into the run's folder if it is not there."""
        if self._writer is not None:
            self._writer.flush()
        if _rank() == 0 and self._writer is not None:
            fs, folder = url_to_fs(self.log_dir)
            if fs.isdir(folder) and not fs.exists(posixpath.join(folder, self.NAME_HPARAMS_FILE)):
                save_hparams_to_yaml(os.path.join(self.log_dir, self.NAME_HPARAMS_FILE), self.hparams)

    def finalize(self, status: str) -> None:
        """Close the log, recording how the run ended: ``"failed"`` while an exception is being
        handled (Lightning's ``fit`` that raised) is that exception, a ``KeyboardInterrupt``
        SIGINT's; any other status a clean end. Logging again later (``trainer.test`` after
        ``fit``) opens a new file of the same run."""
        if self._writer is None:
            return
        if status == "success":
            self.save()
        writer, self._writer = self._writer, None
        kind, exc, tb = sys.exc_info()
        if status == "failed" and exc is not None:
            writer.__exit__(kind, exc, tb)  # records the exception as the writer's end, then closes
        else:
            writer.close()

    def _prefixed(self, metrics: Mapping[str, Any]) -> dict[str, Any]:
        if not self._prefix:
            return dict(metrics)
        return {f"{self._prefix}{self.LOGGER_JOIN_CHAR}{k}": v for k, v in metrics.items()}

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_writer"] = None  # a spawned process opens its own
        return state


def _number(value: Any) -> Any:
    """A tensor's value (one element), else the value as given (LogWriter checks it)."""
    item = getattr(value, "item", None)
    if callable(item) and not isinstance(value, int | float):
        return item()
    return value
