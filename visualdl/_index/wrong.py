"""The first rank to go wrong: a run's first non-finite value per tag, and where its ranks part.

Kept as points are stored (:func:`note_points`, called by the poller under the index lock,
a few numpy calls per tag and round): per file and tag a :class:`~visualdl._index.firsts.Firsts`,
per role and tag a :class:`~visualdl._index.consensus.Consensus` over the ranked files, from
the second file of the role that holds the tag on (the first one's points read back then). The
queries (:func:`first_nonfinite`, :func:`divergence`) read those, never a series, except to
name the ranks of a minority of more than one at a divergence (``minority``, given by the
index: one step's value of each rank).

*First non-finite value* of a tag in a run: over its files, the non-finite point of the
lowest step, then the lowest wall time, then the lowest rank; a point that a restarted
attempt replaced (:mod:`visualdl._index.restarts`) is not counted. TensorBoard's session
restarts (``purge_step``) are not applied here: those files have no ranks.

*Divergence* of a replicated tag of a role: the first step at which its ranks' values
disagree beyond :data:`~visualdl._index.consensus.TOLERANCE`, and the ranks outside the
majority there. A tag is replicated when the writer declared it (``add_scalar(...,
replicated=True)``, a ``TagInfo`` record), when the server's ``replicated`` pattern
matches it, or when it looks so (:meth:`~visualdl._index.consensus.Consensus.looks_replicated`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from visualdl._index.consensus import Consensus, agree
from visualdl._index.firsts import Firsts, nonfinite_name
from visualdl._index.restarts import Resolved
from visualdl._index.runs import Run, Stream, stream_of

__all__ = [
    "Divergence",
    "FirstNonfinite",
    "divergence",
    "first_nonfinite",
    "forget_file",
    "minority_of",
    "note_points",
]

#: Ranks named at a divergence at most (the answer says how many there were).
MAX_NAMED = 64


@dataclass(frozen=True, slots=True)
class FirstNonfinite:
    """The first non-finite value of a tag in a run (see the module docstring)."""

    tag: str
    step: int
    wall_time: float
    value: str  # "nan", "inf" or "-inf"
    role: str
    rank: int  # -1: an unranked writer
    path: str  # the log file that holds it


@dataclass(frozen=True, slots=True)
class Divergence:
    """The first step at which the ranks of a role disagree on a replicated tag."""

    tag: str
    role: str
    step: int
    #: The ranks outside the majority at ``step`` (at most :data:`MAX_NAMED`), lowest first.
    ranks: tuple[int, ...]
    minority: int  # how many points were outside the majority
    points: int  # points logged at the step
    majority: float  # the value the majority held
    why: str  # "declared" (by the writer), "setting" (the server's pattern) or "detected"


def note_points(state: Run, path: str, parts: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]) -> None:
    """Take the points just stored for the file ``path`` of ``state``: ``(tag, steps, values,
    wall times)`` per tag."""
    logfile = state.files.get(path)
    header = logfile.header if logfile is not None else None
    role, rank = stream_of(header)
    with np.errstate(all="ignore"):  # crafted values: an inf with a -inf, sums that overflow
        _note(state, path, role, rank, parts)


def _note(
    state: Run, path: str, role: str, rank: int, parts: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]
) -> None:
    for tag, steps, values, walls in parts:
        per_file = state.firsts.get(tag)
        if per_file is None:
            per_file = state.firsts[tag] = {}
        firsts = per_file.get(path)
        if firsts is None:
            firsts = per_file[path] = Firsts()
        firsts.add(steps, values, walls)
        if firsts.bad is not None:
            state.nonfinite.setdefault(tag, set()).add(path)
        if rank >= 0:
            consensus = state.consensus.get((role, tag))
            if consensus is None:
                solo = state.solo.setdefault((role, tag), path)
                if solo == path:
                    continue  # the only file of its role with the tag: nothing to compare yet
                del state.solo[(role, tag)]  # a second file: the first one's points are compared first
                consensus = _rebuilt(state, role, tag, exclude=path)
                state.consensus[(role, tag)] = consensus
            consensus.add(rank, steps, values)


def forget_file(state: Run, path: str, tags: list[str]) -> None:
    """The file ``path`` (of ``tags``) is gone from ``state``: its firsts go, and the
    comparisons of its role's tags are made again from the files left."""
    for tag in tags:
        of_tag = state.firsts.get(tag, {})
        of_tag.pop(path, None)
        if not of_tag:
            state.firsts.pop(tag, None)
        state.nonfinite.get(tag, set()).discard(path)
    for r, tag in list(state.consensus) + list(state.solo):
        if tag not in tags:
            continue
        state.consensus.pop((r, tag), None)
        state.solo.pop((r, tag), None)
        paths = _ranked_files(state, r, tag, exclude=path)
        if len(paths) == 1:
            state.solo[(r, tag)] = paths[0][0]
        elif paths:
            state.consensus[(r, tag)] = _rebuilt(state, r, tag, exclude=path)


def _ranked_files(state: Run, role: str, tag: str, *, exclude: str) -> list[tuple[str, int]]:
    """The ranked files of ``role`` that hold points of ``tag``, but ``exclude``, in order of
    path, with their ranks."""
    out = []
    for other in sorted(state.data.get(("scalars", tag), {})):
        header = state.files[other].header if other in state.files else None
        if other != exclude and header is not None and header.rank >= 0 and stream_of(header)[0] == role:
            out.append((other, int(header.rank)))
    return out


