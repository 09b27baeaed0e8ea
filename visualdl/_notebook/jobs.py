"""A distributed job in a notebook, in one call: its overview as values (goodput, the
timeline of ends, stragglers, throughput), read through the same cached provider as the
figures, so that re-running the cell reads only what was written since."""

from __future__ import annotations

import os
import time

from visualdl._jobs.overview import JobOverview, job_overview
from visualdl._notebook.figures import _provider
from visualdl.errors import NotFound

__all__ = ["job"]


def job(logdir: str | os.PathLike[str], run: str | None = None) -> JobOverview:
    """The overview of the job ``run`` of ``logdir`` now (``run`` may be left out when the
    logdir holds one run of ranked writers)::

        overview = notebook.job("logs")
        overview.goodput.totals().goodput      # productive over rank-seconds
        overview.ends.first                    # who ended first, and how
        overview.stragglers                    # per role, the slow ranks
    """
    provider = _provider(logdir)
    if run is None:
        jobs = [r.name for r in provider.list_runs() if any(w.rank >= 0 for w in r.writers)]
        if len(jobs) != 1:
            found = ", ".join(repr(j) for j in jobs[:10]) or "none"
            raise NotFound(f"logdir {os.fspath(logdir)!r} holds {len(jobs)} job runs ({found}); name one: run=...")
        run = jobs[0]
    return job_overview(provider.read_job(run=run), now=time.time())
