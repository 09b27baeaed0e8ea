"""The job page of each run, built once per change of the run and shared by the routes that
need it (``/api/job``), with what else is built from the same data and kept as long
(``/api/job/stragglers``'s answer, ``/api/job/system``'s bands of each metric asked).

A job of 10,000 ranks takes a good part of a second to lay out
(:func:`visualdl._jobs.overview.job_overview`) and to shape (:mod:`.jobs`); the page
polls it, and the stragglers card asks for it again. :class:`JobPages` keeps each run's
page with the run's version (:meth:`visualdl._index.index.Index.run_version`, which changes
whenever any file of the run is read further) and the time it was built. A page is served
again while its run has not changed, and, when some writer of it was still running (whose
span ends "now" and who turns silent after a minute without a record), for at most
:data:`FRESH_SECS`, the server's poll interval: never staler than a poll.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from visualdl._jobs.overview import JobOverview, job_overview
from visualdl._jobs.progress import FileProgress
from visualdl._jobs.system import SystemMetricInfo
from visualdl.server._views.jobs import job_json
from visualdl.server._views.system import system_list

__all__ = ["FRESH_SECS", "JobPages", "JobSource"]

#: How long a page with running writers is served again while its run has not changed.
FRESH_SECS = 1.0
#: Pages kept, the most recently built ones.
MAX_PAGES = 16
#: Answers kept with each page (the stragglers', the system metrics' asked for).
MAX_DERIVED = 128


class JobSource(Protocol):
    """What a job page is read from (the :class:`~visualdl.server._provider.DataProvider`)."""

    def run_version(self, *, run: str) -> tuple[int, int]: ...

    def read_job(self, *, run: str) -> Sequence[FileProgress]: ...

    def list_system(self, *, run: str) -> tuple[SystemMetricInfo, ...]: ...


@dataclass(frozen=True, slots=True)
class _Page:
    version: tuple[int, int]
    built: float
    live: bool  # some writer was running when it was built
    overview: JobOverview
    json: dict[str, Any]  # the overview as /api/job answers it
    system: list[dict[str, Any]]
    derived: dict[str, Any]  # what else was built from the same data (stragglers, system bands)


class JobPages:
    """Each run's job overview (:func:`~visualdl._jobs.overview.job_overview`), its JSON and
    its list of system metrics, cached per change of the run (see the module docstring)."""

    def __init__(self, provider: JobSource, clock: Callable[[], float] = time.time) -> None:
        self._provider = provider
        self._clock = clock
        self._pages: dict[str, _Page] = {}
        self._lock = threading.Lock()

    def page(self, run: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """``run``'s job page as JSON and its system metrics' list (``NotFound``: no such run)."""
        page = self._current(run)
        return page.json, page.system

    def overview(self, run: str) -> JobOverview:
        """``run``'s job overview (``NotFound``: no such run)."""
        return self._current(run).overview

    def derived(self, run: str, name: str, build: Callable[[JobOverview], Any]) -> Any:
        """``build(page)`` of ``run``'s current page, built once per page under ``name``."""
        page = self._current(run)
        with self._lock:
            if name in page.derived:
                return page.derived[name]
        value = build(page.overview)
        with self._lock:
            while len(page.derived) >= MAX_DERIVED:  # the oldest first: a bound whatever is asked
                del page.derived[next(iter(page.derived))]
            return page.derived.setdefault(name, value)

    def _current(self, run: str) -> _Page:
        version = self._provider.run_version(run=run)
        now = self._clock()
        with self._lock:
            page = self._pages.get(run)
        if page is None or page.version != version or (page.live and now - page.built > FRESH_SECS):
            overview = job_overview(self._provider.read_job(run=run), now=now)
            system = system_list(self._provider.list_system(run=run))
            page = _Page(version, now, overview.live, overview, job_json(overview), system, {})
            with self._lock:
                self._pages.pop(run, None)
                self._pages[run] = page
                while len(self._pages) > MAX_PAGES:
                    del self._pages[next(iter(self._pages))]
        return page
