"""The table of kinds is the one extension point: each kind declares its whole contract
(title, storage class, media type of its blob, a builder whose record decodes back to its
event), and every reader of a foreign format says, per kind, how it reads it or why it
does not, so a new kind fails here until it and each format do. So is the table of
per-writer records: every member of ``Record`` is a kind or one of them, and each is
decoded from a record a real writer wrote and applied to a writer's state."""

from __future__ import annotations

import ast
import dataclasses
import math
import os
import pathlib
import shutil
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from kit.paths import DATA

import visualdl.sdk
import visualdl.server
from visualdl import LogReader, LogWriter
from visualdl._formats import framing
from visualdl._formats.table import FORMATS, format_of
from visualdl._formats.tfevents import decode as _tfevents
from visualdl._formats.vdl2 import decode as _vdl2
from visualdl._formats.vdlog.decoder import RecordDecoder
from visualdl._formats.vdlog.logformat import FORMAT_VERSION, parse_record
from visualdl._formats.vdlog.writerrecords import WRITER_RECORDS, WriterRecord
from visualdl._formats.writerstate import WriterState
from visualdl._index.writers import CARRIED
from visualdl._kinds.table import (
    BLOB_KIND,
    HPARAMS_TAG,
    KIND_BY_FIELD,
    KINDS,
    PR_CURVE_COLUMNS,
    ROC_CURVE_COLUMNS,
    SCALAR_LAYOUT_TAG,
    STORAGE_CLASSES,
    AudioEvent,
    EmbeddingsEvent,
    GraphEvent,
    HistogramEvent,
    HistogramStats,
    HParamsEvent,
    ImageEvent,
    Kind,
    LayoutCategory,
    LayoutChart,
    PrCurveEvent,
    RecordRef,
    RocCurveEvent,
    ScalarBlock,
    ScalarLayoutEvent,
    TextEvent,
)
from visualdl.proto import pb

# -- what each kind declares -------------------------------------------------------

_PATH, _OFFSET = "run/x.vdlog", 42
_REF = RecordRef(_PATH, _OFFSET)
_PNG = b"\x89PNG\r\n\x1a\n" + bytes(24)
_STEPS = np.array([1, 2, 7], dtype=np.int64)
_VALUES = np.array([0.5, math.nan, -math.inf])
_WALLS = np.array([10.0, 10.5, 11.25])
_EDGES, _COUNTS = np.array([0.0, 1.0, 2.5]), np.array([3.0, 4.0])
_STATS: HistogramStats = {"count": 7, "nan_count": 1, "pos_inf_count": 0, "neg_inf_count": 2, "min": 0.0, "max": 2.5}
_STATS |= {"sum": 5.0, "sum_squares": 9.5}
_PR = {name: np.linspace(0, 1, 4) + i for i, name in enumerate(PR_CURVE_COLUMNS)}
_ROC = {name: np.linspace(1, 0, 4) * i for i, name in enumerate(ROC_CURVE_COLUMNS)}
_HPARAMS: dict[str, int | float | str | bool] = {"lr": 0.125, "layers": 3, "opt": "adam", "bn": True}
_VECTORS = np.arange(6, dtype=np.float32).reshape(2, 3)
_LAYOUT = (
    LayoutCategory("loss", (LayoutChart("all", ("loss/.*",)), LayoutChart("band", margin=(("v", "lo", "hi"),))), True),
)

