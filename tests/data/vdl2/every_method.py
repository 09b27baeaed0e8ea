# mypy: ignore-errors
"""A training script written against VisualDL 2.5.3's ``LogWriter``, calling every public
method of it but ``add_graph`` (which needs PaddlePaddle).

It is run unchanged by both writers: once by the real VisualDL 2.5.3, whose logs are kept
in ``script/`` (the venv of ``make_fixtures.py``, from this directory)::

    /tmp/vdl2-venv/bin/python every_method.py script

and by this project's ``LogWriter`` in ``tests/server/test_vdl2_script.py``, which reads both logs
back and compares them value by value. Every value is fixed (seeded, walltimes given in
milliseconds as 2.5.3 takes them), so the two runs write the same data.
"""

import sys

import matplotlib

matplotlib.use("Agg")
import numpy as np
from matplotlib import pyplot as plt

from visualdl import LogWriter

T0 = 1_700_000_500_000  # milliseconds


def main(logdir):
    rng = np.random.RandomState(2025)
    with LogWriter(logdir=logdir, file_name="vdlrecords.1700000500.log", display_name="script") as writer:
        for step in range(20):
            t = T0 + 1000 * step
            writer.add_scalar(tag="train/loss", value=1.0 / (step + 1), step=step, walltime=t)
            writer.add_scalars(
                main_tag="losses", tag_scalar_dict={"train": 0.5 + step, "val": 0.25 * step}, step=step, walltime=t
            )
        writer.add_meta(display_name="script, renamed", walltime=T0 + 20_000)
        writer.add_scalar(tag="val/accuracy", value=0.875, step=20, walltime=T0 + 20_000)

        image = (np.arange(4 * 6 * 3).reshape(4, 6, 3) * 3).astype("uint8")
        writer.add_image(tag="samples/rgb", img=image, step=0, walltime=T0)
        writer.add_image_matrix(
            tag="samples/matrix", imgs=np.stack([image, 255 - image, image // 2]), step=1, rows=2, walltime=T0
        )
        figure = plt.figure(figsize=(2, 1.5), dpi=50)
        plt.plot([0, 1, 2], [0, 1, 4])
        writer.add_figure(tag="samples/figure", figure=figure, step=2, walltime=T0)
        plt.close(figure)

        writer.add_text(tag="notes", text_string="first **note**", step=0, walltime=T0)
        writer.add_text(tag="notes", text_string="second, ünïcode", step=5, walltime=T0 + 5000)

        writer.add_histogram(tag="weights", values=rng.normal(size=1000), step=0, walltime=T0, buckets=12)
        writer.add_histogram(tag="weights", values=rng.normal(1.0, 2.0, size=1000), step=10, walltime=T0 + 10_000)

        labels = rng.randint(0, 2, size=200)
        predictions = np.clip(labels * 0.4 + rng.uniform(0, 0.6, size=200), 0, 1)
        for step in (0, 10):
            writer.add_pr_curve(
                tag="pr/classifier", labels=labels, predictions=predictions**0.5 if step else predictions,
                step=step, num_thresholds=20, walltime=T0 + 1000 * step,
            )  # fmt: skip
            writer.add_roc_curve(
                tag="roc/classifier", labels=labels, predictions=predictions, step=step, num_thresholds=15,
                weights=np.linspace(0.5, 1.5, 200), walltime=T0 + 1000 * step,
            )  # fmt: skip

        clip = (np.sin(np.arange(8000) * 2 * np.pi * 440 / 8000) * 0.5).astype("float32")
        writer.add_audio(tag="audio/tone", audio_array=clip, step=3, sample_rate=8000, walltime=T0 + 3000)

        vectors = rng.normal(size=(30, 5)).round(4).tolist()
        metadata = [[f"item {i}" for i in range(30)], ["odd" if i % 2 else "even" for i in range(30)]]
        writer.add_embeddings(
            tag="embedding/items", mat=vectors, metadata=metadata, metadata_header=["name", "parity"], walltime=T0
        )

        writer.add_hparams(
            hparams_dict={"lr": 0.001, "batch_size": 64, "optimizer": "adam"},
            metrics_list=["train/loss", "val/accuracy"],
            walltime=T0 + 21_000,
        )


if __name__ == "__main__":
    main(sys.argv[1])
