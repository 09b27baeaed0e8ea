"""Hyperparameters as LogWriter takes them (checked on the caller's thread).

As VisualDL 2: a value of None is left out. Unlike VisualDL 2, which stores True as the
integer 1 and prints a warning for other types, a bool stays a bool and a value of
another type is refused.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from visualdl.sdk._convert import check_tag, check_text, describe

__all__ = ["check_hparams"]

_INT64 = (-(2**63), 2**63 - 1)


def _value(name: str, value: Any) -> int | float | str | bool:
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral):
        if not _INT64[0] <= int(value) <= _INT64[1]:
            raise ValueError(f"hparams_dict[{name!r}] must fit in 64 bits; got {value!r} (pass it as a float or str)")
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, str):
        return check_text(value, f"hparams_dict[{name!r}]")
    raise TypeError(
        f"hparams_dict[{name!r}] must be a number, a string or a bool; got {describe(value)} "
        "(convert it, e.g. str(value))"
    )


def check_hparams(hparams_dict: Any, metrics_list: Any) -> tuple[dict[str, int | float | str | bool], list[str]]:
    """The hyperparameters (None values left out) and the metric tags, as owned copies."""
    if not isinstance(hparams_dict, Mapping):
        raise TypeError(f"hparams_dict must be a dict of name -> value; got {describe(hparams_dict)}")
    if not isinstance(metrics_list, list | tuple):
        raise TypeError(f"metrics_list must be a list of scalar tags; got {describe(metrics_list)}")
    hparams: dict[str, int | float | str | bool] = {}
    for name, value in hparams_dict.items():
        check_tag(name, "hparams_dict key")
        if value is not None:
            hparams[name] = _value(name, value)
    metrics = [check_tag(metric, "metrics_list item") for metric in metrics_list]
    return hparams, metrics
