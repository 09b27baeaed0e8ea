"""The table of kinds is the one extension point: every reader of a foreign format says, per
kind, how it reads it or why it does not, so a new kind fails here until each one does."""

from __future__ import annotations

from visualdl._formats.tfevents import decode as _tfevents
from visualdl._formats.vdl2 import decode as _vdl2
from visualdl._kinds.table import KINDS


def test_tfevents_reads_every_kind_or_says_why_not():
    read = {kind for kind, _ in _tfevents.READERS.values()}
    assert read.isdisjoint(_tfevents.NOT_READ)
    assert read | set(_tfevents.NOT_READ) == set(KINDS)
    assert all(reason for reason in _tfevents.NOT_READ.values())


def test_vdl2_reads_every_kind_or_says_why_not():
    read = {kind for kind, _ in _vdl2.READERS.values()} | {"scalars"}  # scalars: value and tag_value
    assert read.isdisjoint(_vdl2.NOT_READ)
    assert read | set(_vdl2.NOT_READ) == set(KINDS)
