"""Pure conversions of what training code passes to LogWriter.

The ``check_*`` functions run on the caller's thread: they refuse bad input with a
``TypeError``/``ValueError`` naming the argument and the bad value, and return an
owned copy cheap to hand over. The ``encode_*``/``bin_*`` functions run on the
writer's background thread and do the expensive part (PNG, binning).

Tensors of torch, paddle, jax or tensorflow are taken through ``.item()``,
``.numpy()`` or ``__array__`` without importing those libraries.
"""

from __future__ import annotations

import io
import math
import numbers
import os
import time
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from visualdl._formats.vdlog.logformat import MAX_TAG_LENGTH, WALLTIME_MS_THRESHOLD
from visualdl._kinds.table import HistogramStats

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

__all__ = [
    "MAX_IMAGE_PIXELS",
    "MAX_PAYLOAD_BYTES",
    "as_array",
    "bin_histogram",
    "check_graph",
    "check_histogram",
    "check_image",
    "check_payload_text",
    "check_pixels",
    "check_step",
    "check_tag",
    "check_text",
    "check_walltime",
    "describe",
    "encode_png",
    "is_meta",
    "pil_image",
    "to_float",
]

#: The most bytes one text, PNG or ONNX model may hold: a record is a protobuf message,
#: and those stop at 2 GiB; 1 MiB of that is left for the tag and the other fields.
MAX_PAYLOAD_BYTES = (1 << 31) - (1 << 20)
#: The most pixels (height x width) one image may have: 64 megapixels, 8192 x 8192.
#: Its PNG then stays far below MAX_PAYLOAD_BYTES, and the writer's work for it bounded
#: (a few hundred MB of memory, seconds of compression); PIL warns from 89 megapixels.
MAX_IMAGE_PIXELS = 8192 * 8192
_INT64_MAX = 2**63 - 1
_IMAGE_FORMATS = ("HWC", "CHW", "HW")


def describe(value: Any) -> str:
    if is_meta(value):
        shape = tuple(getattr(value, "shape", ()))
        return f"{type(value).__name__} of shape {shape} on the meta device, which holds no values"
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{type(value).__name__} {text}"


def is_meta(value: Any) -> bool:
    """Whether ``value`` is a tensor on torch's ``meta`` device: a shape and a dtype, no values."""
    return getattr(getattr(value, "device", None), "type", None) == "meta"


def as_array(value: Any) -> np.ndarray | None:
    """``value`` as a numpy array if it is array-like (numpy, PIL, tensors), else None.

    A tensor that needs it is detached and brought to host memory; a bfloat16 tensor, which
    numpy has no dtype for, becomes float32 (which holds each of its values exactly)."""
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "__array__") or hasattr(value, "__array_interface__"):
        try:
            return np.asarray(value)
        except Exception:  # noqa: BLE001 - a tensor on a device: try .numpy() next
            pass
    for method in ("cpu", "detach"):
        # torch tensors on an accelerator: bring them to host memory first.
        if hasattr(value, method) and hasattr(value, "numpy"):
            try:
                value = getattr(value, method)()
            except Exception:  # noqa: BLE001
                break
    if hasattr(value, "numpy"):
        try:
            if str(getattr(value, "dtype", "")).endswith("bfloat16") and hasattr(value, "float"):
                value = value.float()
            return np.asarray(value.numpy())
        except Exception:  # noqa: BLE001
            return None
    return None


def to_float(value: Any, name: str = "value") -> float:
    """A single number as a float; NaN and infinities are kept. The slow path of add_scalar."""
    if isinstance(value, bool | np.bool_):
        return float(value)
    if isinstance(value, numbers.Real):
        try:
            return float(value)
        except (OverflowError, ValueError) as e:
            raise ValueError(f"{name} must be a real number; got {describe(value)} ({e})") from e
    if isinstance(value, str | bytes | numbers.Complex):
        raise TypeError(f"{name} must be a real number; got {describe(value)}")
    if hasattr(value, "item") and not isinstance(value, np.ndarray):
        try:
            item = value.item()
        except Exception:  # noqa: BLE001 - e.g. a tensor of several elements
            item = None
        if isinstance(item, numbers.Real):
            return float(item)
    arr = as_array(value)
    if arr is None:
        raise TypeError(f"{name} must be a real number; got {describe(value)}")
    if arr.size != 1:
        raise ValueError(f"{name} must be a single number; got an array of shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a real number; got an array of dtype {arr.dtype}")
    return float(arr.reshape(()).item())