#: Per kind: the builder's arguments and the ``(tag, event)`` its record decodes to. A new
#: kind fails here until it has a sample.
KIND_SAMPLES: dict[str, tuple[tuple[Any, ...], tuple[str, Any]]] = {
    "scalars": (
        (["a", "b"], [2, 1], _STEPS, _VALUES, _WALLS),
        ("", ScalarBlock(["a", "b"], np.array([2, 1], dtype=np.int64), _STEPS, _VALUES, _WALLS)),
    ),
    "images": (("img", 3, 1.5, _PNG, (4, 5, 3)), ("img", ImageEvent(3, 1.5, 4, 5, 3, _REF))),
    "histograms": (
        ("h", 2, 1.5, _EDGES, _COUNTS, _STATS),
        ("h", HistogramEvent(2, 1.5, _EDGES, _COUNTS, 0.0, 2.5, 5.0, 9.5, 7, 1, 0, 2)),
    ),
    "text": (("t", 4, 1.5, "h\u00e9llo"), ("t", TextEvent(4, 1.5, "h\u00e9llo"))),
    "graphs": (("net", 1.5, b"onnx bytes"), ("net", GraphEvent("net", 1.5, "onnx", 10, _REF))),
    "audio": (("a", 3, 1.5, b"RIFFxxxx", 16000, 2, 1), ("a", AudioEvent(3, 1.5, 16000, 2, 1, 8, _REF))),
    "pr_curves": (("pr", 5, 1.5, _PR), ("pr", PrCurveEvent(5, 1.5, *(_PR[n] for n in PR_CURVE_COLUMNS)))),
    "roc_curves": (("roc", 5, 1.5, _ROC), ("roc", RocCurveEvent(5, 1.5, *(_ROC[n] for n in ROC_CURVE_COLUMNS)))),
    "hparams": ((1.5, _HPARAMS, ["acc"]), (HPARAMS_TAG, HParamsEvent(1.5, _HPARAMS, ("acc",)))),
    "embeddings": (
        ("e", 0, 1.5, _VECTORS, ["label", "class"], ["a", "x", "b", "y"]),
        ("e", EmbeddingsEvent(0, 1.5, 2, 3, ("label", "class"), (("a", "x"), ("b", "y")), _REF)),
    ),
    "scalar_layouts": ((1.5, _LAYOUT), (SCALAR_LAYOUT_TAG, ScalarLayoutEvent(1.5, _LAYOUT))),
}


def _same(a: Any, b: Any) -> bool:
    """Equal, arrays included: same dtype and elements (NaN equal to NaN)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        fields = dataclasses.fields(a)
        return type(a) is type(b) and all(_same(getattr(a, f.name), getattr(b, f.name)) for f in fields)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def test_kinds_table_has_a_sample_of_every_kind():
    assert set(KIND_SAMPLES) == set(KINDS)


@pytest.mark.parametrize("kind", KINDS.values(), ids=lambda kind: kind.name)
def test_kinds_builder_record_decodes_to_an_equal_event(kind: Kind):
    args, expected = KIND_SAMPLES[kind.name]
    record = kind.encode(*args)
    assert record.WhichOneof("kind") == kind.field
    again = pb.Record.FromString(record.SerializeToString())
    ((tag, event),) = kind.decode(getattr(again, kind.field), _PATH, _OFFSET)
    assert isinstance(event, kind.event)
    assert tag == expected[0] and _same(event, expected[1]), (event, expected[1])


@pytest.mark.parametrize("kind", KINDS.values(), ids=lambda kind: kind.name)
def test_kinds_declare_title_storage_order_and_media_type(kind: Kind):
    assert kind.title and kind.title.strip() == kind.title
    assert kind.storage in STORAGE_CLASSES
    assert kind.field in {f.name for f in pb.Record.DESCRIPTOR.oneofs_by_name["kind"].fields}
    message = pb.Record.DESCRIPTOR.fields_by_name[kind.field].message_type
    assert message is not None
    if kind.storage != "series":
        assert kind.order in {f.name for f in dataclasses.fields(kind.event)}
    if kind.storage == "blob":
        assert kind.media_type.count("/") == 1
        assert message.fields_by_name[kind.blob_field].type == message.fields_by_name[kind.blob_field].TYPE_BYTES
        assert "ref" in {f.name for f in dataclasses.fields(kind.event)}
        assert BLOB_KIND[kind.event] is kind
    else:
        assert not kind.blob_field and not kind.media_type and kind.event not in BLOB_KIND


def test_kinds_names_fields_titles_and_events_are_each_one_kind():
    for attribute in ("field", "title", "event"):
        assert len({getattr(kind, attribute) for kind in KINDS.values()}) == len(KINDS), attribute
    assert list(KIND_BY_FIELD.values()) == list(KINDS.values())


def test_kinds_blob_kinds_keep_their_payload_in_their_blob_field():
    for kind in KINDS.values():
        if kind.storage == "blob":
            record = kind.encode(*KIND_SAMPLES[kind.name][0])
            assert getattr(getattr(record, kind.field), kind.blob_field)


@pytest.mark.parametrize(
    ("blob", "why"),
    [
        (dict(storage="blob"), "names its blob_field and media_type"),
        (dict(storage="blob", blob_field="png"), "names its blob_field and media_type"),
        (dict(storage="events", media_type="image/png"), "names its blob_field and media_type"),
        (dict(storage="table"), "is none of"),
    ],
)
def test_kinds_entry_that_contradicts_its_storage_class_is_refused(blob: dict[str, Any], why: str):
    with pytest.raises(ValueError, match=why):
        Kind("x", "text", KINDS["text"].decode, event=TextEvent, encode=KINDS["text"].encode, title="X", **blob)


_PACKAGES = [pathlib.Path(module.__file__ or "").parent for module in (visualdl, visualdl.sdk, visualdl.server)]


def _imports(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    return out | {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}


def test_kinds_import_nothing_from_the_formats():
    """The formats import the kinds' event classes: the two layers must not form a loop."""
    modules = sorted((_PACKAGES[0] / "_kinds").glob("*.py"))
    assert len(modules) > len(KINDS)
    for path in modules:
        assert not {m for m in _imports(path) if m.startswith("visualdl._formats")}, path.name


