"""What torch's ``SummaryWriter`` makes of the values it is given, for ours to make the same.

torch's writer (``torch/utils/tensorboard/writer.py``, ``summary.py``) takes more than
:class:`~visualdl.sdk._writer.LogWriter` does, and a training loop that runs with it must
run with :class:`~visualdl.sdk._summary.SummaryWriter`:

* ``global_step`` is stored as ``int(global_step)``: a float truncated, a negative step
  kept, anything ``int()`` takes taken; int64's range.
* An image of any dtype but uint8 is scaled by 255, clipped to [0, 255] and truncated to
  uint8 (``astype(np.float32) * 255``, ``clip(0, 255)``, ``astype(np.uint8)``); NaN is 0.
  Its ``dataformats`` may be any order of ``H``, ``W`` and ``C``; two channels are grey
  and alpha.
* A PR curve's predictions may be any numbers (:func:`~visualdl.sdk._curves.torch_predictions`).

Where torch clips or truncates silently, :class:`OncePerTag` warns, once per tag. A tensor
on the meta device holds no values (torch's writer logs a random number for it): the
writer logs nothing for it, and warns.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from visualdl.sdk._convert import as_array, check_image, check_pixels, describe

__all__ = [
    "Extremes",
    "OncePerTag",
    "batch_axes",
    "check_torch_image",
    "image_axes",
    "image_note",
    "merge_extremes",
    "meta_note",
    "torch_pixels",
    "torch_step",
]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def torch_step(global_step: Any, name: str = "global_step") -> tuple[int, bool]:
    """``int(global_step)`` as torch's writer stores it (None: 0), and whether that dropped
    a fraction (``2.5`` is step 2)."""
    if global_step is None:
        return 0, False
    try:
        step = int(global_step)
    except (TypeError, ValueError, OverflowError, RuntimeError) as e:  # RuntimeError: a meta tensor
        error = TypeError if isinstance(e, TypeError) else ValueError
        raise error(
            f"{name} must be an integer, or a number int() takes (torch's writer stores int({name})); "
            f"got {describe(global_step)} ({e})"
        ) from e
    if not _INT64_MIN <= step <= _INT64_MAX:
        raise ValueError(f"{name} must be within int64 (-2**63 to 2**63 - 1); got {step}")
    item = global_step.item() if hasattr(global_step, "item") else global_step
    return step, isinstance(item, float) and item != step


def _axes(dataformats: Any, letters: str, examples: str) -> str:
    """``dataformats`` upper-cased, refused unless an order of ``letters``, C left out or not."""
    fmt = dataformats.upper() if isinstance(dataformats, str) else None
    if fmt is None or sorted(fmt) not in (sorted(letters), sorted(letters.replace("C", ""))):
        raise ValueError(
            f"dataformats must be an order of the letters {', '.join(letters)} (C may be left out), such as "
            f"{examples}; got {dataformats!r}"
        )
    return fmt


def image_axes(dataformats: Any) -> str:
    """``add_image``'s ``dataformats`` (CHW, HWC, HW, WHC, ...), upper-cased."""
    return _axes(dataformats, "CHW", "CHW, HWC or HW")


def batch_axes(dataformats: Any) -> str:
    """``add_images``'s ``dataformats`` (NCHW, NHWC, NHW, ...), upper-cased."""
    return _axes(dataformats, "NCHW", "NCHW, NHWC or NHW")


#: The least and greatest value of an image but NaN (NaN when all are), and whether it has NaN.
Extremes = tuple[float, float, bool]


