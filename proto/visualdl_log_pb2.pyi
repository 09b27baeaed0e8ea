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

class Footer(_message.Message):
    __slots__ = ("wall_time", "records", "scalar_points")
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    SCALAR_POINTS_FIELD_NUMBER: _ClassVar[int]
    wall_time: float
    records: int
    scalar_points: int
    def __init__(self, wall_time: _Optional[float] = ..., records: _Optional[int] = ..., scalar_points: _Optional[int] = ...) -> None: ...

class Record(_message.Message):
    __slots__ = ("header", "scalars", "image", "histogram", "text", "graph", "footer")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    SCALARS_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    HISTOGRAM_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    FOOTER_FIELD_NUMBER: _ClassVar[int]
    header: Header
    scalars: ScalarBatch
    image: Image
    histogram: Histogram
    text: Text
    graph: Graph
    footer: Footer
    def __init__(self, header: _Optional[_Union[Header, _Mapping]] = ..., scalars: _Optional[_Union[ScalarBatch, _Mapping]] = ..., image: _Optional[_Union[Image, _Mapping]] = ..., histogram: _Optional[_Union[Histogram, _Mapping]] = ..., text: _Optional[_Union[Text, _Mapping]] = ..., graph: _Optional[_Union[Graph, _Mapping]] = ..., footer: _Optional[_Union[Footer, _Mapping]] = ...) -> None: ...