def _record_calls(path: pathlib.Path, fields: set[str]) -> list[str]:
    """The kind fields given to ``pb.Record(...)`` in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "Record":
            out += [f"{path.name}: Record({k.arg}=...)" for k in node.keywords if k.arg in fields]
    return out


def test_kinds_records_are_built_only_by_their_kind():
    """``LogWriter``, ``SummaryWriter`` and the sink call the kinds' builders, never a copy of one."""
    fields = set(KIND_BY_FIELD) | {"meta"}
    code = [path for package in _PACKAGES for path in package.rglob("*.py")]
    outside = [p for p in code if "_kinds" not in p.parts and not p.name.endswith("_pb2.py")]
    hits = [hit for path in outside for hit in _record_calls(path, fields)]
    assert outside and not hits, hits


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


_VDL2_KINDS = os.path.join(DATA, "vdl2", "logdir", "kinds")
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
    path, offset, length = reader._index.open_blob(event)
    with open(path, "rb") as f:
        f.seek(offset)
        blob = f.read(length)
    assert blob.startswith(b"\x89PNG") and blob == reader.read_blob(event)


# -- the table of per-writer records ---------------------------------------------


def _golden_record(name: str) -> pb.Record:
    """A record as a real writer wrote it: a golden file of ``tests/data`` (one framed record)."""
    with open(os.path.join(DATA, name), "rb") as f:
        data = f.read()
    frame, *rest = framing.scan(data)
    assert isinstance(frame, framing.Frame) and rest == [len(data)], name
    return parse_record(frame.payload)


_HEADER = "format_v1/records/header.bin"
_T0 = 1_700_000_000.0

#: Per writer record: a golden record of it (written by the real writer; ``tests/formats``
#: pins their bytes), and what the field of the state its entry names holds once the record
#: is applied to the state of a writer whose header was read (the header: to a file's first
#: state), as ``(what of it, expected)``. A new per-writer record fails here until it has one.
_WRITER_ID = "6eb06aff9cd1187f708adb4f6f91b7d8"
WRITER_SAMPLES: dict[str, tuple[str, Callable[[Any], Any], Any]] = {
    "header": (_HEADER, lambda h: (h.writer_id, h.pid, h.display_name), (_WRITER_ID, 15009, "every kind")),
    "meta": ("format_v1_later_kinds/meta.bin", lambda h: (h.writer_id, h.display_name), (_WRITER_ID, "golden run")),
    "provenance": (
        "format_v1_later_kinds/provenance.bin",
        lambda p: (p.git_commit, p.HasField("git_dirty"), dict(p.packages)),
        ("0123456789abcdef0123456789abcdef01234567", True, {"torch": "2.3.1"}),
    ),
    "tag_info": ("format_v1_later_kinds/tag_info.bin", dict, {"loss": True}),
    "system_metrics": (
        "format_v1_later_kinds/system_metrics.bin",
        lambda declared: [(m.scope, m.name) for m in declared],
        [("process", "rss"), ("host", "cpu"), ("gpu", "utilization")],
    ),
    "process_end": (
        "format_v1_later_kinds/process_end.bin",
        lambda e: (e.how, e.exception_type, e.thread, e.step),
        ("exception", "RuntimeError", "loader", 1204),
    ),
    "footer": ("format_v1/records/footer.bin", lambda f: (f.wall_time, f.records, f.scalar_points), (_T0 + 60, 14, 28)),
}


def _writer_of(*records: pb.Record) -> RecordDecoder:
    decoder = RecordDecoder()
    assert decoder.decode(_PATH, [(i * 100, r) for i, r in enumerate(records)]) == []
    assert decoder.problems == []
    return decoder


def _fields(state: WriterState) -> dict[str, Any]:
    """The state's fields, messages as their bytes (so that a message changed in place shows)."""
    out = {}
    for f in dataclasses.fields(state):
        value = getattr(state, f.name)
        out[f.name] = value.SerializeToString() if hasattr(value, "SerializeToString") else value
    return out


def test_writer_records_table_has_a_sample_of_every_record():
    assert set(WRITER_SAMPLES) == set(WRITER_RECORDS)


