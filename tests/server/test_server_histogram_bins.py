"""/api/histograms?bins=N: torch's and tensorboardX's histograms (exponential buckets around 0)
re-binned onto even bins draw uniform values flat; without bins, the buckets as written."""

from __future__ import annotations

import math
import os
from collections.abc import Callable

import numpy as np
import pytest
from kit.apps import build_app
from kit.writers import import_torch, summary_writer

from visualdl import LogReader

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")

STEPS = (0, 10, 20)
SAMPLES = 100_000
#: Uniform values on 30 even bins: the densest bin over the sparsest, at most (measured: 1.06 to 1.07;
#: the values' own histogram on the same bins: 1.07 to 1.08).
FLAT = 1.2


@pytest.fixture(scope="module")
def uniform(tmp_path_factory) -> Callable[[str], tuple[str, list[np.ndarray]]]:
    """Factory: ``uniform(run)`` -> (the logdir, the values of each step) where run ``torch`` or
    ``tbx`` holds a histogram of 100k uniform values in (-0.1, 0.1) per step, written by that
    writer's default buckets (each run written once, when first asked for)."""
    logdir = str(tmp_path_factory.mktemp("uniform"))
    rng = np.random.default_rng(7)
    values = {run: [rng.uniform(-0.1, 0.1, SAMPLES) for _ in STEPS] for run in ("torch", "tbx")}
    written: set[str] = set()

    def write(run: str) -> tuple[str, list[np.ndarray]]:
        if run not in written:
            w = summary_writer("torch" if run == "torch" else "tensorboardX")(os.path.join(logdir, run))
            for step, v in zip(STEPS, values[run], strict=True):
                w.add_histogram("uniform", import_torch().from_numpy(v) if run == "torch" else v, step)
            w.close()
            written.add(run)
        return logdir, values[run]

    return write


#: The runs the tests draw: torch's writer is an e2e extra.
RUNS = [pytest.param("torch", marks=pytest.mark.e2e), "tbx"]


def _answer(logdir: str, run: str, **params: int) -> dict:
    query = "&".join(f"{k}={v}" for k, v in {"run": run, "tag": "uniform", **params}.items())
    response = build_app(logdir).test_client().get(f"/api/histograms?{query}")
    assert response.status_code == 200, response.get_data()[:300]
    return response.get_json()


@pytest.mark.parametrize("run", RUNS)
def test_histogram_bins_draw_uniform_values_flat(uniform, run):
    logdir, values = uniform(run)
    body = _answer(logdir, run, bins=30)
    assert body["bins"] == 30 and [e["step"] for e in body["entries"]] == list(STEPS)
    grid = np.asarray(body["entries"][0]["edges"])
    width = np.diff(grid)
    assert grid.size == 31 and np.allclose(width, width[0], rtol=1e-9)
    lowest = min(v.min() for v in values)
    highest = max(v.max() for v in values)
    assert (grid[0], grid[-1]) == pytest.approx((lowest, highest), abs=1e-7)  # torch writes float32 min and max
    for entry, v in zip(body["entries"], values, strict=True):
        assert entry["edges"] == grid.tolist()  # one grid for every step
        counts = np.asarray(entry["counts"])
        assert math.isclose(counts.sum(), SAMPLES, rel_tol=1e-12) and entry["count"] == SAMPLES
        density = counts / counts.sum() / width
        assert density.max() / density.min() < FLAT, density
        # Each bin holds about what the values themselves put there (a bucket's count taken as
        # spread evenly within it: off by the noise of where in a bucket its values fell).
        np.testing.assert_allclose(counts, np.histogram(v, grid)[0], rtol=0.05)


@pytest.mark.parametrize("run", RUNS)
def test_histogram_without_bins_answers_the_buckets_as_written(uniform, run):
    logdir, _ = uniform(run)
    body = _answer(logdir, run)
    assert body["bins"] is None
    written = LogReader(logdir).histograms(run, "uniform")
    for entry, event in zip(body["entries"], written, strict=True):
        assert entry["edges"] == event.edges.tolist() and entry["counts"] == event.counts.tolist()
    # What the bins are for: hundreds of buckets as written, down to 1e-7 wide and less near 0,
    # their densities a spike at 0 (the values' is 5 everywhere) and empty buckets beside it.
    entry = body["entries"][-1]
    width, counts = np.diff(entry["edges"]), np.asarray(entry["counts"])
    density = counts / counts.sum() / width
    assert counts.size > 300 and width.min() < 1e-7
    assert density.max() > 20 * 5 and (counts == 0).sum() > 100


def test_histogram_bins_out_of_range_are_refused(uniform):
    logdir, _ = uniform("tbx")  # the bins are checked alike for either writer's run
    client = build_app(logdir).test_client()
    for bad in ("0", "1001", "x"):
        response = client.get(f"/api/histograms?run=tbx&tag=uniform&bins={bad}")
        assert response.status_code == 400 and "'bins'" in response.get_json()["error"]
