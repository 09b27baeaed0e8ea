"""The table of record kinds: the one place that lists each kind of data.

Each kind is a module of this package that declares its :class:`Kind` entry in one place
(``KIND``): its name (``scalars``, ``images``, ``histograms``, ``text``, ``graphs``,
``audio``, ``pr_curves``, ``roc_curves``, ``hparams``, ``embeddings``,
``scalar_layouts``), the ``Record`` field that carries it, its event class, its record
builder (``encode_*``, used by ``LogWriter`` and ``SummaryWriter``), its decoder, its
storage class, its order, its title and, for a blob kind, its payload's field and media
type. This module only assembles :data:`KINDS` from them, in the order the UI shows them,
and re-exports their names. Writer, reader and API dispatch through :data:`KINDS`.

Large payloads (PNG bytes, ONNX models, WAV bytes, embedding vectors) are not kept in events: an event carries a
:class:`RecordRef` (file and offset) and the reader reads the bytes when asked.

Adding a kind: its message and a field of ``Record``'s oneof in ``proto/visualdl.proto``;
a module here declaring its event class, decoder, builder and ``KIND``, and one line of
:data:`KINDS` (the reader then stores, lists and orders its events with no more code);
in each foreign format, an entry of :data:`visualdl._formats.tfevents.decode.READERS` and
:data:`visualdl._formats.vdl2.decode.READERS`, or of their ``NOT_READ`` saying why not
(``tests/test_kinds_table.py`` fails until each format says, and until the kind has a
sample there whose record decodes back to its event); then what only this kind has: its
``LogWriter.add_*`` method, its provider call and route, and its view.
"""

from __future__ import annotations

from visualdl._kinds import (
    audio,
    embeddings,
    graph,
    histogram,
    hparams,
    image,
    pr_curve,
    roc_curve,
    scalar_layout,
    scalars,
    text,
)
from visualdl._kinds.audio import AudioEvent, build_audio, encode_audio, sample_rate_of
from visualdl._kinds.embeddings import EmbeddingsEvent, encode_embeddings
from visualdl._kinds.graph import GraphEvent, encode_graph
from visualdl._kinds.histogram import HistogramEvent, HistogramStats, check_finite, encode_histogram
from visualdl._kinds.hparams import HPARAMS_TAG, HParamsEvent, encode_hparams
from visualdl._kinds.image import ImageEvent, encode_image
from visualdl._kinds.kind import STORAGE_CLASSES, BuiltRecord, Kind, RecordRef, Storage
from visualdl._kinds.meta import encode_meta
from visualdl._kinds.png import png_shape
from visualdl._kinds.pr_curve import PR_CURVE_COLUMNS, PrCurveEvent, encode_pr_curve
from visualdl._kinds.process_end import ProcessEnd, decode_process_end, encode_process_end
from visualdl._kinds.roc_curve import ROC_CURVE_COLUMNS, RocCurveEvent, encode_roc_curve
from visualdl._kinds.scalar_layout import (
    SCALAR_LAYOUT_TAG,
    LayoutCategory,
    LayoutChart,
    ScalarLayoutEvent,
    encode_scalar_layout,
)
from visualdl._kinds.scalars import ScalarBlock, encode_scalars
from visualdl._kinds.system_metrics import SystemBatch, SystemMetric, decode_system_metrics, encode_system_metrics
from visualdl._kinds.tag_info import encode_tag_info
from visualdl._kinds.text import TextEvent, encode_text

__all__ = [
    "BLOB_KIND",
    "HPARAMS_TAG",
    "KINDS",
    "KIND_BY_FIELD",
    "PR_CURVE_COLUMNS",
    "ROC_CURVE_COLUMNS",
    "SCALAR_LAYOUT_TAG",
    "STORAGE_CLASSES",
    "AudioEvent",
    "BuiltRecord",
    "EmbeddingsEvent",
    "GraphEvent",
    "HParamsEvent",
    "HistogramEvent",
    "HistogramStats",
    "ImageEvent",
    "Kind",
    "LayoutCategory",
    "LayoutChart",
    "PrCurveEvent",
    "ProcessEnd",
    "RecordRef",
    "RocCurveEvent",
    "ScalarBlock",
    "ScalarLayoutEvent",
    "Storage",
    "SystemBatch",
    "SystemMetric",
    "TextEvent",
    "build_audio",
    "check_finite",
    "decode_process_end",
    "decode_system_metrics",
    "encode_audio",
    "encode_embeddings",
    "encode_graph",
    "encode_histogram",
    "encode_hparams",
    "encode_image",
    "encode_meta",
    "encode_pr_curve",
    "encode_process_end",
    "encode_roc_curve",
    "encode_scalar_layout",
    "encode_scalars",
    "encode_tag_info",
    "encode_system_metrics",
    "encode_text",
    "png_shape",
    "sample_rate_of",
]

#: Every kind by name, in the order the UI shows them.
KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        scalars.KIND,
        image.KIND,
        histogram.KIND,
        text.KIND,
        graph.KIND,
        audio.KIND,
        pr_curve.KIND,
        roc_curve.KIND,
        hparams.KIND,
        embeddings.KIND,
        scalar_layout.KIND,
    )
}
KIND_BY_FIELD: dict[str, Kind] = {kind.field: kind for kind in KINDS.values()}
#: The kind of an event whose payload is read apart (:meth:`LogReader.read_blob`).
BLOB_KIND: dict[type, Kind] = {kind.event: kind for kind in KINDS.values() if kind.storage == "blob"}
