"""notebook.histograms draws what the web UI draws: torch's histograms (exponential buckets
around 0) re-binned onto the same even bins as /api/histograms?bins=30, uniform values flat."""

from __future__ import annotations

import math

import numpy as np
import pytest
from kit.writers import import_torch, torch_writer

from visualdl import notebook

pytestmark = [
    pytest.mark.e2e,  # torch's writer (torch: an e2e extra)
    pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning"),
]

STEPS = (0, 10, 20)


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("uniform")
    rng = np.random.default_rng(11)
    torch = import_torch()
    w = torch_writer()(str(logdir / "torch"))
    for step in STEPS:
        w.add_histogram("uniform", torch.from_numpy(rng.uniform(-0.1, 0.1, 100_000)), step)
    w.close()
    return logdir


@pytest.mark.parametrize("mode", ["overlay", "offset"])
def test_notebook_histograms_draw_the_web_uis_bins(logs, make_app, mode):
    entries = make_app(logs).test_client().get("/api/histograms?run=torch&tag=uniform&bins=30").get_json()["entries"]
    fig = notebook.histograms(logs, "uniform", mode=mode)
    drawn = [t for t in fig.data if t.name]  # offset mode: each step's fill also has an unnamed base line
    assert [t.name for t in drawn] == [f"step {s}" for s in STEPS]
    for trace, entry in zip(drawn, entries, strict=True):
        counts = np.asarray(trace.customdata if mode == "offset" else trace.y)
        np.testing.assert_array_equal(counts, entry["counts"])  # the same numbers as the web UI's
        edges = np.asarray(entry["edges"])
        np.testing.assert_allclose(trace.x, (edges[:-1] + edges[1:]) / 2)
        assert counts.size == 30 and math.isclose(counts.sum(), 100_000, rel_tol=1e-12)
        assert counts.max() / counts.min() < 1.2  # even bins: counts are densities, flat


def test_notebook_histograms_bins_none_draws_the_buckets_as_written(logs):
    (trace,) = notebook.histograms(logs, "uniform", mode="overlay", bins=None, max_entries=1).data
    assert len(trace.y) > 300 and min(trace.y) == 0  # hundreds of buckets, empty ones near 0