def test_writer_records_and_kinds_are_every_member_of_the_record_oneof_once():
    """A new member of ``Record`` fails here until it is a kind or a per-writer record."""
    members = [f.name for f in pb.Record.DESCRIPTOR.oneofs_by_name["kind"].fields]
    assert sorted(members) == sorted([*KIND_BY_FIELD, *WRITER_RECORDS])


@pytest.mark.parametrize("entry", WRITER_RECORDS.values(), ids=lambda entry: entry.field)
def test_writer_records_entry_decoded_from_real_bytes_and_applied(entry: WriterRecord):
    name, what, expected = WRITER_SAMPLES[entry.field]
    record = _golden_record(name)
    assert record.WhichOneof("kind") == entry.field
    state = WriterState() if entry.field == "header" else _writer_of(_golden_record(_HEADER)).writer
    before = _fields(state)
    value = entry.decode(getattr(record, entry.field), state, _PATH, _OFFSET)
    assert value is not None
    assert entry.problem(value) == ""
    applied = entry.apply(state, value)
    assert isinstance(applied, WriterState)
    assert what(getattr(applied, entry.attr)) == expected
    assert _fields(state) == before  # a new state: the one given is as it was
    changed = {f for f, v in _fields(applied).items() if v != before[f]}
    assert changed == {entry.attr}, changed
    # The decoder dispatches through the table: the same state from the file's records.
    again = _writer_of(record) if entry.field == "header" else _writer_of(_golden_record(_HEADER), record)
    assert _fields(again.writer) == _fields(applied)
    assert _same(again.system, [value] if entry.samples else [])


def test_writer_records_entries_name_a_field_of_the_state():
    fields = {f.name for f in dataclasses.fields(WriterState)}
    for entry in WRITER_RECORDS.values():
        assert entry.attr in fields, entry


def test_writer_records_of_a_newer_writer_are_said_and_read_as_their_entries_say():
    """A header of a newer format version is a problem, and in its stretch only the records
    whose entry says ``newer`` are read; the kinds' records are skipped."""
    newer = pb.Header(format_version=FORMAT_VERSION + 1, writer_id="n" * 32)
    records = [_golden_record(_HEADER), pb.Record(header=newer)]
    records += [_golden_record(name) for field, (name, _, _) in WRITER_SAMPLES.items() if field != "header"]
    records.append(KINDS["text"].encode("t", 1, 1.5, "x"))
    decoder = RecordDecoder()
    assert decoder.decode(_PATH, [(i * 100, r) for i, r in enumerate(records)]) == []
    ((offset, problem),) = decoder.problems
    assert offset == 100 and f"format version {FORMAT_VERSION + 1} is newer than {FORMAT_VERSION}" in problem
    state = decoder.writer
    assert state.skipped and state.header is not None and state.header.writer_id == _WRITER_ID
    read = {entry.field for entry in WRITER_RECORDS.values() if entry.newer}
    assert read == {"header", "meta", "tag_info", "process_end", "footer"}
    assert (state.header.display_name, dict(state.tag_info)) == ("golden run", {"loss": True})
    assert state.end is not None and state.footer is not None
    assert (state.provenance, state.declared, decoder.system) == (None, (), [])


def test_writer_records_a_bad_one_alone_is_lost_and_said():
    bad = pb.Record(system_metrics=pb.SystemMetrics(wall_times=b"\x00" * 8))  # values before any metric
    decoder = RecordDecoder()
    decoder.decode(
        _PATH, [(0, _golden_record(_HEADER)), (100, bad), (200, _golden_record(WRITER_SAMPLES["tag_info"][0]))]
    )
    ((offset, problem),) = decoder.problems
    assert offset == 100 and "before any metric is declared" in problem
    assert decoder.system == [] and dict(decoder.writer.tag_info) == {"loss": True}


def test_writer_records_state_fields_named_as_writer_info_fields_reach_it(tmp_path):
    """A field of the state named as one of ``WriterInfo``'s is carried over as it is."""
    assert CARRIED == ("events", "provenance")
    run = tmp_path / "run"
    run.mkdir()
    with open(os.path.join(DATA, _HEADER), "rb") as f:
        data = f.read()
    with open(os.path.join(DATA, WRITER_SAMPLES["provenance"][0]), "rb") as f:
        data += f.read()
    (run / "x.vdlog").write_bytes(data)
    (info,) = LogReader(str(tmp_path)).writers("run")
    assert info.provenance == _golden_record(WRITER_SAMPLES["provenance"][0]).provenance