def _rebuilt(state: Run, role: str, tag: str, *, exclude: str) -> Consensus:
    """The agreement on ``tag`` of the ranked files of ``role`` but ``exclude``, from their stored points."""
    consensus = Consensus()
    per_file = state.data.get(("scalars", tag), {})
    for other, rank in _ranked_files(state, role, tag, exclude=exclude):
        view = per_file[other].view()
        consensus.add(rank, view.steps, view.values)
    return consensus


def _cuts(state: Run, tag: str, paths: list[str]) -> dict[str, float]:
    """Per file of ``paths`` (files of ``tag``): the step from which its points were replaced by a
    restart (inf: none), decided as :func:`visualdl._index.restarts.resolve` does, from the files' firsts."""
    streams: dict[tuple[str, int], list[tuple[int, float, str, Firsts]]] = {}
    of_tag = state.firsts.get(tag, {})
    for path in paths:
        firsts = of_tag.get(path)
        if firsts is None or firsts.first_step is None:
            continue
        logfile = state.files.get(path)
        header = logfile.header if logfile is not None else None
        attempt = header.attempt if header is not None else -1
        start = header.start_time if header is not None else 0.0
        streams.setdefault(stream_of(header), []).append((attempt, start, path, firsts))
    cuts: dict[str, float] = {}
    for files in streams.values():
        files.sort(key=lambda f: (f[0], f[1]))
        last_wall, last_attempt = -math.inf, -1
        seen: list[str] = []
        for attempt, start, path, firsts in files:
            later = attempt >= 0 and last_attempt >= 0 and attempt > last_attempt
            if seen and (later or start >= last_wall):
                for earlier in seen:
                    cuts[earlier] = min(cuts[earlier], float(firsts.first_step or 0))
            cuts[path] = math.inf
            seen.append(path)
            last_wall = max(last_wall, firsts.last_wall)
            last_attempt = max(last_attempt, attempt)
    return cuts


def first_nonfinite(state: Run, tag: str | None = None) -> list[FirstNonfinite]:
    """Per tag of ``state`` (or ``tag`` alone) with a non-finite value, the first one; by step, then tag.

    Only the files holding a non-finite point, and the other files of their places (their
    restarts), are looked at: a job of 10,000 ranks with one bad rank costs a pass over its
    files' headers."""
    tags = sorted(t for t, paths in state.nonfinite.items() if paths and (tag is None or t == tag))
    if not tags:
        return []
    by_stream: dict[tuple[str, int], list[str]] = {}
    for path, known in state.files.items():
        by_stream.setdefault(stream_of(known.header), []).append(path)
    out = []
    for name in tags:
        places = {stream_of(state.files[p].header) if p in state.files else ("", -1) for p in state.nonfinite[name]}
        cuts = _cuts(state, name, [p for place in places for p in by_stream.get(place, [])])
        best: tuple[Any, ...] | None = None
        for path in state.nonfinite[name]:
            firsts = state.firsts[name][path]
            if firsts.bad is None or not firsts.bad[0] < cuts.get(path, math.inf):
                continue
            step, wall, value = firsts.bad
            logfile = state.files.get(path)
            role, rank = stream_of(logfile.header if logfile is not None else None)
            key = (step, wall if not math.isnan(wall) else math.inf, rank, path)
            if best is None or key < best[0]:
                best = (key, FirstNonfinite(name, step, wall, nonfinite_name(value), role, rank, path))
        if best is not None:
            out.append(best[1])
    out.sort(key=lambda f: (f.step, f.tag))
    return out


def declared(state: Run) -> set[str]:
    """The tags that a writer of ``state`` declared replicated (its ``TagInfo`` records)."""
    out: set[str] = set()
    for logfile in state.files.values():
        infos = logfile.writer.tag_info
        if infos:
            out.update(tag for tag, replicated in infos.items() if replicated)
    return out


def divergence(
    state: Run,
    *,
    replicated: Callable[[str], bool] | None,
    minority: Callable[[str, str, int, float], list[int]],
    tag: str | None = None,
) -> list[Divergence]:
    """Per role and replicated tag of ``state`` whose ranks disagree, the first step where
    they do; by step, then tag. ``replicated(tag)``: the server's pattern (None: none);
    ``minority(role, tag, step, majority)``: the ranks whose value at ``step`` differs from
    ``majority`` (read from the series when more than one did)."""
    by_writer = declared(state)
    out = []
    for (role, name), consensus in sorted(state.consensus.items()):
        if tag is not None and name != tag:
            continue
        if name in by_writer:
            why = "declared"
        elif replicated is not None and replicated(name):
            why = "setting"
        elif consensus.looks_replicated():
            why = "detected"
        else:
            continue
        _, _, split = consensus.summary()
        if split is None:
            continue
        if split.lone_rank is not None:
            ranks: list[int] = [split.lone_rank]
        else:
            ranks = sorted(set(minority(role, name, split.step, split.majority)))
        out.append(
            Divergence(
                name,
                role,
                split.step,
                tuple(ranks[:MAX_NAMED]),
                split.points - split.majority_points,
                split.points,
                split.majority,
                why,
            )
        )
    out.sort(key=lambda d: (d.step, d.tag, d.role))
    return out


def minority_of(resolved: dict[Stream, Resolved], role: str, step: int, majority: float) -> list[int]:
    """The ranks of ``role`` whose kept value at ``step`` is not ``majority`` (one value per rank)."""
    ranks = []
    for (r_role, rank), r in resolved.items():
        if r_role != role or rank < 0 or not len(r.kept):
            continue
        i = int(np.searchsorted(r.kept.steps, step, side="right")) - 1
        if i >= 0 and r.kept.steps[i] == step and not agree(r.kept.values[i : i + 1], np.array([majority]))[0]:
            ranks.append(rank)
    return ranks
