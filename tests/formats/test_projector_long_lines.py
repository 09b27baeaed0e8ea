"""A tensors line (one vector) is bounded: a line longer than MAX_LINE_BYTES is refused,
naming the file, the line and the bound, before any array is made over it; a line just
under the bound is parsed in a small multiple of its size. Peaks are measured with
tracemalloc (numpy's arrays are traced too)."""

from __future__ import annotations

import tracemalloc

import pytest

from visualdl._formats import projector
from visualdl.errors import LogFormatError


def _peak(call) -> int:
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_projector_tensors_line_longer_than_the_bound_refused():
    bound = projector.MAX_LINE_BYTES
    data = b"1\t2\n3\t4\n" + b"0\t" * (2 * bound) + b"0\n"  # one line of 4 times the bound
    caught = []

    def parse() -> None:
        with pytest.raises(LogFormatError) as e:
            projector.parse_tensors(data, "t.tsv")
        caught.append(e.value)

    peak = _peak(parse)
    (error,) = caught
    assert error.path == "t.tsv"
    assert "line 3 is longer than" in error.message and f"{bound:,} bytes" in error.message, error.message
    assert peak < len(data) // 4, f"{peak:,} bytes at the peak to refuse {len(data):,} bytes"  # it was 20x


def test_projector_tensors_line_just_under_the_bound_in_a_small_multiple():
    cells = projector.MAX_LINE_BYTES // 2 - 1
    data = b"0\t" * cells + b"0\n"  # the worst case of text: a value of 4 bytes for every 2 bytes read
    assert len(data) - 1 <= projector.MAX_LINE_BYTES
    out = []
    peak = _peak(lambda: out.append(projector.parse_tensors(data, "t.tsv")))
    assert out[0].shape == (1, cells + 1)
    # The vectors (2x), the values parsed before they are copied in (2x) and the line's
    # temporary arrays; it was 20x.
    assert peak < 8 * len(data), f"{peak:,} bytes at the peak for a line of {len(data):,} bytes"
