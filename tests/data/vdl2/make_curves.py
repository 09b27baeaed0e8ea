# mypy: ignore-errors
# (``visualdl`` here is PaddlePaddle's VisualDL 2.5.3, not this repository's package.)
"""Generate ``curves.json``: what VisualDL 2.5.3 stores for PR curves, ROC curves and
audio clips of fixed inputs, to compare this project's writer with, number for number.

Run once, from this directory, in the virtual environment of ``make_fixtures.py`` (its
docstring gives the commands and versions)::

    cd tests/data/vdl2 && /tmp/vdl2-venv/bin/python make_curves.py

The values come from the record builders that ``LogWriter.add_pr_curve``,
``add_roc_curve`` and ``add_audio`` of 2.5.3 call (``visualdl.component.base_component``),
with the arguments those methods pass them. The script refuses to overwrite
``curves.json``.
"""

import base64
import json
import math
import os
import sys

import numpy as np

from visualdl import __version__
from visualdl.component.base_component import audio, pr_curve, roc_curve

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "curves.json")

# Predictions on and next to thresholds, 0 and 1 exactly, labels of both kinds.
PREDICTIONS = [0.0, 1.0, 0.5, 1 / 3, 2 / 3, 0.05, 0.95, 0.11, 0.111111, 0.2222222222222222, 0.49, 0.51,
               0.7, 0.3, 0.9, 0.1, 0.8, 0.6, 0.4, 0.99999]  # fmt: skip
LABELS = [0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 0, 1]
CASES = [
    {"name": "default", "num_thresholds": 10, "weights": None},
    {"name": "capped_weighted", "num_thresholds": 200, "weights": 2.0},
    {"name": "three_per_example", "num_thresholds": 3, "weights": [float(1 + i % 3) for i in range(20)]},
]


def main():
    if os.path.exists(OUT):
        sys.exit(f"{OUT} exists: the fixture is generated once and kept")
    out = {"visualdl_version": __version__, "numpy_version": np.__version__, "labels": LABELS,
           "predictions": PREDICTIONS, "cases": []}  # fmt: skip
    for case in CASES:
        weights = None if case["weights"] is None else np.array(case["weights"])
        args = dict(tag="c", labels=np.array(LABELS), predictions=np.array(PREDICTIONS), step=0, walltime=0,
                    num_thresholds=case["num_thresholds"], weights=weights)  # fmt: skip
        pr = pr_curve(**args).values[0].pr_curve
        roc = roc_curve(**args).values[0].roc_curve
        out["cases"].append({
            **case,
            "pr": {"tp": list(pr.TP), "fp": list(pr.FP), "tn": list(pr.TN), "fn": list(pr.FN),
                   "precision": list(pr.precision), "recall": list(pr.recall)},
            "roc": {"tp": list(roc.TP), "fp": list(roc.FP), "tn": list(roc.TN), "fn": list(roc.FN),
                    "tpr": list(roc.tpr), "fpr": list(roc.fpr)},
        })  # fmt: skip
    clip = [math.sin(i / 3) * 0.9 for i in range(50)] + [1.0, -1.0, 0.5, -0.5, 1 / 3, -1 / 3]
    value = audio(tag="a", audio_array=np.array(clip), sample_rate=16000, step=0, walltime=0).values[0].audio
    out["audio"] = {"samples": clip, "sample_rate": 16000, "length_frames": value.length_frames,
                    "wav_base64": base64.b64encode(value.encoded_audio_string).decode()}  # fmt: skip
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
