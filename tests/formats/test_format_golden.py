"""Format version 1, pinned: logs already on users' disks keep reading.

``tests/data/format_v1`` was written once by the LogWriter of format version 1
(``tests/data/make_format_v1.py`` says how) and is never regenerated: the round-trip
tests let writer and reader change together, these do not. Every expected value
below is spelled out, none is recomputed by the code under test.

* ``logdir/``: read back with ``LogReader``, every value exact (bit for bit for floats).
* ``records/``: the framed bytes of one record of each kind, checked against an
  independent CRC-32C, decoded field by field, and, where the encoding is
  deterministic, produced again byte for byte by today's encoders and LogWriter.

A failure here means logs on disk would read differently: fix the code, or make the
change a new format version whose reader still reads version 1 (``proto/FORMAT.md``).
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import struct
import zlib
from array import array
from typing import Any

import numpy as np
import onnx
import pytest
from kit.crc import crc32c_reference, masked_reference
from kit.paths import DATA
from PIL import Image

from visualdl import LogReader, LogWriter
from visualdl._formats import framing as framing
from visualdl._formats.vdlog.logformat import FORMAT_VERSION, parse_record
from visualdl._index.tail import LogFile
from visualdl._kinds.table import (
    KIND_BY_FIELD,
    ProcessEnd,
    encode_graph,
    encode_histogram,
    encode_image,
    encode_scalars,
    encode_text,
)
from visualdl.proto import pb
from visualdl.sdk import _convert as convert

DATA = os.path.join(DATA, "format_v1")
LOGDIR = os.path.join(DATA, "logdir")
T0 = 1_700_000_000.0  # the generator's clock

KINDS_FILE = "vdl.1700000000.node-a.15009.63778165.vdlog"
RANK0_FILE = "vdl.1700000000.node-a.15012.2cb22430.vdlog"
RANK1_KILLED_FILE = "vdl.1700000000.node-a.15015.5eea38bf.vdlog"
RANK2_FILE = "vdl.1700000000.node-b.15021.51f32951.vdlog"
RANK1_RESUMED_FILE = "vdl.1700000065.node-a.15018.8c592c1d.vdlog"
TORN_FILE = "vdl.1700000000.node-c.15055.d82f4df2.vdlog"

#: Every data file of the fixture: size and SHA-256. Only a regenerated or edited fixture changes these.
FILES = {
    f"logdir/job/{RANK0_FILE}": (293, "c1d9fc984458cb56689be85854189eeae9249735b19d810c3c103290a39fc063"),
    f"logdir/job/{RANK1_KILLED_FILE}": (260, "8bc59a839cbdff8fa5c866ee782847502a0c78362a31490fd8c32010a9e76ece"),
    f"logdir/job/{RANK2_FILE}": (253, "e7ee1938da1c4bd4324f2e95fa8d0f929e55da4839068b8bd1465a57eee3e40a"),
    f"logdir/job/{RANK1_RESUMED_FILE}": (279, "f9c2a045df07fe44e73e4217da523833eb62b68a983c6d06460eb085302b44cc"),
    f"logdir/kinds/{KINDS_FILE}": (1813, "908366478df64a694a76cd86025c44dc376c5eff53e1803bdf9b86e82f8ce771"),
    f"logdir/torn/{TORN_FILE}": (264, "94d7a162c70fcabefcc53c18f17baf1dbe5f2f339c83682e29cfc9c413e477b0"),
    "records/footer.bin": (31, "b575442e816cf91664d8222535880b94b70be1aa72048f85f2081028bd9ab4f4"),
    "records/graph.bin": (140, "f1eb918c3b1119adc9b172caf4674c87728afbe85f0d66f75317f9cd87e71225"),
    "records/header.bin": (142, "4efd7072de0c460d95a791f72236ac134b6cbcc659cd7f2be36133fa5669d701"),
    "records/histogram.bin": (157, "5714622ef434b26a7ae3d0418d6206bb005b75efb6acdb9111e88c8c1ccc1f9a"),
    "records/image.bin": (131, "952c2bc03d1ca6ac413ec28181bdfb8fc03ed6f345870a372dd1f64312c3d942"),
    "records/scalars_arithmetic.bin": (113, "98504bee17ceba615bbdb1ecd7b3593811365c24b344bb410279fe4493c13fe7"),
    "records/scalars_deflate.bin": (169, "c3e5a82c392f541c6505271f0533567aed2545d39cbe77b198c3c590374b7323"),
    "records/scalars_raw.bin": (224, "67a2699626475fca7a816f54593a45e02ab12550e1b7803b46bf8168b037d1e4"),
    "records/text.bin": (70, "7445f6cbedc8a26c5fee2aa09c75b649417155015c47cf76421a6c525bcc2e69"),
    "torn_write.bin": (91, "51f2414536e6aa12c3e54c711b9f6a665185b18554e4b97d27d662ae1729f321"),
}

#: Where each golden record sits in the kinds file (they are cut from it).
GOLDEN_OFFSETS = {
    "header": 0,
    "scalars_raw": 142,
    "image": 366,
    "histogram": 742,
    "graph": 953,
    "scalars_arithmetic": 1093,
    "text": 1366,
    "scalars_deflate": 1613,
    "footer": 1782,
}

# The special values of the kinds run, as IEEE 754 bit patterns.
NAN = 0x7FF8000000000000
POS_INF = 0x7FF0000000000000
NEG_INF = 0xFFF0000000000000
NAN_WITH_PAYLOAD = 0xFFF80000DEADBEEF  # sign bit set, payload 0xdeadbeef

RELU_MODEL_SHA256 = "5c55415e0ec8329c3f523da0c06d8c93ee8063ba86ae1ea3419c162fff9f4a66"
ADD_MODEL_SHA256 = "5981c9021dc164b1bf871b1245031db6674be8dd22058e25166197f2fa0abda0"


# -- helpers (independent of the code under test) --------------------------------------


def _unframe(record: bytes) -> bytes:
    """The payload of one framed record, every byte of the framing checked by hand."""
    (length,) = struct.unpack_from("<Q", record, 0)
    assert len(record) == 8 + 4 + length + 4
    (length_crc,) = struct.unpack_from("<I", record, 8)
    assert length_crc == masked_reference(crc32c_reference(record[:8]))
    payload = record[12 : 12 + length]
    (payload_crc,) = struct.unpack_from("<I", record, 12 + length)
    assert payload_crc == masked_reference(crc32c_reference(payload))
    return payload


def _bits(values: object) -> list[int]:
    """IEEE 754 bit patterns of float64 values (so -0.0, NaN payloads and infinities compare exactly)."""
    return np.ascontiguousarray(values, dtype="<f8").view("<u8").tolist()


def _float(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _golden(name: str) -> bytes:
    with open(os.path.join(DATA, "records", f"{name}.bin"), "rb") as f:
        return f.read()


def _read(relpath: str) -> bytes:
    with open(os.path.join(DATA, relpath), "rb") as f:
        return f.read()


def _frames(data: bytes) -> list[bytes]:
    out = []
    for item in framing.scan(data):
        if isinstance(item, framing.Frame):
            out.append(data[item.offset : item.offset + 16 + len(item.payload)])
        else:
            assert isinstance(item, int), item
    return out


def _pixels(png: bytes) -> tuple[str, list]:
    image = Image.open(io.BytesIO(png))
    return image.mode, np.asarray(image).tolist()


@pytest.fixture(scope="module")
def reader() -> LogReader:
    return LogReader(LOGDIR)


# -- the fixture itself ------------------------------------------------------------------


def test_format_v1_fixture_files_are_the_committed_ones():
    found = {}
    for dirpath, _, filenames in os.walk(DATA):
        for name in filenames:
            if name == "README.md":
                continue
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                data = f.read()
            found[os.path.relpath(path, DATA).replace(os.sep, "/")] = (len(data), hashlib.sha256(data).hexdigest())
    assert found == FILES, "tests/data/format_v1 was changed: restore it from git, never regenerate it"


# -- reading the logdir ------------------------------------------------------------------


def test_format_v1_reader_finds_runs_and_tags_without_problems(reader):
    assert FORMAT_VERSION == 1
    assert reader.runs() == ["job", "kinds", "torn"]
    assert reader.problems == []
    # Kinds added later: listed, with no tags in version 1's files.
    later: dict[str, list[str]] = {
        "audio": [], "pr_curves": [], "roc_curves": [], "hparams": [], "embeddings": [], "scalar_layouts": [],
    }  # fmt: skip
    assert reader.tags("kinds") == {
        "scalars": ["eval/acc", "eval/f1", "special", "train/loss"],
        "images": ["samples/gray", "samples/rgb", "samples/rgba"],
        "histograms": ["weights"],
        "text": ["notes"],
        "graphs": ["tiny"],
        **later,
    }
    empty: dict[str, list[str]] = {"images": [], "histograms": [], "text": [], "graphs": [], **later}
    assert reader.tags("job") == {"scalars": ["lr", "train/loss"], **empty}
    assert reader.tags("torn") == {"scalars": ["loss"], **empty}


def _writer_rows(reader: LogReader, run: str) -> list[tuple]:
    return [
        (
            os.path.basename(w.path), w.writer_id, w.host, w.pid, w.start_time, w.sdk_version, w.display_name,
            w.rank, w.world_size, w.local_rank, w.role, w.job, w.attempt, w.launcher, w.closed, w.end_time,
        )
        for w in reader.writers(run)
    ]  # fmt: skip


def test_format_v1_reader_writer_headers_and_footers(reader):
    assert _writer_rows(reader, "kinds") == [
        (KINDS_FILE, "6eb06aff9cd1187f708adb4f6f91b7d8", "node-a", 15009, T0, "3.0.0.dev0", "every kind",
         -1, -1, -1, "", "", -1, "", True, T0 + 60),
    ]  # fmt: skip
    assert _writer_rows(reader, "job") == [
        (RANK0_FILE, "fc90cb7c4806be725cc3fd9dc5deda48", "node-a", 15012, T0, "3.0.0.dev0", "rank 0",
         0, 3, 0, "trainer", "fmt-v1", 0, "", True, T0 + 100),
        (RANK1_KILLED_FILE, "17d770c4c4cbf9fa765447c16a35e548", "node-a", 15015, T0, "3.0.0.dev0", "rank 1",
         1, 3, 1, "trainer", "fmt-v1", 0, "", False, None),
        (RANK2_FILE, "d14a08e464019bbf9fb793a61d797415", "node-b", 15021, T0, "3.0.0.dev0", "rank 2",
         2, 3, 0, "trainer", "fmt-v1", 0, "", True, T0 + 100),
        (RANK1_RESUMED_FILE, "3fb03aa391950dc127fccf604fc11ee3", "node-a", 15018, T0 + 65, "3.0.0.dev0", "rank 1",
         1, 3, 1, "trainer", "fmt-v1", 1, "", True, T0 + 100),
    ]  # fmt: skip
    assert _writer_rows(reader, "torn") == [
        (TORN_FILE, "a417800684ca99513dca21ecdc13388e", "node-c", 15055, T0, "3.0.0.dev0", "",
         -1, -1, -1, "", "", -1, "", False, None),
    ]  # fmt: skip
    # Written before process ends were recorded: a footer alone is a clean close; no footer and a
    # later attempt of the same rank is killed without a trace, at its last record and step.
    killed = [w.ended for w in reader.writers("job") if w.path.endswith(RANK1_KILLED_FILE)]
    assert killed == [ProcessEnd("killed", T0 + 15.25, step=5)]
    (kinds,) = reader.writers("kinds")
    assert kinds.ended == ProcessEnd("closed", T0 + 60)


def test_format_v1_reader_scalars_bit_exact(reader):
    loss = reader.scalars("kinds", "train/loss")
    assert loss.steps.dtype == np.int64 and loss.values.dtype == np.float64
    assert loss.steps.tolist() == [0, 1, 2, 10, 20, 30, 40, 50]
    assert _bits(loss.values) == _bits([0.5, 0.25, 0.1, -0.0, 5e-324, 1.7976931348623157e308, 1e-300, 0.0625])
    assert _bits(loss.values)[3] == 0x8000000000000000  # -0.0 stays negative
    assert loss.wall_times.tolist() == [T0 + 1, T0 + 2, T0 + 3.25, T0 + 10, T0 + 20, T0 + 30, T0 + 40, T0 + 50]

    special = reader.scalars("kinds", "special")
    assert special.steps.tolist() == [0, 1, 2, 3]
    assert _bits(special.values) == [NAN, POS_INF, NEG_INF, NAN_WITH_PAYLOAD]
    assert special.wall_times.tolist() == [T0 + 1, T0 + 2, T0 + 3, T0 + 3]

    acc = reader.scalars("kinds", "eval/acc")
    assert acc.steps.tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
    assert acc.values.tolist() == [0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875]
    walls = [T0 + 51, T0 + 51.5, T0 + 52, T0 + 52.5, T0 + 53, T0 + 53.5, T0 + 54, T0 + 54.5]
    assert acc.wall_times.tolist() == walls
    f1 = reader.scalars("kinds", "eval/f1")
    assert f1.steps.tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
    assert f1.values.tolist() == [1.0, 0.9375, 0.875, 0.8125, 0.75, 0.6875, 0.625, 0.5625]
    assert f1.wall_times.tolist() == walls


def test_format_v1_reader_job_ranks_and_restart(reader):
    assert reader.streams("job") == [("trainer", 0), ("trainer", 1), ("trainer", 2)]
    assert reader.streams("job", "lr") == [("trainer", 0)]
    assert reader.count("job", "scalars", "train/loss") == 8 + 6 + 5 + 8  # the unflushed point is lost

    rank0 = reader.scalars("job", "train/loss", role="trainer", rank=0)
    assert rank0.steps.tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
    assert rank0.values.tolist() == [2.0, 1.875, 1.75, 1.625, 1.5, 1.375, 1.25, 1.125]
    assert rank0.wall_times.tolist() == [T0 + 10, T0 + 11, T0 + 12, T0 + 13, T0 + 14, T0 + 15, T0 + 16, T0 + 17]

    # Rank 1: steps 0-2 of the killed first attempt, steps 3-7 of the attempt resumed from step 3.
    rank1 = reader.scalars("job", "train/loss", rank=1)
    assert rank1.steps.tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
    assert rank1.values.tolist() == [2.5, 2.375, 2.25, 2.1875, 2.0625, 1.9375, 1.8125, 1.6875]
    assert rank1.wall_times.tolist() == [
        T0 + 10.25, T0 + 11.25, T0 + 12.25, T0 + 73, T0 + 74, T0 + 75, T0 + 76, T0 + 77,
    ]  # fmt: skip
    replaced = reader.scalars("job", "train/loss", role="trainer", rank=1, replaced=True)
    assert replaced.steps.tolist() == [3, 4, 5]
    assert replaced.values.tolist() == [2.125, 2.0, 1.875]
    assert replaced.wall_times.tolist() == [T0 + 13.25, T0 + 14.25, T0 + 15.25]
    everything_replaced = reader.scalars("job", "train/loss", replaced=True)
    assert everything_replaced.values.tolist() == [2.125, 2.0, 1.875]
    assert len(reader.scalars("job", "train/loss", rank=0, replaced=True)) == 0

    rank2 = reader.scalars("job", "train/loss", rank=2)
    assert rank2.steps.tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
    assert rank2.values.tolist() == [3.0, 2.875, 2.75, 2.625, 2.5, 2.375, 2.25, 2.125]
    assert rank2.wall_times.tolist() == [
        T0 + 10.5, T0 + 11.5, T0 + 12.5, T0 + 13.5, T0 + 14.5, T0 + 15.5, T0 + 16.5, T0 + 17.5,
    ]  # fmt: skip

    merged = reader.scalars("job", "train/loss")  # equal steps: rank order
    assert merged.steps.tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7]
    assert merged.values.tolist() == [
        2.0, 2.5, 3.0, 1.875, 2.375, 2.875, 1.75, 2.25, 2.75, 1.625, 2.1875, 2.625,
        1.5, 2.0625, 2.5, 1.375, 1.9375, 2.375, 1.25, 1.8125, 2.25, 1.125, 1.6875, 2.125,
    ]  # fmt: skip

    lr = reader.scalars("job", "lr")
    assert (lr.steps.tolist(), lr.values.tolist(), lr.wall_times.tolist()) == ([0, 4], [0.1, 0.05], [T0 + 10, T0 + 14])
    ranks, _ = reader.job_scalars("job", "train/loss")["trainer"]
    assert ranks == [0, 1, 2]


def test_format_v1_reader_images_decode_to_the_logged_pixels(reader):
    rows = []
    for tag in ("samples/rgb", "samples/gray", "samples/rgba"):
        for e in reader.images("kinds", tag):
            pixels = _pixels(reader.read_blob(e))
            rows.append((tag, e.step, e.wall_time, e.height, e.width, e.channels, e.ref.offset, pixels))
    assert rows == [
        ("samples/rgb", 0, T0 + 3.5, 2, 3, 3, 366,
         ("RGB", [[[255, 0, 0], [0, 255, 0], [0, 0, 255]], [[0, 0, 0], [128, 128, 128], [255, 255, 255]]])),
        # Logged as floats [[0, 0.5], [1, 0.25]]: stored as round(x * 255).
        ("samples/gray", 0, T0 + 3.5, 2, 2, 1, 497, ("L", [[0, 128], [255, 64]])),
        # Logged as CHW (4 x 1 x 2).
        ("samples/rgba", 7, T0 + 3.75, 1, 2, 4, 617, ("RGBA", [[[10, 30, 50, 255], [20, 40, 60, 0]]])),
    ]  # fmt: skip


def test_format_v1_reader_histograms_exact(reader):
    first, all_nan, constant = reader.histograms("kinds", "weights")
    # Logged: [-1, 0, 0.5, 1, 2, nan, inf, -inf, inf] in 4 buckets.
    assert (first.step, first.wall_time) == (0, T0 + 3.5)
    assert _bits(first.edges) == _bits([-1.0, -0.25, 0.5, 1.25, 2.0])
    assert first.counts.tolist() == [1.0, 1.0, 2.0, 1.0]
    assert (first.min, first.max, first.sum, first.sum_squares) == (-1.0, 2.0, 2.5, 6.25)
    assert (first.count, first.nan_count, first.pos_inf_count, first.neg_inf_count) == (5, 1, 2, 1)
    # Logged: [nan, nan]: no buckets at all, only the NaN count.
    assert (all_nan.step, all_nan.wall_time) == (1, T0 + 41)
    assert all_nan.edges.tolist() == [] and all_nan.counts.tolist() == []
    assert (all_nan.min, all_nan.max, all_nan.sum, all_nan.sum_squares) == (0.0, 0.0, 0.0, 0.0)
    assert (all_nan.count, all_nan.nan_count, all_nan.pos_inf_count, all_nan.neg_inf_count) == (0, 2, 0, 0)
    # Logged: int32 [3, 3, 3] in 2 buckets: a zero-width range widened by 0.5 each side.
    assert (constant.step, constant.wall_time) == (2, T0 + 42)
    assert constant.edges.tolist() == [2.5, 3.0, 3.5]
    assert constant.counts.tolist() == [0.0, 3.0]
    assert (constant.min, constant.max, constant.sum, constant.sum_squares) == (3.0, 3.0, 9.0, 27.0)
    assert (constant.count, constant.nan_count, constant.pos_inf_count, constant.neg_inf_count) == (3, 0, 0, 0)


def test_format_v1_reader_texts_exact(reader):
    assert [(e.step, e.wall_time, e.text) for e in reader.texts("kinds", "notes")] == [
        (0, T0 + 3.5, "hello **markdown**"),
        (5, T0 + 42.5, "étape 5 — 训练 ✓\nline two"),
        (6, T0 + 43, ""),
    ]


def test_format_v1_reader_graph_newest_of_a_name(reader):
    (graph,) = reader.graphs("kinds")
    assert (graph.name, graph.wall_time, graph.format, graph.size, graph.ref.offset) == (
        "tiny", T0 + 44, "onnx", 100, 1472,
    )  # fmt: skip
    data = reader.read_blob(graph)
    assert hashlib.sha256(data).hexdigest() == ADD_MODEL_SHA256
    model = onnx.load_from_string(data)
    assert (model.graph.name, [n.op_type for n in model.graph.node]) == ("tiny", ["Add"])


# -- the torn tail -----------------------------------------------------------------------


def test_format_v1_torn_tail_is_not_yet_written_not_corruption(reader):
    data = _read(f"logdir/torn/{TORN_FILE}")
    whole = _read("torn_write.bin")
    # The file ends in the first half of the write the killed writer had begun: a
    # complete 12-byte record header, and 33 of the 75 bytes of payload and checksum.
    assert len(data) == 219 + 45 and data[219:] == whole[:45] and len(whole) == 91
    assert struct.unpack_from("<Q", whole, 0)[0] == 75

    tail = LogFile(os.path.join(LOGDIR, "torn", TORN_FILE))
    assert [(offset, r.WhichOneof("kind")) for offset, r in tail.read()] == [(0, "header"), (130, "scalars")]
    assert tail.offset == 219  # the next read starts at the torn record again
    assert tail.problems == []

    loss = reader.scalars("torn", "loss")
    assert (loss.steps.tolist(), loss.values.tolist(), loss.wall_times.tolist()) == (
        [0, 1, 2], [1.0, 2.0, 3.0], [T0 + 1, T0 + 2, T0 + 3],
    )  # fmt: skip
    (writer,) = reader.writers("torn")
    assert writer.closed is False


def test_format_v1_torn_tail_read_once_the_file_grows(tmp_path):
    run = tmp_path / "torn"
    shutil.copytree(os.path.join(LOGDIR, "torn"), run)
    reader = LogReader(tmp_path)
    assert reader.scalars("torn", "loss").steps.tolist() == [0, 1, 2]
    with open(run / TORN_FILE, "ab") as f:
        f.write(_read("torn_write.bin")[45:])  # the rest of the torn write lands
    reader.poll()
    loss = reader.scalars("torn", "loss")
    assert loss.steps.tolist() == [0, 1, 2, 3, 4, 5]
    assert loss.values.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert loss.wall_times.tolist() == [T0 + 1, T0 + 2, T0 + 3, T0 + 4, T0 + 5, T0 + 6]
    assert reader.problems == []


def test_format_v1_torn_tail_cut_by_a_writer_appending_to_the_file(tmp_path):
    run = tmp_path / "torn"
    shutil.copytree(os.path.join(LOGDIR, "torn"), run)
    with LogWriter(run, file_name=TORN_FILE, flush_secs=3600) as w:
        w.add_scalar("loss", 9.0, 3, walltime=T0 + 200)
    data = (run / TORN_FILE).read_bytes()
    assert data[:219] == _read(f"logdir/torn/{TORN_FILE}")[:219]  # the whole records are kept
    reader = LogReader(tmp_path)
    assert reader.problems == []
    loss = reader.scalars("torn", "loss")
    assert (loss.steps.tolist(), loss.values.tolist()) == ([0, 1, 2, 3], [1.0, 2.0, 3.0, 9.0])
    assert reader.writers("torn")[0].closed is True


# -- golden records ----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(GOLDEN_OFFSETS))
def test_format_v1_golden_record_framing(name):
    record = _golden(name)
    kinds_file = _read(f"logdir/kinds/{KINDS_FILE}")
    offset = GOLDEN_OFFSETS[name]
    assert kinds_file[offset : offset + len(record)] == record  # as the writer framed it in the log
    payload = _unframe(record)
    items = list(framing.scan(record))
    assert items == [framing.Frame(0, payload), len(record)]
    assert framing.frame(payload) == record


def _decode(name: str) -> tuple[str, Any]:
    record = parse_record(_unframe(_golden(name)))
    field = record.WhichOneof("kind")
    return field, getattr(record, field)


def test_format_v1_golden_header():
    field, header = _decode("header")
    assert field == "header"
    expected = pb.Header(
        format_version=1,
        writer_id="6eb06aff9cd1187f708adb4f6f91b7d8",
        host="node-a",
        pid=15009,
        start_time=T0,
        sdk_version="3.0.0.dev0",
        display_name="every kind",
        rank=-1,
        world_size=-1,
        local_rank=-1,
        role="",
        job="",
        attempt=-1,
        launcher="",
    )
    assert header == expected
    assert framing.frame(pb.Record(header=expected).SerializeToString()) == _golden("header")


def test_format_v1_golden_footer():
    field, footer = _decode("footer")
    assert field == "footer"
    assert (footer.wall_time, footer.records, footer.scalar_points) == (T0 + 60, 14, 28)
    expected = pb.Record(footer=pb.Footer(wall_time=T0 + 60, records=14, scalar_points=28))
    assert framing.frame(expected.SerializeToString()) == _golden("footer")


# The points of the three golden scalar batches, as logged.
RAW_BATCH = (
    ["train/loss", "special"],
    [3, 4],
    [0, 1, 2, 0, 1, 2, 3],
    [0.5, 0.25, 0.1, _float(NAN), _float(POS_INF), _float(NEG_INF), _float(NAN_WITH_PAYLOAD)],
    [T0 + 1, T0 + 2, T0 + 3.25, T0 + 1, T0 + 2, T0 + 3, T0 + 3],
)
ARITHMETIC_BATCH = (
    ["train/loss"],
    [4],
    [10, 20, 30, 40],
    [-0.0, 5e-324, 1.7976931348623157e308, 1e-300],
    [T0 + 10, T0 + 20, T0 + 30, T0 + 40],
)
DEFLATE_BATCH = (
    ["train/loss", "eval/acc", "eval/f1"],
    [1, 8, 8],
    [50, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7],
    [0.0625, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875,
     1.0, 0.9375, 0.875, 0.8125, 0.75, 0.6875, 0.625, 0.5625],
    [T0 + 50] + [T0 + 51, T0 + 51.5, T0 + 52, T0 + 52.5, T0 + 53, T0 + 53.5, T0 + 54, T0 + 54.5] * 2,
)  # fmt: skip


def _check_scalar_batch(name: str, batch: tuple, codecs: tuple[int, int, int]) -> pb.ScalarBatch:
    tags, counts, steps, values, walls = batch
    field, msg = _decode(name)
    assert field == "scalars"
    assert (list(msg.tags), list(msg.counts)) == (tags, counts)
    assert (msg.steps.codec, msg.values.codec, msg.wall_times.codec) == codecs
    ((tag, block),) = KIND_BY_FIELD["scalars"].decode(msg, "golden", 0)
    assert tag == ""
    assert (block.tags, block.counts.tolist()) == (tags, counts)
    assert block.steps.tolist() == steps
    assert _bits(block.values) == _bits(values)
    assert _bits(block.wall_times) == _bits(walls)
    return msg


def test_format_v1_golden_scalars_raw_columns():
    msg = _check_scalar_batch("scalars_raw", RAW_BATCH, (pb.RAW, pb.RAW, pb.RAW))
    _, _, steps, values, walls = RAW_BATCH
    # RAW: the little-endian array as it is.
    assert msg.steps.data == struct.pack("<7q", *steps)
    assert msg.values.data == struct.pack("<7d", *values)
    assert msg.wall_times.data == struct.pack("<7d", *walls)
    record = encode_scalars(*RAW_BATCH[:2], np.array(steps), np.array(values), np.array(walls))
    assert framing.frame(record.SerializeToString()) == _golden("scalars_raw")


def test_format_v1_golden_scalars_arithmetic_steps():
    msg = _check_scalar_batch("scalars_arithmetic", ARITHMETIC_BATCH, (pb.ARITHMETIC, pb.RAW, pb.RAW))
    assert (msg.steps.start, msg.steps.stride, msg.steps.data) == (10, 10, b"")
    _, _, steps, values, walls = ARITHMETIC_BATCH
    record = encode_scalars(*ARITHMETIC_BATCH[:2], np.array(steps), np.array(values), np.array(walls))
    assert framing.frame(record.SerializeToString()) == _golden("scalars_arithmetic")


def _shuffled(values: list, dtype: str) -> bytes:
    """All first bytes of the little-endian elements, then all second bytes, ..."""
    raw = np.array(values, dtype=dtype)
    return raw.view(np.uint8).reshape(raw.size, raw.itemsize).T.tobytes()


def test_format_v1_golden_scalars_shuffle_deflate_columns():
    codecs = (pb.SHUFFLE_DEFLATE, pb.SHUFFLE_DEFLATE, pb.SHUFFLE_DEFLATE)
    msg = _check_scalar_batch("scalars_deflate", DEFLATE_BATCH, codecs)
    _, _, steps, values, walls = DEFLATE_BATCH
    assert zlib.decompress(msg.steps.data) == _shuffled(steps, "<i8")
    assert zlib.decompress(msg.values.data) == _shuffled(values, "<f8")
    assert zlib.decompress(msg.wall_times.data) == _shuffled(walls, "<f8")
    # Deflated bytes depend on the zlib build; what they inflate to and the codecs do not.
    again = encode_scalars(*DEFLATE_BATCH[:2], np.array(steps), np.array(values), np.array(walls)).scalars
    assert (list(again.tags), list(again.counts)) == (list(msg.tags), list(msg.counts))
    for column in ("steps", "values", "wall_times"):
        ours, pinned = getattr(again, column), getattr(msg, column)
        assert ours.codec == pinned.codec
        assert zlib.decompress(ours.data) == zlib.decompress(pinned.data)


def test_format_v1_golden_image():
    field, msg = _decode("image")
    assert field == "image"
    assert (msg.tag, msg.step, msg.wall_time, msg.height, msg.width, msg.channels) == (
        "samples/rgb", 0, T0 + 3.5, 2, 3, 3,
    )  # fmt: skip
    assert _pixels(msg.png) == (
        "RGB", [[[255, 0, 0], [0, 255, 0], [0, 0, 255]], [[0, 0, 0], [128, 128, 128], [255, 255, 255]]],
    )  # fmt: skip
    ((tag, event),) = KIND_BY_FIELD["image"].decode(msg, "golden", 366)
    assert (tag, event.step, event.wall_time, event.height, event.width, event.channels) == (
        "samples/rgb", 0, T0 + 3.5, 2, 3, 3,
    )  # fmt: skip
    # PNG bytes depend on the zlib build; the record around them does not.
    record = encode_image("samples/rgb", 0, T0 + 3.5, msg.png, (2, 3, 3))
    assert framing.frame(record.SerializeToString()) == _golden("image")


HISTOGRAM_VALUES = [-1.0, 0.0, 0.5, 1.0, 2.0, float("nan"), float("inf"), float("-inf"), float("inf")]


def test_format_v1_golden_histogram():
    field, msg = _decode("histogram")
    assert field == "histogram"
    assert (msg.tag, msg.step, msg.wall_time) == ("weights", 0, T0 + 3.5)
    assert msg.edges == struct.pack("<5d", -1.0, -0.25, 0.5, 1.25, 2.0)
    assert msg.counts == struct.pack("<4d", 1.0, 1.0, 2.0, 1.0)
    assert (msg.min, msg.max, msg.sum, msg.sum_squares) == (-1.0, 2.0, 2.5, 6.25)
    assert (msg.count, msg.nan_count, msg.pos_inf_count, msg.neg_inf_count) == (5, 1, 2, 1)
    ((tag, event),) = KIND_BY_FIELD["histogram"].decode(msg, "golden", 742)
    assert tag == "weights"
    assert (event.edges.tolist(), event.counts.tolist()) == ([-1.0, -0.25, 0.5, 1.25, 2.0], [1, 1, 2, 1])
    edges, counts, stats = convert.bin_histogram(np.array(HISTOGRAM_VALUES), 4)
    record = encode_histogram("weights", 0, T0 + 3.5, edges, counts, stats)
    assert framing.frame(record.SerializeToString()) == _golden("histogram")


def test_format_v1_golden_text():
    field, msg = _decode("text")
    assert field == "text"
    assert (msg.tag, msg.step, msg.wall_time, msg.text) == ("notes", 5, T0 + 42.5, "étape 5 — 训练 ✓\nline two")
    ((tag, event),) = KIND_BY_FIELD["text"].decode(msg, "golden", 1366)
    assert (tag, event.step, event.wall_time, event.text) == ("notes", 5, T0 + 42.5, "étape 5 — 训练 ✓\nline two")
    record = encode_text("notes", 5, T0 + 42.5, "étape 5 — 训练 ✓\nline two")
    assert framing.frame(record.SerializeToString()) == _golden("text")


def test_format_v1_golden_graph():
    field, msg = _decode("graph")
    assert field == "graph"
    assert (msg.name, msg.wall_time, msg.format, len(msg.data)) == ("tiny", T0 + 4, "onnx", 99)
    assert hashlib.sha256(msg.data).hexdigest() == RELU_MODEL_SHA256
    assert [n.op_type for n in onnx.load_from_string(msg.data).graph.node] == ["Relu"]
    ((tag, event),) = KIND_BY_FIELD["graph"].decode(msg, "golden", 953)
    assert (tag, event.name, event.wall_time, event.format, event.size) == ("tiny", "tiny", T0 + 4, "onnx", 99)
    record = encode_graph("tiny", T0 + 4, msg.data)
    assert framing.frame(record.SerializeToString()) == _golden("graph")


def test_format_v1_golden_records_written_again_by_todays_writer(tmp_path):
    """The deterministic records, logged again through LogWriter, come out byte for byte."""
    w = LogWriter(tmp_path, flush_secs=3600)
    w.add_scalar("train/loss", 0.5, 0, walltime=T0 + 1.0)
    w.add_scalar("special", float("nan"), 0, walltime=T0 + 1.0)
    w.add_scalar("train/loss", 0.25, 1, walltime=T0 + 2.0)
    w.add_scalar("special", float("inf"), 1, walltime=T0 + 2.0)
    w.add_scalar("train/loss", 0.1, 2, walltime=T0 + 3.25)
    w.add_scalar("special", float("-inf"), 2, walltime=T0 + 3.0)
    w.add_scalar("special", _float(NAN_WITH_PAYLOAD), 3, walltime=T0 + 3.0)
    w.add_histogram("weights", np.array(HISTOGRAM_VALUES), 0, walltime=T0 + 3.5, buckets=4)
    w.add_text("notes", "étape 5 — 训练 ✓\nline two", 5, walltime=T0 + 42.5)
    w.flush()
    for step, value in ((10, -0.0), (20, 5e-324), (30, 1.7976931348623157e308), (40, 1e-300)):
        w.add_scalar("train/loss", value, step, walltime=T0 + step)
    w.close()
    frames = _frames((tmp_path / os.path.basename(w.file_name)).read_bytes())
    # The provenance record comes from the writer's thread, at its first flush: where it
    # falls among the records depends on when that thread ran.
    kinds = [parse_record(_unframe(f)).WhichOneof("kind") for f in frames]
    assert kinds.count("provenance") == 1 and kinds[0] == "header"
    frames = [f for f, kind in zip(frames, kinds, strict=True) if kind != "provenance"]
    assert len(frames) == 7  # header, 4 records, the process's end, footer
    assert frames[1:5] == [_golden("scalars_raw"), _golden("histogram"), _golden("text"), _golden("scalars_arithmetic")]
    end = parse_record(_unframe(frames[5])).process_end
    assert (end.how, end.last_step, end.thread) == ("closed", 40, "MainThread")


def test_format_v1_golden_scalar_batch_as_the_sink_builds_it():
    """The sink's per-flush batching (tags in first-logged order) builds the golden batch."""
    from visualdl.sdk._sink import _scalar_records

    loss = (array("q", [0, 1, 2]), array("d", RAW_BATCH[3][:3]), array("d", RAW_BATCH[4][:3]))
    special = (array("q", [0, 1, 2, 3]), array("d", RAW_BATCH[3][3:]), array("d", RAW_BATCH[4][3:]))
    (record,) = _scalar_records([("train/loss", loss), ("special", special)])
    assert framing.frame(record.SerializeToString()) == _golden("scalars_raw")
