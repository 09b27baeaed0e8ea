"""The ``visualdl`` command line (an edge: parses arguments, prints, exits).

For now it summarises a logdir: runs, tags by kind, points and problems, read
through LogReader. Serving the web UI is the server's (``visualdl.server``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from visualdl import __version__

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="visualdl",
        description="VisualDL: training-log visualizer. Summarises the runs of a logdir.",
    )
    parser.add_argument("--logdir", required=True, nargs="+", metavar="DIR", help="log directory (or several)")
    parser.add_argument("--version", action="version", version=f"visualdl {__version__}")
    return parser


def summarise(logdir: str) -> str:
    from visualdl.reader import LogReader

    reader = LogReader(logdir)
    lines = [f"{logdir}: {len(reader.runs())} run(s)"]
    for run in reader.runs():
        writers = reader.writers(run)
        graph_sizes = {graph.name: graph.size for graph in reader.graphs(run)}
        lines.append(f"  run {run!r}: {len(writers)} file(s)")
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


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    status = 0
    for logdir in args.logdir:
        if not os.path.isdir(logdir):
            print(f"visualdl: error: logdir {logdir!r} does not exist", file=sys.stderr)
            status = 1
            continue
        print(summarise(logdir))
    return status
