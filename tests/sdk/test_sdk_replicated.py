"""``add_scalar(..., replicated=True)``: the declaration written once per tag and read back."""

from __future__ import annotations

import os

import pytest

from visualdl import LogReader, LogWriter
from visualdl._formats import framing
from visualdl._formats.vdlog.logformat import parse_record


def _kinds(path: str) -> list[str]:
    with open(path, "rb") as f:
        data = f.read()
    return [
        parse_record(item.payload).WhichOneof("kind") for item in framing.scan(data) if isinstance(item, framing.Frame)
    ]


def test_sdk_replicated_declared_once_per_tag_and_read_back(tmp_path):
    for rank in range(2):
        with LogWriter(tmp_path / "job", rank=rank, world_size=2, file_name=f"r{rank}.vdlog") as w:
            for step in range(6):
                w.add_scalar("loss", 1.0 + (step >= 4 and rank == 1), step, replicated=True)
                w.add_scalar("other", 1.0, step)
    assert _kinds(os.path.join(tmp_path, "job", "r0.vdlog")).count("tag_info") == 1
    (parted,) = LogReader(tmp_path).divergence("job")
    assert (parted.tag, parted.step, parted.ranks, parted.why) == ("loss", 4, (1,), "declared")


def test_sdk_replicated_changed_declaration_is_written_again_and_the_last_wins(tmp_path):
    with LogWriter(tmp_path, file_name="a.vdlog") as w:
        w.add_scalar("loss", 1.0, 0, replicated=True)
        w.add_scalar("loss", 1.0, 1, replicated=True)
        w.add_scalar("loss", 1.0, 2, replicated=False)
    assert _kinds(os.path.join(tmp_path, "a.vdlog")).count("tag_info") == 2
    reader = LogReader(tmp_path)
    (logfile,) = reader._index._runs["."].files.values()
    assert logfile.writer.tag_info == {"loss": False}


@pytest.mark.parametrize("bad", ["yes", 1, None.__class__])
def test_sdk_replicated_takes_only_a_bool(tmp_path, bad):
    with LogWriter(tmp_path) as w, pytest.raises(TypeError, match="replicated must be True or False"):
        w.add_scalar("loss", 1.0, 0, replicated=bad)


def test_sdk_replicated_two_ranks_tied_blame_the_same_rank_whatever_the_read_order():
    import numpy as np

    from visualdl._index.consensus import Consensus

    steps = np.arange(6)
    for order in ((0, 1), (1, 0)):
        c = Consensus()
        for rank in order:
            c.add(rank, steps, np.where((steps >= 4) & (rank == 1), 2.0, 1.0))
        _, _, split = c.summary()
        assert split is not None and (split.step, split.lone_rank, split.majority) == (4, 1, 1.0)
