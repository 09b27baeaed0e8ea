"""``visualdl --inspect``: a summary of the logdirs as text, from the same values the server's
views shape as JSON (:mod:`visualdl._jobs`). The text functions take those values; the
reading is in :func:`summarise`. Imports of the reader and numpy wait for the first call,
so that ``visualdl --help`` stays quick.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from visualdl._index.wrong import Divergence, FirstNonfinite
    from visualdl._jobs.ends import EndTimeline
    from visualdl._jobs.goodput import GoodputTotals
    from visualdl._jobs.stragglers import StragglerReport

__all__ = ["duration", "goodput_line", "straggler_lines", "summarise", "timeline_lines", "wrong_lines"]


def duration(seconds: float) -> str:
    """``1h02m``, ``4m12s``, ``38s``, ``0.4s``."""
    if not math.isfinite(seconds):
        return "?"
    if seconds < 10:
        return f"{seconds:.1f}s"
    s = round(seconds)
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def goodput_line(total: GoodputTotals) -> str:
    """``goodput 93.1% (wall 1h02m, lost 4m12s to 2 restarts, 310 steps done twice)``."""
    ratio = "?" if total.goodput is None else f"{100 * total.goodput:.1f}%"
    wall = duration(total.wall_seconds if total.wall_seconds is not None else math.nan)
    restarts = total.restarts
    if restarts:
        what = f"lost {duration(total.lost_seconds)} to {restarts} restart{'s' if restarts != 1 else ''}"
        what += f", {total.steps_done_twice:,} step{'s' if total.steps_done_twice != 1 else ''} done twice"
        if total.recovering:
            what += f", {total.recovering} rank{'s' if total.recovering != 1 else ''} still recovering"
    else:
        what = "no restart"
    return f"goodput {ratio} (wall {wall}, {what})"


def timeline_lines(timeline: EndTimeline, clock: Callable[[float], time.struct_time] = time.localtime) -> list[str]:
    """The first end with its time (``clock``: seconds to a ``struct_time``), then one line
    per group; nothing when every process closed cleanly or none ended."""
    first = timeline.first
    if first is None or first.end.how == "closed":
        return []
    wall = first.entry.wall_time
    when = f", {time.strftime('%H:%M:%S', clock(wall))}" if wall is not None else ""
    return [f"{first.text}{when}", *(f"  {group.text}" for group in timeline.groups)]


def straggler_lines(report: StragglerReport) -> list[str]:
    """``straggler trainer 7: GPU utilisation 35% where the median is 92%; ...``."""
    return [f"straggler {s.text}" for s in report.stragglers]


def wrong_lines(found: tuple[list[FirstNonfinite], list[Divergence]]) -> list[str]:
    """``loss: first non-finite nan at step 1,204 on trainer 3 (15:02:11)`` and
    ``grad_norm: ranks disagree from step 880 (trainer 7 of 8)``."""
    from visualdl._jobs.wrong import divergence_text, rank_name

    firsts, parted = found
    lines = []
    for f in firsts:
        at = f" ({time.strftime('%H:%M:%S', time.localtime(f.wall_time))})" if math.isfinite(f.wall_time) else ""
        lines.append(f"{f.tag}: first non-finite {f.value} at step {f.step:,} on {rank_name(f.role, f.rank)}{at}")
    lines += [f"{d.tag}: {divergence_text(d)}" for d in parted]
    return lines


def summarise(logdir: str) -> str:
    """What ``--inspect`` prints of ``logdir``: per run its files, how its processes ended,
    a job's goodput and stragglers, the first rank to go wrong, and each tag's size."""
    from visualdl._index.runtable import attempts_of
    from visualdl._logreader import LogReader

    reader = LogReader(logdir)
    lines = [f"{logdir}: {len(reader.runs())} run(s)"]
    for run in reader.runs():
        writers = reader.writers(run)
        graph_sizes = {graph.name: graph.size for graph in reader.graphs(run)}
        lines.append(f"  run {run!r}: {len(writers)} file(s)")
        lines.extend(f"    {line}" for line in timeline_lines(reader.end_timeline(run)))
        if len({(w.role, w.rank) for w in writers if w.rank >= 0}) >= 2:  # a job
            lines.append(f"    {goodput_line(reader.goodput(run).totals())}")
            lines.extend(f"    {line}" for line in straggler_lines(reader.stragglers(run)))
        lines.extend(f"    {line}" for line in wrong_lines((reader.first_nonfinite(run), reader.divergence(run))))
        times = attempts_of(writers)
        if times > 1 and not any(w.rank >= 0 for w in writers):  # a job's restarts are its goodput's
            replaced = sum(len(reader.scalars(run, tag, replaced=True)) for tag in reader.tags(run)["scalars"])
            lines.append(
                f"    written {times} times into one directory: {replaced:,} scalar points of earlier writers "
                "replaced by later ones at the same steps (LogReader.scalars(..., replaced=True) gives them)"
            )
        for kind, tags in reader.tags(run).items():
            for tag in tags:
                if kind == "scalars":
                    size = f"{len(reader.scalars(run, tag))} points"
                elif kind == "graphs":
                    size = f"{graph_sizes[tag]} bytes"
                else:
                    size = f"{reader.count(run, kind, tag)} entries"
                lines.append(f"    {kind:<10} {tag}: {size}")
    for problem in reader.problems:
        lines.append(f"  problem: {problem.path} at byte {problem.offset}: {problem.message}")
    return "\n".join(lines)
