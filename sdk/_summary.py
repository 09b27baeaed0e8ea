"""SummaryWriter: ``torch.utils.tensorboard.SummaryWriter``'s calls, writing our format.

A thin adapter over :class:`~visualdl.sdk._writer.LogWriter` (what it has checked itself
goes through the writer's :class:`~visualdl.sdk._writer.RecordPort`): same constructor,
method names, parameter names and defaults as torch's writer, so a script switches with its
import line. Arguments are checked on the caller's thread (``TypeError``/``ValueError``
naming the bad one); encoding and I/O happen on the writers' threads.

As torch: ``global_step`` is stored as ``int(global_step)`` (None: 0; negative steps
kept); ``walltime`` is seconds since the epoch; ``add_scalars`` writes each key to a run of
its own, ``<log_dir>/<main_tag>_<key>``, under the tag ``main_tag``; ``add_hparams`` writes
the hyperparameters and the metrics into the run ``<log_dir>/<run_name>`` (default: the
current time). Tensors of any float dtype (bfloat16 and float16 too), with or without
gradients, are taken; images of any dtype but uint8 are scaled by 255 and clipped, and PR
curves' predictions outside [0, 1] binned, as torch's writer does
(:mod:`visualdl.sdk._torchvalues`). Where torch clips or truncates silently, a warning says
so, once per tag. Where our format differs:

* ``purge_step`` is checked and not stored: a resumed writer's first step already
  replaces the points logged at and after it (:mod:`visualdl._index.restarts`).
* ``add_histogram`` stores equal-width buckets: ``bins`` is their number, or a numpy
  estimator (``'auto'``, ``'fd'``, ...) choosing it; ``'tensorflow'`` is 30 buckets.
* A tensor on the meta device, which torch's writer logs as a random number, is not
  logged (a warning says so); ``add_image(s)``, ``add_audio`` and ``add_pr_curve`` refuse
  it, as torch's writer does.
* ``add_embedding``'s ``label_img`` is not stored (the kind holds vectors and labels; a
  warning says so); ``hparam_domain_discrete`` is checked and not stored.
* ``add_graph`` exports the model with ``torch.onnx.export`` and stores the ONNX graph.
"""

from __future__ import annotations

import math
import numbers
import os
import time
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from visualdl._formats.vdlog.logformat import WALLTIME_MS_THRESHOLD
from visualdl._kinds.table import (
    SCALAR_LAYOUT_TAG,
    LayoutCategory,
    LayoutChart,
    encode_embeddings,
    encode_histogram,
    encode_image,
    encode_pr_curve,
    encode_scalar_layout,
)
from visualdl.proto import pb
from visualdl.sdk import _audio as audio
from visualdl.sdk import _convert as convert
from visualdl.sdk import _curves as curves
from visualdl.sdk import _embeddings as embeddings
from visualdl.sdk import _export as export
from visualdl.sdk import _figures as figures
from visualdl.sdk import _hparams as hparams
from visualdl.sdk import _torchvalues as torchvalues
from visualdl.sdk._writer import LogWriter, RecordPort, record_port

__all__ = ["SummaryWriter"]

#: The number of buckets of ``bins='tensorflow'`` (TensorBoard draws histograms in 30).
TENSORFLOW_BUCKETS = 30
_NUMPY_BINS = frozenset(("auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"))
#: Images per row of ``add_images`` and of a list of figures, as torch tiles them.
_GRID_COLUMNS = 8
_COUNT_COLUMNS = ("tp", "fp", "tn", "fn")


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _walltime(walltime: Any) -> float:
    """Seconds since the epoch (torch's unit; never taken as milliseconds)."""
    if walltime is None:
        return time.time()
    seconds = convert.to_float(walltime, "walltime")
    if not (math.isfinite(seconds) and 0 <= seconds <= WALLTIME_MS_THRESHOLD):
        raise ValueError(f"walltime must be a finite, non-negative number of seconds since the epoch; got {walltime!r}")
    return seconds


def _bucket_count(value: Any, name: str) -> int:
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer from 1 to {convert.MAX_BUCKETS}; got {convert.describe(value)}")
    if not 1 <= int(value) <= convert.MAX_BUCKETS:
        raise ValueError(f"{name} must be an integer from 1 to {convert.MAX_BUCKETS}; got {convert.describe(value)}")
    return int(value)


