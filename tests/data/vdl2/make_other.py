# mypy: ignore-errors
# (``visualdl`` here is PaddlePaddle's VisualDL 2.5.3, not this repository's package.)
"""Generate ``other.json``: the PR curves, ROC curves, audio, embeddings and hparams of
``logdir/other/vdlrecords.1700000200.log`` as VisualDL 2.5.3 itself reads them.

``expected.json`` holds only the inputs of those calls; this script reads the committed
file with 2.5.3's own ``record_pb2`` (framing: an 8-byte little-endian length, then the
record) and dumps what each record stores, to compare this project's reader with, value
for value. Run once, from this directory, in the virtual environment of
``make_fixtures.py`` (its docstring gives the commands and versions)::

    cd tests/data/vdl2 && /tmp/vdl2-venv/bin/python make_other.py

The script refuses to overwrite ``other.json``.
"""

import base64
import json
import os
import struct
import sys

from visualdl import __version__
from visualdl.proto.record_pb2 import Record

HERE = os.path.dirname(os.path.abspath(__file__))
LOG = os.path.join(HERE, "logdir", "other", "vdlrecords.1700000200.log")
OUT = os.path.join(HERE, "other.json")


def _info(info):
    return {"name": info.name, "type": info.WhichOneof("type"), "value": getattr(info, info.WhichOneof("type"))}


def main():
    if os.path.exists(OUT):
        sys.exit(f"{OUT} exists: the fixture is generated once and kept")
    with open(LOG, "rb") as f:
        data = f.read()
    records = []
    pos = 0
    while pos < len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        (value,) = Record.FromString(data[pos + 8 : pos + 8 + length]).values
        kind = value.WhichOneof("one_value")
        out = {"offset": pos, "kind": kind, "tag": value.tag, "step": value.id, "timestamp": value.timestamp}
        if kind == "pr_curve":
            c = value.pr_curve
            out.update(tp=list(c.TP), fp=list(c.FP), tn=list(c.TN), fn=list(c.FN), precision=list(c.precision),
                       recall=list(c.recall))  # fmt: skip
        elif kind == "roc_curve":
            c = value.roc_curve
            out.update(tp=list(c.TP), fp=list(c.FP), tn=list(c.TN), fn=list(c.FN), tpr=list(c.tpr), fpr=list(c.fpr))
        elif kind == "audio":
            a = value.audio
            wav = base64.b64encode(a.encoded_audio_string).decode()
            out.update(sample_rate=a.sample_rate, num_channels=a.num_channels, length_frames=a.length_frames,
                       content_type=a.content_type, wav_base64=wav)  # fmt: skip
        elif kind == "embeddings":
            e = value.embeddings
            out.update(label_meta=list(e.label_meta), labels=[list(x.label) for x in e.embeddings],
                       vectors=[list(x.vectors) for x in e.embeddings])  # fmt: skip
        elif kind == "hparam":
            h = value.hparam
            out.update(name=h.name, hparams=[_info(i) for i in h.hparamInfos],
                       metrics=[_info(i) for i in h.metricInfos])  # fmt: skip
        else:
            pos += 8 + length
            continue
        records.append(out)
        pos += 8 + length
    with open(OUT, "w") as f:
        head = {"visualdl_version": __version__, "file": os.path.relpath(LOG, HERE)}
        json.dump({**head, "records": records}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
