"""The answer of ``/api/job/heatmap``: a rank x time matrix of a job
(:mod:`visualdl._jobs.heatmap`) as bytes.

The matrix travels as bytes, not as floats: each value quantised to 0..254 over the
matrix's finite ``[min, max]`` (255: no value), base64 in the JSON, so 10,000 ranks x 239
cells are 2.4 MB before gzip, and the page draws them on one canvas.
"""

from __future__ import annotations

import base64
import time
from typing import Any

import numpy as np

from visualdl._jobs.heatmap import METRICS, HeatmapMatrix, JobData

__all__ = ["MISSING", "heatmap_answer", "job_heatmap", "quantised"]

#: The byte of a cell without a value; values are quantised to 0..254.
MISSING = 255


def quantised(matrix: np.ndarray) -> tuple[np.ndarray, float | None, float | None]:
    """``matrix`` as bytes 0..254 over its finite ``[min, max]`` (255: no finite value), and the two."""
    finite = np.isfinite(matrix)
    if not finite.any():
        return np.full(matrix.shape, MISSING, np.uint8), None, None
    low = float(matrix[finite].min())
    high = float(matrix[finite].max())
    scale = (MISSING - 1) / (high - low) if high > low else 0.0
    with np.errstate(invalid="ignore"):
        levels = np.rint((np.where(finite, matrix, low) - low) * scale)
    out = np.where(finite, levels, MISSING).astype(np.uint8)
    return out, low, high


def heatmap_answer(run: str, metric: str, heat: HeatmapMatrix) -> dict[str, Any]:
    """The answer of ``/api/job/heatmap``: the rows, the grid, the quantised matrix and the overlays."""
    levels, low, high = quantised(heat.matrix)
    return {
        "run": run,
        "role": heat.role,
        "metric": metric,
        "unit": heat.unit,
        "rows": heat.rows,
        "times": heat.times,
        "columns": int(heat.matrix.shape[1]) if heat.matrix.ndim == 2 else 0,
        "min": low,
        "max": high,
        "values": base64.b64encode(np.ascontiguousarray(levels).tobytes()).decode("ascii"),
        "overlays": {
            "row": heat.overlays.row,
            "time": heat.overlays.time,
            "kind": heat.overlays.kind,
            "text": heat.overlays.text,
        },
    }


def job_heatmap(source: JobData, *, run: str, role: str | None, metric: str) -> dict[str, Any]:
    """The heatmap of ``metric`` over the ranks of ``role`` (None: the first role, trainers first) of ``run``."""
    return heatmap_answer(run, metric, METRICS[metric](source, run, role, time.time()))