def _run_dir(log_dir: str, name: Any, what: str) -> str:
    """``log_dir/name``, refusing names that would leave ``log_dir``."""
    convert.check_tag(name, what)
    parts = name.replace("\\", "/").split("/")
    if os.path.isabs(name) or any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"{what} must be a relative run name without empty, '.' or '..' parts; got {name!r}")
    return os.path.join(log_dir, name)


def _hparam_value(name: str, value: Any) -> Any:
    """A 0-d tensor or numpy scalar as a Python number; anything else as it is."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    arr = convert.as_array(value)
    if arr is not None and arr.size == 1 and arr.dtype.kind in "biuf":
        return arr.reshape(()).item()
    return value


def _grid(images: list[np.ndarray]) -> figures.Matrix:
    """Images of one shape, 8 to a row (fewer when there are fewer), as torch tiles them."""
    cols = min(len(images), _GRID_COLUMNS)
    rows = -(-len(images) // cols)
    height, width = images[0].shape[:2]
    if rows * height * cols * width > convert.MAX_IMAGE_PIXELS:
        raise ValueError(
            f"img_tensor of {len(images)} images of {height}x{width} tiles into {rows * height}x{cols * width} "
            f"pixels, above the limit of {convert.MAX_IMAGE_PIXELS:,}; log fewer or smaller images"
        )
    return images, rows, cols, (rows * height, cols * width)


def _layout(layout: Any) -> tuple[LayoutCategory, ...]:
    if not isinstance(layout, Mapping) or not layout:
        raise TypeError(
            "layout must be a dict of category -> {chart title: ['Multiline', [tags]] or ['Margin', "
            f"[value, lower, upper]]}}; got {convert.describe(layout)}"
        )
    categories = []
    for category, charts in layout.items():
        convert.check_tag(category, "layout category")
        if not isinstance(charts, Mapping):
            raise TypeError(f"layout[{category!r}] must be a dict of chart title -> [kind, tags]; got {charts!r}")
        out = []
        for title, spec in charts.items():
            where = f"layout[{category!r}][{title!r}]"
            convert.check_tag(title, "layout chart title")
            if not isinstance(spec, list | tuple) or len(spec) != 2 or not isinstance(spec[1], list | tuple):
                raise TypeError(
                    f"{where} must be ['Multiline', [tags]] or ['Margin', [value, lower, upper]]; got {spec!r}"
                )
            kind, tags = spec
            checked = tuple(convert.check_tag(t, f"{where} tag") for t in tags)
            if isinstance(kind, str) and kind.lower() == "margin":
                if len(checked) != 3:
                    raise ValueError(f"{where}: a Margin chart needs 3 tags (value, lower, upper); got {len(checked)}")
                out.append(LayoutChart(title, margin=((checked[0], checked[1], checked[2]),)))
            elif isinstance(kind, str) and kind.lower() == "multiline":
                if not checked:
                    raise ValueError(f"{where}: a Multiline chart needs at least one tag")
                out.append(LayoutChart(title, multiline=checked))
            else:
                raise ValueError(f"{where}: the chart kind must be 'Multiline' or 'Margin'; got {kind!r}")
        categories.append(LayoutCategory(category, tuple(out)))
    return tuple(categories)


def _curve_column(value: Any, name: str, size: int, *, rate: bool) -> np.ndarray:
    column = np.array(convert.number_array(value, name), dtype=np.float64).reshape(-1)
    if column.size != size:
        raise ValueError(f"{name} must hold num_thresholds={size} values, one per threshold; got {column.size}")
    low, high = (0.0, 1.0) if rate else (0.0, math.inf)
    if not (np.isfinite(column) & (column >= low) & (column <= high)).all():
        kind = "rates in [0, 1]" if rate else "finite, non-negative counts"
        raise ValueError(f"{name} must hold {kind}")
    return column


#: The longest a SummaryWriter leaves data unflushed (LogWriter's default).
_FLUSH_SECS = 1.0


class SummaryWriter:
    """``torch.utils.tensorboard.SummaryWriter``'s API over :class:`LogWriter`.

    Args:
        log_dir: the run's directory. Default: ``runs/<time>_<host><comment>``.
        comment: suffix of the default ``log_dir``.
        purge_step: checked and not stored (a resumed writer's first step replaces
            later points already; see the module docstring).
        max_queue: pending points or records that wake the writer thread early.
        flush_secs: at most this many seconds pass between a call and its data being
            in the OS; never more than :class:`LogWriter`'s 1 s default, whatever torch's
            120 s default says (flushing costs the training thread nothing here, and a
            killed process loses less).
        filename_suffix: appended to the file names.
    """

    def __init__(
        self,
        log_dir: str | os.PathLike[str] | None = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: float = 120,
        filename_suffix: str = "",
    ) -> None:
        self._purge_step = None if purge_step is None else torchvalues.torch_step(purge_step, "purge_step")[0]
        self._options: dict[str, Any] = {
            "max_queue": max_queue,
            # Not a number: left to LogWriter's check, which says what it wants.
            "flush_secs": min(flush_secs, _FLUSH_SECS) if isinstance(flush_secs, (int, float)) else flush_secs,
            "filename_suffix": filename_suffix,
        }
        self._writer = LogWriter(log_dir or None, comment=comment, **self._options)
        #: The writer's port: what this adapter has checked itself is queued through it.
        self._records = record_port(self._writer)
        #: The runs of add_scalars, by directory: each one's writer and port.
        self._runs: dict[str, tuple[LogWriter, RecordPort]] = {}
        self._once = torchvalues.OncePerTag()

    @property
    def log_dir(self) -> str:
        return self._writer.logdir

    def get_logdir(self) -> str:
        """The directory of this writer's run."""
        return self._writer.logdir

    # -- scalars ---------------------------------------------------------------------

    def add_scalar(
        self,
        tag: str,
        scalar_value: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        new_style: bool = False,
        double_precision: bool = False,
    ) -> None:
        """Record a number (NaN and infinities kept), a one-element tensor or a numeric
        string; values are stored as float64 whatever ``new_style`` and ``double_precision``
        say. A tensor on the meta device is not logged (with a warning)."""
        value = scalar_value if type(scalar_value) is float else self._scalar(tag, scalar_value, "add_scalar")
        if type(global_step) is int and _INT64_MIN <= global_step <= _INT64_MAX:
            step = global_step
        else:
            step = self._step(global_step, tag, "add_scalar")
        wall = time.time() if walltime is None else _walltime(walltime)
        if value is not None:
            self._records.scalar(tag, value, step, wall)

    def _scalar(self, tag: Any, value: Any, call: str, name: str = "scalar_value") -> float | None:
        """``value`` as torch's writer takes a scalar (:func:`~visualdl.sdk._convert.to_float`,
        or a numeric string); None, and a warning, for a tensor on the meta device."""
        try:
            return convert.to_float(value, name)
        except TypeError:
            if convert.is_meta(value):
                self._once.warn("meta", tag, torchvalues.meta_note(call, name, tag), stacklevel=3)
                return None
            if isinstance(value, str):
                try:
                    return float(value)  # torch's writer: float(np.array(value))
                except ValueError:
                    pass
            raise

    def _step(self, global_step: Any, tag: Any, call: str) -> int:
        """torch's ``int(global_step)`` (None: 0), with a warning once per tag when it drops a fraction."""
        step, truncated = torchvalues.torch_step(global_step)
        if truncated:
            self._once.warn(
                "step",
                tag,
                f"{call}: global_step {global_step!r} of tag {tag!r} is not an integer; it was stored as step "
                f"{step} (int(global_step)), as torch's writer does (warned once per tag)",
                stacklevel=3,
            )
        return step

    def add_scalars(
        self,
        main_tag: str,
        tag_scalar_dict: Mapping[str, Any],
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Record each value of ``tag_scalar_dict`` under the tag ``main_tag`` in the run
        ``<log_dir>/<main_tag>_<key>`` (``/`` in ``main_tag`` becomes ``_``), as torch does."""
        convert.check_tag(main_tag, "main_tag")
        if not isinstance(tag_scalar_dict, Mapping) or not tag_scalar_dict:
            raise TypeError(
                f"tag_scalar_dict must be a non-empty dict of tag -> number; got {convert.describe(tag_scalar_dict)}"
            )
        step, wall = self._step(global_step, main_tag, "add_scalars"), _walltime(walltime)
        points = []
        for key, value in tag_scalar_dict.items():
            run = _run_dir(self.log_dir, f"{main_tag.replace('/', '_')}_{key}", "tag_scalar_dict key")
            number = self._scalar(main_tag, value, "add_scalars", f"tag_scalar_dict[{key!r}]")
            if number is not None:
                points.append((run, number))
        for run, number in points:
            entry = self._runs.get(run)
            if entry is None:
                writer = LogWriter(run, **self._options)
                entry = self._runs[run] = (writer, record_port(writer))
            entry[1].scalar(main_tag, number, step, wall)

    # -- histograms, images, text, audio ---------------------------------------------

    def add_histogram(
        self,
        tag: str,
        values: Any,
        global_step: int | None = None,
        bins: Any = "tensorflow",
        walltime: float | None = None,
        max_bins: int | None = None,
    ) -> None:
        """Record the distribution of ``values`` in equal-width buckets: ``bins`` of them,
        or as many as a numpy estimator (``'auto'``, ``'fd'``, ...) picks, at most ``max_bins``;
        ``'tensorflow'`` is 30. NaN and infinities are counted apart. A single number is a
        histogram of one value; a tensor on the meta device is not logged (with a warning)."""
        cap = convert.MAX_BUCKETS if max_bins is None else _bucket_count(max_bins, "max_bins")
        if isinstance(bins, str):
            if bins != "tensorflow" and bins not in _NUMPY_BINS:
                raise ValueError(
                    f"bins must be a number of buckets, 'tensorflow' or one of {', '.join(sorted(_NUMPY_BINS))}; "
                    f"got {bins!r}"
                )
        else:
            cap = min(cap, _bucket_count(bins, "bins"))
        if isinstance(values, numbers.Real):  # torch's writer: np.array([values])
            values = np.array([values])
        meta = convert.is_meta(values)
        data = np.empty(0) if meta else convert.check_histogram(values, 1)[0]
        convert.check_tag(tag)
        step, wall = self._step(global_step, tag, "add_histogram"), _walltime(walltime)
        if meta:
            self._once.warn("meta", tag, torchvalues.meta_note("add_histogram", "values", tag), stacklevel=2)
            return
        box = [data]

        def build() -> pb.Record:
            flat = box.pop()
            buckets = cap
            if isinstance(bins, str):
                buckets = TENSORFLOW_BUCKETS
                if bins != "tensorflow":
                    finite = flat[np.isfinite(flat.astype(np.float64))]
                    buckets = len(np.histogram_bin_edges(finite, bins)) - 1 if finite.size else 1
                buckets = max(1, min(buckets, cap))
            edges, counts, stats = convert.bin_histogram(flat, buckets)
            return encode_histogram(tag, step, wall, edges, counts, stats)

        self._records.record(tag, build, data.nbytes)

    def add_image(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "CHW",
    ) -> None:
        """Record an image laid out as ``dataformats`` (CHW, HWC, HW or another order of
        those letters) of 1 to 4 channels (2: grey and alpha): uint8 as it is, anything else
        scaled by 255 and clipped to [0, 255] as torch's writer does (a warning once per tag
        when that clips)."""
        hwc, outside = torchvalues.check_torch_image(img_tensor, torchvalues.image_axes(dataformats))
        convert.check_tag(tag)
        step, wall = self._step(global_step, tag, "add_image"), _walltime(walltime)
        if outside is not None:
            note = torchvalues.image_note("add_image", tag, getattr(img_tensor, "dtype", hwc.dtype), outside)
            self._once.warn("image", tag, note, stacklevel=2)
        self._put_images(tag, ([hwc], 1, 1, (hwc.shape[0], hwc.shape[1])), step, wall)

    def add_images(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "NCHW",
    ) -> None:
        """Record a batch of images (NCHW, NHWC, NHW or another order of those letters) tiled
        8 to a row into one image, their values taken as :meth:`add_image` takes them."""
        fmt = torchvalues.batch_axes(dataformats)
        arr = convert.as_array(img_tensor)
        if arr is None:
            raise TypeError(f"img_tensor must be an array or tensor of images; got {convert.describe(img_tensor)}")
        if arr.ndim != len(fmt) or arr.shape[fmt.index("N")] == 0:
            raise ValueError(
                f"img_tensor has shape {arr.shape} but dataformats={dataformats!r} needs {len(fmt)} "
                "dimensions and at least one image"
            )
        checked = [
            torchvalues.check_torch_image(img, fmt.replace("N", "")) for img in np.moveaxis(arr, fmt.index("N"), 0)
        ]
        matrix = _grid([hwc for hwc, _ in checked])
        convert.check_tag(tag)
        step, wall = self._step(global_step, tag, "add_images"), _walltime(walltime)
        outside = [extremes for _, extremes in checked if extremes is not None]
        if outside:
            note = torchvalues.image_note(
                "add_images", tag, getattr(img_tensor, "dtype", arr.dtype), torchvalues.merge_extremes(outside)
            )
            self._once.warn("image", tag, note, stacklevel=2)
        self._put_images(tag, matrix, step, wall)

    def add_figure(
        self,
        tag: str,
        figure: Any,
        global_step: int | None = None,
        close: bool = True,
        walltime: float | None = None,
    ) -> None:
        """Record a matplotlib figure, or a list of them tiled 8 to a row; needs matplotlib."""
        step, wall = self._step(global_step, tag, "add_figure"), _walltime(walltime)
        if isinstance(figure, list | tuple):
            if not figure:
                raise ValueError("figure must be a Figure or a non-empty list of them; got an empty list")
            images = [figures.render_figure(f, close) for f in figure]
            if len({img.shape for img in images}) > 1:
                raise ValueError(f"figures of a list must have one size; got {sorted({img.shape for img in images})}")
            self._put_images(tag, _grid(images), step, wall)
        else:
            self._put_images(tag, _grid([figures.render_figure(figure, close)]), step, wall)

    def _put_images(self, tag: str, matrix: figures.Matrix, step: int, wall: float) -> None:
        """Queue images from :func:`~visualdl.sdk._torchvalues.check_torch_image`, made into
        pixels as torch's writer makes them and tiled, on the writer's thread."""
        convert.check_tag(tag)
        box = [matrix]

        def build() -> pb.Record:
            images, rows, cols, size = box.pop()
            pixels = [torchvalues.torch_pixels(img) for img in images]
            tiled = pixels[0] if len(pixels) == 1 else figures.tile_images((pixels, rows, cols, size))
            return encode_image(tag, step, wall, convert.encode_png(convert.pil_image(tiled)), tiled.shape)

        self._records.record(tag, build, sum(img.nbytes for img in matrix[0]))

    def add_text(
        self, tag: str, text_string: str, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        """Record a text (Markdown in the UI)."""
        convert.check_tag(tag)
        size = convert.check_payload_text(text_string, "text_string")
        step, wall = self._step(global_step, tag, "add_text"), _walltime(walltime)
        self._records.text(tag, step, wall, text_string, size)

    def add_audio(
        self,
        tag: str,
        snd_tensor: Any,
        global_step: int | None = None,
        sample_rate: int = 44100,
        walltime: float | None = None,
    ) -> None:
        """Record a clip of amplitudes in [-1, 1]: mono (shape ``(1, L)`` or ``(L,)``), or,
        where torch's writer refuses it, several channels (``(C, L)`` or ``(L, C)``)."""
        convert.check_tag(tag)
        samples = audio.check_audio(snd_tensor)
        rate = audio.check_sample_rate(sample_rate)
        step, wall = self._step(global_step, tag, "add_audio"), _walltime(walltime)
        self._records.audio(tag, step, wall, samples, rate)

    # -- curves, embeddings, hyperparameters -----------------------------------------

    def add_pr_curve(
        self,
        tag: str,
        labels: Any,
        predictions: Any,
        global_step: int | None = None,
        num_thresholds: int = 127,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Record a precision-recall curve of binary ``labels`` and ``predictions`` in [0, 1].
        As torch's writer: a prediction ``p`` counts at the thresholds up to
        ``floor(p * (num_thresholds - 1)) / (num_thresholds - 1)``, computed in ``p``'s own
        float dtype; one outside [0, 1] that this places in no bucket (below 0, from
        ``1 + 1 / (num_thresholds - 1)`` up, NaN) is left out, with a warning once per tag."""
        convert.check_tag(tag)
        curve = curves.check_curve(labels, predictions, num_thresholds, weights, torch_buckets=True)
        step, wall = self._step(global_step, tag, "add_pr_curve"), _walltime(walltime)
        values = curve[1]
        outside = ~((values >= 0) & (values <= 1))
        if outside.any():
            self._once.warn(
                "predictions",
                tag,
                f"add_pr_curve: {int(outside.sum())} of {values.size} predictions of tag {tag!r} are outside "
                f"[0, 1] (the first: {float(values[outside][0])!r}); as torch's writer does, those below 0, from "
                f"1 + 1/(num_thresholds - 1) up, or NaN were left out of the counts (warned once per tag)",
                stacklevel=2,
            )
        nbytes = curve[0].nbytes + values.nbytes + (curve[3].nbytes if isinstance(curve[3], np.ndarray) else 0)
        box = [curve]
        self._records.record(tag, lambda: encode_pr_curve(tag, step, wall, curves.bin_pr_curve(box.pop())), nbytes)

    def add_pr_curve_raw(
        self,
        tag: str,
        true_positive_counts: Any,
        false_positive_counts: Any,
        true_negative_counts: Any,
        false_negative_counts: Any,
        precision: Any,
        recall: Any,
        global_step: int | None = None,
        num_thresholds: int = 127,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Record a precision-recall curve from its counts as given: ``num_thresholds``
        values each, for the thresholds ``i / (num_thresholds - 1)``. ``weights`` is
        unused (as in torch)."""
        convert.check_tag(tag)
        given_count: Any = num_thresholds  # annotated int, checked as anything
        if (
            isinstance(given_count, bool | np.bool_)
            or not isinstance(given_count, numbers.Integral)
            or int(given_count) < 2
        ):
            raise ValueError(f"num_thresholds must be an integer of at least 2; got {given_count!r}")
        num_thresholds = int(given_count)
        given = (true_positive_counts, false_positive_counts, true_negative_counts, false_negative_counts)
        names = ("true_positive_counts", "false_positive_counts", "true_negative_counts", "false_negative_counts")
        columns = {
            column: _curve_column(value, name, num_thresholds, rate=False)
            for column, name, value in zip(_COUNT_COLUMNS, names, given, strict=True)
        }
        columns["precision"] = _curve_column(precision, "precision", num_thresholds, rate=True)
        columns["recall"] = _curve_column(recall, "recall", num_thresholds, rate=True)
        columns["thresholds"] = np.arange(num_thresholds) / (num_thresholds - 1)
        step, wall = self._step(global_step, tag, "add_pr_curve_raw"), _walltime(walltime)
        self._records.record(tag, lambda: encode_pr_curve(tag, step, wall, columns), 7 * 8 * num_thresholds)

    def add_embedding(
        self,
        mat: Any,
        metadata: Any = None,
        label_img: Any = None,
        global_step: int | None = None,
        tag: str = "default",
        metadata_header: Any = None,
    ) -> None:
        """Record vectors, one per row of ``mat``, with ``metadata``: one label per row, or
        (with ``metadata_header`` naming the columns) one list of labels per row.
        ``label_img`` is not stored (with a warning)."""
        convert.check_tag(tag)
        if metadata_header is not None and metadata is not None:
            rows = metadata.tolist() if isinstance(metadata, np.ndarray) else metadata
            if not isinstance(rows, list | tuple) or not all(isinstance(r, list | tuple) for r in rows):
                raise TypeError(
                    f"metadata must be one list of labels per row when metadata_header is given; got "
                    f"{convert.describe(metadata)}"
                )
            widths = {len(r) for r in rows}
            if widths and widths != {len(metadata_header)}:
                raise ValueError(
                    f"each row of metadata must hold one label per column of metadata_header "
                    f"({len(metadata_header)}); got rows of {sorted(widths)} labels"
                )
            metadata = [list(column) for column in zip(*rows, strict=True)] if rows else rows
        vectors, header, labels = embeddings.check_embeddings(mat, metadata, metadata_header)
        if label_img is not None:
            warnings.warn(
                "add_embedding: label_img is not stored (embeddings keep vectors and labels); label the rows "
                "with metadata instead",
                UserWarning,
                stacklevel=2,
            )
        step, wall = self._step(global_step, tag, "add_embedding"), time.time()
        box = [vectors]
        self._records.record(
            tag,
            lambda: encode_embeddings(tag, step, wall, box.pop(), header, labels),
            vectors.nbytes + sum(map(len, labels)),
        )

    def add_hparams(
        self,
        hparam_dict: dict[str, Any],
        metric_dict: dict[str, Any],
        hparam_domain_discrete: dict[str, list[Any]] | None = None,
        run_name: str | None = None,
        global_step: int | None = None,
    ) -> None:
        """Record hyperparameters and the metrics they led to in the run
        ``<log_dir>/<run_name>`` (default: the current time): the hyperparameters, and
        each metric as a scalar at ``global_step``. ``hparam_domain_discrete`` (the
        values each hyperparameter may take) is checked and not stored."""
        if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
            raise TypeError(
                f"hparam_dict and metric_dict must be dicts; got {convert.describe(hparam_dict)} and "
                f"{convert.describe(metric_dict)}"
            )
        converted = {name: _hparam_value(name, value) for name, value in hparam_dict.items()}
        values, metric_tags = hparams.check_hparams(converted, list(metric_dict))
        metrics = []
        for tag in metric_tags:  # a loop, not a comprehension: the warning's stack level
            metrics.append((tag, self._scalar(tag, metric_dict[tag], "add_hparams", f"metric_dict[{tag!r}]")))
        if hparam_domain_discrete is not None:
            if not isinstance(hparam_domain_discrete, Mapping):
                raise TypeError(
                    f"hparam_domain_discrete must be a dict of name -> list of values; got "
                    f"{convert.describe(hparam_domain_discrete)}"
                )
            for name, domain in hparam_domain_discrete.items():
                if name not in converted:
                    raise ValueError(f"hparam_domain_discrete names {name!r}, which is not in hparam_dict")
                if not isinstance(domain, list | tuple):
                    raise TypeError(f"hparam_domain_discrete[{name!r}] must be a list of values; got {domain!r}")
                if converted[name] not in domain:
                    raise ValueError(
                        f"hparam_dict[{name!r}] = {converted[name]!r} is not one of hparam_domain_discrete[{name!r}]"
                    )
        run = _run_dir(self.log_dir, run_name or str(time.time()), "run_name")
        step, wall = self._step(global_step, os.path.basename(run), "add_hparams"), time.time()
        writer = LogWriter(run, **self._options)
        records = record_port(writer)
        try:
            writer.add_hparams(values, metric_tags, wall)
            for tag, value in metrics:
                if value is not None:
                    records.scalar(tag, value, step, wall)
        finally:
            writer.close()

    def add_custom_scalars(self, layout: dict[str, Any]) -> None:
        """Record how to group this run's scalar charts: ``{category: {chart title:
        ['Multiline', [tag regexes]] or ['Margin', [value, lower, upper]]}}``; the newest wins."""
        categories = _layout(layout)
        wall = time.time()
        size = sum(len(repr(chart)) for category in categories for chart in category.charts)
        self._records.record(SCALAR_LAYOUT_TAG, lambda: encode_scalar_layout(wall, categories), size)

    # -- graphs ----------------------------------------------------------------------

    def add_graph(
        self, model: Any, input_to_model: Any = None, verbose: bool = False, use_strict_trace: bool = True
    ) -> None:
        """Record ``model`` (a ``torch.nn.Module``) as an ONNX graph, exported with
        ``torch.onnx.export`` on ``input_to_model`` (a tensor or a tuple of tensors)
        and named after the model's class. ``use_strict_trace`` is not used. Anything but a
        torch module is a ``TypeError``, with or without torch installed (an ONNX model, its
        bytes or its file go to ``LogWriter.add_graph``)."""
        data = export.torch_to_onnx(model, input_to_model, verbose)
        self._writer.add_graph(data, name=type(model).__name__)

    # -- lifetime --------------------------------------------------------------------

    def flush(self) -> None:
        """Return once everything added so far, in every run, is in the OS."""
        self._writer.flush()
        for writer, _ in self._runs.values():
            writer.flush()

    def close(self) -> None:
        """Flush and close every run's file. Idempotent."""
        self._writer.close()
        for writer, _ in self._runs.values():
            writer.close()

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SummaryWriter(log_dir={self.log_dir!r})"
