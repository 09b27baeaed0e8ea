"""The ranks' agreement costs memory only where there is something to compare, and never
more than a bound: a run of one file keeps none, and past ``MAX_STEPS`` steps a tag is
compared on a sample of its steps that is the same whatever the order or the pattern."""

from __future__ import annotations

import numpy as np
import pytest

from visualdl import LogReader, LogWriter
from visualdl._index import consensus as consensus_module
from visualdl._index.consensus import Consensus


def _state(reader: LogReader, run: str):
    return reader._index._runs[run]  # the reader's per-run state, as the poller keeps it


def test_consensus_a_single_file_keeps_no_agreement_and_a_second_builds_it(tmp_path):
    steps = 500
    with LogWriter(str(tmp_path / "job"), rank=0, world_size=2, role="trainer", file_name="r0.vdlog") as w:
        for step in range(steps):
            w.add_scalar("loss", 1.0 / (1 + step), step)
    reader = LogReader(str(tmp_path))
    reader.poll()
    state = _state(reader, "job")
    assert state.consensus == {} and list(state.solo) == [("trainer", "loss")]
    assert reader.divergence("job", replicated=["loss"]) == []

    with LogWriter(str(tmp_path / "job"), rank=1, world_size=2, role="trainer", file_name="r1.vdlog") as w:
        for step in range(steps):
            w.add_scalar("loss", 1.0 / (1 + step) * (1.5 if step >= 300 else 1.0), step)
    reader.poll()
    assert state.solo == {} and state.consensus[("trainer", "loss")].n == steps
    (div,) = reader.divergence("job", replicated=["loss"])
    assert div.step == 300 and div.points == 2


def test_consensus_memory_stays_bounded_and_a_lasting_split_is_found(monkeypatch):
    monkeypatch.setattr(consensus_module, "MAX_STEPS", 1000)
    steps = np.arange(0, 200_000, 10, dtype=np.int64)  # every 10th step: 20,000 of them
    split = 150_000
    a = Consensus()
    b = Consensus()
    base = np.sin(steps.astype(np.float64))
    parted = np.where(steps >= split, base + 1.0, base)
    for lo in range(0, steps.size, 997):  # blocks as a writer flushes them
        a.add(0, steps[lo : lo + 997], base[lo : lo + 997])
        a.add(1, steps[lo : lo + 997], parted[lo : lo + 997])
    b.add(1, steps, parted)  # the other order: one file read whole, then the other
    b.add(0, steps, base)
    for c in (a, b):
        assert c.n <= 1000 and c.level > 0
        assert c.nbytes <= 1000 * 72  # the columns with their spare capacity
        compared, _, found = c.summary()
        assert compared == c.n and found is not None
        assert split <= found.step < split + 10 * 2**c.level * 8  # within a few sampled steps
        assert c.looks_replicated()
    assert a.level == b.level and np.array_equal(a.steps[: a.n], b.steps[: b.n])  # the same sample


@pytest.mark.parametrize("pattern", ["odd", "stride_1024"])
def test_consensus_sample_keeps_steps_of_any_pattern(monkeypatch, pattern):
    monkeypatch.setattr(consensus_module, "MAX_STEPS", 512)
    steps = np.arange(1, 40_000, 2) if pattern == "odd" else np.arange(0, 40_000 * 1024, 1024)
    c = Consensus()
    c.add(0, steps.astype(np.int64), np.zeros(steps.size))
    assert 128 <= c.n <= 512  # a sample, neither all nor none
