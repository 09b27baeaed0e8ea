"""Blobs (PNG bytes of images, models of graphs): where they lie in their file, checked by
streaming the record, and read without holding the record twice; histograms without
finite values."""

from __future__ import annotations

import os
import tracemalloc
from typing import Any

import numpy as np
import pytest

from visualdl import LogReader, LogWriter
from visualdl._formats.framing import frame
from visualdl._formats.vdlog.logformat import blob_span
from visualdl._kinds.table import GraphEvent, ImageEvent
from visualdl.errors import LogFormatError
from visualdl.proto import pb, tb

BIG = 24 << 20


def _header() -> bytes:
    return frame(pb.Record(header=pb.Header(format_version=1, writer_id="d" * 32)).SerializeToString())


def _image_log(logdir: str, png: bytes) -> str:
    """A log file holding one image record with ``png`` as its bytes (any bytes will do)."""
    path = os.path.join(logdir, "vdl.1700000000.host.1.0000beef.vdlog")
    image = pb.Image(tag="big", step=3, wall_time=1.0, height=1, width=1, channels=3, png=png)
    with open(path, "wb") as f:
        f.write(_header() + frame(pb.Record(image=image).SerializeToString()))
    return path


def test_open_blob_gives_where_the_bytes_of_images_and_graphs_lie(logdir):
    with LogWriter(logdir, flush_secs=3600) as w:
        w.add_image("pic", np.full((4, 5, 3), 7, np.uint8), 1)
        w.add_graph(b"model bytes", name="net")
    reader = LogReader(logdir)
    events: list[ImageEvent | GraphEvent] = [reader.images(".", "pic")[0], reader.graphs(".")[0]]
    for event in events:
        path, offset, length = reader._index.open_blob(event)
        with open(path, "rb") as f:
            f.seek(offset)
            assert f.read(length) == reader.read_blob(event)
    assert reader.read_blob(reader.graphs(".")[0]) == b"model bytes"


def test_open_blob_holds_nothing_the_size_of_the_blob(logdir):
    png = np.random.default_rng(2).bytes(BIG)
    _image_log(logdir, png)
    reader = LogReader(logdir)
    (event,) = reader.images(".", "big")
    tracemalloc.start()
    try:
        path, offset, length = reader._index.open_blob(event)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert length == BIG and peak < 4 << 20
    with open(path, "rb") as f:
        f.seek(offset)
        assert f.read(length) == png


def test_read_blob_holds_the_blob_once(logdir):
    png = np.random.default_rng(3).bytes(BIG)
    _image_log(logdir, png)
    reader = LogReader(logdir)
    (event,) = reader.images(".", "big")
    tracemalloc.start()
    try:
        data = reader.read_blob(event)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert data == png
    assert peak < BIG + (4 << 20)  # the record and its parsed copy were held too: 3x


@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_open_blob_refuses_a_record_changed_on_disk(logdir, damage):
    png = b"\x89PNG" + bytes(range(256)) * 10
    path = _image_log(logdir, png)
    reader = LogReader(logdir)
    (event,) = reader.images(".", "big")
    with open(path, "rb") as f:
        data = bytearray(f.read())
    if damage == "flip":
        data[-100] ^= 1
    else:
        del data[-100:]
    with open(path, "wb") as f:
        f.write(data)
    with pytest.raises(LogFormatError, match=r"changed on disk|gone") as info:
        reader._index.open_blob(event)
    assert info.value.path == path and info.value.offset == event.ref.offset
    with pytest.raises(LogFormatError):
        reader.read_blob(event)


def _reader_of(data: bytes):
    return lambda offset, n: data[offset : offset + n]


def test_blob_span_follows_protobuf_rules():
    first = pb.Record(image=pb.Image(tag="a", png=b"first")).SerializeToString()
    no_png = pb.Record(image=pb.Image(tag="b")).SerializeToString()
    text = pb.Record(text=pb.Text(tag="t")).SerializeToString()
    unknown = b"\xf8\x01\x05"  # field 31, a varint: unknown, skipped
    for payload in [first, first + no_png, no_png + first, first + text + first, unknown + first, first + unknown]:
        parsed = pb.Record.FromString(payload)
        at, size = blob_span(_reader_of(payload), len(payload), "image", "png")
        assert payload[at : at + size] == parsed.image.png, payload
    for payload in [first + text, text]:
        with pytest.raises(LogFormatError, match="not a image record"):
            blob_span(_reader_of(payload), len(payload), "image", "png")
    with pytest.raises(LogFormatError):
        blob_span(_reader_of(first[:-2]), len(first) - 2, "image", "png")


def test_histogram_of_nan_only_has_no_finite_range(logdir):
    with LogWriter(logdir, flush_secs=3600) as w:
        w.add_histogram("h", np.array([np.nan, np.nan]), 0)
        w.add_histogram("h", np.array([-0.0, 2.5, np.inf]), 1)
    nan_only, finite = LogReader(logdir).histograms(".", "h")
    assert nan_only.count == 0 and nan_only.finite_range is None
    assert (nan_only.min, nan_only.max) == (0.0, 0.0)  # as stored: format version 1
    assert finite.finite_range == (finite.min, finite.max) == (-0.0, 2.5)
    assert np.signbit(finite.min)  # exact, bit for bit


