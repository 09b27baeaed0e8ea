# mypy: ignore-errors
# (``visualdl`` here is PaddlePaddle's VisualDL 2.5.3, not this repository's package.)
"""Generate the VisualDL 2.5.3 log fixtures in ``logdir/`` and ``expected.json``.

This script must be run with the *real* VisualDL 2.5.3 writer, which cannot be
installed next to this project (both use the import name ``visualdl``).  It
was run once, from this directory, in a separate virtual environment outside
the repository::

    python3 -m venv /tmp/vdl2-venv
    /tmp/vdl2-venv/bin/pip install visualdl==2.5.3 "numpy<1.24" protobuf==3.20.3
    cd tests/data/vdl2 && /tmp/vdl2-venv/bin/python make_fixtures.py

Versions used for the committed files: Python 3.11.7, visualdl 2.5.3,
protobuf 3.20.3 (pure-Python implementation), numpy 1.23.5, Pillow 13.0.0,
no OpenCV installed (so images are PNG-encoded by Pillow).  numpy is kept
below 1.24 because the 2.5.3 PR/ROC curve code calls ``np.float``, which
numpy 1.24 removed.

``expected.json`` is built from the values this script passed to the writer
(and, for histograms, from the same ``numpy.histogram`` call the writer
makes), never by reading the log files back.  The only values taken from the
file system are file sizes and record end offsets, read with
``os.path.getsize`` after ``LogWriter.flush()``.

The script refuses to run when ``logdir/`` or ``expected.json`` already exist:
the fixtures are generated once and then kept as they are.
"""

import hashlib
import json
import math
import os
import platform
import random
import struct
import sys
import tempfile
import time

import google.protobuf
import numpy as np
import PIL
from google.protobuf.internal import api_implementation

import visualdl
from visualdl import LogWriter

HERE = os.path.dirname(os.path.abspath(__file__))
LOGDIR = "logdir"  # relative on purpose: hparam names are md5(file path)
EXPECTED = "expected.json"

T0 = 1700000000000  # fixed base walltime, in milliseconds


