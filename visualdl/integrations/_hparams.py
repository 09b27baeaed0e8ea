"""Hyperparameters as frameworks hand them over, made into what ``LogWriter.add_hparams`` takes.

Frameworks pass nested configs (dicts, ``argparse.Namespace``, dataclasses, lists of
dicts) holding anything: tensors, numpy scalars, classes, paths, ``None``. They are
flattened into ``a/b`` names as TensorBoard's loggers do, and each value kept when it is
a bool, number or string, made one from a numpy scalar or a one-element tensor, and
written as its ``str`` otherwise (``None`` becomes ``"None"``, as Lightning writes it), so
that a config never makes logging fail: a name the writer refuses (empty, too long, with
a NUL) is left out, with a warning.
"""

from __future__ import annotations

import dataclasses
import inspect
import numbers
import warnings
from argparse import Namespace
from collections.abc import Mapping
from typing import Any

from visualdl.sdk._convert import check_tag

__all__ = ["flatten_params", "hparam_value", "hparam_values"]

_INT64 = (-(2**63), 2**63 - 1)


def flatten_params(params: Mapping[Any, Any], delimiter: str = "/", parent: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}, "l": [{"c": 2}]}`` -> ``{"a/b": 1, "l/0/c": 2}``; other lists stay whole."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        name = f"{parent}{delimiter}{key}" if parent else str(key)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            # Its fields as they are: asdict deep-copies every value, which fails on a lock or a file.
            value = {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
        elif isinstance(value, Namespace):
            value = vars(value)
        if isinstance(value, Mapping):
            out.update(flatten_params(value, delimiter, name))
        elif isinstance(value, list) and value and all(isinstance(item, Mapping) for item in value):
            for i, item in enumerate(value):
                out.update(flatten_params(item, delimiter, f"{name}{delimiter}{i}"))
        else:
            out[name] = value
    return out


def hparam_value(value: Any) -> bool | int | float | str:
    """A bool, a number within int64 or a float, a string; anything else as text (a class by its name)."""
    if isinstance(value, bool | str):
        return value
    if inspect.isclass(value):
        return value.__name__
    if type(value).__module__ == "numpy" and hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()  # a numpy scalar: its Python value
    elif hasattr(value, "numel") and hasattr(value, "item") and callable(value.numel) and value.numel() == 1:
        value = value.item()  # a one-element tensor
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral):
        return int(value) if _INT64[0] <= int(value) <= _INT64[1] else str(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value if isinstance(value, str) else str(value)


def hparam_values(flat: Mapping[str, Any], who: str) -> dict[str, bool | int | float | str]:
    """``flat``'s values made hyperparameters, the names the writer refuses left out with a warning."""
    out: dict[str, bool | int | float | str] = {}
    refused: list[str] = []
    for name, value in flat.items():
        try:
            check_tag(name, "hyperparameter name")
        except (TypeError, ValueError) as e:
            refused.append(str(e))
            continue
        out[name] = hparam_value(value)
    if refused:
        warnings.warn(f"{who} left out {len(refused)} hyperparameter(s): {'; '.join(refused)}", stacklevel=3)
    return out
