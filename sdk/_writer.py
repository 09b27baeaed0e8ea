"""LogWriter: the training loop's handle. Validates on the caller's thread, then delegates.

A drop-in for VisualDL 2.x scripts (same constructor and ``add_*`` signatures). Every
``add_*`` checks its arguments and raises ``TypeError``/``ValueError`` naming the bad
one before anything is queued; encoding and I/O happen on the sink's thread.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import numpy as np

from visualdl._formats.vdlog.logformat import FILE_MARKER, FORMAT_VERSION
from visualdl._kinds.table import (
    BuiltRecord,
    build_audio,
    encode_embeddings,
    encode_graph,
    encode_histogram,
    encode_hparams,
    encode_image,
    encode_meta,
    encode_pr_curve,
    encode_roc_curve,
    encode_text,
)
from visualdl._storage import Appender, open_store
from visualdl._storage.objects import DEFAULT_UPLOAD_BYTES, DEFAULT_UPLOAD_SECS, DEFAULT_UPLOAD_TIMEOUT
from visualdl._version import __version__
from visualdl.proto import pb
from visualdl.sdk import _audio as audio
from visualdl.sdk import _convert as convert
from visualdl.sdk import _curves as curves
from visualdl.sdk import _embeddings as embeddings
from visualdl.sdk import _ends as ends
from visualdl.sdk import _export as export
from visualdl.sdk import _figures as figures
from visualdl.sdk import _hparams as hparams
from visualdl.sdk import _launcher as launcher
from visualdl.sdk import _sampler as sampling
from visualdl.sdk._options import WriterOptions, safe_host
from visualdl.sdk._provenance import provenance_record
from visualdl.sdk._replicated import declare
from visualdl.sdk._sink import DEFAULT_CLOSE_TIMEOUT, NullSink, Sink

__all__ = ["LogWriter", "RecordPort", "record_port"]

_INT64_MAX = 2**63 - 1
_now = time.time
#: What a provenance record counts toward the writer's memory bound while it waits.
_PROVENANCE_BYTES = 1024
_to_float = convert.to_float


class LogWriter:
    """Write scalars, images, histograms, text, ONNX graphs, audio, PR and ROC curves,
    hyperparameters and embeddings into ``logdir``.

    Args:
        logdir: directory of this run (created if missing). Default:
            ``runs/<time>_<host><comment>`` like VisualDL and TensorBoard. A URL
            (``s3://bucket/exp/run0``, ``gs://``, ``az://``, ``hdfs://``,
            ``memory://``) writes into object storage: the log is uploaded as
            immutable segments by the background thread (:mod:`visualdl._storage.objects`).
        comment: suffix of the default logdir.
        max_queue: pending points or records that wake the writer thread early.
        flush_secs: at most this many seconds pass between a call and its data
            being in the OS; a killed process loses at most this much.
        filename_suffix: appended to the file name (no ``/``).
        write_to_disk: False makes a writer that checks its arguments and writes
            nothing (VisualDL 2 scripts use it on the processes that must not log).
        display_name: a name for this writer, kept in the file header.
        file_name: an explicit file name inside ``logdir`` (no ``/``, not starting
            with ``.``); an existing file is appended to. A name without ``.vdlog``
            (VisualDL 2's ``vdlrecords.*.log``) gets ``.vdlog`` appended, so that
            readers take the file for this format, not VisualDL 2's. In object
            storage, which cannot append, each writer of a ``file_name`` uploads
            segments of a log of its own (``train.<8 hex digits>.vdlog``).
        max_pending_bytes: memory bound of data waiting for the disk; above it,
            ``add_*`` calls wait for the writer (backpressure, nothing is dropped).
        fsync: make ``flush()`` and each background flush also ``fsync`` the file.
        upload_secs, upload_bytes: a log in object storage is uploaded as a new
            segment every ``upload_secs`` (default 60) or once ``upload_bytes`` wait
            (default 16 MiB, less than ``max_pending_bytes``), and on ``flush()``,
            ``close()``, exit and SIGTERM. A killed process loses at most
            ``upload_secs``; each upload is one PUT request (the README weighs the two).
        upload_timeout: a segment not uploaded this many seconds (default 60) after its
            first attempt is raised as a ``WriterError`` from the next call; attempts go
            on with backoff, the same segment under the same name, until it is up.
        close_timeout: ``close()``, the context's exit and the interpreter's exit wait at
            most this many seconds (default 30) for the last writes and uploads, then
            raise (at exit: log) a ``WriterError`` saying how many bytes and records were
            not written.
        rank, world_size, local_rank, role, job, attempt: this process's place in a
            distributed job, written into the file header. Detected from the
            launcher's environment (torchrun, PaddlePaddle, TF_CONFIG, Horovod, MPI,
            SLURM; see :mod:`visualdl.sdk._launcher`); explicit arguments win.
        system_metrics: sample the process's CPU, memory and threads, its host's CPU,
            memory, load, disk and network (once per host: the writer of local rank 0, or
            one of the process's writers that know no local rank), and its GPUs' (NVML,
            the ``gpu`` extra) on the process's sampling thread (one, shared by its
            writers), into this writer's file (see :mod:`visualdl.sdk._sampler`). None
            (default): on for a
            writer with a rank or a role (given or detected), off otherwise.
        system_metrics_secs: seconds between samples, at least 0.5 (default 5).
        provenance: record where the process came from (its command line, interpreter,
            working directory, the git commit, branch and dirty flag of its code, the
            versions of the key packages it imported; :mod:`visualdl.sdk._provenance`),
            gathered on the writer's background thread. False leaves them out (a command
            line can hold secrets).

    Wall times: ``walltime`` is seconds since the epoch (TensorBoard) or milliseconds
    (VisualDL 2); values above 1e11 are taken as milliseconds. Default: now.
    """

    def __init__(
        self,
        logdir: str | os.PathLike[str] | None = None,
        comment: str = "",
        max_queue: int = 100_000,
        flush_secs: float = 1.0,
        filename_suffix: str = "",
        write_to_disk: bool = True,
        display_name: str = "",
        file_name: str = "",
        *,
        max_pending_bytes: int = 64 << 20,
        fsync: bool = False,
        upload_secs: float = DEFAULT_UPLOAD_SECS,
        upload_bytes: int = DEFAULT_UPLOAD_BYTES,
        upload_timeout: float = DEFAULT_UPLOAD_TIMEOUT,
        close_timeout: float = DEFAULT_CLOSE_TIMEOUT,
        rank: int | None = None,
        world_size: int | None = None,
        local_rank: int | None = None,
        role: str | None = None,
        job: str | None = None,
        attempt: int | None = None,
        system_metrics: bool | None = None,
        system_metrics_secs: float = 5.0,
        provenance: bool = True,
    ) -> None:
        options = WriterOptions.check(
            logdir=logdir,
            comment=comment,
            max_queue=max_queue,
            flush_secs=flush_secs,
            filename_suffix=filename_suffix,
            write_to_disk=write_to_disk,
            display_name=display_name,
            file_name=file_name,
            max_pending_bytes=max_pending_bytes,
            fsync=fsync,
            upload_secs=upload_secs,
            upload_bytes=upload_bytes,
            upload_timeout=upload_timeout,
            close_timeout=close_timeout,
            rank=rank,
            world_size=world_size,
            local_rank=local_rank,
            role=role,
            job=job,
            attempt=attempt,
            system_metrics=system_metrics,
            system_metrics_secs=system_metrics_secs,
            provenance=provenance,
            env=os.environ,
        )
        self._store = open_store(options.logdir)
        options.check_store(self._store.appends)
        self._options = options
        self._logdir = self._store.logdir
        self._placement = options.placement
        self._display_name = options.display_name
        self._first_pid = os.getpid()
        self._known_tags: set[str] = set()
        self._declared: dict[str, bool] = {}  # tag -> replicated, as written (sdk/_replicated.py)
        self._sampler: sampling.Subscription | None = None
        if not options.write_to_disk:
            self._sink: Sink | NullSink = NullSink()
            return
        self._sink = Sink(self._open_file, options)
        if options.provenance:  # built by the writer's thread: git status takes a subprocess
            self._sink.put_item(provenance_record, _PROVENANCE_BYTES)
        if options.samples_system:
            sink = self._sink
            self._sampler = sampling.subscribe(
                sink.put_sample, secs=options.system_metrics_secs, placement=self._placement, env=os.environ
            )

    # -- files -----------------------------------------------------------------------

    def _open_file(self) -> tuple[Appender, pb.Record]:
        """Create this writer's log (race-free, never an existing one unless file_name, which
        is appended to) and its header record."""
        pid = os.getpid()
        header = pb.Header(
            format_version=FORMAT_VERSION,
            writer_id=secrets.token_hex(16),
            host=socket.gethostname(),
            pid=pid,
            start_time=time.time(),
            sdk_version=__version__,
            display_name=self._display_name,
            rank=self._placement.rank,
            world_size=self._placement.world_size,
            local_rank=self._placement.local_rank,
            role=self._placement.role,
            job=self._placement.job,
            attempt=self._placement.attempt,
            launcher=self._placement.launcher,
        )
        if self._options.file_name and pid == self._first_pid:
            return self._appender(self._options.file_name, exclusive=False), pb.Record(header=header)
        while True:
            name = self._fresh_name(pid)
            try:
                out = self._appender(name, exclusive=True)
            except FileExistsError:
                continue
            return out, pb.Record(header=header)

    def _appender(self, name: str, *, exclusive: bool) -> Appender:
        options = self._options
        return self._store.appender(
            "",
            name,
            exclusive=exclusive,
            upload_secs=options.upload_secs,
            upload_bytes=options.upload_bytes,
            upload_timeout=options.upload_timeout,
        )

    def _fresh_name(self, pid: int) -> str:
        suffix = self._options.filename_suffix
        return f"vdl.{int(time.time()):010d}.{safe_host()}.{pid}.{secrets.token_hex(4)}{FILE_MARKER}{suffix}"

    @property
    def logdir(self) -> str:
        return self._logdir

    @property
    def file_name(self) -> str:
        """The path of the file being written."""
        return self._sink.path

    def get_logdir(self) -> str:
        return self._logdir

    @property
    def placement(self) -> launcher.Placement:
        """Rank, world size, role, job and attempt written into this writer's file header."""
        return self._placement

    def stats(self) -> dict[str, Any]:
        """Records and points written, bytes pending, seconds callers waited on the disk."""
        return self._sink.stats()

    # -- the add_* calls ---------------------------------------------------------------

    def _tag(self, tag: Any, name: str = "tag") -> str:
        checked: str = tag  # once check_tag has passed it (on the hot path: no cast call)
        if checked not in self._known_tags:
            convert.check_tag(tag, name)
            self._known_tags.add(checked)
        return checked

    def add_scalar(
        self, tag: str, value: Any, step: int, walltime: float | None = None, replicated: bool | None = None
    ) -> None:
        """Record ``value`` (a number, numpy scalar or one-element tensor) of ``tag`` at ``step``.

        ``replicated=True`` declares that every rank logs ``tag`` with the same value (an
        all-reduced loss): readers then name the first step where the ranks disagree. Said
        once per tag is enough."""
        if tag not in self._known_tags:
            self._tag(tag)
        if replicated is not None:
            declare(self._declared, self._sink, tag, replicated)
        if type(value) is not float:
            try:
                value = float(value) if type(value) is int else _to_float(value)
            except OverflowError:
                value = _to_float(value)  # raises the ValueError naming the value
        if type(step) is not int or not 0 <= step <= _INT64_MAX:
            step = convert.check_step(step)
        # convert.walltime_or_now, inline: on this path a call costs a tenth of the budget
        self._sink.put_scalar(tag, step, value, _now() if walltime is None else convert.check_walltime(walltime))

    def add_scalars(
        self, main_tag: str, tag_scalar_dict: Mapping[str, Any], step: int, walltime: float | None = None
    ) -> None:
        """Record several values at once, as tags ``main_tag/<key>``."""
        self._tag(main_tag, "main_tag")
        if not isinstance(tag_scalar_dict, Mapping) or not tag_scalar_dict:
            raise TypeError(f"tag_scalar_dict must be a non-empty dict of tag -> number; got {tag_scalar_dict!r}")
        points = []
        for key, value in tag_scalar_dict.items():
            convert.check_tag(key, "tag_scalar_dict key")
            points.append((self._tag(f"{main_tag}/{key}"), convert.to_float(value, f"tag_scalar_dict[{key!r}]")))
        step = convert.check_step(step)
        wall = convert.walltime_or_now(walltime)
        self._sink.put_scalars(points, step, wall)

    def add_image(self, tag: str, img: Any, step: int, walltime: float | None = None, dataformats: str = "HWC") -> None:
        """Record an image: HWC, CHW or HW; uint8 or floats in [0, 1]; 1, 3 or 4 channels; or a PIL image."""
        self._tag(tag)
        hwc = convert.check_image(img, dataformats)
        step = convert.check_step(step)
        wall = convert.walltime_or_now(walltime)
        self._put_image(tag, step, wall, hwc)

    def add_histogram(self, tag: str, values: Any, step: int, walltime: float | None = None, buckets: int = 10) -> None:
        """Record the distribution of ``values`` in ``buckets`` equal-width buckets.

        NaN and infinite values are counted apart (``nan_count``, ``pos_inf_count``,
        ``neg_inf_count``); the buckets cover the finite ones.
        """
        self._tag(tag)
        data, nbuckets = convert.check_histogram(values, buckets)
        step = convert.check_step(step)
        wall = convert.walltime_or_now(walltime)

        def build() -> pb.Record:
            edges, counts, stats = convert.bin_histogram(data, nbuckets)
            return encode_histogram(tag, step, wall, edges, counts, stats)

        self._sink.put_item(build, data.nbytes)

    def add_text(self, tag: str, text_string: str, step: int | None = None, walltime: float | None = None) -> None:
        """Record a text (Markdown in the UI); ``step`` defaults to 0."""
        self._tag(tag)
        size = convert.check_payload_text(text_string, "text_string")
        step = 0 if step is None else convert.check_step(step)
        self._put_text(tag, step, convert.walltime_or_now(walltime), text_string, size)

    def _put_text(self, tag: str, step: int, wall: float, text: str, size: int) -> None:
        self._tag(tag)
        self._sink.put_item(lambda: encode_text(tag, step, wall, text), size)

    def add_graph(self, model: Any, input_spec: Any = None, verbose: bool = False, *, name: str | None = None) -> None:
        """Record an ONNX model (an ``onnx.ModelProto``, a path to an ``.onnx`` file, or bytes),
        a ``torch.nn.Module`` exported to ONNX with ``torch.onnx.export`` on ``input_spec``
        (an example input: a tensor or a tuple of tensors), or a ``paddle.nn.Layer``
        exported with ``paddle.onnx.export`` on ``input_spec`` (a list of
        ``paddle.static.InputSpec`` or tensors, as VisualDL 2 takes it; needs paddle2onnx).
        The export runs on the caller's thread: a model that cannot be exported raises here.

        A run may hold several graphs by ``name`` (default: the graph's own name, the
        file's stem, the model's class, or ``model``); the newest of a name wins.
        ``verbose`` is the exporter's; ``input_spec`` of an ONNX model is not used.
        """
        if export.is_torch_module(model):
            data = export.torch_to_onnx(model, input_spec, verbose, argument="input_spec")
            self._put_graph(data, type(model).__name__ if name is None else name, None)
            return
        if export.is_paddle_layer(model):
            data = export.paddle_to_onnx(model, input_spec, verbose)
            self._put_graph(data, type(model).__name__ if name is None else name, None)
            return
        self._put_graph(model, name, None)

    def add_onnx_graph(self, graph: Any, walltime: float | None = None) -> None:
        """Record an ONNX model, as :meth:`add_graph` does (VisualDL 2's name for it)."""
        self._put_graph(graph, None, walltime)

    def _put_graph(self, model: Any, name: str | None, walltime: float | None) -> None:
        data, default_name = convert.check_graph(model)
        graph_name = convert.check_tag(default_name if name is None else name, "name")
        wall = convert.walltime_or_now(walltime)
        self._sink.put_item(lambda: encode_graph(graph_name, wall, data), len(data))

    def add_meta(
        self, tag: str = "meta_data_tag", display_name: str = "", step: int = 0, walltime: float | None = None
    ) -> None:
        """Name this writer's run ``display_name`` from now on (VisualDL 2's ``add_meta``:
        the last non-empty name wins); ``tag`` and ``step`` are checked and not kept."""
        self._tag(tag)
        convert.check_step(step)
        name = convert.check_text(display_name, "display_name")
        wall = convert.walltime_or_now(walltime)
        if name:
            self._display_name = name  # the header of any file opened from now on
        self._sink.put_item(lambda: encode_meta(wall, name), len(name))

    def add_figure(self, tag: str, figure: Any, step: int, walltime: float | None = None) -> None:
        """Record a matplotlib figure as an image, and close it (as VisualDL 2 does).

        The figure is drawn on this thread (it may change once the call returns); its
        PNG is encoded on the writer's thread. Needs matplotlib.
        """
        self._tag(tag)
        step = convert.check_step(step)
        wall = convert.walltime_or_now(walltime)
        self._put_image(tag, step, wall, figures.render_figure(figure))

    def add_image_matrix(
        self,
        tag: str,
        imgs: Any,
        step: int,
        rows: int = -1,
        scale: float = 1.0,
        walltime: float | None = None,
        dataformats: str = "HWC",
    ) -> None:
        """Record several images tiled into one: ``rows`` rows (-1: as square as possible),
        each cell the size of the largest image (a smaller one centred on black), the whole
        grid scaled by ``scale`` (1.0: every pixel kept, as a VisualDL 2.5 install without
        OpenCV writes it)."""
        self._tag(tag)
        matrix = figures.check_image_matrix(imgs, rows, scale, dataformats)
        step = convert.check_step(step)
        wall = convert.walltime_or_now(walltime)
        nbytes = sum(img.nbytes for img in matrix[0])
        box = [matrix]  # emptied by the writer thread

        def build() -> pb.Record:
            tiled = figures.tile_images(box.pop())
            return encode_image(tag, step, wall, convert.encode_png(convert.pil_image(tiled)), tiled.shape)

        self._sink.put_item(build, nbytes)

    def _put_scalar(self, tag: str, value: float, step: int, wall: float) -> None:
        """Queue a point whose value, step (any int64: negative too) and wall time the caller has
        checked (:attr:`RecordPort.scalar`: :class:`~visualdl.sdk._summary.SummaryWriter` stores
        torch's ``int(global_step)``)."""
        if tag not in self._known_tags:
            self._tag(tag)
        self._sink.put_scalar(tag, step, value, wall)

    def _put_record(self, tag: str, build: Callable[[], pb.Record], nbytes: int) -> None:
        """Queue a record whose arguments the caller has already checked; ``build`` runs on
        the writer's thread (:attr:`RecordPort.record`)."""
        self._tag(tag)
        self._sink.put_item(build, nbytes)

    def _put_image(self, tag: str, step: int, wall: float, hwc: Any) -> None:
        shape = hwc.shape
        pixels = [hwc]  # emptied by the writer thread: the copy is freed once PIL has its own

        def build() -> pb.Record:
            png = convert.encode_png(convert.pil_image(pixels.pop()))
            return encode_image(tag, step, wall, png, shape)

        self._sink.put_item(build, hwc.nbytes)

    def add_audio(
        self, tag: str, audio_array: Any, step: int, sample_rate: int = 8000, walltime: float | None = None
    ) -> None:
        """Record a clip: float amplitudes in [-1, 1] (louder ones are clipped, with a
        warning) or int16 PCM samples, at ``sample_rate`` frames per second; stored as a
        16-bit WAV. One dimension is mono; two are frames and channels, in either order
        (the channels the shorter, at most 16)."""
        self._tag(tag)
        samples = audio.check_audio(audio_array)
        rate = audio.check_sample_rate(sample_rate)
        step = convert.check_step(step)
        self._put_audio(tag, step, convert.walltime_or_now(walltime), samples, rate)

    def _put_audio(self, tag: str, step: int, wall: float, samples: np.ndarray, rate: int) -> None:
        """Queue a clip checked by :func:`~visualdl.sdk._audio.check_audio` (emptied by the writer thread)."""
        self._tag(tag)
        frames, channels = samples.shape
        box = [samples]

        def build() -> BuiltRecord:
            pcm = box.pop()
            header = audio.wav_header(frames, rate, channels)
            return build_audio(tag, step, wall, [header, pcm.data], rate, frames, channels)

        self._sink.put_item(build, samples.nbytes)

    def add_hparams(
        self, hparams_dict: Mapping[str, Any], metrics_list: list[str], walltime: float | None = None
    ) -> None:
        """Record this run's hyperparameters (numbers, strings or bools; None is left out)
        and the scalar tags of the metrics to compare runs by; the newest call wins."""
        values, metrics = hparams.check_hparams(hparams_dict, metrics_list)
        wall = convert.walltime_or_now(walltime)
        size = sum(len(k) + len(str(v)) for k, v in values.items()) + sum(map(len, metrics))
        self._sink.put_item(lambda: encode_hparams(wall, values, metrics), size)

    def add_pr_curve(
        self,
        tag: str,
        labels: Any,
        predictions: Any,
        step: int,
        num_thresholds: int = 10,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Record a precision-recall curve of binary ``labels`` and ``predictions`` in
        [0, 1] over ``num_thresholds`` thresholds (at most 127, as VisualDL 2);
        ``weights``: a number or one per example."""
        self._put_curve(tag, labels, predictions, step, num_thresholds, weights, walltime, roc=False)

    def add_roc_curve(
        self,
        tag: str,
        labels: Any,
        predictions: Any,
        step: int,
        num_thresholds: int = 10,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Record an ROC curve (true and false positive rates per threshold), with the
        arguments of :meth:`add_pr_curve`."""
        self._put_curve(tag, labels, predictions, step, num_thresholds, weights, walltime, roc=True)

    def _put_curve(
        self,
        tag: str,
        labels: Any,
        predictions: Any,
        step: int,
        num_thresholds: int,
        weights: Any,
        walltime: float | None,
        *,
        roc: bool,
    ) -> None:
        self._tag(tag)
        curve = curves.check_curve(labels, predictions, num_thresholds, weights)
        step = convert.check_step(step)
        wall = convert.walltime_or_now(walltime)
        nbytes = curve[0].nbytes * 2 + (curve[3].nbytes if isinstance(curve[3], np.ndarray) else 0)
        box = [curve]

        def build() -> pb.Record:
            if roc:
                return encode_roc_curve(tag, step, wall, curves.bin_roc_curve(box.pop()))
            return encode_pr_curve(tag, step, wall, curves.bin_pr_curve(box.pop()))

        self._sink.put_item(build, nbytes)

    def add_embeddings(
        self,
        tag: str,
        mat: Any = None,
        metadata: Any = None,
        metadata_header: Any = None,
        walltime: float | None = None,
        labels: Any = None,
        hot_vectors: Any = None,
        labels_meta: Any = None,
    ) -> None:
        """Record vectors to project, one per row of ``mat``, with ``metadata``: one label
        per row, or a list of columns of labels named by ``metadata_header``.

        ``labels``, ``hot_vectors`` and ``labels_meta`` are VisualDL 2's old names of
        ``metadata``, ``mat`` and ``metadata_header`` (deprecated).
        """
        self._tag(tag)
        for old, new, value in (("hot_vectors", "mat", hot_vectors), ("labels", "metadata", labels),
                                ("labels_meta", "metadata_header", labels_meta)):  # fmt: skip
            if value is not None:
                warnings.warn(f"add_embeddings: {old} is deprecated; pass {new}", DeprecationWarning, stacklevel=2)
        mat = hot_vectors if mat is None else mat
        metadata = labels if metadata is None else metadata
        metadata_header = labels_meta if metadata_header is None else metadata_header
        vectors, header, row_labels = embeddings.check_embeddings(mat, metadata, metadata_header)
        wall = convert.walltime_or_now(walltime)
        box = [vectors]

        def build() -> pb.Record:
            return encode_embeddings(tag, 0, wall, box.pop(), header, row_labels)

        self._sink.put_item(build, vectors.nbytes + sum(map(len, row_labels)))

    # -- lifetime --------------------------------------------------------------------

    def flush(self) -> None:
        """Return once everything added so far is in the OS (on disk too with ``fsync=True``)."""
        self._sink.flush()

    def close(self) -> None:
        """Flush, write the footer that marks a clean end, and close the file. Idempotent."""
        if self._sampler is not None:
            self._sampler.stop()
        self._sink.close()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if exc is not None:  # the block ends the writer by an exception: that is how it ended
            self._sink.record_end(ends.exception_end(exc, tb, threading.current_thread().name))
        self.close()

    def __repr__(self) -> str:
        return f"LogWriter(logdir={self._logdir!r}, file={self._sink.path!r})"


@dataclass(frozen=True, slots=True)
class RecordPort:
    """What an adapter over a :class:`LogWriter` (:class:`~visualdl.sdk._summary.SummaryWriter`)
    writes through: values it has checked itself, in its own terms, queued as they are. Each
    is the writer's; :func:`record_port` gives them."""

    #: ``(tag, value, step, wall_time)``: one point, at any int64 step (negative too).
    scalar: Callable[[str, float, int, float], None]
    #: ``(tag, build, nbytes)``: a record that ``build()`` makes on the writer's thread.
    record: Callable[[str, Callable[[], pb.Record], int], None]
    #: ``(tag, step, wall_time, text, nbytes)``: a text checked by ``check_payload_text``.
    text: Callable[[str, int, float, str, int], None]
    #: ``(tag, step, wall_time, samples, sample_rate)``: a clip checked by ``check_audio``.
    audio: Callable[[str, int, float, np.ndarray, int], None]


def record_port(writer: LogWriter) -> RecordPort:
    """The :class:`RecordPort` of ``writer`` (the writer does not keep it: no cycle)."""
    return RecordPort(writer._put_scalar, writer._put_record, writer._put_text, writer._put_audio)
