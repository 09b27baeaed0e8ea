"""add_figure, add_image_matrix, add_meta and add_onnx_graph: LogWriter -> file -> LogReader."""

from __future__ import annotations

import io
import sys

import numpy as np
import onnx
import pytest
from kit.requirements import require
from onnx import TensorProto, helper
from PIL import Image

from visualdl import LogReader, LogWriter


def _read(logdir: str) -> LogReader:
    reader = LogReader(logdir)
    reader.poll()
    assert reader.problems == []
    return reader


def _pixels(reader: LogReader, event) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(reader.read_blob(event))))


def _matplotlib():
    try:
        import matplotlib
    except ImportError:
        require(False, "matplotlib", "pip install matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def test_sdk_figure_is_drawn_now_and_closed(logdir):
    plt = _matplotlib()
    figure = plt.figure(figsize=(2, 1), dpi=50)
    figure.patch.set_facecolor((1.0, 0.0, 0.0))
    with LogWriter(logdir) as writer:
        writer.add_figure("fig", figure, 3, walltime=10.0)
        figure.patch.set_facecolor((0.0, 0.0, 1.0))  # after the call: not in the log
    assert not plt.fignum_exists(figure.number)
    reader = _read(logdir)
    (event,) = reader.images(".", "fig")
    assert (event.step, event.wall_time, event.height, event.width, event.channels) == (3, 10.0, 50, 100, 3)
    assert (_pixels(reader, event) == [255, 0, 0]).all()


def test_sdk_figure_refuses_other_objects_and_says_how_to_install(logdir, monkeypatch):
    _matplotlib()
    with LogWriter(logdir) as writer:
        with pytest.raises(TypeError, match=r"figure must be a matplotlib Figure \(e.g. plt.gcf\(\)\); got ndarray"):
            writer.add_figure("fig", np.zeros((2, 2)), 0)
        monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
        with pytest.raises(ImportError, match="add_figure needs matplotlib: pip install matplotlib"):
            writer.add_figure("fig", object(), 0)
    assert _read(logdir).tags(".")["images"] == []


def test_sdk_image_matrix_tiles_like_visualdl2(logdir):
    tall = np.full((4, 2, 3), 200, np.uint8)
    images = [np.full((4, 4, 3), 10 * i, np.uint8) for i in range(1, 4)] + [tall]
    with LogWriter(logdir) as writer:
        writer.add_image_matrix("grid", images, 0)  # 2x2 cells of 4x4
        writer.add_image_matrix("row", np.zeros((5, 3, 8, 8)), 1, rows=1, dataformats="CHW", scale=0.5)
        writer.add_image_matrix("auto", np.zeros((5, 8, 8, 3)), 2)
    reader = _read(logdir)
    (grid,) = reader.images(".", "grid")
    pixels = _pixels(reader, grid)
    assert pixels.shape == (8, 8, 3)
    assert (pixels[:4, :4] == 10).all() and (pixels[:4, 4:] == 20).all() and (pixels[4:, :4] == 30).all()
    # A narrower image is centred on a black cell.
    assert (pixels[4:, 5:7] == 200).all() and (pixels[4:, [4, 7]] == 0).all()
    # The whole grid is scaled: 1 row of 5 -> 8x40, by 0.5.
    (row,) = reader.images(".", "row")
    assert (row.height, row.width) == (4, 20)
    # rows=-1: as square as possible, rows first (3x2 for 5): 24x16.
    (auto,) = reader.images(".", "auto")
    assert (auto.height, auto.width) == (24, 16)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"imgs": []}, ValueError, "at least one image"),
        ({"imgs": "pics"}, TypeError, "imgs must be a list or an array of images"),
        ({"imgs": [np.zeros((2, 2, 3)), np.zeros((2, 2, 1))]}, ValueError, r"same number of channels; got \[1, 3\]"),
        ({"rows": 3}, ValueError, r"rows must be -1 or from 1 to the number of images \(2\); got 3"),
        ({"rows": 1.0}, TypeError, "rows must be an integer"),
        ({"scale": 0}, ValueError, "scale must be a positive number"),
        ({"scale": 0.01}, ValueError, "choose a scale"),
        ({"dataformats": "NHWC"}, ValueError, "dataformats must be one of"),
    ],
)
def test_sdk_image_matrix_refuses_bad_input_and_loses_nothing(logdir, kwargs, error, match):
    args = {"tag": "m", "imgs": [np.zeros((2, 2, 3))] * 2, "step": 1, **kwargs}
    with LogWriter(logdir) as writer:
        writer.add_image_matrix("m", [np.zeros((2, 2, 3))], 0)
        with pytest.raises(error, match=match):
            writer.add_image_matrix(**args)
    assert [e.step for e in _read(logdir).images(".", "m")] == [0]


def test_sdk_meta_names_the_run_from_then_on(logdir):
    with LogWriter(logdir, display_name="first") as writer:
        writer.add_scalar("loss", 1.0, 0)
        writer.add_meta(display_name="second")
        writer.add_meta(display_name="")  # an empty name changes nothing, as in VisualDL 2
        with pytest.raises(TypeError, match="display_name must be a str"):
            writer.add_meta(display_name=3)  # type: ignore[arg-type]
    reader = _read(logdir)
    assert [w.display_name for w in reader.writers(".")] == ["second"]
    assert reader.scalars(".", "loss").values.tolist() == [1.0]


def test_sdk_onnx_graph_is_add_graph_with_a_walltime(logdir):
    node = helper.make_node("Relu", ["x"], ["y"])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    model = helper.make_model(helper.make_graph([node], "relu", [x], [y]))
    with LogWriter(logdir) as writer:
        writer.add_onnx_graph(model, walltime=1_700_000_000_000)
    reader = _read(logdir)
    (graph,) = reader.graphs(".")
    assert (graph.name, graph.wall_time) == ("relu", 1_700_000_000.0)
    assert onnx.load_from_string(reader.read_blob(graph)) == model
