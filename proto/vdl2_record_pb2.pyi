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
    class Audio(_message.Message):
        __slots__ = ("sample_rate", "num_channels", "length_frames", "encoded_audio_string", "content_type")
        SAMPLE_RATE_FIELD_NUMBER: _ClassVar[int]
        NUM_CHANNELS_FIELD_NUMBER: _ClassVar[int]
        LENGTH_FRAMES_FIELD_NUMBER: _ClassVar[int]
        ENCODED_AUDIO_STRING_FIELD_NUMBER: _ClassVar[int]
        CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
        sample_rate: float
        num_channels: int
        length_frames: int
        encoded_audio_string: bytes
        content_type: str
        def __init__(self, sample_rate: _Optional[float] = ..., num_channels: _Optional[int] = ..., length_frames: _Optional[int] = ..., encoded_audio_string: _Optional[bytes] = ..., content_type: _Optional[str] = ...) -> None: ...
    class Embedding(_message.Message):
        __slots__ = ("label", "vectors")
        LABEL_FIELD_NUMBER: _ClassVar[int]
        VECTORS_FIELD_NUMBER: _ClassVar[int]
        label: _containers.RepeatedScalarFieldContainer[str]
        vectors: _containers.RepeatedScalarFieldContainer[float]
        def __init__(self, label: _Optional[_Iterable[str]] = ..., vectors: _Optional[_Iterable[float]] = ...) -> None: ...
    class Embeddings(_message.Message):
        __slots__ = ("embeddings", "label_meta")
        EMBEDDINGS_FIELD_NUMBER: _ClassVar[int]
        LABEL_META_FIELD_NUMBER: _ClassVar[int]
        embeddings: _containers.RepeatedCompositeFieldContainer[Record.Embedding]
        label_meta: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, embeddings: _Optional[_Iterable[_Union[Record.Embedding, _Mapping]]] = ..., label_meta: _Optional[_Iterable[str]] = ...) -> None: ...
    class PRCurve(_message.Message):
        __slots__ = ("TP", "FP", "TN", "FN", "precision", "recall")
        TP_FIELD_NUMBER: _ClassVar[int]
        FP_FIELD_NUMBER: _ClassVar[int]
        TN_FIELD_NUMBER: _ClassVar[int]
        FN_FIELD_NUMBER: _ClassVar[int]
        PRECISION_FIELD_NUMBER: _ClassVar[int]
        RECALL_FIELD_NUMBER: _ClassVar[int]
        TP: _containers.RepeatedScalarFieldContainer[int]
        FP: _containers.RepeatedScalarFieldContainer[int]
        TN: _containers.RepeatedScalarFieldContainer[int]
        FN: _containers.RepeatedScalarFieldContainer[int]
        precision: _containers.RepeatedScalarFieldContainer[float]
        recall: _containers.RepeatedScalarFieldContainer[float]
        def __init__(self, TP: _Optional[_Iterable[int]] = ..., FP: _Optional[_Iterable[int]] = ..., TN: _Optional[_Iterable[int]] = ..., FN: _Optional[_Iterable[int]] = ..., precision: _Optional[_Iterable[float]] = ..., recall: _Optional[_Iterable[float]] = ...) -> None: ...
    class ROC_Curve(_message.Message):
        __slots__ = ("TP", "FP", "TN", "FN", "tpr", "fpr")
        TP_FIELD_NUMBER: _ClassVar[int]
        FP_FIELD_NUMBER: _ClassVar[int]
        TN_FIELD_NUMBER: _ClassVar[int]
        FN_FIELD_NUMBER: _ClassVar[int]
        TPR_FIELD_NUMBER: _ClassVar[int]
        FPR_FIELD_NUMBER: _ClassVar[int]
        TP: _containers.RepeatedScalarFieldContainer[int]
        FP: _containers.RepeatedScalarFieldContainer[int]
        TN: _containers.RepeatedScalarFieldContainer[int]
        FN: _containers.RepeatedScalarFieldContainer[int]
        tpr: _containers.RepeatedScalarFieldContainer[float]
        fpr: _containers.RepeatedScalarFieldContainer[float]
        def __init__(self, TP: _Optional[_Iterable[int]] = ..., FP: _Optional[_Iterable[int]] = ..., TN: _Optional[_Iterable[int]] = ..., FN: _Optional[_Iterable[int]] = ..., tpr: _Optional[_Iterable[float]] = ..., fpr: _Optional[_Iterable[float]] = ...) -> None: ...
    class HParam(_message.Message):
        __slots__ = ("hparamInfos", "metricInfos", "name")
        class HparamInfo(_message.Message):
            __slots__ = ("int_value", "float_value", "string_value", "name")
            INT_VALUE_FIELD_NUMBER: _ClassVar[int]
            FLOAT_VALUE_FIELD_NUMBER: _ClassVar[int]
            STRING_VALUE_FIELD_NUMBER: _ClassVar[int]
            NAME_FIELD_NUMBER: _ClassVar[int]
            int_value: int
            float_value: float
            string_value: str
            name: str
            def __init__(self, int_value: _Optional[int] = ..., float_value: _Optional[float] = ..., string_value: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...
        HPARAMINFOS_FIELD_NUMBER: _ClassVar[int]
        METRICINFOS_FIELD_NUMBER: _ClassVar[int]
        NAME_FIELD_NUMBER: _ClassVar[int]
        hparamInfos: _containers.RepeatedCompositeFieldContainer[Record.HParam.HparamInfo]
        metricInfos: _containers.RepeatedCompositeFieldContainer[Record.HParam.HparamInfo]
        name: str
        def __init__(self, hparamInfos: _Optional[_Iterable[_Union[Record.HParam.HparamInfo, _Mapping]]] = ..., metricInfos: _Optional[_Iterable[_Union[Record.HParam.HparamInfo, _Mapping]]] = ..., name: _Optional[str] = ...) -> None: ...
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
        audio: Record.Audio
        embeddings: Record.Embeddings
        histogram: Record.Histogram
        pr_curve: Record.PRCurve
        meta_data: Record.MetaData
        roc_curve: Record.ROC_Curve
        text: Record.Text
        hparam: Record.HParam
        tag_value: Record.TagValue
        def __init__(self, id: _Optional[int] = ..., tag: _Optional[str] = ..., timestamp: _Optional[int] = ..., value: _Optional[float] = ..., image: _Optional[_Union[Record.Image, _Mapping]] = ..., audio: _Optional[_Union[Record.Audio, _Mapping]] = ..., embeddings: _Optional[_Union[Record.Embeddings, _Mapping]] = ..., histogram: _Optional[_Union[Record.Histogram, _Mapping]] = ..., pr_curve: _Optional[_Union[Record.PRCurve, _Mapping]] = ..., meta_data: _Optional[_Union[Record.MetaData, _Mapping]] = ..., roc_curve: _Optional[_Union[Record.ROC_Curve, _Mapping]] = ..., text: _Optional[_Union[Record.Text, _Mapping]] = ..., hparam: _Optional[_Union[Record.HParam, _Mapping]] = ..., tag_value: _Optional[_Union[Record.TagValue, _Mapping]] = ...) -> None: ...
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedCompositeFieldContainer[Record.Value]
    def __init__(self, values: _Optional[_Iterable[_Union[Record.Value, _Mapping]]] = ...) -> None: ...
