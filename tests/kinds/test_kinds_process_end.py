"""The process-end record's builder: its bounds and its checks."""

from __future__ import annotations

import pytest

from visualdl._kinds.process_end import MESSAGE_CHARS, TRACEBACK_CHARS
from visualdl._kinds.table import ProcessEnd, decode_process_end, encode_process_end


def test_process_end_long_traceback_keeps_its_end_within_the_bound():
    frames = "".join(f'  File "deep.py", line {i}, in f\n' for i in range(5000))
    text = "Traceback (most recent call last):\n" + frames + "RecursionError: too deep\n"
    end = ProcessEnd("exception", 1.0, "RecursionError", "x" * (MESSAGE_CHARS + 10), text, "", "MainThread", 7)
    back = decode_process_end(encode_process_end(end).process_end)
    assert len(back.traceback) == TRACEBACK_CHARS
    assert back.traceback.startswith("...\n") and back.traceback.endswith("RecursionError: too deep\n")
    assert back.message == "x" * MESSAGE_CHARS
    assert (back.how, back.step, back.thread) == ("exception", 7, "MainThread")


def test_process_end_without_a_step_reads_back_none_and_step_zero_reads_zero():
    assert decode_process_end(encode_process_end(ProcessEnd("closed", 1.0)).process_end).step is None
    assert decode_process_end(encode_process_end(ProcessEnd("closed", 1.0, step=0)).process_end).step == 0


def test_process_end_unknown_how_is_refused():
    with pytest.raises(ValueError, match="'crashed' is none of"):
        encode_process_end(ProcessEnd("crashed", 1.0))