def jfloat(x):
    """A float for JSON: NaN and infinities as strings."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def f32(x):
    """The value a proto3 ``float`` field holds (IEEE binary32), as a double."""
    return float(np.float32(float(x)))


def sha256(b):
    return hashlib.sha256(b).hexdigest()


class Recorder:
    """Keeps, for one log file, the ordered list of what was passed in."""

    def __init__(self, run, writer, t_before, t_after, display_name):
        self.run = run
        self.writer = writer
        self.file = os.path.basename(writer.file_name)
        self.records = [
            {
                "kind": "meta_data",
                "tag": "meta_data_tag",
                "step": 0,
                # LogWriter.__init__ writes this record with walltime=now; it
                # cannot be fixed through the API, so only bounds are known.
                "walltime_ms_min": t_before,
                "walltime_ms_max": t_after,
                "display_name": display_name,
            }
        ]

    def add(self, rec):
        self.records.append(rec)


def open_writer(run, file_name, display_name=""):
    logdir = os.path.join(LOGDIR, run)
    t_before = math.floor(time.time() * 1000)
    w = LogWriter(logdir=logdir, file_name=file_name, display_name=display_name)
    t_after = math.ceil(time.time() * 1000)
    return Recorder(run, w, t_before, t_after, display_name)


def scalar(r, tag, value, step, walltime):
    r.writer.add_scalar(tag=tag, value=value, step=step, walltime=walltime)
    r.add(
        {
            "kind": "value",
            "tag": tag,
            "step": step,
            "walltime_ms": walltime,
            "value_passed": jfloat(value),
            "value": jfloat(f32(value)),
        }
    )


def scalars(r, main_tag, d, step, walltime):
    r.writer.add_scalars(main_tag=main_tag, tag_scalar_dict=d, step=step, walltime=walltime)
    # one record per sub-tag, in dict order
    for sub, v in d.items():
        r.add(
            {
                "kind": "tag_value",
                "tag": main_tag,
                "sub_tag": sub,
                "step": step,
                "walltime_ms": walltime,
                "value_passed": jfloat(v),
                "value": jfloat(f32(v)),
            }
        )


def as_hwc_rgb(arr, dataformats):
    """The pixel array VisualDL 2.5.3 hands to the PNG encoder, for the
    uint8 inputs used here (HWC with 3 channels, or HW gray)."""
    if dataformats == "HWC":
        return arr
    if dataformats == "HW":
        return np.stack([arr, arr, arr], 2)
    raise ValueError(dataformats)


def image(r, tag, arr, step, walltime, dataformats):
    assert arr.dtype == np.uint8 and arr.max() > 1
    passed = {
        "shape": list(arr.shape),
        "dtype": "uint8",
        "dataformats": dataformats,
        "sha256_passed_bytes": sha256(arr.tobytes(order="C")),
    }
    hwc = as_hwc_rgb(arr, dataformats)
    r.writer.add_image(tag=tag, img=arr.copy(), step=step, walltime=walltime, dataformats=dataformats)
    r.add(
        {
            "kind": "image",
            "tag": tag,
            "step": step,
            "walltime_ms": walltime,
            **passed,
            "png_shape": list(hwc.shape),
            "png_mode": "RGB",
            "sha256_png_pixels": sha256(np.ascontiguousarray(hwc).tobytes()),
            "pixels_hwc": hwc.tolist(),
        }
    )


def histogram(r, tag, values, step, walltime, buckets):
    r.writer.add_histogram(tag=tag, values=values, step=step, walltime=walltime, buckets=buckets)
    hist, edges = np.histogram(values, bins=buckets)
    r.add(
        {
            "kind": "histogram",
            "tag": tag,
            "step": step,
            "walltime_ms": walltime,
            "buckets": buckets,
            "values_passed": [jfloat(v) for v in values],
            "hist": [float(h) for h in hist],
            "bin_edges": [jfloat(e) for e in edges],
        }
    )


def text(r, tag, s, step, walltime):
    if step is None:
        r.writer.add_text(tag=tag, text_string=s, walltime=walltime)
    else:
        r.writer.add_text(tag=tag, text_string=s, step=step, walltime=walltime)
    r.add(
        {
            "kind": "text",
            "tag": tag,
            "step": 0 if step is None else step,
            "step_passed": step,
            "walltime_ms": walltime,
            "text": s,
        }
    )


def finish(r, out):
    r.writer.close()
    path = os.path.join(LOGDIR, r.run, r.file)
    entry = {"size": os.path.getsize(path), "records": r.records}
    out.setdefault(r.run, {}).setdefault("files", {})[r.file] = entry
    return entry


def summarize(files):
    """Per tag and kind, in file order, for each file."""
    for entry in files.values():
        tags = {}
        counts = {}
        for rec in entry["records"]:
            counts[rec["kind"]] = counts.get(rec["kind"], 0) + 1
            key = rec["tag"]
            if rec["kind"] == "tag_value":
                key = rec["tag"] + "\u0000" + rec["sub_tag"]
            t = tags.setdefault(key, {"tag": rec["tag"], "kind": rec["kind"], "steps": [], "walltimes_ms": []})
            if rec["kind"] == "tag_value":
                t["sub_tag"] = rec["sub_tag"]
            assert t["kind"] == rec["kind"], (key, rec["kind"])
            t["steps"].append(rec["step"])
            t["walltimes_ms"].append(rec.get("walltime_ms"))
            if rec["kind"] in ("value", "tag_value"):
                t.setdefault("values", []).append(rec["value"])
        entry["counts"] = counts
        entry["tags"] = list(tags.values())


def run_scalars(out):
    r = open_writer("scalars", "vdlrecords.1700000000.log", display_name="baseline \u03b1")
    w = T0
    # ordinary curves, tags with '/'
    for i in range(6):
        w += 1000
        scalar(r, "train/loss", 2.0 / (i + 1), i, w)
        scalar(r, "train/acc", i / 10.0, i, w)
    # gapped steps, one at 2**40 (long varint)
    for step, v in [(10, 0.25), (100, 0.125), (1000, 1 / 3), (2**40, 0.1)]:
        w += 1000
        scalar(r, "train/loss", v, step, w)
    # special values
    for i, v in enumerate([float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1e-45, 3.4028234663852886e38, -1.5]):
        w += 1000
        scalar(r, "eval/special values", v, i, w)
    # unicode tag, several '/' levels
    for i in range(3):
        w += 1000
        scalar(r, "m\u00e9trique/\u635f\u5931/\u00e9tape", 10.0 + i, i, w)
    # negative step and a repeated step (as written by a restarted job)
    w += 1000
    scalar(r, "odd/steps", 1.0, -1, w)
    for step, v in [(0, 2.0), (1, 3.0), (1, 4.0), (2, 5.0)]:
        w += 1000
        scalar(r, "odd/steps", v, step, w)
    # a tag without any '/'
    for i in range(3):
        w += 1000
        scalar(r, "lr", 0.1 * (0.5**i), i * 100, w)
    # add_scalars: main_tag + dict of sub-tags
    for i in range(4):
        w += 1000
        d = {"train": 1.0 / (i + 1), "val": 1.5 / (i + 1)}
        if i == 2:
            d["val"] = float("nan")
        scalars(r, "losses/group", d, i, w)
    w += 1000
    scalars(r, "single", {"only": 7.0}, 0, w)
    return finish(r, out)


def run_kinds(out):
    r = open_writer("kinds", "vdlrecords.1700000100.log")
    w = T0 + 100000
    for step in range(3):
        w += 1000
        rgb = ((np.arange(4 * 6 * 3, dtype=np.int64) * 37 + step * 11 + 5) % 256).astype(np.uint8).reshape(4, 6, 3)
        image(r, "samples/rgb", rgb, step, w, "HWC")
        gray = ((np.arange(5 * 3, dtype=np.int64) * 17 + step * 50 + 3) % 256).astype(np.uint8).reshape(5, 3)
        image(r, "samples/gray", gray, step, w, "HW")
    for step in range(3):
        w += 1000
        vals = [math.sin(k * 0.7 + step) * (1 + step) for k in range(20)]
        histogram(r, "weights/w1", vals, step, w, buckets=5)
    for step in range(2):
        w += 1000
        vals = [float(k * k - 30 + step) for k in range(12)]
        histogram(r, "weights/default buckets", vals, step, w, buckets=10)
    w += 1000
    histogram(r, "weights/constant", [2.0] * 6, 0, w, buckets=4)
    texts = ["plain text", "**markdown** and `code`\nsecond line", "unicode: \u00e9\u00e8 \u6e2c\u8a66 \U0001f600", ""]
    for step, s in enumerate(texts):
        w += 1000
        text(r, "notes/log", s, step, w)
    w += 1000
    text(r, "notes/no step", "written without a step", None, w)
    return finish(r, out)


def run_other(out):
    r = open_writer("other", "vdlrecords.1700000200.log", display_name="other")
    wr = r.writer
    w = T0 + 200000
    labels = [1, 0, 1, 1, 0, 0, 1, 0, 1, 0]
    preds = [0.9, 0.1, 0.8, 0.35, 0.6, 0.2, 0.7, 0.4, 0.55, 0.05]
    for step in range(2):
        w += 1000
        wr.add_pr_curve(
            tag="curves/pr",
            labels=np.array(labels),
            predictions=np.array(preds),
            step=step,
            num_thresholds=5,
            walltime=w,
        )
        r.add(
            {
                "kind": "pr_curve",
                "tag": "curves/pr",
                "step": step,
                "walltime_ms": w,
                "num_thresholds": 5,
                "labels": labels,
                "predictions": preds,
            }
        )
        w += 1000
        wr.add_roc_curve(
            tag="curves/roc",
            labels=np.array(labels),
            predictions=np.array(preds),
            step=step,
            num_thresholds=5,
            walltime=w,
        )
        r.add(
            {
                "kind": "roc_curve",
                "tag": "curves/roc",
                "step": step,
                "walltime_ms": w,
                "num_thresholds": 5,
                "labels": labels,
                "predictions": preds,
            }
        )
    w += 1000
    samples = [round(0.5 * math.sin(2 * math.pi * 440 * k / 8000), 6) for k in range(80)]
    wr.add_audio(tag="audio/sine", audio_array=np.array(samples), step=0, sample_rate=8000, walltime=w)
    r.add(
        {
            "kind": "audio",
            "tag": "audio/sine",
            "step": 0,
            "walltime_ms": w,
            "sample_rate": 8000,
            "length_frames": 80,
            "num_channels": 1,
            "content_type": "audio/wav",
            "samples_passed": samples,
        }
    )
    w += 1000
    mat = [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9], [1.0, 1.1, 1.2]]
    meta = ["a", "b", "c", "d"]
    wr.add_embeddings(tag="emb", mat=mat, metadata=meta, walltime=w)
    r.add({"kind": "embeddings", "tag": "emb", "step": 0, "walltime_ms": w, "mat": mat, "metadata": meta})
    w += 1000
    hp = {"lr": 0.1, "bsize": 32, "opt": "sgd"}
    wr.add_hparams(hparams_dict=hp, metrics_list=["other/metric"], walltime=w)
    fname = os.path.join(LOGDIR, "other", r.file)
    r.add(
        {
            "kind": "hparam",
            "tag": "hparam",
            "step": 1,
            "walltime_ms": w,
            "hparams": hp,
            "metrics": ["other/metric"],
            "name": hashlib.md5(wr.file_name.encode("utf8")).hexdigest(),
            "name_is_md5_of": wr.file_name,
        }
    )
    assert wr.file_name == fname
    for i in range(3):
        w += 1000
        scalar(r, "other/metric", 0.5 + i / 10, i, w)
    # an explicit second meta record in the middle of the file
    w += 1000
    wr.add_meta(display_name="other (renamed)", step=0, walltime=w)
    r.add({"kind": "meta_data", "tag": "meta_data_tag", "step": 0, "walltime_ms": w, "display_name": "other (renamed)"})
    return finish(r, out)


def run_multi(out):
    # two writers open at once on the same directory (e.g. two ranks, or a
    # resumed job): two files; steps 0-4 in the first, 5-9 in the second
    a = open_writer("multi", "vdlrecords.1700000300.log", display_name="rank0")
    b = open_writer("multi", "vdlrecords.1700000360.log", display_name="rank1")
    w = T0 + 300000
    for i in range(5):
        w += 1000
        scalar(a, "loss", 1.0 / (i + 1), i, w)
        scalar(b, "loss", 1.0 / (i + 6), i + 5, w + 500)
        scalar(a, "only/a", float(i), i, w)
        scalar(b, "only/b", float(-i), i, w + 500)
    finish(a, out)
    finish(b, out)


def run_torn(out, tmp):
    # the source file is written in a temporary directory; only damaged
    # copies go into the fixture.  Record boundaries come from the file size
    # after each LogWriter.flush().
    src_dir = os.path.join(tmp, "torn-src")
    os.makedirs(src_dir)
    name = "vdlrecords.1700000400.log"
    t_before = math.floor(time.time() * 1000)
    w_ = LogWriter(logdir=src_dir, file_name=name, display_name="torn")
    t_after = math.ceil(time.time() * 1000)
    w_.flush()
    path = os.path.join(src_dir, name)
    ends = [os.path.getsize(path)]  # end of the meta record
    r = Recorder("torn", w_, t_before, t_after, "torn")
    w = T0 + 400000
    for i in range(6):
        w += 1000
        scalar(r, "torn/loss", 1.0 / (i + 1), i, w)
        w_.flush()
        ends.append(os.path.getsize(path))
    w_.close()
    data = open(path, "rb").read()
    assert len(data) == ends[-1]
    last_start = ends[-2]
    last_len = struct.unpack("<Q", data[last_start : last_start + 8])[0]
    assert last_start + 8 + last_len == ends[-1]

    os.makedirs(os.path.join(LOGDIR, "torn"))
    rng = random.Random(20231114)
    garbage = bytes(rng.getrandbits(8) for _ in range(100))
    variants = [
        # (file name, bytes, description)
        (
            "vdlrecords.1700000401.log",
            data[: last_start + 8 + last_len // 2],
            "cut in the middle of the last record's data",
        ),
        ("vdlrecords.1700000402.log", data[: last_start + 3], "cut inside the 8-byte length prefix of the last record"),
        ("vdlrecords.1700000403.log", data + garbage, "complete file followed by 100 garbage bytes"),
    ]
    files = out.setdefault("torn", {}).setdefault("files", {})
    for fname, blob, desc in variants:
        with open(os.path.join(LOGDIR, "torn", fname), "xb") as fp:
            fp.write(blob)
        complete = len(r.records) if len(blob) >= len(data) else len(r.records) - 1
        files[fname] = {
            "size": len(blob),
            "damage": desc,
            "copied_from": f"{name} (not kept; {len(data)} bytes)",
            "record_ends": ends[:complete],
            "last_complete_record_end": ends[complete - 1],
            "complete_records": complete,
            "records": r.records[:complete],
        }
        if blob.endswith(garbage):
            files[fname]["garbage_hex"] = garbage.hex()
            files[fname]["garbage_first8_as_le_u64"] = struct.unpack("<Q", garbage[:8])[0]
        else:
            files[fname]["lost_record"] = r.records[complete]


def main():
    os.chdir(HERE)
    if os.path.exists(LOGDIR) or os.path.exists(EXPECTED):
        sys.exit(f"refusing to overwrite: {LOGDIR} or {EXPECTED} already exists")
    assert visualdl.__version__ == "2.5.3", visualdl.__version__
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        run_scalars(out)
        run_kinds(out)
        run_other(out)
        run_multi(out)
        run_torn(out, tmp)
    for run in out.values():
        summarize(run["files"])
    doc = {
        "generated_by": "make_fixtures.py",
        "versions": {
            "python": platform.python_version(),
            "visualdl": visualdl.__version__,
            "protobuf": google.protobuf.__version__,
            "protobuf_implementation": api_implementation.Type(),
            "numpy": np.__version__,
            "pillow": PIL.__version__,
        },
        "notes": [
            "Paths are relative to logdir/. Records are listed in file order.",
            "kind is the name of the Record.Value one_value field set.",
            "value is what the float32 proto field holds (as a double); "
            "value_passed is the Python float given to the writer.",
            "walltime_ms is the int64 timestamp field, milliseconds.",
            "Tags are stored exactly as passed, '/' included.",
            "hist/bin_edges are numpy.histogram(values, bins=buckets), the "
            "call VisualDL 2.5.3 makes; counts are stored as doubles.",
            "Each file starts with a meta_data record written by the "
            "LogWriter constructor with the current time; only bounds of "
            "its walltime are known.",
            "Images: the PNG holds png_shape RGB pixels (gray HW input is "
            "replicated to 3 channels); sha256_png_pixels is over those "
            "pixel bytes in row-major HWC order.",
            "torn/: damaged copies of one file; a record ends at each record_ends offset.",
        ],
        "runs": out,
    }
    with open(EXPECTED, "x", encoding="utf-8") as fp:
        json.dump(doc, fp, indent=1, ensure_ascii=False, allow_nan=False)
        fp.write("\n")


if __name__ == "__main__":
    main()
