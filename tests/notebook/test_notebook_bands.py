"""The notebook's job figure draws the web UI's bands: min-max, p5-p95, p25-p75, the dashed median,
and a hover naming the rank at each extreme with the steps it holds it over."""

from __future__ import annotations

import numpy as np

from visualdl import LogWriter, notebook
from visualdl._index.aggregate import QUANTILES


def _values(rank: int) -> np.ndarray:
    # rank 4 holds the maximum over steps 0-19, rank 3 over steps 20-39; rank 0 the minimum
    v = np.full(40, float(rank))
    if rank == 4:
        v[20:] = 2.5
    return v


def _trace(fig, name):
    (trace,) = [t for t in fig.data if t.name == name]
    return trace


def test_notebook_job_figure_draws_the_quantile_bands_and_names_the_extreme_ranks(tmp_path):
    for rank in range(5):
        with LogWriter(tmp_path / "job", rank=rank, world_size=5, role="trainer") as w:
            for step, value in enumerate(_values(rank)):
                w.add_scalar("loss", float(value), step)
    fig = notebook.scalars(tmp_path, tags=["loss"], runs="job", smoothing=0)
    matrix = np.stack([_values(rank) for rank in range(5)])
    want = np.quantile(matrix, QUANTILES, axis=0)
    for row, name in ((0, "p5-p95 low"), (4, "p5-p95"), (1, "p25-p75 low"), (3, "p25-p75"), (2, "median")):
        np.testing.assert_allclose(_trace(fig, f"job {name}").y, want[row], err_msg=name)
    assert _trace(fig, "job median").line.dash == "dash"
    assert _trace(fig, "job p5-p95").fill == "tonexty" and _trace(fig, "job p25-p75").fill == "tonexty"
    band = _trace(fig, "job band")
    np.testing.assert_array_equal(band.y, matrix.max(axis=0))
    assert band.customdata[5] == "min: rank 0 over steps 0\u201339 · max: rank 4 over steps 0\u201319"
    assert band.customdata[30] == "min: rank 0 over steps 0\u201339 · max: rank 3 over steps 20\u201339"
    assert "%{customdata}" in band.hovertemplate
