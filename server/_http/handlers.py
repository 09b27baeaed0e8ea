"""What answers each route of the JSON API: the parsed query in, the answer out.

Each handler asks the data provider (or the graph and projector services, made on first
use) and hands what it gets to the view building that answer (``server/_views/``); the
event kinds whose answer is a list of a tag's events share one handler, by the route's
name (kind = route = method). Blobs are streamed by :mod:`._http.blobs`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flask import Response, current_app

from visualdl._jobs.overview import JobOverview
from visualdl._jobs.stragglers import job_stragglers
from visualdl.server._http.blobs import streamed
from visualdl.server._provider import DataProvider
from visualdl.server._views.audio import audio_answer
from visualdl.server._views.curves import curves
from visualdl.server._views.distribution import distribution_answer
from visualdl.server._views.health import health_answer
from visualdl.server._views.heatmap import job_heatmap
from visualdl.server._views.histograms import histograms_answer
from visualdl.server._views.hparams import hparams, scalar_layout
from visualdl.server._views.images import images_answer
from visualdl.server._views.job_ends import job_end_answer
from visualdl.server._views.job_wrong import job_wrong_answer
from visualdl.server._views.jobpages import JobPages
from visualdl.server._views.jobs import job_answer
from visualdl.server._views.projector import Projector, embeddings_answer
from visualdl.server._views.runs import kinds_answer, runs_answer
from visualdl.server._views.runtable import runs_table_answer
from visualdl.server._views.scalars import scalars_answer
from visualdl.server._views.stragglers import stragglers_answer
from visualdl.server._views.system import system_answer
from visualdl.server._views.text import text_answer

if TYPE_CHECKING:
    from visualdl.server._views.graph import GraphService

__all__ = ["EVENT_VIEWS", "HANDLERS", "Query"]


def _provider() -> DataProvider:
    provider: DataProvider = current_app.extensions["visualdl.provider"]
    return provider


def _graphs() -> GraphService:
    """The app's graph service, made on first use: onnx is imported only when a graph is asked for."""
    service: GraphService | None = current_app.extensions.get("visualdl.graphs")
    if service is None:
        from visualdl.server._views.graph import GraphService

        service = current_app.extensions.setdefault("visualdl.graphs", GraphService(_provider()))
    return service


def _job_pages() -> JobPages:
    """The app's job pages, cached per change of their run (:mod:`visualdl.server._views.jobpages`)."""
    pages: JobPages | None = current_app.extensions.get("visualdl.jobpages")
    if pages is None:
        pages = current_app.extensions.setdefault("visualdl.jobpages", JobPages(_provider()))
    return pages


Query = dict[str, Any]


def _health(q: Query) -> Any:
    provider = _provider()
    return health_answer(provider.counters, provider.read_health(), reload_interval=provider.settings.reload_interval)


def _runs(q: Query) -> Any:
    # The provider hands out the same listing until the runs change: its answer is built once.
    runs = _provider().list_runs()
    last = current_app.extensions.setdefault("visualdl.runs_answer", [None, None])
    if last[0] is not runs:
        last[:] = [runs, runs_answer(runs)]
    return last[1]


def _kinds(q: Query) -> Any:
    return kinds_answer(_provider().list_kinds())


def _tags(q: Query) -> Any:
    return _provider().list_tags(runs=q["run"] or None)


def _scalars(q: Query) -> Any:
    # x_min above x_max: a range that holds no point (an empty answer, not an error).
    role, _, rank = (q["rank"] or "").rpartition("/")
    chart = _provider().read_chart(
        tag=q["tag"],
        runs=q["run"],
        where=q["where"],
        group_by=q["group_by"],
        group_regex=q["group_regex"],
        max_points=q["max_points"],
        x_min=q["x_min"],
        x_max=q["x_max"],
        ranks=q["ranks"],
        rank=int(rank) if rank else None,
        role=role or None,
        points=q["points"] or "kept",
    )
    return scalars_answer(chart)


def _runs_replaced(q: Query) -> Any:
    attempts, tags = _provider().read_replaced(run=q["run"])
    return {"run": q["run"], "attempts": attempts, "replaced": sum(tags.values()), "tags": tags}


def _runs_table(q: Query) -> Any:
    return runs_table_answer(
        _provider().runs_table(),
        where=q["where"],
        sort=q["sort"],
        descending=q["order"] == "desc",
        tags=q["metric"],
        offset=q["offset"],
        limit=q["limit"],
    )


def _image(q: Query) -> Response:
    if q["step"] is not None:
        path, offset, length = _provider().locate_image(run=q["run"], tag=q["tag"], step=q["step"], sample=q["sample"])
    else:
        path, offset, length = _provider().locate_image(run=q["run"], tag=q["tag"], index=q["index"])
    return streamed(functools.partial(_provider().open_log, q["run"]), path, offset, length)


def _audio_clip(q: Query) -> Response:
    where = {"step": q["step"], "sample": q["sample"]} if q["step"] is not None else {"index": q["index"]}
    span = _provider().locate_blob(run=q["run"], kind="audio", tag=q["tag"], **where)
    return streamed(functools.partial(_provider().open_log, q["run"]), *span)


def _curves(q: Query) -> Any:
    return curves(_provider(), kind=q["kind"], tag=q["tag"], runs=q["run"], step=q["step"])


