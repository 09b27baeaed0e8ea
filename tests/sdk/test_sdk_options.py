"""LogWriter's arguments become one checked, frozen value (``sdk/_options.py``), built once
and read by the writer and its sink; the errors stay LogWriter's (tests/sdk/test_validation.py)."""

from __future__ import annotations

import dataclasses
import inspect
import os

import pytest

from visualdl import LogWriter
from visualdl.sdk._options import WriterOptions
from visualdl.sdk._sink import Sink


def test_options_take_every_argument_of_logwriter():
    given = [name for name in inspect.signature(LogWriter.__init__).parameters if name != "self"]
    taken = [name for name in inspect.signature(WriterOptions.check).parameters if name != "env"]
    assert taken == given


def test_options_are_frozen_and_filled_in(logdir):
    with LogWriter(logdir, file_name="train", max_queue=7, flush_secs=2, rank=3, role="PSERVER") as w:
        options, sink = w._options, w._sink
        assert isinstance(sink, Sink) and sink.options is options  # the sink reads the writer's value
    assert dataclasses.is_dataclass(options)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.max_queue = 1  # type: ignore[misc]
    assert (options.logdir, options.file_name, options.max_queue) == (logdir, "train.vdlog", 7)
    assert type(options.flush_secs) is float and options.flush_secs == 2.0
    assert (options.placement.rank, options.placement.role) == (3, "pserver")
    assert options.samples_system  # a rank or a role: system metrics on by default
    assert w.placement is options.placement


def _defaults() -> dict[str, object]:
    """LogWriter's arguments at their defaults."""
    return {name: p.default for name, p in inspect.signature(LogWriter.__init__).parameters.items() if name != "self"}


def test_options_default_logdir_is_runs_time_host_comment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    options = WriterOptions.check(**{**_defaults(), "comment": "_lr0.1"}, env={})  # type: ignore[arg-type]
    head, name = os.path.split(options.logdir)
    assert head == "runs" and name.endswith("_lr0.1")
    assert not options.samples_system  # no rank, no role


def test_options_refuse_an_upload_as_large_as_the_memory_bound_only_where_uploads_wait(logdir):
    sizes = {"upload_bytes": 1 << 20, "max_pending_bytes": 1 << 20}
    options = WriterOptions.check(**{**_defaults(), "logdir": logdir, **sizes}, env={})
    options.check_store(appends=True)  # a local file: nothing waits for an upload
    with pytest.raises(ValueError, match=r"upload_bytes \(1048576\) must be less than max_pending_bytes \(1048576\)"):
        options.check_store(appends=False)
