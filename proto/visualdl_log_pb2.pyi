from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Codec(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RAW: _ClassVar[Codec]
    SHUFFLE_DEFLATE: _ClassVar[Codec]
    ARITHMETIC: _ClassVar[Codec]
RAW: Codec
SHUFFLE_DEFLATE: Codec
ARITHMETIC: Codec

class Column(_message.Message):
    __slots__ = ("codec", "data", "start", "stride")
    CODEC_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    STRIDE_FIELD_NUMBER: _ClassVar[int]
    codec: Codec
    data: bytes
    start: int
    stride: int
    def __init__(self, codec: _Optional[_Union[Codec, str]] = ..., data: _Optional[bytes] = ..., start: _Optional[int] = ..., stride: _Optional[int] = ...) -> None: ...

class Header(_message.Message):
    __slots__ = ("format_version", "writer_id", "host", "pid", "start_time", "sdk_version", "display_name", "rank", "world_size", "local_rank", "role", "job", "attempt", "launcher")
    FORMAT_VERSION_FIELD_NUMBER: _ClassVar[int]
    WRITER_ID_FIELD_NUMBER: _ClassVar[int]
    HOST_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    SDK_VERSION_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    WORLD_SIZE_FIELD_NUMBER: _ClassVar[int]
    LOCAL_RANK_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    JOB_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    LAUNCHER_FIELD_NUMBER: _ClassVar[int]
    format_version: int
    writer_id: str
    host: str
    pid: int
    start_time: float
    sdk_version: str
    display_name: str
    rank: int
    world_size: int
    local_rank: int
    role: str
    job: str
    attempt: int
    launcher: str
    def __init__(self, format_version: _Optional[int] = ..., writer_id: _Optional[str] = ..., host: _Optional[str] = ..., pid: _Optional[int] = ..., start_time: _Optional[float] = ..., sdk_version: _Optional[str] = ..., display_name: _Optional[str] = ..., rank: _Optional[int] = ..., world_size: _Optional[int] = ..., local_rank: _Optional[int] = ..., role: _Optional[str] = ..., job: _Optional[str] = ..., attempt: _Optional[int] = ..., launcher: _Optional[str] = ...) -> None: ...

class ScalarBatch(_message.Message):
    __slots__ = ("tags", "counts", "steps", "values", "wall_times")
    TAGS_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    WALL_TIMES_FIELD_NUMBER: _ClassVar[int]
    tags: _containers.RepeatedScalarFieldContainer[str]
    counts: _containers.RepeatedScalarFieldContainer[int]
    steps: Column
    values: Column
    wall_times: Column
    def __init__(self, tags: _Optional[_Iterable[str]] = ..., counts: _Optional[_Iterable[int]] = ..., steps: _Optional[_Union[Column, _Mapping]] = ..., values: _Optional[_Union[Column, _Mapping]] = ..., wall_times: _Optional[_Union[Column, _Mapping]] = ...) -> None: ...

class Image(_message.Message):
    __slots__ = ("tag", "step", "wall_time", "height", "width", "channels", "png")
    TAG_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    PNG_FIELD_NUMBER: _ClassVar[int]
    tag: str
    step: int
    wall_time: float
    height: int
    width: int
    channels: int
    png: bytes
    def __init__(self, tag: _Optional[str] = ..., step: _Optional[int] = ..., wall_time: _Optional[float] = ..., height: _Optional[int] = ..., width: _Optional[int] = ..., channels: _Optional[int] = ..., png: _Optional[bytes] = ...) -> None: ...

class Histogram(_message.Message):
    __slots__ = ("tag", "step", "wall_time", "edges", "counts", "min", "max", "sum", "sum_squares", "count", "nan_count", "pos_inf_count", "neg_inf_count")
    TAG_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    SUM_FIELD_NUMBER: _ClassVar[int]
    SUM_SQUARES_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    NAN_COUNT_FIELD_NUMBER: _ClassVar[int]
    POS_INF_COUNT_FIELD_NUMBER: _ClassVar[int]
    NEG_INF_COUNT_FIELD_NUMBER: _ClassVar[int]
    tag: str
    step: int
    wall_time: float
    edges: bytes
    counts: bytes
    min: float
    max: float
    sum: float
    sum_squares: float
    count: int
    nan_count: int
    pos_inf_count: int
    neg_inf_count: int
    def __init__(self, tag: _Optional[str] = ..., step: _Optional[int] = ..., wall_time: _Optional[float] = ..., edges: _Optional[bytes] = ..., counts: _Optional[bytes] = ..., min: _Optional[float] = ..., max: _Optional[float] = ..., sum: _Optional[float] = ..., sum_squares: _Optional[float] = ..., count: _Optional[int] = ..., nan_count: _Optional[int] = ..., pos_inf_count: _Optional[int] = ..., neg_inf_count: _Optional[int] = ...) -> None: ...

class Text(_message.Message):
    __slots__ = ("tag", "step", "wall_time", "text")
    TAG_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    tag: str
    step: int
    wall_time: float
    text: str
    def __init__(self, tag: _Optional[str] = ..., step: _Optional[int] = ..., wall_time: _Optional[float] = ..., text: _Optional[str] = ...) -> None: ...

class Graph(_message.Message):
    __slots__ = ("name", "wall_time", "format", "data")
    NAME_FIELD_NUMBER: _ClassVar[int]
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    name: str
    wall_time: float
    format: str
    data: bytes
    def __init__(self, name: _Optional[str] = ..., wall_time: _Optional[float] = ..., format: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class Audio(_message.Message):
    __slots__ = ("tag", "step", "wall_time", "sample_rate", "length_frames", "channels", "wav")
    TAG_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_RATE_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FRAMES_FIELD_NUMBER: _ClassVar[int]
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    WAV_FIELD_NUMBER: _ClassVar[int]
    tag: str
    step: int
    wall_time: float
    sample_rate: int
    length_frames: int
    channels: int
    wav: bytes
    def __init__(self, tag: _Optional[str] = ..., step: _Optional[int] = ..., wall_time: _Optional[float] = ..., sample_rate: _Optional[int] = ..., length_frames: _Optional[int] = ..., channels: _Optional[int] = ..., wav: _Optional[bytes] = ...) -> None: ...

class PrCurve(_message.Message):
    __slots__ = ("tag", "step", "wall_time", "thresholds", "tp", "fp", "tn", "fn", "precision", "recall")
    TAG_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    THRESHOLDS_FIELD_NUMBER: _ClassVar[int]
    TP_FIELD_NUMBER: _ClassVar[int]
    FP_FIELD_NUMBER: _ClassVar[int]
    TN_FIELD_NUMBER: _ClassVar[int]
    FN_FIELD_NUMBER: _ClassVar[int]
    PRECISION_FIELD_NUMBER: _ClassVar[int]
    RECALL_FIELD_NUMBER: _ClassVar[int]
    tag: str
    step: int
    wall_time: float
    thresholds: bytes
    tp: bytes
    fp: bytes
    tn: bytes
    fn: bytes
    precision: bytes
    recall: bytes
    def __init__(self, tag: _Optional[str] = ..., step: _Optional[int] = ..., wall_time: _Optional[float] = ..., thresholds: _Optional[bytes] = ..., tp: _Optional[bytes] = ..., fp: _Optional[bytes] = ..., tn: _Optional[bytes] = ..., fn: _Optional[bytes] = ..., precision: _Optional[bytes] = ..., recall: _Optional[bytes] = ...) -> None: ...

class RocCurve(_message.Message):
    __slots__ = ("tag", "step", "wall_time", "thresholds", "tp", "fp", "tn", "fn", "tpr", "fpr")
    TAG_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    THRESHOLDS_FIELD_NUMBER: _ClassVar[int]
    TP_FIELD_NUMBER: _ClassVar[int]
    FP_FIELD_NUMBER: _ClassVar[int]
    TN_FIELD_NUMBER: _ClassVar[int]
    FN_FIELD_NUMBER: _ClassVar[int]
    TPR_FIELD_NUMBER: _ClassVar[int]
    FPR_FIELD_NUMBER: _ClassVar[int]
    tag: str
    step: int
    wall_time: float
    thresholds: bytes
    tp: bytes
    fp: bytes
    tn: bytes
    fn: bytes
    tpr: bytes
    fpr: bytes
    def __init__(self, tag: _Optional[str] = ..., step: _Optional[int] = ..., wall_time: _Optional[float] = ..., thresholds: _Optional[bytes] = ..., tp: _Optional[bytes] = ..., fp: _Optional[bytes] = ..., tn: _Optional[bytes] = ..., fn: _Optional[bytes] = ..., tpr: _Optional[bytes] = ..., fpr: _Optional[bytes] = ...) -> None: ...

class HParamValue(_message.Message):
    __slots__ = ("name", "int_value", "float_value", "string_value", "bool_value")
    NAME_FIELD_NUMBER: _ClassVar[int]
    INT_VALUE_FIELD_NUMBER: _ClassVar[int]
    FLOAT_VALUE_FIELD_NUMBER: _ClassVar[int]
    STRING_VALUE_FIELD_NUMBER: _ClassVar[int]
    BOOL_VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    int_value: int
    float_value: float
    string_value: str
    bool_value: bool
    def __init__(self, name: _Optional[str] = ..., int_value: _Optional[int] = ..., float_value: _Optional[float] = ..., string_value: _Optional[str] = ..., bool_value: _Optional[bool] = ...) -> None: ...

class HParams(_message.Message):
    __slots__ = ("wall_time", "values", "metrics")
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    METRICS_FIELD_NUMBER: _ClassVar[int]
    wall_time: float
    values: _containers.RepeatedCompositeFieldContainer[HParamValue]
    metrics: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, wall_time: _Optional[float] = ..., values: _Optional[_Iterable[_Union[HParamValue, _Mapping]]] = ..., metrics: _Optional[_Iterable[str]] = ...) -> None: ...

class Embeddings(_message.Message):
    __slots__ = ("tag", "step", "wall_time", "rows", "dimension", "metadata_header", "metadata", "vectors")
    TAG_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    METADATA_HEADER_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    VECTORS_FIELD_NUMBER: _ClassVar[int]
    tag: str
    step: int
    wall_time: float
    rows: int
    dimension: int
    metadata_header: _containers.RepeatedScalarFieldContainer[str]
    metadata: _containers.RepeatedScalarFieldContainer[str]
    vectors: bytes
    def __init__(self, tag: _Optional[str] = ..., step: _Optional[int] = ..., wall_time: _Optional[float] = ..., rows: _Optional[int] = ..., dimension: _Optional[int] = ..., metadata_header: _Optional[_Iterable[str]] = ..., metadata: _Optional[_Iterable[str]] = ..., vectors: _Optional[bytes] = ...) -> None: ...

class ScalarLayout(_message.Message):
    __slots__ = ("wall_time", "categories")
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    CATEGORIES_FIELD_NUMBER: _ClassVar[int]
    wall_time: float
    categories: _containers.RepeatedCompositeFieldContainer[LayoutCategory]
    def __init__(self, wall_time: _Optional[float] = ..., categories: _Optional[_Iterable[_Union[LayoutCategory, _Mapping]]] = ...) -> None: ...

class LayoutCategory(_message.Message):
    __slots__ = ("title", "charts", "closed")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CHARTS_FIELD_NUMBER: _ClassVar[int]
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    title: str
    charts: _containers.RepeatedCompositeFieldContainer[LayoutChart]
    closed: bool
    def __init__(self, title: _Optional[str] = ..., charts: _Optional[_Iterable[_Union[LayoutChart, _Mapping]]] = ..., closed: _Optional[bool] = ...) -> None: ...

class LayoutChart(_message.Message):
    __slots__ = ("title", "multiline", "margin")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    MULTILINE_FIELD_NUMBER: _ClassVar[int]
    MARGIN_FIELD_NUMBER: _ClassVar[int]
    title: str
    multiline: MultilineChart
    margin: MarginChart
    def __init__(self, title: _Optional[str] = ..., multiline: _Optional[_Union[MultilineChart, _Mapping]] = ..., margin: _Optional[_Union[MarginChart, _Mapping]] = ...) -> None: ...

class MultilineChart(_message.Message):
    __slots__ = ("tags",)
    TAGS_FIELD_NUMBER: _ClassVar[int]
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tags: _Optional[_Iterable[str]] = ...) -> None: ...

