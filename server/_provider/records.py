"""The provider's reads of a run's newest records of one kind: its hyperparameters and its
custom scalar layout (the newest of each wins, as the writers say)."""

from __future__ import annotations

from visualdl._kinds.table import HParamsEvent, ScalarLayoutEvent
from visualdl.server._provider.runs import RunCatalog

__all__ = ["RecordReads"]


class RecordReads(RunCatalog):
    """A run's newest hyperparameters and custom scalar layout."""

    def read_hparams(self, *, run: str) -> HParamsEvent | None:
        """The newest hyperparameters of ``run`` (None: it has none; :class:`NotFound`: an unknown run)."""
        reader, local = self._resolve(run)
        return reader.hparams(local)

    def read_newest_hparams(self, *, runs: list[str]) -> dict[str, HParamsEvent]:
        """:meth:`read_hparams` of each of ``runs`` that has any (unknown runs left out), in one
        pass per logdir, none prioritized: for the runs table of 30,000 runs."""
        out: dict[str, HParamsEvent] = {}
        for reader, located in self._by_index(runs):
            found = reader.newest_hparams([local for _, local in located])
            out.update((runs[i], found[local]) for i, local in located if local in found)
        return out

    def read_scalar_layout(self, *, run: str) -> ScalarLayoutEvent | None:
        """The newest custom scalar layout of ``run`` (tensorboardX's ``add_custom_scalars``;
        None: it has none; :class:`NotFound`: an unknown run)."""
        reader, local = self._resolve(run)
        return reader.scalar_layout(local)
