"""The answer of ``/api/job``: a job's overview (:func:`visualdl._jobs.overview.job_overview`) as JSON."""

from __future__ import annotations

from typing import Any

from visualdl._jobs.goodput import Throughput
from visualdl._jobs.overview import JobOverview, Skew, WriterState
from visualdl.server._views.goodput import goodput_answer
from visualdl.server._views.job_ends import end_timeline_json, ended_json

__all__ = ["job_answer", "job_json"]


def _writer(w: WriterState) -> dict[str, Any]:
    return {
        "role": w.role,
        "rank": w.rank,
        "attempt": w.attempt,
        "host": w.host,
        "pid": w.pid,
        "file": w.file,
        "state": w.state,
        "start_time": w.start_time,
        "end_time": w.end_time,
        "points": w.points,
        "first_step": w.first_step,
        "last_step": w.last_step,
        "ended": ended_json(w.ended),
    }


def _skew(s: Skew) -> dict[str, list[Any]]:
    return {"min_step": s.min_step, "max_step": s.max_step, "slowest_rank": s.slowest_rank}


def _throughput(t: Throughput) -> dict[str, Any]:
    return {
        "rank": t.rank,
        "steps_per_second": t.steps_per_second,
        "recent_steps_per_second": t.recent_steps_per_second,
        "last_step": t.last_step,
        "recovering": t.recovering,
        "straggler": t.straggler,
    }


def job_json(job: JobOverview) -> dict[str, Any]:
    """The job page of one run: every field of ``/api/job`` but the run's name and its system metrics."""
    return {
        "roles": [{"role": r.role, "places": r.places, "world_size": r.world_size} for r in job.roles],
        "writers": [_writer(w) for w in job.writers],
        "times": job.times.tolist(),
        "alive": job.alive,
        "skew": {role: _skew(s) for role, s in job.skew.items()},
        "throughput": {role: [_throughput(t) for t in entries] for role, entries in job.throughput.items()},
        "stragglers": job.stragglers,
        "restarts": [{"role": r.role, "rank": r.rank, "files": r.files} for r in job.restarts],
        "ends": end_timeline_json(job.ends),
        "median_recent_steps_per_second": job.median_recent_steps_per_second,
        "goodput": goodput_answer(job.goodput),
    }


def job_answer(run: str, page: dict[str, Any], system: list[dict[str, Any]]) -> dict[str, Any]:
    """The answer of ``/api/job``: ``run``'s job page (:func:`job_json`) and its system metrics' list."""
    return {"run": run, **page, "system": system}