class MarginChart(_message.Message):
    __slots__ = ("series",)
    SERIES_FIELD_NUMBER: _ClassVar[int]
    series: _containers.RepeatedCompositeFieldContainer[MarginSeries]
    def __init__(self, series: _Optional[_Iterable[_Union[MarginSeries, _Mapping]]] = ...) -> None: ...

class MarginSeries(_message.Message):
    __slots__ = ("value", "lower", "upper")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    LOWER_FIELD_NUMBER: _ClassVar[int]
    UPPER_FIELD_NUMBER: _ClassVar[int]
    value: str
    lower: str
    upper: str
    def __init__(self, value: _Optional[str] = ..., lower: _Optional[str] = ..., upper: _Optional[str] = ...) -> None: ...

class Meta(_message.Message):
    __slots__ = ("wall_time", "display_name")
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    wall_time: float
    display_name: str
    def __init__(self, wall_time: _Optional[float] = ..., display_name: _Optional[str] = ...) -> None: ...

class Provenance(_message.Message):
    __slots__ = ("wall_time", "argv", "executable", "cwd", "python", "git_commit", "git_branch", "git_dirty", "packages")
    class PackagesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    ARGV_FIELD_NUMBER: _ClassVar[int]
    EXECUTABLE_FIELD_NUMBER: _ClassVar[int]
    CWD_FIELD_NUMBER: _ClassVar[int]
    PYTHON_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_FIELD_NUMBER: _ClassVar[int]
    GIT_BRANCH_FIELD_NUMBER: _ClassVar[int]
    GIT_DIRTY_FIELD_NUMBER: _ClassVar[int]
    PACKAGES_FIELD_NUMBER: _ClassVar[int]
    wall_time: float
    argv: _containers.RepeatedScalarFieldContainer[str]
    executable: str
    cwd: str
    python: str
    git_commit: str
    git_branch: str
    git_dirty: bool
    packages: _containers.ScalarMap[str, str]
    def __init__(self, wall_time: _Optional[float] = ..., argv: _Optional[_Iterable[str]] = ..., executable: _Optional[str] = ..., cwd: _Optional[str] = ..., python: _Optional[str] = ..., git_commit: _Optional[str] = ..., git_branch: _Optional[str] = ..., git_dirty: _Optional[bool] = ..., packages: _Optional[_Mapping[str, str]] = ...) -> None: ...