def check_step(step: Any, name: str = "step") -> int:
    """A non-negative integer step."""
    if isinstance(step, bool | np.bool_):
        raise TypeError(f"{name} must be a non-negative integer; got {describe(step)}")
    if isinstance(step, numbers.Integral):
        result = int(step)
    elif isinstance(step, numbers.Real):
        as_float = float(step)
        if not as_float.is_integer():
            raise ValueError(f"{name} must be a non-negative integer; got {describe(step)}")
        result = int(as_float)
    elif hasattr(step, "item") and not isinstance(step, str | bytes):
        try:
            item = step.item()
        except Exception as e:
            raise TypeError(f"{name} must be a non-negative integer; got {describe(step)}") from e
        return check_step(item, name)
    else:
        raise TypeError(f"{name} must be a non-negative integer; got {describe(step)}")
    if result < 0 or result > _INT64_MAX:
        raise ValueError(f"{name} must be a non-negative integer below 2**63; got {result}")
    return result


def check_walltime(walltime: Any) -> float:
    """Seconds since the epoch; milliseconds (VisualDL 2's unit) are told apart by magnitude."""
    seconds = to_float(walltime, "walltime")
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"walltime must be a finite, non-negative time since the epoch; got {walltime!r}")
    if seconds > WALLTIME_MS_THRESHOLD:
        seconds /= 1000.0
    return seconds


def walltime_or_now(walltime: Any) -> float:
    """The wall time of an ``add_*`` call: ``walltime`` checked (:func:`check_walltime`), or
    now when it is None. ``add_scalar`` writes this expression inline: a call costs it
    a tenth of its budget."""
    return time.time() if walltime is None else check_walltime(walltime)


def check_tag(tag: Any, name: str = "tag") -> str:
    if not isinstance(tag, str):
        raise TypeError(f"{name} must be a non-empty string; got {describe(tag)}")
    if not tag or tag.isspace():
        raise ValueError(f"{name} must be a non-empty string; got {tag!r}")
    if "\x00" in tag:
        raise ValueError(f"{name} must not contain NUL characters; got {tag!r}")
    if len(tag) > MAX_TAG_LENGTH:
        raise ValueError(
            f"{name} must be at most {MAX_TAG_LENGTH} characters (the server refuses longer ones); "
            f"got {len(tag)} characters: {tag[:40]!r}..."
        )
    return check_text(tag, name)


def check_text(text: Any, name: str) -> str:
    """A str that UTF-8 can encode (no lone surrogates), so the writer thread can store it."""
    _utf8_size(text, name)
    checked: str = text
    return checked


def check_payload_text(text: Any, name: str) -> int:
    """A text to store as a record (valid Unicode, at most MAX_PAYLOAD_BYTES of UTF-8); its size in bytes."""
    if isinstance(text, str) and len(text) > MAX_PAYLOAD_BYTES:  # a character is one byte or more
        _refuse_payload(name, len(text), "at least ", "split it, or log a summary")
    size = _utf8_size(text, name)
    if size > MAX_PAYLOAD_BYTES:
        _refuse_payload(name, size, "", "split it, or log a summary")
    return size


def _utf8_size(text: Any, name: str) -> int:
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str; got {describe(text)}")
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError as e:
        raise ValueError(f"{name} is not valid Unicode ({e.reason} at index {e.start}); got {text[:80]!r}") from e


def _refuse_payload(name: str, size: int, qualifier: str, fix: str) -> NoReturn:
    raise ValueError(
        f"{name} is {qualifier}{size:,} bytes, above the limit of {MAX_PAYLOAD_BYTES:,} bytes of one record; {fix}"
    )


