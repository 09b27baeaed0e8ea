"""Figures and image matrices as LogWriter takes them.

A matplotlib figure is drawn into pixels on the caller's thread (the figure may change
or close as soon as the call returns; matplotlib is imported only then), and its PNG is
encoded on the writer's thread. The images of a matrix are checked and copied on the
caller's thread, tiled and scaled on the writer's thread, as VisualDL 2 does: each is
centred on a black cell the size of the largest, the cells fill ``rows`` rows (by default
a grid as square as possible, rows first), and the tiled image is scaled so that its
longer side of cells is ``scale`` times one cell.
"""

from __future__ import annotations

import math
import numbers
import sys
from typing import Any

import numpy as np

from visualdl.sdk._convert import MAX_IMAGE_PIXELS, check_image, describe

__all__ = ["Matrix", "check_image_matrix", "render_figure", "tile_images"]


def render_figure(figure: Any, close: bool = True) -> np.ndarray:
    """The RGB pixels (HWC uint8) of a matplotlib figure, which is then closed in pyplot
    (as VisualDL 2 does) unless ``close`` is False."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as e:
        raise ImportError("add_figure needs matplotlib: pip install matplotlib") from e
    if not isinstance(figure, Figure):
        raise TypeError(f"figure must be a matplotlib Figure (e.g. plt.gcf()); got {describe(figure)}")
    canvas: Any = FigureCanvasAgg(figure)
    canvas.draw()
    rgb = np.array(np.asarray(canvas.buffer_rgba())[:, :, :3])
    pyplot = sys.modules.get("matplotlib.pyplot")
    if close and pyplot is not None:
        pyplot.close(figure)
    return check_image(rgb, "HWC")


#: The checked images, rows, columns and the (height, width) of the tiled image.
Matrix = tuple[list[np.ndarray], int, int, tuple[int, int]]


def check_image_matrix(imgs: Any, rows: Any, scale: Any, dataformats: str) -> Matrix:
    if isinstance(imgs, np.ndarray | list | tuple):
        images = [check_image(img, dataformats) for img in imgs]
    else:
        raise TypeError(f"imgs must be a list or an array of images; got {describe(imgs)}")
    if not images:
        raise ValueError("imgs must hold at least one image; got none")
    channels = {img.shape[2] for img in images}
    if len(channels) > 1:
        raise ValueError(f"imgs must all have the same number of channels; got {sorted(channels)}")
    count = len(images)
    if isinstance(rows, bool | np.bool_) or not isinstance(rows, numbers.Integral):
        raise TypeError(f"rows must be an integer (-1: as square as possible); got {describe(rows)}")
    wanted = int(rows)
    if wanted == -1:
        wanted = cols = math.isqrt(count)
        while wanted * cols < count:
            if wanted <= cols:
                wanted += 1
            else:
                cols += 1
    elif 1 <= wanted <= count:
        cols = math.ceil(count / wanted)
    else:
        raise ValueError(f"rows must be -1 or from 1 to the number of images ({count}); got {rows!r}")
    rows = wanted
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or not (0 < float(scale) < math.inf):
        raise ValueError(f"scale must be a positive number; got {describe(scale)}")
    cell_h = max(img.shape[0] for img in images)
    cell_w = max(img.shape[1] for img in images)
    # VisualDL 2.5.3 meant to shrink the grid to `scale` cells along its longer side, but
    # its resize only takes effect with OpenCV, which it does not depend on: its users get
    # the whole grid, every pixel. That is kept here, and `scale` scales the whole grid.
    size = (math.floor(rows * cell_h * float(scale)), math.floor(cols * cell_w * float(scale)))
    if min(size) < 1 or size[0] * size[1] > MAX_IMAGE_PIXELS:
        raise ValueError(
            f"the image matrix would be {size[0]}x{size[1]} pixels ({rows}x{cols} cells of {cell_h}x{cell_w}, "
            f"scale {scale!r}); choose a scale that makes it at least 1x1 and at most {MAX_IMAGE_PIXELS:,} pixels"
        )
    return images, rows, cols, size


def tile_images(matrix: Matrix) -> np.ndarray:
    """The tiled, scaled image (HWC uint8) of a :func:`check_image_matrix` result."""
    from PIL import Image

    images, rows, cols, (height, width) = matrix
    cell_h = max(img.shape[0] for img in images)
    cell_w = max(img.shape[1] for img in images)
    channels = images[0].shape[2]
    grid = np.zeros((rows * cell_h, cols * cell_w, channels), dtype=np.uint8)
    for i, img in enumerate(images):
        if img.dtype != np.uint8:
            img = np.rint(img * 255.0).astype(np.uint8)
        h, w = img.shape[:2]
        top = (i // cols) * cell_h + (cell_h - h) // 2
        left = (i % cols) * cell_w + (cell_w - w) // 2
        grid[top : top + h, left : left + w] = img
    if grid.shape[:2] == (height, width):
        return grid
    mode = {1: "L", 3: "RGB", 4: "RGBA"}[channels]
    resized = Image.fromarray(grid[:, :, 0] if channels == 1 else grid, mode=mode).resize(
        (width, height), Image.Resampling.BILINEAR
    )
    out = np.asarray(resized)
    return out[:, :, None] if out.ndim == 2 else out
