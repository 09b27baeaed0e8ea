"""The table of kinds is the one extension point: every reader of a foreign format says, per
kind, how it reads it or why it does not, so a new kind fails here until each one does."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from visualdl import LogReader, LogWriter
from visualdl._formats.table import FORMATS, format_of
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


# -- the table of formats --------------------------------------------------------


_VDL2_KINDS = os.path.join(os.path.dirname(__file__), "data", "vdl2", "logdir", "kinds")
_IMAGE = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)


def _write_visualdl(run: str) -> None:
    with LogWriter(run) as writer:
        writer.add_image("img", _IMAGE, 1)


def _write_tfevents(run: str) -> None:
    tensorboardx = pytest.importorskip("tensorboardX")
    writer = tensorboardx.SummaryWriter(run)
    writer.add_image("img", _IMAGE, 1, dataformats="HWC")
    writer.close()


def _write_vdl2(run: str) -> None:
    shutil.copytree(_VDL2_KINDS, run)  # written by VisualDL 2 itself (tests/data/vdl2/make_fixtures.py)


#: A file of each format with an image in it, by format name: a new format fails here until it has one.
SAMPLES = {"visualdl": _write_visualdl, "tfevents": _write_tfevents, "vdl2": _write_vdl2}


def test_formats_table_has_a_sample_of_every_format():
    assert {fmt.name for fmt in FORMATS} == set(SAMPLES)
    assert len({fmt.name for fmt in FORMATS}) == len(FORMATS)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda fmt: fmt.name)
def test_formats_name_decode_and_find_a_blob(tmp_path, fmt):
    """Every format of the table names its files, decodes a file written for it, and finds a blob in it."""
    run = str(tmp_path / "run")
    SAMPLES[fmt.name](run)
    names = os.listdir(run)
    assert names and all(format_of(name) is fmt for name in names)
    assert format_of("notes.txt") is None
    reader = LogReader(str(tmp_path))
    assert not reader.problems
    assert {w.format for w in reader.writers("run")} == {fmt.name}
    tag = reader.tags("run")["images"][0]
    event = reader.images("run", tag)[0]
    path, offset, length = reader.open_blob(event)
    with open(path, "rb") as f:
        f.seek(offset)
        blob = f.read(length)
    assert blob.startswith(b"\x89PNG") and blob == reader.read_blob(event)
