"""The provider's reads of a job: its files' progress, what went wrong first, its system metrics.

What the job page, its charts' marks and its system view are built from (the analyses are
in :mod:`visualdl._jobs`, the JSON in ``server/_views/``).
"""

from __future__ import annotations

from visualdl._index.systembands import Member
from visualdl._index.wrong import Divergence, FirstNonfinite
from visualdl._jobs import system
from visualdl._jobs.progress import FileProgress
from visualdl.server._patterns import compile_pattern
from visualdl.server._provider.runs import RunCatalog

__all__ = ["JobReads"]


class JobReads(RunCatalog):
    """A run's files as a job: progress, first non-finite values and divergence, system metrics."""

    def run_version(self, *, run: str) -> tuple[int, int]:
        """A pair that changes whenever anything of ``run`` changes (see :meth:`Index.run_version`)."""
        reader, local = self._resolve(run)
        return reader.run_version(local)

    def read_job(self, *, run: str) -> list[FileProgress]:
        """Per log file of ``run``: its writer, its progress trace and its lowest step, what
        the job page is built from (see :mod:`visualdl._jobs.overview`)."""
        reader, local = self._resolve(run)
        return reader.file_progress(local)

    def read_job_wrong(self, *, run: str, tag: str | None = None) -> tuple[list[FirstNonfinite], list[Divergence]]:
        """The first non-finite value of each tag of ``run`` (or ``tag``), and where the ranks of
        its replicated tags part (``Settings.replicated_tags`` names more): see
        :mod:`visualdl._index.wrong`."""
        reader, local = self._resolve(run)
        pattern = compile_pattern(self.settings.replicated_tags) if self.settings.replicated_tags else None
        named = (lambda name: pattern.search(name) is not None) if pattern is not None else None
        return reader.first_nonfinite(local, tag=tag), reader.divergence(local, replicated=named, tag=tag)

    def list_system(self, *, run: str) -> tuple[system.SystemMetricInfo, ...]:
        """The system metrics ``run`` records, each once (see :mod:`visualdl._jobs.system`)."""
        reader, local = self._resolve(run)
        return system.list_system(reader, local)

    def read_system_metric(self, *, run: str, scope: str, name: str) -> list[Member]:
        """Every writer's series of one system metric of ``run`` (empty: not recorded)."""
        reader, local = self._resolve(run)
        return reader.system_members(local, scope, name)

    def read_system_members(self, *, run: str) -> dict[tuple[str, str, str], list[Member]]:
        """Every writer's series of every system metric of ``run``, by ``(scope, name, unit)``."""
        reader, local = self._resolve(run)
        return system.read_system_members(reader, local)

    def read_system(
        self,
        *,
        run: str,
        metrics: tuple[str, ...] = (),
        role: str | None = None,
        rank: int | None = None,
        points: int = 200,
    ) -> tuple[system.SystemBands, ...]:
        """Per system metric of ``run`` (``scope/name``; all when none), its bands over the
        ranks of each role on a grid of ``points`` times, and ``rank``'s own lines."""
        reader, local = self._resolve(run)
        return system.read_system(reader, local, metrics=metrics, role=role, rank=rank, points=points)
