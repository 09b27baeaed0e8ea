"""The server's runs (every logdir's, by the names the API gives them) as the source of the
runs table (:mod:`visualdl._index.runtable`): their writers, newest hparams, and a tag's
points of many runs gathered once per logdir."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from visualdl._index.runtable import RunsTable, build_table
from visualdl._index.series import ScalarSeries
from visualdl._index.writers import WriterInfo
from visualdl._kinds.table import HParamsEvent

if TYPE_CHECKING:
    from visualdl.server._provider.runs import RunCatalog

__all__ = ["ProviderRuns", "build_runs_table"]


class ProviderRuns:
    """The provider's runs (every logdir's, by the names the API gives them) as a
    :class:`~visualdl._index.runtable.RunSource`."""

    def __init__(self, provider: RunCatalog) -> None:
        self._provider = provider
        self._writers = {run.name: run.writers for run in provider.list_runs()}
        self.names = list(self._writers)

    def writers_of(self, run: str) -> tuple[WriterInfo, ...]:
        return self._writers.get(run, ())

    def hparams_of(self, runs: list[str]) -> dict[str, HParamsEvent]:
        out: dict[str, HParamsEvent] = {}
        for reader, located in self._by_reader(runs).values():
            found = reader.newest_hparams([local for _, local in located])
            out.update((runs[i], found[local]) for i, local in located if local in found)
        return out

    def points_of(self, runs: list[str], tag: str) -> tuple[ScalarSeries, np.ndarray, np.ndarray]:
        """One gather per logdir (:meth:`visualdl._index.index.Index.runs_points`)."""
        parts = []
        for reader, located in self._by_reader(runs).values():
            points, lengths, which = reader.runs_points([local for _, local in located], tag)
            positions = np.fromiter((i for i, _ in located), np.int64, len(located))
            parts.append((points, lengths, positions[which]))
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return (
                ScalarSeries(np.empty(0, np.int64), np.empty(0), np.empty(0)),
                np.empty(0, np.int64),
                np.empty(0, np.int64),
            )
        steps, values, walls = (
            np.concatenate([getattr(p[0], f) for p in parts]) for f in ("steps", "values", "wall_times")
        )
        return (
            ScalarSeries(steps, values, walls),
            np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]),
        )

    def _by_reader(self, runs: list[str]) -> dict[int, tuple[Any, list[tuple[int, str]]]]:
        """``runs`` by the index holding them: (index, [(position in runs, name there)])."""
        known = self._provider._located()
        out: dict[int, tuple[Any, list[tuple[int, str]]]] = {}
        for i, run in enumerate(runs):
            found = known.get(run)
            if found is not None:
                out.setdefault(id(found[0]), (found[0], []))[1].append((i, found[1]))
        return out

    def data_version(self) -> Any:
        return self._provider.data_version()


def build_runs_table(provider: RunCatalog) -> RunsTable:
    """The provider's runs as a table (:meth:`RunCatalog.runs_table` keeps it per generation)."""
    source = ProviderRuns(provider)
    return build_table(source, list(source.names))
