"""Models of deep learning frameworks exported to ONNX bytes, for ``add_graph``. The
framework is imported only when such a model is given."""

from __future__ import annotations

import importlib.util
import os
import tempfile
import warnings
from typing import Any

from visualdl.sdk import _convert as convert

__all__ = ["is_paddle_layer", "is_torch_module", "paddle_to_onnx", "torch_to_onnx"]


def is_torch_module(model: Any) -> bool:
    """Whether ``model`` is a ``torch.nn.Module``, told without importing torch."""
    return any(f"{c.__module__}.{c.__qualname__}" == "torch.nn.modules.module.Module" for c in type(model).__mro__)


def is_paddle_layer(model: Any) -> bool:
    """Whether ``model`` is a ``paddle.nn.Layer``, told without importing paddle."""
    return any(c.__qualname__ == "Layer" and c.__module__.startswith("paddle.") for c in type(model).__mro__)


def paddle_to_onnx(model: Any, input_spec: Any, verbose: bool = False) -> bytes:
    """``model`` (a ``paddle.nn.Layer``) exported with ``paddle.onnx.export`` (paddle2onnx)
    on ``input_spec``: a list of ``paddle.static.InputSpec`` or of example tensors, as
    VisualDL 2's ``add_graph`` takes them. ``verbose`` is accepted and not used (paddle2onnx
    logs its own progress)."""
    try:
        import paddle
    except ImportError as e:
        raise ImportError(
            "exporting a PaddlePaddle model to ONNX needs paddlepaddle and paddle2onnx: "
            "pip install paddlepaddle paddle2onnx"
        ) from e
    if importlib.util.find_spec("paddle2onnx") is None:  # paddle.onnx.export calls it
        raise ImportError("exporting a PaddlePaddle model to ONNX needs paddle2onnx: pip install paddle2onnx")
    if not isinstance(model, paddle.nn.Layer):
        raise TypeError(f"model must be a paddle.nn.Layer; got {convert.describe(model)}")
    if input_spec is None:
        raise ValueError(
            "input_spec is needed to export a PaddlePaddle model: a list of paddle.static.InputSpec (or of example "
            "tensors) describing what model.forward takes"
        )
    specs = list(input_spec) if isinstance(input_spec, list | tuple) else [input_spec]
    try:
        with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prefix = os.path.join(folder, "model")
            paddle.onnx.export(model, prefix, input_spec=specs)
            with open(prefix + ".onnx", "rb") as f:
                return f.read()
    # paddle's dynamic-to-static raises many kinds; paddle2onnx calls sys.exit on a failure,
    # which must not end the training script.
    except (Exception, SystemExit) as e:
        raise ValueError(
            f"could not export {type(model).__name__} to ONNX with paddle.onnx.export ({type(e).__name__}: {e}); "
            "check that input_spec is what model.forward takes, and that the model's class is defined in a file "
            "(PaddlePaddle reads forward's source)"
        ) from e


def torch_to_onnx(model: Any, example: Any, verbose: bool = False, *, argument: str = "input_to_model") -> bytes:
    """``model`` (a ``torch.nn.Module``) exported with ``torch.onnx.export`` on ``example``
    (a tensor or a tuple or list of tensors: what ``model.forward`` takes); ``argument``
    names the caller's parameter in errors.

    A ``model`` that is not a torch module is a ``TypeError`` whether or not torch is
    installed: it is checked before torch is imported."""
    if not is_torch_module(model):
        raise TypeError(
            f"model must be a torch.nn.Module; got {convert.describe(model)} "
            "(an ONNX model, its bytes or its file: use LogWriter.add_graph)"
        )
    try:
        import torch
        import torch.onnx
    except ImportError as e:
        raise ImportError("exporting a torch model to ONNX needs PyTorch and onnx: pip install torch onnx") from e
    if example is None:
        raise ValueError(
            f"{argument} is needed to export a torch model: an example input (a tensor or a tuple of tensors) "
            "that model.forward takes"
        )
    args = tuple(example) if isinstance(example, list | tuple) else (example,)
    try:
        with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the exporter's deprecation and tracer warnings
            path = os.path.join(folder, "model.onnx")
            torch.onnx.export(model, args, path, verbose=bool(verbose), dynamo=False)
            with open(path, "rb") as f:
                return f.read()
    except Exception as e:  # the exporter raises many kinds: name the model and why
        raise ValueError(
            f"could not export {type(model).__name__} to ONNX with torch.onnx.export ({type(e).__name__}: {e}); "
            f"check that {argument} is what model.forward takes"
        ) from e
