"""The table of log formats: which format a file is, by its name.

Adding a format means a folder with a ``format.py`` building its
:class:`~visualdl._formats.format.Format`, and one line here. Order matters where names
overlap: the first format that claims a name reads it (a TensorBoard event file is one
whatever else its name holds; a name with both ours and VisualDL 2's marker is ours).
"""

from __future__ import annotations

from visualdl._formats.format import Format
from visualdl._formats.tfevents.format import TFEVENTS
from visualdl._formats.vdl2.format import VDL2
from visualdl._formats.vdlog.format import VDLOG

__all__ = ["FORMATS", "format_of"]

FORMATS: tuple[Format, ...] = (TFEVENTS, VDLOG, VDL2)


def format_of(basename: str) -> Format | None:
    """The format of a file named ``basename`` (no directory), or None: not a log file."""
    for fmt in FORMATS:
        if fmt.matches(basename):
            return fmt
    return None
