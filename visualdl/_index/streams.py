"""One tag of a run per stream (a place in a job), restarts resolved: what charts and job views read.

A run's files of a tag are grouped by the stream their headers name (``(role, rank)``,
:func:`visualdl._index.runs.stream_of`), oldest name first. :func:`resolved` puts each
stream's files together as :mod:`visualdl._index.restarts` says (a later attempt replaces
what it logs again; a TensorBoard session start orphans what it supersedes) and gives every
stream its kept and replaced points. :func:`job_points` gives what a job view aggregates:
per role, the kept points of every ranked stream laid end to end.

Both read the files' series in one gather (:func:`visualdl._index.series.gather`): a stream
of one file (a job of 10,000 ranks that never restarted) costs no read and no Python work
of its own beyond naming its place; only streams of several files are resolved one by one.
The caller holds the index's lock.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from visualdl._index.restarts import Attempt, Resolved, purge, resolve
from visualdl._index.runs import Run, Stream, stream_of
from visualdl._index.series import ScalarSeries, Series, gather, merge
from visualdl._index.sessions import in_sessions

__all__ = ["RolePoints", "job_points", "resolved"]

_NONE = merge([])


@dataclass(frozen=True, slots=True)
class RolePoints:
    """The kept points of one role's ranks, laid end to end: ``lengths[i]`` points of rank
    ``ranks[i]``, each in step order, every rank with at least one point."""

    points: ScalarSeries
    lengths: np.ndarray  # int64
    ranks: np.ndarray  # int64


def _grouped(state: Run, per_file: dict[str, Series]) -> dict[Stream, list[str]]:
    """The files of each stream, in name order (time-stamped names: the oldest first)."""
    grouped: dict[Stream, list[str]] = {}
    files = state.files
    for path in sorted(per_file):
        logfile = files.get(path)
        grouped.setdefault(stream_of(logfile.header if logfile is not None else None), []).append(path)
    return grouped


def _resolve(state: Run, per_file: dict[str, Series], paths: list[str]) -> Resolved:
    attempts = []
    for path in paths:
        logfile = state.files.get(path)
        header = logfile.header if logfile is not None else None
        start = header.start_time if header is not None else 0.0
        attempts.append(Attempt(per_file[path].view(), start, header.attempt if header is not None else -1))
    return resolve(attempts)


def _slices(points: ScalarSeries, lengths: np.ndarray) -> list[ScalarSeries]:
    ends = np.cumsum(lengths).tolist()
    out = []
    lo = 0
    for hi in ends:
        out.append(ScalarSeries(points.steps[lo:hi], points.values[lo:hi], points.wall_times[lo:hi]))
        lo = hi
    return out


def _event_files(state: Run, paths: list[str]) -> bool:
    files = state.files
    return all((f := files.get(path)) is not None and f.format.name == "tfevents" for path in paths)


def resolved(state: Run, per_file: dict[str, Series]) -> dict[Stream, Resolved]:
    """Every stream's kept and replaced points of the tag whose files are ``per_file``, by stream."""
    grouped = _grouped(state, per_file)
    # TensorBoard's files follow TensorBoard's rule alone: session starts, never attempts.
    sessions = {
        key for key, paths in grouped.items() if (state.starts or len(paths) > 1) and _event_files(state, paths)
    }
    singles = [key for key, paths in grouped.items() if len(paths) == 1 and key not in sessions]
    points, lengths = gather([per_file[grouped[key][0]] for key in singles])
    result = {key: Resolved(view, _NONE, 0) for key, view in zip(singles, _slices(points, lengths), strict=True)}
    for key, paths in grouped.items():
        if key in sessions:  # TensorBoard's files: TensorBoard's rule
            in_files = {p: s for p, s in state.starts.items() if _event_files(state, [p])}
            result[key] = in_sessions(paths, in_files, lambda path: per_file[path].view())
        elif len(paths) > 1:
            result[key] = _resolve(state, per_file, paths)
    result = dict(sorted(result.items()))
    walls = [(wall, step) for path in sorted(state.starts) for wall, step, _ in state.starts[path]]
    if walls:  # our files beside TensorBoard's with session starts: orphaned by wall time
        for key, r in result.items():
            if key in sessions:
                continue
            kept, orphaned = purge(r.kept, walls)
            if len(orphaned):
                result[key] = Resolved(kept, merge([r.replaced, orphaned]), r.restarts + 1)
    return result


def job_points(state: Run, per_file: dict[str, Series]) -> dict[str, RolePoints]:
    """Per role, the kept points of its ranked streams (rank >= 0) of the tag of ``per_file``;
    streams without a kept point left out."""
    out = {}
    if state.starts:  # session starts purge across streams: every stream resolved, then laid
        kept: dict[str, list[tuple[int, ScalarSeries]]] = {}
        for (role, rank), r in resolved(state, per_file).items():
            if rank >= 0 and len(r.kept):
                kept.setdefault(role, []).append((rank, r.kept))
        for role, items in sorted(kept.items()):
            points, lengths = gather([], [s for _, s in items])
            out[role] = RolePoints(points, lengths, np.array([rank for rank, _ in items], np.int64))
        return out
    grouped = _grouped(state, per_file)
    by_role: dict[str, list[Stream]] = {}
    for key in sorted(key for key in grouped if key[1] >= 0):
        by_role.setdefault(key[0], []).append(key)
    for role, keys in by_role.items():
        singles = [key for key in keys if len(grouped[key]) == 1]
        restarted = [(key, _resolve(state, per_file, grouped[key]).kept) for key in keys if len(grouped[key]) > 1]
        points, lengths = gather([per_file[grouped[key][0]] for key in singles], [kept for _, kept in restarted])
        ranks = np.fromiter((rank for _, rank in (*singles, *(key for key, _ in restarted))), np.int64, len(keys))
        present = lengths > 0
        if present.any():
            out[role] = RolePoints(points, lengths[present], ranks[present])
    return out
