"""The scalar layouts kind (custom scalars): categories of charts, each the lines of tags
matching patterns or the bands of (value, lower, upper) tags. A run has one (the newest
wins), under one tag."""

from __future__ import annotations

from dataclasses import dataclass

from visualdl._kinds.kind import Kind
from visualdl.proto import pb

__all__ = ["KIND", "SCALAR_LAYOUT_TAG", "LayoutCategory", "LayoutChart", "ScalarLayoutEvent", "encode_scalar_layout"]

#: The one tag of a run's scalar layout.
SCALAR_LAYOUT_TAG = "layout"


@dataclass(frozen=True, slots=True)
class LayoutChart:
    """One chart: the lines of the tags matching ``multiline`` (regular expressions),
    or the bands of ``margin`` (value, lower, upper tags); one of the two is empty."""

    title: str
    multiline: tuple[str, ...] = ()
    margin: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class LayoutCategory:
    title: str
    charts: tuple[LayoutChart, ...]
    closed: bool = False


@dataclass(frozen=True, slots=True)
class ScalarLayoutEvent:
    wall_time: float
    categories: tuple[LayoutCategory, ...]


def encode_scalar_layout(wall_time: float, categories: tuple[LayoutCategory, ...]) -> pb.Record:
    layout = pb.ScalarLayout(wall_time=wall_time)
    for category in categories:
        out = layout.categories.add(title=category.title, closed=category.closed)
        for chart in category.charts:
            if chart.margin:
                series = [pb.MarginSeries(value=v, lower=lo, upper=hi) for v, lo, hi in chart.margin]
                out.charts.add(title=chart.title, margin=pb.MarginChart(series=series))
            else:
                out.charts.add(title=chart.title, multiline=pb.MultilineChart(tags=chart.multiline))
    return pb.Record(scalar_layout=layout)


def _decode_scalar_layout(msg: pb.ScalarLayout, path: str, offset: int) -> list[tuple[str, ScalarLayoutEvent]]:
    categories = []
    for category in msg.categories:
        charts = []
        for chart in category.charts:
            margin = tuple((s.value, s.lower, s.upper) for s in chart.margin.series)
            charts.append(LayoutChart(chart.title, tuple(chart.multiline.tags), margin))
        categories.append(LayoutCategory(category.title, tuple(charts), category.closed))
    return [(SCALAR_LAYOUT_TAG, ScalarLayoutEvent(msg.wall_time, tuple(categories)))]


KIND = Kind(
    "scalar_layouts",
    "scalar_layout",
    _decode_scalar_layout,
    event=ScalarLayoutEvent,
    encode=encode_scalar_layout,
    storage="events",
    title="Custom scalars",
    order="wall_time",
)
