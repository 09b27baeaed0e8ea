"""The answer of ``/api/health``: how far indexing got, the logdirs, and what is wrong."""

from __future__ import annotations

from typing import Any, TypedDict

from visualdl.server._data import Health, Unservable
from visualdl.server._reload import PollCounters

__all__ = ["HealthAnswer", "health_answer"]


class HealthAnswer(TypedDict):
    #: "loading" until the first poll is done, then "ok", or "degraded" while ``degraded`` says why
    status: str
    loaded: bool
    files_read: int
    files_total: int
    bytes_read: int
    polls: int
    last_poll_seconds: float
    last_poll_time: float | None
    reload_interval: float
    logdirs: list[dict[str, Any]]
    problems: list[dict[str, Any]]
    not_served: list[dict[str, Any]]
    degraded: list[str]


def _unservable(u: Unservable) -> dict[str, Any]:
    shown = u.name if len(u.name) <= 80 else u.name[:80] + "…"
    rule = f"{u.kind} names must be 1 to {u.limit} characters without NUL; this one is not served"
    return {"kind": u.kind, "name": shown, "run": u.run[:200], "length": len(u.name), "message": rule}


def health_answer(counters: PollCounters, health: Health, *, reload_interval: float) -> HealthAnswer:
    loaded = counters.loaded.is_set()
    return {
        "status": "loading" if not loaded else "degraded" if health.degraded else "ok",
        "loaded": loaded,
        "files_read": counters.files_read,
        "files_total": counters.files_total,
        "bytes_read": counters.bytes_read,
        "polls": counters.polls,
        "last_poll_seconds": round(counters.last_poll_seconds, 4),
        "last_poll_time": counters.last_poll_time or None,
        "reload_interval": reload_interval,
        "logdirs": [{"name": d.name, "path": d.path, "exists": d.exists} for d in health.logdirs],
        "problems": [
            {"logdir": p.logdir, "file": p.file, "offset": p.offset, "message": p.message} for p in health.problems
        ],
        "not_served": [_unservable(u) for u in health.not_served],
        "degraded": list(health.degraded),
    }