def _hparams(q: Query) -> Any:
    return hparams(_provider(), runs=q["run"] or None)


def _scalar_layout(q: Query) -> Any:
    return scalar_layout(_provider())


def _projector() -> Projector:
    service: Projector | None = current_app.extensions.get("visualdl.projector")
    if service is None:
        service = current_app.extensions.setdefault("visualdl.projector", Projector(_provider()))
    return service


def _projection(q: Query) -> Any:
    return _projector().projection(run=q["run"], tag=q["tag"], index=q["index"], method=q["method"], dims=q["dims"])


def _projection_sprite(q: Query) -> Response:
    data, media_type = _projector().sprite(run=q["run"], tag=q["tag"], index=q["index"])
    return Response(data, mimetype=media_type)


def _neighbors(q: Query) -> Any:
    return _projector().neighbors(
        run=q["run"], tag=q["tag"], index=q["index"], point=q["point"], k=q["k"], metric=q["metric"]
    )


def _histograms(q: Query) -> Any:
    chosen, total = _provider().read_histograms(run=q["run"], tag=q["tag"], max_entries=q["max_entries"])
    return histograms_answer(q["run"], q["tag"], chosen, total, q["bins"])


def _job(q: Query) -> Any:
    page, system = _job_pages().page(q["run"])
    return job_answer(q["run"], page, system)


def _job_system(q: Query) -> Any:
    run, metrics = q["run"], tuple(q["metric"] or ())

    def build(_: Any = None) -> Any:
        bands = _provider().read_system(run=run, metrics=metrics, role=q["role"], rank=q["rank"], points=q["points"])
        return system_answer(run, bands, q["points"])

    if q["rank"] is not None:  # one rank's own lines: asked once, on a click
        return build()
    return _job_pages().derived(run, f"system {metrics} {q['role']} {q['points']}", build)


def _job_heatmap(q: Query) -> Any:
    return job_heatmap(_provider(), run=q["run"], role=q["role"], metric=q["metric"])


def _job_end(q: Query) -> Any:
    return job_end_answer(q["run"], [p[0] for p in _provider().read_job(run=q["run"])], q["file"])


def _job_stragglers(q: Query) -> Any:
    run = q["run"]

    def build(job: JobOverview) -> Any:
        return stragglers_answer(run, job_stragglers(job, lambda: _provider().read_system_members(run=run)))

    return _job_pages().derived(run, "stragglers", build)


def _job_wrong(q: Query) -> Any:
    return job_wrong_answer(q["run"], _provider().read_job_wrong(run=q["run"]))


def _distribution(q: Query) -> Any:
    events = _provider().read_events(run=q["run"], kind="histograms", tag=q["tag"])
    return distribution_answer(q["run"], q["tag"], events)


def _graph_list(q: Query) -> Any:
    return {"graphs": _graphs().list_sources()}


def _graph_source(q: Query) -> dict[str, Any]:
    """model=ID, or run=RUN (and name=NAME); neither: the first graph (of that name)."""
    model = q["model"]
    return {"model": model, "run": None if model is not None else q["run"], "name": q["name"], "path": q["path"] or ""}


def _graph(q: Query) -> Any:
    expand = q["expand"]
    return _graphs().view(
        **_graph_source(q), expand=expand if expand or q["collapsed"] else None, expand_all=q["expand_all"]
    )


def _graph_node(q: Query) -> Any:
    return _graphs().node(node=q["node"], **_graph_source(q))


def _graph_search(q: Query) -> Any:
    return _graphs().search(q=q["q"], **_graph_source(q))


#: The answers built from the list of one tag's events, by kind (= route name): the event
#: kinds a new view costs only its entry here.
EVENT_VIEWS: dict[str, Callable[[str, str, list[Any]], Any]] = {
    "images": images_answer,
    "text": text_answer,
    "audio": audio_answer,
    "embeddings": embeddings_answer,
}


def _events(kind: str) -> Callable[[Query], Any]:
    """The handler of the route of event kind ``kind``: run and tag in, its view's answer out."""
    view = EVENT_VIEWS[kind]

    def handler(q: Query) -> Any:
        return view(q["run"], q["tag"], _provider().read_events(run=q["run"], kind=kind, tag=q["tag"]))

    return handler


#: What answers each route of :data:`ROUTES`, by its name: the query as declared, parsed.
HANDLERS: dict[str, Callable[[Query], Any]] = {
    "health": _health,
    "runs": _runs,
    "kinds": _kinds,
    "tags": _tags,
    "scalars": _scalars,
    "image": _image,
    "histograms": _histograms,
    "job": _job,
    "job_heatmap": _job_heatmap,
    "job_end": _job_end,
    "job_wrong": _job_wrong,
    "job_stragglers": _job_stragglers,
    "job_system": _job_system,
    "distribution": _distribution,
    "graphs": _graph_list,
    "graph": _graph,
    "graph_node": _graph_node,
    "graph_search": _graph_search,
    "audio_clip": _audio_clip,
    "curves": _curves,
    "hparams": _hparams,
    "runs_table": _runs_table,
    "runs_replaced": _runs_replaced,
    "scalar_layout": _scalar_layout,
    "projection": _projection,
    "projection_sprite": _projection_sprite,
    "neighbors": _neighbors,
    **{kind: _events(kind) for kind in EVENT_VIEWS},
}