class Footer(_message.Message):
    __slots__ = ("wall_time", "records", "scalar_points")
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    SCALAR_POINTS_FIELD_NUMBER: _ClassVar[int]
    wall_time: float
    records: int
    scalar_points: int
    def __init__(self, wall_time: _Optional[float] = ..., records: _Optional[int] = ..., scalar_points: _Optional[int] = ...) -> None: ...

class ProcessEnd(_message.Message):
    __slots__ = ("how", "wall_time", "exception_type", "message", "traceback", "signal", "thread", "last_step", "event")
    HOW_FIELD_NUMBER: _ClassVar[int]
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    EXCEPTION_TYPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TRACEBACK_FIELD_NUMBER: _ClassVar[int]
    SIGNAL_FIELD_NUMBER: _ClassVar[int]
    THREAD_FIELD_NUMBER: _ClassVar[int]
    LAST_STEP_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    how: str
    wall_time: float
    exception_type: str
    message: str
    traceback: str
    signal: str
    thread: str
    last_step: int
    event: bool
    def __init__(self, how: _Optional[str] = ..., wall_time: _Optional[float] = ..., exception_type: _Optional[str] = ..., message: _Optional[str] = ..., traceback: _Optional[str] = ..., signal: _Optional[str] = ..., thread: _Optional[str] = ..., last_step: _Optional[int] = ..., event: _Optional[bool] = ...) -> None: ...

