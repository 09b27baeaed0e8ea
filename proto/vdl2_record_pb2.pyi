from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Record(_message.Message):
    __slots__ = ("values",)
    class Image(_message.Message):
        __slots__ = ("encoded_image_string",)
        ENCODED_IMAGE_STRING_FIELD_NUMBER: _ClassVar[int]
        encoded_image_string: bytes
        def __init__(self, encoded_image_string: _Optional[bytes] = ...) -> None: ...
    class Text(_message.Message):
        __slots__ = ("encoded_text_string",)
        ENCODED_TEXT_STRING_FIELD_NUMBER: _ClassVar[int]
        encoded_text_string: str
        def __init__(self, encoded_text_string: _Optional[str] = ...) -> None: ...
    class Histogram(_message.Message):
        __slots__ = ("hist", "bin_edges")
        HIST_FIELD_NUMBER: _ClassVar[int]
        BIN_EDGES_FIELD_NUMBER: _ClassVar[int]
        hist: _containers.RepeatedScalarFieldContainer[float]
        bin_edges: _containers.RepeatedScalarFieldContainer[float]
        def __init__(self, hist: _Optional[_Iterable[float]] = ..., bin_edges: _Optional[_Iterable[float]] = ...) -> None: ...
    class MetaData(_message.Message):
        __slots__ = ("display_name",)
        DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
        display_name: str
        def __init__(self, display_name: _Optional[str] = ...) -> None: ...
    class TagValue(_message.Message):
        __slots__ = ("tag", "value")
        TAG_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        tag: str
        value: float
        def __init__(self, tag: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    class Value(_message.Message):
        __slots__ = ("id", "tag", "timestamp", "value", "image", "audio", "embeddings", "histogram", "pr_curve", "meta_data", "roc_curve", "text", "hparam", "tag_value")
        ID_FIELD_NUMBER: _ClassVar[int]
        TAG_FIELD_NUMBER: _ClassVar[int]
        TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        IMAGE_FIELD_NUMBER: _ClassVar[int]
        AUDIO_FIELD_NUMBER: _ClassVar[int]
        EMBEDDINGS_FIELD_NUMBER: _ClassVar[int]
        HISTOGRAM_FIELD_NUMBER: _ClassVar[int]
        PR_CURVE_FIELD_NUMBER: _ClassVar[int]
        META_DATA_FIELD_NUMBER: _ClassVar[int]
        ROC_CURVE_FIELD_NUMBER: _ClassVar[int]
        TEXT_FIELD_NUMBER: _ClassVar[int]
        HPARAM_FIELD_NUMBER: _ClassVar[int]
        TAG_VALUE_FIELD_NUMBER: _ClassVar[int]
        id: int
        tag: str
        timestamp: int
        value: float
        image: Record.Image
        audio: bytes
        embeddings: bytes
        histogram: Record.Histogram
        pr_curve: bytes
        meta_data: Record.MetaData
        roc_curve: bytes
        text: Record.Text
        hparam: bytes
        tag_value: Record.TagValue
        def __init__(self, id: _Optional[int] = ..., tag: _Optional[str] = ..., timestamp: _Optional[int] = ..., value: _Optional[float] = ..., image: _Optional[_Union[Record.Image, _Mapping]] = ..., audio: _Optional[bytes] = ..., embeddings: _Optional[bytes] = ..., histogram: _Optional[_Union[Record.Histogram, _Mapping]] = ..., pr_curve: _Optional[bytes] = ..., meta_data: _Optional[_Union[Record.MetaData, _Mapping]] = ..., roc_curve: _Optional[bytes] = ..., text: _Optional[_Union[Record.Text, _Mapping]] = ..., hparam: _Optional[bytes] = ..., tag_value: _Optional[_Union[Record.TagValue, _Mapping]] = ...) -> None: ...
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedCompositeFieldContainer[Record.Value]
    def __init__(self, values: _Optional[_Iterable[_Union[Record.Value, _Mapping]]] = ...) -> None: ...