def check_image(img: Any, dataformats: str) -> np.ndarray:
    """Validate an image and return an HWC copy (uint8, or float in [0, 1]).

    Accepts numpy arrays, PIL images and tensors, laid out as ``dataformats`` (HWC,
    CHW or HW) with 1, 3 or 4 channels; uint8 (or other integers in 0..255), or
    floats in [0, 1].
    """
    if not isinstance(dataformats, str) or dataformats.upper() not in _IMAGE_FORMATS:
        raise ValueError(f"dataformats must be one of {', '.join(_IMAGE_FORMATS)}; got {dataformats!r}")
    fmt = dataformats.upper()
    if hasattr(img, "mode") and hasattr(img, "getbands") and not isinstance(img, np.ndarray):
        width, height = img.size
        check_pixels(height, width)  # before converting it
        if img.mode not in ("L", "RGB", "RGBA"):
            img = img.convert("RGBA" if "A" in img.getbands() else "RGB")
        arr = np.asarray(img)
        fmt = "HW" if arr.ndim == 2 else "HWC"
    else:
        converted = as_array(img)
        if converted is None:
            raise TypeError(f"img must be a numpy array, a PIL image or a tensor; got {describe(img)}")
        arr = converted
    if arr.ndim != len(fmt):
        raise ValueError(f"img has shape {arr.shape} but dataformats={dataformats!r} needs {len(fmt)} dimensions")
    if fmt == "CHW":
        arr = arr.transpose(1, 2, 0)
    elif fmt == "HW":
        arr = arr[:, :, None]
    height, width, channels = arr.shape
    check_pixels(height, width)  # before copying it
    if channels not in (1, 3, 4):
        raise ValueError(
            f"img must have 1, 3 or 4 channels; got {channels} (shape {arr.shape} as HWC); check dataformats"
        )
    if height == 0 or width == 0:
        raise ValueError(f"img must not be empty; got shape {arr.shape} as HWC")
    kind = arr.dtype.kind
    if kind == "u" and arr.dtype.itemsize == 1:
        return np.array(arr, dtype=np.uint8, order="C")
    if kind in "iu":
        low, high = int(arr.min()), int(arr.max())
        if low < 0 or high > 255:
            raise ValueError(f"img of dtype {arr.dtype} must hold values in 0..255; got {low}..{high}")
        return np.array(arr, dtype=np.uint8, order="C")
    if kind == "f":
        flow, fhigh = float(arr.min()), float(arr.max())
        if not (0.0 <= flow and fhigh <= 1.0):  # also refuses NaN
            raise ValueError(
                f"img of dtype {arr.dtype} must hold values in [0, 1]; got {flow}..{fhigh} (scale it, or pass uint8)"
            )
        return np.array(arr, dtype=np.float32, order="C")
    if kind == "b":
        return np.array(arr, dtype=np.uint8, order="C") * np.uint8(255)
    raise ValueError(f"img must be uint8 or float in [0, 1]; got dtype {arr.dtype}")


def check_pixels(height: int, width: int) -> None:
    """Refuse an image of more than :data:`MAX_IMAGE_PIXELS` pixels, before it is copied."""
    if height * width > MAX_IMAGE_PIXELS:
        side = math.isqrt(MAX_IMAGE_PIXELS)
        raise ValueError(
            f"img has {height * width:,} pixels ({height}x{width}), above the limit of {MAX_IMAGE_PIXELS:,} "
            f"({side}x{side}) of one image; downscale it (e.g. img[::4, ::4]) or log crops"
        )


def pil_image(hwc: np.ndarray) -> PILImage:
    """The PIL image of an HWC image from :func:`check_image` (PIL's own copy of the pixels)."""
    from PIL import Image

    if hwc.dtype != np.uint8:
        hwc = np.rint(hwc * 255.0).astype(np.uint8)
    channels = hwc.shape[2]
    mode = {1: "L", 3: "RGB", 4: "RGBA"}[channels]
    return Image.fromarray(hwc[:, :, 0] if channels == 1 else hwc, mode=mode)


def encode_png(image: PILImage) -> bytes:
    """PNG bytes of a PIL image from :func:`pil_image`."""
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=6)
    return out.getvalue()


#: More buckets than this is refused: nobody reads them, and each costs memory and disk.
MAX_BUCKETS = 100_000


def number_array(value: Any, name: str, what: str = "an array of numbers") -> np.ndarray:
    """``value`` (an array, a tensor, a list or tuple) as a numpy array of numbers, not
    copied when it is one; ``TypeError`` naming ``name`` and saying it must be ``what``."""
    arr = value if isinstance(value, np.ndarray) else as_array(value)
    if arr is None:
        if not isinstance(value, list | tuple):
            raise TypeError(f"{name} must be {what}; got {describe(value)}")
        try:
            arr = np.asarray(value)
        except ValueError as e:  # ragged nested lists
            raise ValueError(f"{name} must have rows of one length ({e})") from e
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be an array of numbers; got an array of dtype {arr.dtype}")
    return arr


def check_histogram(values: Any, buckets: Any) -> tuple[np.ndarray, int]:
    """Validate histogram input; returns a flat owned copy and the bucket count."""
    if isinstance(buckets, bool) or not isinstance(buckets, numbers.Integral) or not 1 <= int(buckets) <= MAX_BUCKETS:
        raise ValueError(f"buckets must be an integer from 1 to {MAX_BUCKETS}; got {describe(buckets)}")
    arr = number_array(values, "values")
    if arr.size == 0:
        raise ValueError(f"values must not be empty; got an array of shape {arr.shape}")
    return np.array(arr, copy=True).reshape(-1), int(buckets)