def test_embeddings_of_many_metadata_rows_are_read_back(tmp_path):
    """Each metadata row is a field of the record: 6,000 of them (more than the field walk
    once took) still give the vectors, through the reader and through open_blob."""
    import numpy as np

    from visualdl import LogReader, LogWriter

    mat = np.arange(6000 * 3, dtype=np.float32).reshape(6000, 3)
    with LogWriter(str(tmp_path / "run")) as writer:
        writer.add_embeddings("e", mat=mat, metadata=[f"row {i}" for i in range(6000)])
    reader = LogReader(str(tmp_path))
    (event,) = reader.embeddings("run", "e")
    assert (event.rows, event.metadata[5999]) == (6000, ("row 5999",))
    assert np.array_equal(np.frombuffer(reader.read_blob(event), "<f4").reshape(6000, 3), mat)
    path, offset, length = reader._index.open_blob(event)
    with open(path, "rb") as f:
        f.seek(offset)
        assert f.read(length) == mat.tobytes()


def _event(step: int, **value: Any) -> bytes:
    event = tb.Event(wall_time=1.7e9 + step, step=step, summary=tb.Summary(value=[tb.Summary.Value(**value)]))
    return frame(event.SerializeToString())


@pytest.mark.e2e  # a 64 MB image written and indexed under tracemalloc: a CPU second
def test_indexing_a_huge_image_in_an_event_file_never_reads_it_whole(logdir):
    """An event file's image of 64 MB (torch and tensorboardX write any size) is indexed
    holding a small part of it (its record checked a chunk at a time, the decoder given it
    without the PNG's bytes); the records after it are read, and the bytes served are the
    image's, read from the file when asked for."""
    png = b"\x89PNG\r\n\x1a\n" + np.random.default_rng(3).bytes(64 << 20)
    path = os.path.join(logdir, "events.out.tfevents.1700000000.host")
    with open(path, "wb") as f:
        f.write(frame(tb.Event(wall_time=1.7e9, file_version="brain.Event:2").SerializeToString()))
        f.write(_event(1, tag="loss", simple_value=0.5))
        image = tb.Summary.Image(height=4000, width=5000, colorspace=3, encoded_image_string=png)
        f.write(_event(2, tag="huge", image=image))
        f.write(_event(3, tag="loss", simple_value=0.25))
    tracemalloc.start()
    try:
        reader = LogReader(logdir)  # reads the logdir
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # About 10 MB (a round's window of the file), whatever the image; twice the record before.
    assert peak < len(png) // 3, f"indexing held {peak:,} bytes for a record of {len(png):,}"
    assert reader.problems == []
    (event,) = reader.images(".", "huge")
    assert (event.step, event.height, event.width) == (2, 4000, 5000)
    assert reader.scalars(".", "loss").steps.tolist() == [1, 3]
    assert reader.read_blob(event) == png


def test_huge_event_records_keep_what_is_not_an_image_whole(logdir):
    """Only images are pruned from a record too large to be read whole: an image tensor
    (whose plugin only the tag's first value names) is listed with its shape and served
    whole; a clip keeps its size and a text all of its characters."""
    png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + (5000).to_bytes(4, "big") + (4000).to_bytes(4, "big") + b"\x08\x02"
    png += np.random.default_rng(4).bytes(20 << 20)
    wav = b"RIFF" + bytes(17 << 20)
    text = "x" * (17 << 20)
    images = tb.SummaryMetadata(plugin_data=tb.SummaryMetadata.PluginData(plugin_name="images"))
    texts = tb.SummaryMetadata(plugin_data=tb.SummaryMetadata.PluginData(plugin_name="text"))
    strings = tb.DataType.DT_STRING
    path = os.path.join(logdir, "events.out.tfevents.1700000000.host")
    with open(path, "wb") as f:
        f.write(frame(tb.Event(wall_time=1.7e9, file_version="brain.Event:2").SerializeToString()))
        small = tb.TensorProto(dtype=strings, string_val=[b"1", b"1", png[:64]])
        f.write(_event(1, tag="pics", metadata=images, tensor=small))
        f.write(_event(2, tag="pics", tensor=tb.TensorProto(dtype=strings, string_val=[b"5000", b"4000", png])))
        sound = tb.Summary.Audio(sample_rate=8000, num_channels=1, encoded_audio_string=wav)
        f.write(_event(3, tag="clip", audio=sound))
        lines = tb.TensorProto(dtype=strings, string_val=[text.encode()])
        f.write(_event(4, tag="notes", metadata=texts, tensor=lines))
    reader = LogReader(logdir)
    assert reader.problems == []
    _, second = reader.images(".", "pics")
    assert (second.step, second.width, second.height) == (2, 5000, 4000)
    assert reader.read_blob(second) == png
    (clip,) = reader.audio(".", "clip")
    assert clip.size == len(wav) and reader.read_blob(clip) == wav
    (note,) = reader.texts(".", "notes")
    assert note.text == text


def test_indexing_a_huge_image_of_ours_never_reads_it_whole(logdir):
    """As an event file's: what indexing holds is a round's window of the file (16 MB),
    whatever the image (twice the record before)."""
    png = np.random.default_rng(6).bytes(64 << 20)
    _image_log(logdir, png)
    tracemalloc.start()
    try:
        reader = LogReader(logdir)  # reads the logdir
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < len(png) // 2, f"indexing held {peak:,} bytes for a record of {len(png):,}"
    (event,) = reader.images(".", "big")
    assert (event.step, event.height, event.width) == (3, 1, 1)
    assert reader.read_blob(event) == png
