"""The hyperparameters kind: a run's hyperparameters, each value stored as its type, and
the scalar tags of its metrics. A run has one (the newest wins), under one tag."""

from __future__ import annotations

from dataclasses import dataclass

from visualdl._kinds.kind import Kind
from visualdl.errors import LogFormatError
from visualdl.proto import pb

__all__ = ["HPARAMS_TAG", "KIND", "HParamsEvent", "encode_hparams"]

#: The one tag of a run's hyperparameters.
HPARAMS_TAG = "hparams"


@dataclass(frozen=True, slots=True)
class HParamsEvent:
    """A run's hyperparameters (each value of the type it was written with) and the
    scalar tags of its metrics.

    ``metric_groups``: where each metric is read, as TensorBoard's hparams plugin names it:
    ``""`` (or the tuple empty) for the run itself, else a run below it (``validation``:
    the run ``<run>/validation``, as Keras writes). ``trial``: False for an experiment's
    declaration alone (TensorBoard's ``hparams_config``, usually in the logdir's root),
    whose metrics apply to the trial runs below it and which is no trial itself.
    """

    wall_time: float
    hparams: dict[str, int | float | str | bool]
    metrics: tuple[str, ...]
    metric_groups: tuple[str, ...] = ()
    trial: bool = True

    def metric_sources(self) -> list[tuple[str, str]]:
        """``(group, tag)`` of each metric, in order."""
        groups = self.metric_groups or ("",) * len(self.metrics)
        return list(zip(groups, self.metrics, strict=True))


def encode_hparams(wall_time: float, hparams: dict[str, int | float | str | bool], metrics: list[str]) -> pb.Record:
    """Each value is stored as its type: bool, int, float or str (checked by the writer)."""
    values = []
    for name, value in hparams.items():
        if isinstance(value, bool):
            values.append(pb.HParamValue(name=name, bool_value=value))
        elif isinstance(value, int):
            values.append(pb.HParamValue(name=name, int_value=value))
        elif isinstance(value, float):
            values.append(pb.HParamValue(name=name, float_value=value))
        else:
            values.append(pb.HParamValue(name=name, string_value=value))
    return pb.Record(hparams=pb.HParams(wall_time=wall_time, values=values, metrics=metrics))


def _decode_hparams(msg: pb.HParams, path: str, offset: int) -> list[tuple[str, HParamsEvent]]:
    hparams: dict[str, int | float | str | bool] = {}
    for value in msg.values:
        which = value.WhichOneof("value")
        if which is None:
            raise LogFormatError(f"hyperparameter {value.name!r} without a value")
        hparams[value.name] = getattr(value, which)
    return [(HPARAMS_TAG, HParamsEvent(msg.wall_time, hparams, tuple(msg.metrics)))]


KIND = Kind(
    "hparams",
    "hparams",
    _decode_hparams,
    event=HParamsEvent,
    encode=encode_hparams,
    storage="events",
    title="Hyperparameters",
    order="wall_time",
)
