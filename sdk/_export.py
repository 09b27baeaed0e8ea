"""Models of deep learning frameworks exported to ONNX bytes, for ``add_graph``. The
framework is imported only when such a model is given."""

from __future__ import annotations

import os
import tempfile
import warnings
from typing import Any

from visualdl.sdk import _convert as convert

__all__ = ["is_torch_module", "torch_to_onnx"]


def is_torch_module(model: Any) -> bool:
    """Whether ``model`` is a ``torch.nn.Module``, told without importing torch."""
    return any(f"{c.__module__}.{c.__qualname__}" == "torch.nn.modules.module.Module" for c in type(model).__mro__)


def torch_to_onnx(model: Any, example: Any, verbose: bool = False, *, argument: str = "input_to_model") -> bytes:
    """``model`` (a ``torch.nn.Module``) exported with ``torch.onnx.export`` on ``example``
    (a tensor or a tuple or list of tensors: what ``model.forward`` takes); ``argument``
    names the caller's parameter in errors."""
    try:
        import torch
        import torch.onnx
    except ImportError as e:
        raise ImportError("exporting a torch model to ONNX needs PyTorch and onnx: pip install torch onnx") from e
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module; got {convert.describe(model)}")
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