def bin_histogram(values: np.ndarray, buckets: int) -> tuple[np.ndarray, np.ndarray, HistogramStats]:
    """Bucket edges, counts and statistics of ``values``; non-finite values are counted apart.

    Total: whatever :func:`check_histogram` accepted bins without an error. The buckets
    are ``np.histogram``'s over ``[min, max]`` (``[x - 0.5, x + 0.5]`` for a constant
    ``x``). When that range holds fewer distinct floats than ``buckets`` edges (a nearly
    constant array, subnormals, ``1e300 * (1 + 1e-15)``), there are fewer buckets, and
    one ulp-wide bucket for a constant that 0.5 cannot widen. Edges always increase
    strictly. Values beyond float64 (``longdouble``) count as infinite.
    """
    with np.errstate(over="ignore"):
        data = values.astype(np.float64, copy=False)
    finite_mask = np.isfinite(data)
    finite = data if finite_mask.all() else data[finite_mask]
    nan_count = int(np.isnan(data).sum()) if finite.size != data.size else 0
    pos_inf = int(np.isposinf(data).sum()) if finite.size != data.size else 0
    stats: HistogramStats = {
        "count": int(finite.size),
        "nan_count": nan_count,
        "pos_inf_count": pos_inf,
        "neg_inf_count": int(data.size - finite.size - nan_count - pos_inf),
    }
    if finite.size == 0:
        return np.empty(0), np.empty(0), stats
    low, high = float(finite.min()), float(finite.max())
    first, last = _outer_edges(low, high)
    # A range wider than the largest float: bin halved values, double the edges.
    scale = 1.0 if math.isfinite(last - first) else 0.5
    # linspace's last edge may round past the largest float before it is set to the end: ignore that.
    with np.errstate(over="ignore"):
        edges = np.linspace(first * scale, last * scale, buckets + 1)
        if (edges[1:] > edges[:-1]).all():
            scaled = finite * scale if scale != 1.0 else finite
            counts, edges = np.histogram(scaled, bins=buckets, range=(first * scale, last * scale))
            if scale != 1.0:
                edges = edges / scale
                edges[0], edges[-1] = first, last
        else:  # fewer distinct floats in the range than edges: drop the repeated edges
            counts, edges = np.histogram(finite, bins=np.unique(edges))
    with np.errstate(over="ignore", invalid="ignore"):  # sums of huge values overflow to inf: so be it
        stats["sum"], stats["sum_squares"] = float(finite.sum()), float(np.dot(finite, finite))
    stats["min"], stats["max"] = low, high
    return edges, counts.astype(np.float64), stats


def _outer_edges(low: float, high: float) -> tuple[float, float]:
    """The range the buckets cover: ``[low, high]``, widened when it is a single value."""
    if low != high:
        return low, high
    first, last = low - 0.5, high + 0.5  # np.histogram's choice for a constant array
    if first == last:  # 0.5 is below the precision of ``low``: its neighbouring floats
        first, last = math.nextafter(low, -math.inf), math.nextafter(high, math.inf)
        first, last = (first if math.isfinite(first) else low), (last if math.isfinite(last) else high)
    return first, last


def check_graph(model: Any) -> tuple[bytes, str]:
    """Serialized ONNX bytes and a default name from a ModelProto, a path or bytes.

    Sizes are checked before anything is copied, read or serialized.
    """
    too_big = "save it with external data (onnx.save_model(model, path, save_as_external_data=True))"
    if isinstance(model, bytes | bytearray | memoryview):
        size = model.nbytes if isinstance(model, memoryview) else len(model)
        if size > MAX_PAYLOAD_BYTES:
            _refuse_payload("model", size, "", too_big)
        data = bytes(model)
        name = "model"
    elif isinstance(model, str | os.PathLike):
        path = os.fspath(model)
        if not os.path.isfile(path):
            raise ValueError(f"model path {path!r} is not a file; pass an .onnx file, bytes or an onnx.ModelProto")
        if (size := os.path.getsize(path)) > MAX_PAYLOAD_BYTES:
            _refuse_payload("model", size, "", too_big)
        with open(path, "rb") as f:
            data = f.read()
        name = os.path.splitext(os.path.basename(path))[0] or "model"
    elif hasattr(model, "SerializeToString") and hasattr(model, "graph"):
        if hasattr(model, "ByteSize") and (size := model.ByteSize()) > MAX_PAYLOAD_BYTES:
            _refuse_payload("model", size, "", too_big)
        data = model.SerializeToString()
        name = model.graph.name or "model"
    else:
        raise TypeError(
            f"model must be an onnx.ModelProto, a path to an .onnx file or bytes; got {describe(model)} "
            "(export the network to ONNX first, e.g. with torch.onnx.export or paddle.onnx.export)"
        )
    if not data:
        raise ValueError("model is empty: got 0 bytes of ONNX data")
    if len(data) > MAX_PAYLOAD_BYTES:  # a file that grew since, a model without ByteSize
        _refuse_payload("model", len(data), "", too_big)
    return data, name