class SystemMetrics(_message.Message):
    __slots__ = ("metrics", "wall_times", "values", "skipped")
    METRICS_FIELD_NUMBER: _ClassVar[int]
    WALL_TIMES_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    metrics: _containers.RepeatedCompositeFieldContainer[SystemMetric]
    wall_times: bytes
    values: bytes
    skipped: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, metrics: _Optional[_Iterable[_Union[SystemMetric, _Mapping]]] = ..., wall_times: _Optional[bytes] = ..., values: _Optional[bytes] = ..., skipped: _Optional[_Iterable[str]] = ...) -> None: ...

class SystemMetric(_message.Message):
    __slots__ = ("name", "scope", "unit", "gpu_index", "gpu_name", "gpu_uuid")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    GPU_INDEX_FIELD_NUMBER: _ClassVar[int]
    GPU_NAME_FIELD_NUMBER: _ClassVar[int]
    GPU_UUID_FIELD_NUMBER: _ClassVar[int]
    name: str
    scope: str
    unit: str
    gpu_index: int
    gpu_name: str
    gpu_uuid: str
    def __init__(self, name: _Optional[str] = ..., scope: _Optional[str] = ..., unit: _Optional[str] = ..., gpu_index: _Optional[int] = ..., gpu_name: _Optional[str] = ..., gpu_uuid: _Optional[str] = ...) -> None: ...

