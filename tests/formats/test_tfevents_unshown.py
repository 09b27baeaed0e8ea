"""Nothing in an event file vanishes unsaid: every kind of record or value is either read into
a kind of ours or listed as unshown (by tag, with what it is and how many). A graph is
read; a run's step stats (``tagged_run_metadata``) are listed under their tag."""

from __future__ import annotations

import os

import pytest
from kit.foreign import write_tfevents
from kit.writers import import_torch, torch_writer

from visualdl import LogReader
from visualdl.proto import tb

#: Fields of an Event that carry no data to show: the file's version, and session logs (a
#: START is read as a restart: visualdl._index.sessions).
CONTROL = {"file_version", "session_log"}
#: Fields read as a graph (visualdl._formats.tfevents.graphs).
GRAPHS = {"graph_def", "meta_graph_def"}


def _event(what: str) -> tb.Event:
    event = tb.Event(wall_time=1.0, step=3)
    if what == "file_version":
        event.file_version = "brain.Event:2"
    elif what == "session_log":
        event.session_log.status = tb.SessionLog.STOP
    elif what == "graph_def":
        event.graph_def = b"\x0a\x03\x0a\x01a"  # a GraphDef of one node, "a"
    elif what == "meta_graph_def":
        event.meta_graph_def = b"\x12\x05\x0a\x03\x0a\x01a"  # its field 2: that GraphDef
    elif what == "tagged_run_metadata":
        event.tagged_run_metadata.tag = "step1"
        event.tagged_run_metadata.run_metadata = b"\x0a\x00"
    elif what == "summary":
        event.summary.value.add(
            tag="made/up", tensor=tb.TensorProto(dtype=tb.DT_FLOAT, float_val=[1.0])
        ).metadata.plugin_data.plugin_name = "made_up"
    else:  # pragma: no cover - a field this test does not know yet fails below
        raise AssertionError(f"no test event for Event.{what}")
    return event


@pytest.mark.parametrize("what", [f.name for f in tb.Event.DESCRIPTOR.oneofs_by_name["what"].fields])
def test_every_event_field_is_read_listed_or_a_control_record(tmp_path, what):
    write_tfevents(tmp_path / "run", [_event(what)])
    reader = LogReader(str(tmp_path))
    (writer,) = reader.writers("run")
    unshown = {(tag, kind): count for tag, kind, count in writer.unshown}
    shown = any(reader.tags("run").values())
    if what in CONTROL:
        assert not unshown and not shown
    elif what in GRAPHS:
        assert not unshown and reader.tags("run")["graphs"] == ["Default"]
        (graph,) = reader.graphs("run")
        assert (graph.format, reader.read_blob(graph)) == ("graphdef", b"\x0a\x03\x0a\x01a")
    else:
        assert unshown and not shown, f"Event.{what} neither read nor listed as unshown"
    if what == "tagged_run_metadata":
        assert unshown == {("step1", "run_metadata"): 1}
    if what == "summary":
        assert unshown == {("made/up", "made_up"): 1}


@pytest.mark.e2e  # torch's writer and a torch model (torch: an e2e extra)
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch's add_graph traces with torch.jit
def test_a_torch_models_graph_is_read_and_its_step_stats_listed_as_unshown(tmp_path):
    torch = import_torch()
    w = torch_writer()(str(tmp_path / "run"))
    w.add_graph(torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.ReLU()), torch.zeros(1, 4))
    w.add_scalar("loss", 1.0, 0)
    w.close()
    reader = LogReader(str(tmp_path))
    (writer,) = reader.writers("run")
    assert writer.unshown == (("step1", "run_metadata", 1),)
    assert reader.tags("run")["scalars"] == ["loss"] and reader.tags("run")["graphs"] == ["Default"]
    assert os.listdir(tmp_path / "run")  # one event file, holding both
