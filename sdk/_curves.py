"""PR and ROC curves as LogWriter takes them: labels and predictions checked on the
caller's thread, binned per threshold on the writer's thread.

The binning is VisualDL 2's (and TensorBoard's): with ``n`` thresholds, a prediction
``p`` falls in bucket ``floor(p * (n - 1))``; the counts at threshold ``i`` (``i / (n - 1)``)
are those of the buckets ``>= i``, so a prediction at or above the threshold is a
positive. ``weights`` multiply each element's count. A soft label ``y`` in [0, 1] (label
smoothing, averaged annotations) counts ``y`` of a positive and ``1 - y`` of a negative, as
torch's writer counts it. Precision is ``tp / max(tp + fp,
1e-7)``, recall ``tp / max(tp + fn, 1e-7)``, for PR curves; for ROC curves, the true
positive rate is ``tp / max(tp + fn, 1e-7)`` and the false positive rate ``fp / max(fp +
tn, 1e-7)`` (VisualDL 2.5 divides the true positives by ``tn + fp``: its TPR is not one).
Counts are kept as floats, fractional weights too (VisualDL 2 truncates them).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from visualdl.sdk._convert import describe, number_array

__all__ = ["MAX_THRESHOLDS", "Curve", "bin_pr_curve", "bin_roc_curve", "check_curve", "torch_predictions"]

#: VisualDL 2 draws at most this many thresholds; more are taken as this many.
MAX_THRESHOLDS = 127
_MINIMUM_COUNT = 1e-7

#: labels (float64 in [0, 1]), predictions (float64 in [0, 1]; any floats for torch's buckets), thresholds,
#: weights (a float or an array)
Curve = tuple[np.ndarray, np.ndarray, int, "float | np.ndarray"]


def _numbers(value: Any, name: str) -> np.ndarray:
    return np.array(number_array(value, name), dtype=np.float64).reshape(-1)


def check_curve(
    labels: Any, predictions: Any, num_thresholds: Any, weights: Any, *, torch_buckets: bool = False
) -> Curve:
    """Owned float64 copies of ``labels`` (in [0, 1]: 0 or 1, bools, or soft labels) and ``predictions`` (in
    [0, 1]) of the same size, the number of thresholds (2 to :data:`MAX_THRESHOLDS`;
    more are taken as that many, as VisualDL 2 does) and the weights (None: 1.0; a
    non-negative number, or one per element).

    ``torch_buckets``: predictions as torch's writer takes them, any numbers, kept in the
    float dtype its arithmetic places them in buckets with (:func:`torch_predictions`);
    those outside every bucket are left out of the counts when binned."""
    if (
        isinstance(num_thresholds, bool | np.bool_)
        or not isinstance(num_thresholds, numbers.Integral)
        or int(num_thresholds) < 2
    ):
        raise ValueError(f"num_thresholds must be an integer of at least 2; got {describe(num_thresholds)}")
    thresholds = min(int(num_thresholds), MAX_THRESHOLDS)
    label_values = _numbers(labels, "labels")
    prediction_values = torch_predictions(predictions) if torch_buckets else _numbers(predictions, "predictions")
    if label_values.size != prediction_values.size:
        raise ValueError(
            f"labels and predictions must have one element each per example; got {label_values.size} labels "
            f"and {prediction_values.size} predictions"
        )
    if label_values.size == 0:
        raise ValueError("labels and predictions must not be empty")
    outside = ~((label_values >= 0.0) & (label_values <= 1.0))  # NaN too
    if outside.any():
        bad = float(label_values[outside][0])
        raise ValueError(f"labels must be in [0, 1] (0 or 1, bools, or soft labels); got {bad!r}")
    if not torch_buckets and not ((prediction_values >= 0.0) & (prediction_values <= 1.0)).all():  # NaN too
        bad = float(prediction_values[~((prediction_values >= 0.0) & (prediction_values <= 1.0))][0])
        raise ValueError(f"predictions must be probabilities in [0, 1]; got {bad!r} (apply a sigmoid or softmax first)")
    weight: float | np.ndarray
    if weights is None:
        weight = 1.0
    elif isinstance(weights, bool | np.bool_):
        raise TypeError(f"weights must be a number, or one per example; got {weights!r}")
    elif isinstance(weights, numbers.Real):
        weight = float(weights)
        if not (np.isfinite(weight) and weight >= 0):
            raise ValueError(f"weights must be a finite, non-negative number; got {weights!r}")
    else:
        weight = _numbers(weights, "weights")
        if weight.size != label_values.size:
            raise ValueError(
                f"weights must be one number, or one per example; got {weight.size} weights "
                f"for {label_values.size} examples"
            )
        if not (np.isfinite(weight).all() and (weight >= 0).all()):
            raise ValueError("weights must be finite and non-negative")
    return label_values, prediction_values, thresholds, weight


def torch_predictions(predictions: Any) -> np.ndarray:
    """A flat copy of ``predictions`` in the dtype torch's writer computes their buckets in:
    their own float dtype (float16 for bfloat16, which torch converts to it), float64 for
    integers and bools."""
    arr = number_array(predictions, "predictions")
    if str(getattr(predictions, "dtype", "")).endswith("bfloat16"):
        dtype: Any = np.float16
    else:
        dtype = arr.dtype if arr.dtype.kind == "f" else np.float64
    return np.array(arr, dtype=dtype).reshape(-1)


def _counts(curve: Curve) -> dict[str, np.ndarray]:
    labels, predictions, n, weights = curve
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.floor(predictions * (n - 1))  # in the predictions' dtype, as torch's writer
    inside = (scaled >= 0) & (scaled <= n - 1)  # NaN is not: outside every bucket, left out
    if not inside.all():
        scaled, labels = scaled[inside], labels[inside]
        if isinstance(weights, np.ndarray):
            weights = weights[inside]
    buckets = scaled.astype(np.int64)
    tp = np.bincount(buckets, weights=labels * weights, minlength=n)[::-1].cumsum()[::-1]
    fp = np.bincount(buckets, weights=(1.0 - labels) * weights, minlength=n)[::-1].cumsum()[::-1]
    return {"thresholds": np.arange(n) / (n - 1), "tp": tp, "fp": fp, "tn": fp[0] - fp, "fn": tp[0] - tp}


def bin_pr_curve(curve: Curve) -> dict[str, np.ndarray]:
    """The columns of a PR curve record (:data:`visualdl._kinds.table.PR_CURVE_COLUMNS`)."""
    columns = _counts(curve)
    tp = columns["tp"]
    columns["precision"] = tp / np.maximum(_MINIMUM_COUNT, tp + columns["fp"])
    columns["recall"] = tp / np.maximum(_MINIMUM_COUNT, tp + columns["fn"])
    return columns


def bin_roc_curve(curve: Curve) -> dict[str, np.ndarray]:
    """The columns of an ROC curve record (:data:`visualdl._kinds.table.ROC_CURVE_COLUMNS`)."""
    columns = _counts(curve)
    tp, fp = columns["tp"], columns["fp"]
    columns["tpr"] = tp / np.maximum(_MINIMUM_COUNT, tp + columns["fn"])
    columns["fpr"] = fp / np.maximum(_MINIMUM_COUNT, fp + columns["tn"])
    return columns
