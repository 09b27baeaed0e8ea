"""The public API, pinned: what users import and call must not change by accident.

The public surface is ``visualdl`` (LogWriter, LogReader, SummaryWriter), ``visualdl.errors``,
``visualdl.types`` (the values LogReader returns), ``visualdl.notebook`` and
``visualdl.server.app`` (create_app, Settings); modules whose names start with ``_`` are
internal. A change here is a change for every user: make it on
purpose, update this file and the README together.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
import types
import typing

import numpy as np
from kit.paths import ROOT

import visualdl
import visualdl.types as vdltypes
from visualdl import errors, notebook
from visualdl.server import app

LOGWRITER = {
    "__init__": "(self, logdir: 'str | os.PathLike[str] | None' = None, comment: 'str' = '', "
    "max_queue: 'int' = 100000, "
    "flush_secs: 'float' = 1.0, filename_suffix: 'str' = '', write_to_disk: 'bool' = True, display_name: 'str' = '', "
    "file_name: 'str' = '', *, "
    "max_pending_bytes: 'int' = 67108864, fsync: 'bool' = False, upload_secs: 'float' = 60.0, "
    "upload_bytes: 'int' = 16777216, upload_timeout: 'float' = 60.0, close_timeout: 'float' = 30.0, "
    "rank: 'int | None' = None, "
    "world_size: 'int | None' = None, local_rank: 'int | None' = None, role: 'str | None' = None, "
    "job: 'str | None' = None, attempt: 'int | None' = None, system_metrics: 'bool | None' = None, "
    "system_metrics_secs: 'float' = 5.0, provenance: 'bool' = True) -> 'None'",
    "add_audio": "(self, tag: 'str', audio_array: 'Any', step: 'int', sample_rate: 'int' = 8000, "
    "walltime: 'float | None' = None) -> 'None'",
    "add_embeddings": "(self, tag: 'str', mat: 'Any' = None, metadata: 'Any' = None, metadata_header: 'Any' = None, "
    "walltime: 'float | None' = None, labels: 'Any' = None, hot_vectors: 'Any' = None, "
    "labels_meta: 'Any' = None) -> 'None'",
    "add_figure": "(self, tag: 'str', figure: 'Any', step: 'int', walltime: 'float | None' = None) -> 'None'",
    "add_graph": "(self, model: 'Any', input_spec: 'Any' = None, verbose: 'bool' = False, *, "
    "name: 'str | None' = None) -> 'None'",
    "add_histogram": "(self, tag: 'str', values: 'Any', step: 'int', walltime: 'float | None' = None, "
    "buckets: 'int' = 10) -> 'None'",
    "add_hparams": "(self, hparams_dict: 'Mapping[str, Any]', metrics_list: 'list[str]', "
    "walltime: 'float | None' = None) -> 'None'",
    "add_image": "(self, tag: 'str', img: 'Any', step: 'int', walltime: 'float | None' = None, "
    "dataformats: 'str' = 'HWC') -> 'None'",
    "add_image_matrix": "(self, tag: 'str', imgs: 'Any', step: 'int', rows: 'int' = -1, scale: 'float' = 1.0, "
    "walltime: 'float | None' = None, dataformats: 'str' = 'HWC') -> 'None'",
    "add_meta": "(self, tag: 'str' = 'meta_data_tag', display_name: 'str' = '', step: 'int' = 0, "
    "walltime: 'float | None' = None) -> 'None'",
    "add_onnx_graph": "(self, graph: 'Any', walltime: 'float | None' = None) -> 'None'",
    "add_pr_curve": "(self, tag: 'str', labels: 'Any', predictions: 'Any', step: 'int', num_thresholds: 'int' = 10, "
    "weights: 'Any' = None, walltime: 'float | None' = None) -> 'None'",
    "add_roc_curve": "(self, tag: 'str', labels: 'Any', predictions: 'Any', step: 'int', num_thresholds: 'int' = 10, "
    "weights: 'Any' = None, walltime: 'float | None' = None) -> 'None'",
    "add_scalar": "(self, tag: 'str', value: 'Any', step: 'int', walltime: 'float | None' = None, "
    "replicated: 'bool | None' = None) -> 'None'",
    "add_scalars": "(self, main_tag: 'str', tag_scalar_dict: 'Mapping[str, Any]', step: 'int', "
    "walltime: 'float | None' = None) -> 'None'",
    "add_text": "(self, tag: 'str', text_string: 'str', step: 'int | None' = None, "
    "walltime: 'float | None' = None) -> 'None'",
    "close": "(self) -> 'None'",
    "flush": "(self) -> 'None'",
    "get_logdir": "(self) -> 'str'",
    "stats": "(self) -> 'dict[str, Any]'",
}
LOGWRITER_PROPERTIES = ["file_name", "logdir", "placement"]

# torch.utils.tensorboard.SummaryWriter's names and defaults (tests/sdk/test_sdk_summary_writer.py compares them).
SUMMARYWRITER = {
    "__init__": "(self, log_dir: 'str | os.PathLike[str] | None' = None, comment: 'str' = '', "
    "purge_step: 'int | None' = None, max_queue: 'int' = 10, flush_secs: 'float' = 120, "
    "filename_suffix: 'str' = '') -> 'None'",
    "add_audio": "(self, tag: 'str', snd_tensor: 'Any', global_step: 'int | None' = None, sample_rate: 'int' = 44100, "
    "walltime: 'float | None' = None) -> 'None'",
    "add_custom_scalars": "(self, layout: 'dict[str, Any]') -> 'None'",
    "add_embedding": "(self, mat: 'Any', metadata: 'Any' = None, label_img: 'Any' = None, "
    "global_step: 'int | None' = None, tag: 'str' = 'default', metadata_header: 'Any' = None) -> 'None'",
    "add_figure": "(self, tag: 'str', figure: 'Any', global_step: 'int | None' = None, close: 'bool' = True, "
    "walltime: 'float | None' = None) -> 'None'",
    "add_graph": "(self, model: 'Any', input_to_model: 'Any' = None, verbose: 'bool' = False, "
    "use_strict_trace: 'bool' = True) -> 'None'",
    "add_histogram": "(self, tag: 'str', values: 'Any', global_step: 'int | None' = None, bins: 'Any' = 'tensorflow', "
    "walltime: 'float | None' = None, max_bins: 'int | None' = None) -> 'None'",
    "add_hparams": "(self, hparam_dict: 'dict[str, Any]', metric_dict: 'dict[str, Any]', "
    "hparam_domain_discrete: 'dict[str, list[Any]] | None' = None, run_name: 'str | None' = None, "
    "global_step: 'int | None' = None) -> 'None'",
    "add_image": "(self, tag: 'str', img_tensor: 'Any', global_step: 'int | None' = None, "
    "walltime: 'float | None' = None, dataformats: 'str' = 'CHW') -> 'None'",
    "add_images": "(self, tag: 'str', img_tensor: 'Any', global_step: 'int | None' = None, "
    "walltime: 'float | None' = None, dataformats: 'str' = 'NCHW') -> 'None'",
    "add_pr_curve": "(self, tag: 'str', labels: 'Any', predictions: 'Any', global_step: 'int | None' = None, "
    "num_thresholds: 'int' = 127, weights: 'Any' = None, walltime: 'float | None' = None) -> 'None'",
    "add_pr_curve_raw": "(self, tag: 'str', true_positive_counts: 'Any', false_positive_counts: 'Any', "
    "true_negative_counts: 'Any', false_negative_counts: 'Any', precision: 'Any', recall: 'Any', "
    "global_step: 'int | None' = None, num_thresholds: 'int' = 127, weights: 'Any' = None, "
    "walltime: 'float | None' = None) -> 'None'",
    "add_scalar": "(self, tag: 'str', scalar_value: 'Any', global_step: 'int | None' = None, "
    "walltime: 'float | None' = None, new_style: 'bool' = False, double_precision: 'bool' = False) -> 'None'",
    "add_scalars": "(self, main_tag: 'str', tag_scalar_dict: 'Mapping[str, Any]', global_step: 'int | None' = None, "
    "walltime: 'float | None' = None) -> 'None'",
    "add_text": "(self, tag: 'str', text_string: 'str', global_step: 'int | None' = None, "
    "walltime: 'float | None' = None) -> 'None'",
    "close": "(self) -> 'None'",
    "flush": "(self) -> 'None'",
    "get_logdir": "(self) -> 'str'",
}
SUMMARYWRITER_PROPERTIES = ["log_dir"]

LOGREADER = {
    "audio": "(self, run: 'str', tag: 'str') -> 'list[AudioEvent]'",
    "count": "(self, run: 'str', kind: 'str', tag: 'str') -> 'int'",
    "divergence": "(self, run: 'str', *, replicated: 'Callable[[str], bool] | Collection[str] | None' = None, "
    "tag: 'str | None' = None) -> 'list[Divergence]'",
    "embeddings": "(self, run: 'str', tag: 'str') -> 'list[EmbeddingsEvent]'",
    "end_timeline": "(self, run: 'str') -> 'EndTimeline'",
    "first_nonfinite": "(self, run: 'str', *, tag: 'str | None' = None) -> 'list[FirstNonfinite]'",
    "goodput": "(self, run: 'str') -> 'Goodput'",
    "graphs": "(self, run: 'str') -> 'list[GraphEvent]'",
    "histograms": "(self, run: 'str', tag: 'str') -> 'list[HistogramEvent]'",
    "hparams": "(self, run: 'str') -> 'HParamsEvent | None'",
    "images": "(self, run: 'str', tag: 'str') -> 'list[ImageEvent]'",
    "job": "(self, run: 'str', *, now: 'float | None' = None, silent_after: 'float' = 60.0) -> 'JobOverview'",
    "job_scalars": "(self, run: 'str', tag: 'str') -> 'dict[str, tuple[list[int], JobSeries]]'",
    "last_host_memory": "(self, run: 'str', path: 'str') -> 'HostMemory | None'",
    "poll": "(self, progress: 'Callable[[int, int, int], None] | None' = None) -> 'PollResult'",
    "scalar_layout": "(self, run: 'str') -> 'ScalarLayoutEvent | None'",
    "pr_curves": "(self, run: 'str', tag: 'str') -> 'list[PrCurveEvent]'",
    "progress": "(self, run: 'str') -> 'list[tuple[WriterInfo, np.ndarray, np.ndarray, int]]'",
    "read_blob": "(self, event: 'ImageEvent | GraphEvent | AudioEvent | EmbeddingsEvent') -> 'bytes'",
    "roc_curves": "(self, run: 'str', tag: 'str') -> 'list[RocCurveEvent]'",
    "runs": "(self, *, where: 'str | None' = None) -> 'list[str]'",
    "scalars": "(self, run: 'str', tag: 'str', *, role: 'str | None' = None, rank: 'int | None' = None, "
    "replaced: 'bool' = False) -> 'ScalarSeries'",
    "stragglers": "(self, run: 'str', *, now: 'float | None' = None) -> 'StragglerReport'",
    "system_metrics": "(self, run: 'str') -> 'list[WriterSystem]'",
    "streams": "(self, run: 'str', tag: 'str | None' = None) -> 'list[Stream]'",
    "tags": "(self, run: 'str') -> 'dict[str, list[str]]'",
    "texts": "(self, run: 'str', tag: 'str') -> 'list[TextEvent]'",
    "version": "(self, run: 'str', kind: 'str', tag: 'str') -> 'tuple[int, int]'",
    "writers": "(self, run: 'str', *, now: 'float | None' = None, silent_after: 'float' = 60.0) -> 'list[WriterInfo]'",
}
LOGREADER_PROPERTIES = ["problems"]

# The values LogReader returns (visualdl.types): their fields are public too.
RETURNED_FIELDS = {
    "Cause": ["scope", "name", "unit", "value", "median", "deviation"],
    "EndEntry": ["role", "rank", "attempt", "file", "wall_time", "step"],
    "EndGroup": [
        "how",
        "signal",
        "exception_type",
        "phrase",
        "count",
        "first_time",
        "last_time",
        "from_seconds",
        "to_seconds",
        "min_step",
        "max_step",
        "members",
        "text",
    ],
    "EndTimeline": ["ended", "running", "first", "groups"],
    "FirstEnd": ["entry", "end", "who", "text"],
    "Goodput": [
        "places",
        "index",
        "begin",
        "end",
        "productive",
        "lost",
        "restarts",
        "twice",
        "rate",
        "recent",
        "last_step",
        "recovering",
        "gaps",
    ],
    "GoodputTotals": [
        "start_time",
        "end_time",
        "wall_seconds",
        "rank_seconds",
        "productive_seconds",
        "lost_seconds",
        "restarts",
        "steps_done_twice",
        "recovering",
        "goodput",
    ],
    "JobOverview": [
        "roles",
        "writers",
        "times",
        "alive",
        "skew",
        "throughput",
        "stragglers",
        "restarts",
        "ends",
        "median_recent_steps_per_second",
        "goodput",
    ],
    "Restarted": ["role", "rank", "files"],
    "RoleSize": ["role", "places", "world_size"],
    "Skew": ["min_step", "max_step", "slowest_rank"],
    "Straggler": ["role", "rank", "text", "causes"],
    "StragglerReport": ["windows", "stragglers"],
    "Throughput": ["rank", "steps_per_second", "recent_steps_per_second", "last_step", "recovering", "straggler"],
    "WriterState": [
        "role",
        "rank",
        "attempt",
        "host",
        "pid",
        "file",
        "state",
        "start_time",
        "end_time",
        "points",
        "first_step",
        "last_step",
        "ended",
    ],
    "AudioEvent": ["step", "wall_time", "sample_rate", "length_frames", "channels", "size", "ref", "label"],
    "Divergence": ["tag", "role", "step", "ranks", "minority", "points", "majority", "why"],
    "EmbeddingsEvent": ["step", "wall_time", "rows", "dimension", "metadata_header", "metadata", "ref"],
    "FirstNonfinite": ["tag", "step", "wall_time", "value", "role", "rank", "path"],
    "GraphEvent": ["name", "wall_time", "format", "size", "ref"],
    "HParamsEvent": ["wall_time", "hparams", "metrics", "metric_groups", "trial"],
    "HistogramEvent": [
        "step",
        "wall_time",
        "edges",
        "counts",
        "min",
        "max",
        "sum",
        "sum_squares",
        "count",
        "nan_count",
        "pos_inf_count",
        "neg_inf_count",
    ],
    "HostMemory": ["wall_time", "used", "available", "total"],
    "ImageEvent": ["step", "wall_time", "height", "width", "channels", "ref"],
    "JobSeries": [
        "steps",
        "mean",
        "min",
        "max",
        "min_rank",
        "max_rank",
        "count",
        "wall_times",
        "quantiles",
        "quantile_rank",
        "std",
    ],
    "LayoutCategory": ["title", "charts", "closed"],
    "LayoutChart": ["title", "multiline", "margin"],
    "PollResult": ["files", "new_records", "bytes_read"],
    "PrCurveEvent": ["step", "wall_time", "thresholds", "tp", "fp", "tn", "fn", "precision", "recall"],
    "Problem": ["path", "offset", "message"],
    "ProcessEnd": ["how", "wall_time", "exception_type", "message", "traceback", "signal", "thread", "step", "cause"],
    "RecordRef": ["path", "offset"],
    "RocCurveEvent": ["step", "wall_time", "thresholds", "tp", "fp", "tn", "fn", "tpr", "fpr"],
    "ScalarLayoutEvent": ["wall_time", "categories"],
    "ScalarSeries": ["steps", "values", "wall_times"],
    "SystemSeries": ["name", "scope", "unit", "gpu", "gpu_name", "gpu_uuid", "wall_times", "values"],
    "TextEvent": ["step", "wall_time", "text"],
    "WriterInfo": [
        "path",
        "writer_id",
        "host",
        "pid",
        "start_time",
        "sdk_version",
        "display_name",
        "rank",
        "world_size",
        "local_rank",
        "role",
        "job",
        "attempt",
        "launcher",
        "closed",
        "end_time",
        "ended",
        "format",
        "unshown",
        "provenance",
        "events",
        "last_seen",
    ],
    "WriterSystem": ["path", "role", "rank", "local_rank", "attempt", "host", "pid", "metrics", "skipped"],
}
#: visualdl.types' names that are not dataclasses.
TYPE_ALIASES = {"Stream": tuple[str, int]}

NOTEBOOK = {
    "display": "(port: 'int' = 8080, height: 'int' = 800) -> 'Any'",
    "histograms": "(logdir: 'str | os.PathLike[str]', tag: 'str', run: 'str | None' = None, *, "
    "mode: 'str' = 'offset', max_entries: 'int' = 30, bins: 'int | None' = 30) -> 'Any'",
    "images": "(logdir: 'str | os.PathLike[str]', tag: 'str', run: 'str | None' = None, *, "
    "max_frames: 'int' = 60) -> 'Any'",
    "job": "(logdir: 'str | os.PathLike[str]', run: 'str | None' = None) -> 'JobOverview'",
    "list_servers": "() -> 'list[dict[str, Any]]'",
    "scalars": "(logdir: 'str | os.PathLike[str]', tags: 'str | list[str] | None' = None, "
    "runs: 'str | list[str] | None' = None, *, smoothing: 'float' = 0.6, x_axis: 'str' = 'step', "
    "log_y: 'bool' = False, max_points: 'int' = 5000, ranks: 'str' = 'mean', columns: 'int' = 2, "
    "smoothing_mode: 'str' = 'tensorboard') -> 'Any'",
    "smooth": "(values: 'Any', weight: 'float') -> 'np.ndarray'",
    "start": "(logdir: 'str | os.PathLike[str]', port: 'int | None' = None, *, timeout: 'float' = 60.0) -> 'int'",
    "stop": "(port: 'int | None' = None) -> 'list[int]'",
}

SETTINGS_FIELDS = [
    ("logdirs", "tuple[tuple[str, str], ...]"),
    ("host", "str"),
    ("port", "int"),
    ("reload_interval", "float"),
    ("max_points", "int"),
    ("max_points_limit", "int"),
    ("path_prefix", "str"),
    ("models", "tuple[str, ...]"),
    ("background", "bool"),
    ("allowed_hosts", "tuple[str, ...]"),
    ("replicated_tags", "str"),
    ("cache_dir", "str | None"),
]


def _public_names(module: types.ModuleType) -> list[str]:
    """Names a user sees in ``dir(module)``: not private, not modules, not typing helpers."""
    return sorted(
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType) and name != "annotations"
    )


def _methods(cls: type) -> dict[str, str]:
    names = [n for n, v in vars(cls).items() if callable(v) and (not n.startswith("_") or n == "__init__")]
    return {n: str(inspect.signature(getattr(cls, n))) for n in sorted(names)}


def _properties(cls: type) -> list[str]:
    return sorted(n for n, v in vars(cls).items() if not n.startswith("_") and isinstance(v, property))


def test_visualdl_exports_exactly_its_all():
    assert visualdl.__all__ == ["LogReader", "LogWriter", "SummaryWriter", "__version__", "load_ipython_extension"]
    exported = [n for n in visualdl.__all__ if n != "__version__"]
    assert [n for n in exported if getattr(visualdl, n, None) is None] == []
    # Lazy attributes are not in vars() until used; nothing else public may be there.
    assert [n for n in _public_names(visualdl) if n not in visualdl.__all__ and n not in ("Any", "TYPE_CHECKING")] == []


def test_logwriter_methods_and_signatures_are_pinned():
    assert _methods(visualdl.LogWriter) == LOGWRITER
    assert _properties(visualdl.LogWriter) == LOGWRITER_PROPERTIES


def test_summarywriter_methods_and_signatures_are_pinned():
    assert _methods(visualdl.SummaryWriter) == SUMMARYWRITER
    assert _properties(visualdl.SummaryWriter) == SUMMARYWRITER_PROPERTIES


def test_logreader_methods_and_signatures_are_pinned():
    methods = _methods(visualdl.LogReader)
    assert methods.pop("__init__").startswith("(self, logdir")
    assert methods == LOGREADER
    assert _properties(visualdl.LogReader) == LOGREADER_PROPERTIES


def test_types_exports_exactly_the_values_logreader_returns():
    assert vdltypes.__all__ == sorted([*RETURNED_FIELDS, *TYPE_ALIASES])
    assert _public_names(vdltypes) == vdltypes.__all__
    assert {name: getattr(vdltypes, name) for name in TYPE_ALIASES} == TYPE_ALIASES


def test_values_returned_by_logreader_keep_their_fields():
    for name, fields in RETURNED_FIELDS.items():
        cls = getattr(vdltypes, name)
        assert [f.name for f in dataclasses.fields(cls)] == fields, name
        assert cls.__dataclass_params__.frozen, name


def _classes_in(hint: object) -> set[type]:
    """The classes named by a resolved annotation, ``list[X] | None`` and the like taken apart."""
    args = typing.get_args(hint)
    if args:
        return {c for arg in args for c in _classes_in(arg)}
    return {hint} if isinstance(hint, type) else set()


def test_logreader_returns_only_public_values():
    """Every class in LogReader's annotations is a builtin, numpy's, or one of visualdl.types."""
    public = {getattr(vdltypes, name) for name in RETURNED_FIELDS}
    found = set()
    for name in [*LOGREADER, *LOGREADER_PROPERTIES]:
        member = getattr(visualdl.LogReader, name)
        hints = typing.get_type_hints(member.fget if isinstance(member, property) else member)
        found |= {c for hint in hints.values() for c in _classes_in(hint)}
    outside = {c for c in found if c.__module__ not in ("builtins", "collections.abc") and c is not np.ndarray}
    assert sorted(c.__qualname__ for c in outside - public) == []
    assert len(outside) > 15  # the annotations were read


def test_errors_is_one_tree():
    assert errors.__all__ == [
        "CannotShow",
        "GraphError",
        "InvalidArgument",
        "LogFormatError",
        "NotFound",
        "VisualDLError",
        "WriterError",
    ]
    assert _public_names(errors) == errors.__all__
    for name in errors.__all__:
        assert issubclass(getattr(errors, name), errors.VisualDLError)
    assert issubclass(errors.GraphError, errors.CannotShow) and issubclass(errors.GraphError, ValueError)
    assert issubclass(errors.NotFound, KeyError) and issubclass(errors.InvalidArgument, ValueError)
    statuses = {name: getattr(errors, name).http_status for name in errors.__all__}
    assert statuses == {name: 500 for name in errors.__all__} | {
        "CannotShow": 422,
        "GraphError": 422,
        "InvalidArgument": 400,
        "NotFound": 404,
    }
    assert str(errors.NotFound("unknown run 'x'")) == "unknown run 'x'"  # not a KeyError's repr
    assert str(inspect.signature(errors.LogFormatError)) == (
        "(message: 'str', path: 'str | None' = None, offset: 'int | None' = None) -> 'None'"
    )


def test_notebook_functions_are_pinned():
    assert notebook.__all__ == sorted(NOTEBOOK)
    assert {n: str(inspect.signature(getattr(notebook, n))) for n in notebook.__all__} == NOTEBOOK
    assert callable(notebook.load_ipython_extension)


def test_server_app_exports_create_app_and_settings():
    assert app.__all__ == ["Settings", "create_app"]
    assert (
        str(inspect.signature(app.create_app))
        == "(settings: 'Settings', provider: 'DataProvider | None' = None) -> 'Flask'"
    )
    assert [(f.name, f.type) for f in dataclasses.fields(app.Settings)] == SETTINGS_FIELDS
    assert app.Settings.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_internal_modules_say_so_by_their_names():
    """Every module is either documented public or starts with an underscore."""
    public = {
        "visualdl/__init__.py",
        "visualdl/__main__.py",
        "visualdl/errors.py",
        "visualdl/notebook.py",
        "visualdl/types.py",
        "server/__init__.py",
        "server/app.py",
        "sdk/__init__.py",
        "proto/__init__.py",
        "frontend_static/__init__.py",
        "proto/visualdl_log_pb2.py",
        "proto/tensorboard_event_pb2.py",
        "proto/vdl2_record_pb2.py",
    }
    found = {
        f"{folder}/{name}"
        for folder in ("visualdl", "sdk", "server", "proto", "frontend_static")
        for name in os.listdir(os.path.join(ROOT, folder))
        if name.endswith(".py") and (not name.startswith("_") or name in ("__init__.py", "__main__.py"))
    }
    assert sorted(found - public) == []


def test_readme_calls_only_public_methods():
    """Every ``writer.x(``, ``reader.x(`` and ``notebook.x(`` in the README and docs/ exists and is pinned here."""
    readme = ""
    docs = sorted(f"docs/{n}" for n in os.listdir(os.path.join(ROOT, "docs")) if n.endswith(".md"))
    for page in ["README.md", *docs]:
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            readme += f.read()
    known = {"writer": set(LOGWRITER) | set(LOGWRITER_PROPERTIES) | set(SUMMARYWRITER) | set(SUMMARYWRITER_PROPERTIES)}
    known["reader"] = set(LOGREADER) | set(LOGREADER_PROPERTIES)
    known["notebook"] = set(NOTEBOOK)
    used = re.findall(r"(?<![\w/])(writer|reader|notebook)\.([A-Za-z_]\w*)\b", readme)
    assert used, "the README shows no calls"
    assert sorted({f"{obj}.{name}" for obj, name in used if name not in known[obj]}) == []