def check_torch_image(img: Any, dataformats: str) -> tuple[np.ndarray, Extremes | None]:
    """An HWC copy of ``img`` laid out as ``dataformats`` (from :func:`image_axes`): uint8
    pixels, or float32 values that :func:`torch_pixels` scales; and its :data:`Extremes`
    when some values are outside [0, 1] or NaN, which torch's writer clips.
    A PIL image is taken as :func:`~visualdl.sdk._convert.check_image` takes it."""
    if hasattr(img, "mode") and hasattr(img, "getbands") and not isinstance(img, np.ndarray):
        return check_image(img, "HWC"), None
    arr = as_array(img)
    if arr is None:
        raise TypeError(f"img_tensor must be a tensor or a numpy array; got {describe(img)}")
    if arr.ndim != len(dataformats):
        raise ValueError(
            f"img_tensor has shape {arr.shape} but dataformats={dataformats!r} needs {len(dataformats)} dimensions"
        )
    arr = arr.transpose([dataformats.index(axis) for axis in "HWC" if axis in dataformats])
    if arr.ndim == 2:
        arr = arr[:, :, None]
    height, width, channels = arr.shape
    check_pixels(height, width)  # before copying it
    if channels not in (1, 2, 3, 4):
        raise ValueError(
            f"img_tensor must have 1, 2, 3 or 4 channels; got {channels} (shape {arr.shape} as HWC); check dataformats"
        )
    if height == 0 or width == 0:
        raise ValueError(f"img_tensor must not be empty; got shape {arr.shape} as HWC")
    if arr.dtype.kind not in "biuf":
        raise ValueError(
            f"img_tensor must hold real numbers (uint8 pixels, or values in [0, 1]); got dtype {arr.dtype}"
        )
    if channels == 2:  # grey and alpha, as PIL takes two channels: stored as RGBA
        arr = arr[:, :, [0, 0, 0, 1]]
    if arr.dtype == np.uint8:
        return np.array(arr, order="C"), None
    if arr.dtype.kind == "b":
        return np.array(arr, dtype=np.uint8, order="C") * np.uint8(255), None
    with np.errstate(over="ignore"):  # beyond float32: infinite, so 255 (or 0), as torch's cast
        values = np.array(arr, dtype=np.float32, order="C")
    low, high = float(values.min()), float(values.max())
    if 0.0 <= low and high <= 1.0:  # False for NaN too
        return values, None
    if not np.isnan(low):
        return values, (low, high, False)
    numbers = values[~np.isnan(values)]
    return values, (float(numbers.min()), float(numbers.max()), True) if numbers.size else (low, high, True)


def merge_extremes(extremes: list[Extremes]) -> Extremes:
    """The :data:`Extremes` of several images, from theirs."""
    known = [(low, high) for low, high, _ in extremes if not math.isnan(low)]
    if not known:
        return math.nan, math.nan, True
    return min(low for low, _ in known), max(high for _, high in known), any(nan for _, _, nan in extremes)


def torch_pixels(hwc: np.ndarray) -> np.ndarray:
    """The uint8 pixels of a :func:`check_torch_image` copy as torch's writer makes them:
    values scaled by 255, clipped to [0, 255] and truncated; NaN is 0 (what torch's cast gives)."""
    if hwc.dtype == np.uint8:
        return hwc
    with np.errstate(over="ignore"):
        scaled = hwc * np.float32(255)
    scaled[np.isnan(scaled)] = 0
    return scaled.clip(0, 255).astype(np.uint8)


def image_note(call: str, tag: str, dtype: Any, extremes: Extremes) -> str:
    """The warning of an image that torch's writer clips, from :func:`check_torch_image`'s extremes."""
    low, high, nan = extremes
    values = "NaN only" if math.isnan(low) else f"from {low:g} to {high:g}" + (", and NaN" if nan else "")
    return (
        f"{call}: img_tensor of tag {tag!r} ({dtype}) holds values outside [0, 1] ({values}); as torch's writer "
        "does, they were scaled by 255 and clipped to [0, 255], NaN made 0 (for pixel values in 0..255, pass "
        "uint8; warned once per tag)"
    )


def meta_note(call: str, name: str, tag: str) -> str:
    return (
        f"{call}: {name} of tag {tag!r} is a tensor on the meta device, which holds no values; nothing was "
        "logged (torch's writer logs a random number; warned once per tag)"
    )


class OncePerTag:
    """Warn once per tag and kind of warning (``warnings.warn``, a ``UserWarning``)."""

    def __init__(self) -> None:
        self._said: set[tuple[str, str]] = set()

    def warn(self, what: str, tag: Any, message: str, stacklevel: int) -> None:
        key = (what, tag if isinstance(tag, str) else repr(tag))
        if key not in self._said:
            self._said.add(key)
            warnings.warn(message, UserWarning, stacklevel=stacklevel + 1)