class TagInfo(_message.Message):
    __slots__ = ("tag", "replicated")
    TAG_FIELD_NUMBER: _ClassVar[int]
    REPLICATED_FIELD_NUMBER: _ClassVar[int]
    tag: str
    replicated: bool
    def __init__(self, tag: _Optional[str] = ..., replicated: _Optional[bool] = ...) -> None: ...

class Record(_message.Message):
    __slots__ = ("header", "scalars", "image", "histogram", "text", "graph", "footer", "audio", "pr_curve", "roc_curve", "hparams", "embeddings", "scalar_layout", "meta", "process_end", "system_metrics", "tag_info", "provenance")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    SCALARS_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    HISTOGRAM_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    FOOTER_FIELD_NUMBER: _ClassVar[int]
    AUDIO_FIELD_NUMBER: _ClassVar[int]
    PR_CURVE_FIELD_NUMBER: _ClassVar[int]
    ROC_CURVE_FIELD_NUMBER: _ClassVar[int]
    HPARAMS_FIELD_NUMBER: _ClassVar[int]
    EMBEDDINGS_FIELD_NUMBER: _ClassVar[int]
    SCALAR_LAYOUT_FIELD_NUMBER: _ClassVar[int]
    META_FIELD_NUMBER: _ClassVar[int]
    PROCESS_END_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_METRICS_FIELD_NUMBER: _ClassVar[int]
    TAG_INFO_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    header: Header
    scalars: ScalarBatch
    image: Image
    histogram: Histogram
    text: Text
    graph: Graph
    footer: Footer
    audio: Audio
    pr_curve: PrCurve
    roc_curve: RocCurve
    hparams: HParams
    embeddings: Embeddings
    scalar_layout: ScalarLayout
    meta: Meta
    process_end: ProcessEnd
    system_metrics: SystemMetrics
    tag_info: TagInfo
    provenance: Provenance
    def __init__(self, header: _Optional[_Union[Header, _Mapping]] = ..., scalars: _Optional[_Union[ScalarBatch, _Mapping]] = ..., image: _Optional[_Union[Image, _Mapping]] = ..., histogram: _Optional[_Union[Histogram, _Mapping]] = ..., text: _Optional[_Union[Text, _Mapping]] = ..., graph: _Optional[_Union[Graph, _Mapping]] = ..., footer: _Optional[_Union[Footer, _Mapping]] = ..., audio: _Optional[_Union[Audio, _Mapping]] = ..., pr_curve: _Optional[_Union[PrCurve, _Mapping]] = ..., roc_curve: _Optional[_Union[RocCurve, _Mapping]] = ..., hparams: _Optional[_Union[HParams, _Mapping]] = ..., embeddings: _Optional[_Union[Embeddings, _Mapping]] = ..., scalar_layout: _Optional[_Union[ScalarLayout, _Mapping]] = ..., meta: _Optional[_Union[Meta, _Mapping]] = ..., process_end: _Optional[_Union[ProcessEnd, _Mapping]] = ..., system_metrics: _Optional[_Union[SystemMetrics, _Mapping]] = ..., tag_info: _Optional[_Union[TagInfo, _Mapping]] = ..., provenance: _Optional[_Union[Provenance, _Mapping]] = ...) -> None: ...
