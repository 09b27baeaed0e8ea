"""TensorBoard event files: their records turned into the events of our own kinds. Pure.

An event file (``*tfevents*`` in its basename, written by TensorFlow, tensorboardX or
``torch.utils.tensorboard``) has the framing of our own files (:mod:`visualdl._formats.framing`),
and every payload is one serialized ``Event`` (``proto/tensorboard_event.proto``). A
:class:`EventDecoder` follows one file and turns its events into what the reader
stores for our records: scalar points into a :class:`~visualdl._kinds.table.ScalarBlock`,
images, histograms, text, audio, PR curves, hparams and scalar layouts into the
kinds' events. Values of other plugins are counted per tag
(:attr:`EventDecoder.other`), never shown, so that nothing vanishes without a trace.

How a value is read:

* ``simple_value``: a scalar point (the float64 of the float32 written, exactly).
* ``tensor`` with plugin ``scalars`` (TF2 ``tf.summary.scalar``, torch's
  ``new_style``): a tensor of one element of a float or integer dtype.
* ``image`` (legacy ``Summary.Image``): an image whose PNG bytes stay in the file.
* ``tensor`` with plugin ``images``: a string tensor ``[width, height, png, ...]``;
  each PNG is an image of the tag at that step, several in the order written
  (``tf.summary.image(max_outputs>1)``, Keras, clu), as TensorBoard shows a step's batch.
* ``histo`` (``HistogramProto``): bucket ``i`` counts the values in
  ``(bucket_limit[i-1], bucket_limit[i]]``; TensorFlow's first bucket is open to -inf
  and its last limit is often DBL_MAX, so the outer edges are clamped to ``min`` and
  ``max`` of the values.
* ``tensor`` with plugin ``histograms``: a ``[k, 3]`` tensor of (left, right, count).
* ``tensor`` with plugin ``text``: a string tensor of any rank, its elements joined
  by newlines.
* ``audio`` (legacy ``Summary.Audio``, what tensorboardX and torch write): a clip whose
  WAV bytes stay in the file, as an image's PNG.
* ``tensor`` with plugin ``audio`` (TF2 ``tf.summary.audio``): a string tensor ``[k, 2]``
  of (WAV, label), each row a clip of the tag at that step; the rate, channels and length
  are the WAV header's (:mod:`visualdl._kinds.wav`).
* ``tensor`` with plugin ``pr_curves``: a ``[6, n]`` float tensor, rows TP, FP, TN, FN,
  precision and recall; threshold ``i`` of ``n`` is ``i / (n - 1)``, as the writers bin.
* values of plugin ``hparams`` (no value, or a tensor; the data is the metadata's
  ``HParamsPluginData``): the experiment names the metrics (their scalar tags), the
  session start info holds the values (a number is a float, TensorBoard keeps no
  integers; strings and bools as they are); the session start, merged with the
  file's latest experiment, is one hyperparameters event of the run, and an experiment
  alone (no session in its file) one that is no trial, whose metrics apply to the trial
  runs below it (:mod:`visualdl._index.experiments`).
* ``tensor`` with plugin ``custom_scalars``: the ``Layout`` in its one string (or in
  the metadata content when there is none), a scalar layout of the run.
* ``session_log`` ``START`` at step ``s`` (a restarted TensorFlow session, the
  ``purge_step`` of tensorboardX and torch): an item of kind :data:`SESSION_START`
  with ``(wall time, s, points before it in the file)``; the index moves the run's points
  read before it (earlier files in name order, earlier records of its file) with a step
  ``>= s`` apart, as TensorBoard's reader drops them (:mod:`visualdl._index.sessions`).
* ``graph_def`` and ``meta_graph_def``: the run's graph, its bytes left in the file
  (:mod:`visualdl._formats.tfevents.graphs`); a ``tagged_run_metadata`` (step stats) is
  counted under its tag, not shown.

Only the first value of a tag in a file usually carries the metadata naming its
plugin; the decoder remembers it for the tag's later values.
"""

from __future__ import annotations

import re
import struct
from typing import cast

import numpy as np
from google.protobuf.message import DecodeError

from visualdl._formats.format import SESSION_START, UNREADABLE, unreadable
from visualdl._formats.framebatch import Batch
from visualdl._formats.framing import HEADER_SIZE
from visualdl._formats.points import Points
from visualdl._formats.tfevents import scalars as tfscalars
from visualdl._formats.tfevents.graphs import graph_event
from visualdl._formats.tfevents.values import _EXPERIMENT, NOT_READ, READERS, BlobRef, Value
from visualdl._formats.writerstate import WriterState
from visualdl._kinds.table import (
    HPARAMS_TAG,
    HParamsEvent,
    ScalarBlock,
)
from visualdl.errors import LogFormatError
from visualdl.proto import pb, tb

__all__ = [
    "FILE_MARKER",
    "NOT_READ",
    "READERS",
    "SESSION_START",
    "BlobRef",
    "EventDecoder",
    "header_for",
    "is_tfevents_file",
    "parse_event",
    "Value",
]

#: TensorBoard's event files contain this in their basename.
FILE_MARKER = "tfevents"

_NAME = re.compile(r"tfevents\.(\d+(?:\.\d+)?)\.(.*?)(?:\.(\d+)\.(\d+))?(?:\.[^.]*)?$")


def is_tfevents_file(basename: str) -> bool:
    return FILE_MARKER in basename and not basename.startswith(".")


def parse_event(payload: bytes) -> tb.Event:
    """The Event in ``payload``; :class:`LogFormatError` when it is not one."""
    try:
        return tb.Event.FromString(payload)
    except DecodeError as e:
        raise LogFormatError(f"undecodable event payload ({e})") from e


def header_for(path: str, first: tb.Event) -> pb.Header:
    """What is known of the writer of the event file at ``path``, as our header says it:
    its start time is the wall time of its first event; host and pid come from the name
    (``events.out.tfevents.<time>.<host>[.<pid>.<uid>]``) when it has them."""
    host, pid = "", -1
    match = _NAME.search(path.rsplit("/", 1)[-1])
    if match:
        host = match.group(2)
        pid = int(match.group(3)) if match.group(3) else -1
    return pb.Header(
        host=host,
        pid=pid,
        start_time=first.wall_time,
        sdk_version=first.file_version,
        rank=-1,
        world_size=-1,
        local_rank=-1,
        attempt=-1,
    )


class EventDecoder:
    """Follows the events of one file: the plugin of each tag, and what is not shown.

    :meth:`decode` turns a list of ``(offset, Event)`` into ``(kind, tag, event)`` items
    as :meth:`visualdl._kinds.table.Kind.decode` gives them for our records, with all the
    scalar points of the list in one :class:`ScalarBlock` (tag after tag). The file's
    first event stands for the header our files start with (:attr:`header`,
    :func:`header_for`).
    """

    __slots__ = ("header", "plugins", "other", "problems", "hparams", "seen", "graphed")

    def __init__(self) -> None:
        #: What is known of the file's writer, once an event was read.
        self.header: pb.Header | None = None
        #: tag -> the plugin named by the first value of the tag that named one.
        self.plugins: dict[str, str] = {}
        #: tag -> (plugin, number of values) of the values not shown.
        self.other: dict[str, tuple[str, int]] = {}
        #: ``(offset, message)`` of the values that could not be read, since last taken.
        self.problems: list[tuple[int, str]] = []
        #: The latest hyperparameters and experiment read (None: no session start yet, no experiment).
        self.hparams: tuple[dict[str, int | float | str | bool] | None, HParamsEvent | None] = (None, None)
        #: Scalar points decoded from the file so far (a session start says how many came before it).
        self.seen = 0
        #: A ``graph_def`` was read: a later meta graph's is not the run's graph (TensorBoard's rule).
        self.graphed = False

    @property
    def writer(self) -> WriterState:
        """The header alone: a writer of this format never says it closed the file, nor how it ended."""
        return WriterState(header=self.header)

    def decode(self, path: str, items: list[tuple[int, bytes | tb.Event | Batch]]) -> list[tuple[str, str, object]]:
        """Items hold events, payloads, or batches of payloads (:class:`Batch`): those of
        the common shape (one ``simple_value``, no metadata) are read from their bytes
        directly (:mod:`visualdl._formats.tfevents.scalars`), the others parsed."""
        if self.header is None and items:
            first = items[0][1]
            if isinstance(first, Batch):
                first = first.payload(0)
            try:
                self.header = header_for(path, parse_event(first) if isinstance(first, bytes) else first)
            except LogFormatError:
                self.header = header_for(path, tb.Event())
        other = dict(self.other)  # kept only if the items decode: a decode that raises counts nothing
        with np.errstate(all="ignore"):  # whatever the numbers written, no warnings
            out = self._decode(path, items, other)
        self.other = other
        self.seen += sum(int(cast(ScalarBlock, block).counts.sum()) for kind, _, block in out if kind == "scalars")
        return out

    def _decode(
        self, path: str, items: list[tuple[int, bytes | tb.Event | Batch]], other: dict[str, tuple[str, int]]
    ) -> list[tuple[str, str, object]]:
        out: list[tuple[str, str, object]] = []
        points = Points()
        for offset, item in items:
            if not isinstance(item, Batch):
                self._one(path, offset, item, out, points, other)
                continue
            found = tfscalars.read(item.buf, item.starts, item.lengths)
            if 4 * int(found.common.sum()) < 3 * len(item):  # mostly other events: one by one is cheaper
                for i in range(len(item)):
                    frame = offset + int(item.starts[i]) - HEADER_SIZE - item.offset
                    self._one(path, frame, item.payload(i), out, points, other)
                continue
            ids = np.array([points.id(tag) for tag in found.tags], np.int64)[found.tag_ids]
            columns = (ids, found.steps, found.values, found.walls)
            others = np.flatnonzero(~found.common)
            # The points of the common payloads before each other payload, then that one: file order.
            cuts = np.searchsorted(np.flatnonzero(found.common), others).tolist()
            done = 0
            for cut, i in zip(cuts, others.tolist(), strict=True):
                if cut > done:
                    points.add_columns(*(c[done:cut] for c in columns))
                    done = cut
                frame = offset + int(item.starts[i]) - HEADER_SIZE - item.offset
                self._one(path, frame, item.payload(i), out, points, other)
            if done < len(ids):
                points.add_columns(*(c[done:] for c in columns))
        block = points.block()
        if block is not None:
            out.append(("scalars", "", block))
        return out

    def unshown(self) -> tuple[tuple[str, str, int], ...]:
        """``(tag, plugin, values)`` of what the file holds and is not shown."""
        return tuple((tag, plugin, count) for tag, (plugin, count) in sorted(self.other.items()))

    def _one(
        self,
        path: str,
        offset: int,
        item: bytes | tb.Event,
        out: list[tuple[str, str, object]],
        points: Points,
        other: dict[str, tuple[str, int]],
    ) -> None:
        """The items of one event (its scalar points into ``points``, values not shown counted in ``other``)."""
        if isinstance(item, bytes):
            simple = simple_scalar(item)
            if simple is not None:
                points.add(simple[2], simple[1], simple[3], simple[0])
                return
            try:
                event = parse_event(item)
            except LogFormatError as e:
                self.problems.append((offset, e.message))
                return
        else:
            event = item
        what = event.WhichOneof("what")
        if what == "session_log" and event.session_log.status == tb.SessionLog.START:
            out.append((SESSION_START, "", (float(event.wall_time), int(event.step), self.seen + len(points))))
        if what in ("graph_def", "meta_graph_def"):
            self._graph(path, offset, event, out)
        elif what == "tagged_run_metadata":  # step stats: no view of them, counted by tag
            tag = event.tagged_run_metadata.tag
            _, count = other.get(tag, (_RUN_METADATA, 0))
            other[tag] = (_RUN_METADATA, count + 1)
        if what != "summary":
            return
        step, wall = int(event.step), float(event.wall_time)
        for index, value in enumerate(event.summary.value):
            tag = value.tag
            plugin = value.metadata.plugin_data.plugin_name
            if plugin:
                self.plugins.setdefault(tag, plugin)
            else:
                plugin = self.plugins.get(tag, "")
            which = value.WhichOneof("value") or ""
            entry = READERS.get((which, plugin)) or READERS.get((which, ""))
            if entry is None:
                name, count = other.get(tag, (plugin or which or "unknown", 0))
                other[tag] = (name, count + 1)
                continue
            kind, read = entry
            try:
                items = read(Value(path, offset, index, tag, step, wall, value))
            except UNREADABLE as e:  # the value is bad: it alone is lost
                self.problems.append((offset, f"value {tag!r}: {unreadable(e)}"))
                continue
            if kind == "scalars":
                for _, name, number in items:
                    points.add(name, step, cast(float, number), wall)
            elif kind == "hparams":
                out.extend(self._hparams(items))
            else:
                out.extend(items)

    def _graph(self, path: str, offset: int, event: tb.Event, out: list[tuple[str, str, object]]) -> None:
        """The run's graph from a ``graph_def``, or from a meta graph unless one came before it."""
        if event.WhichOneof("what") == "graph_def":
            self.graphed = True
        elif self.graphed:
            return
        try:
            found = graph_event(path, offset, event)
        except LogFormatError as e:
            self.problems.append((offset, f"meta graph: {e.message}"))
            return
        if found is not None:
            out.append(("graphs", found.name, found))

    def _hparams(self, items: list[tuple[str, str, object]]) -> list[tuple[str, str, object]]:
        """The run's hyperparameters: once a session start was read, its values with the
        metrics of the file's latest experiment (before or after it); before, the
        experiment's declaration alone (not a trial: its metrics apply to the trials below)."""
        out: list[tuple[str, str, object]] = []
        for _, part, event in items:
            assert isinstance(event, HParamsEvent)
            values, experiment = self.hparams
            if part == _EXPERIMENT:
                experiment = event
            else:
                values = event.hparams
            self.hparams = (values, experiment)
            if values is not None:
                metrics, groups = (experiment.metrics, experiment.metric_groups) if experiment else ((), ())
                out.append(("hparams", HPARAMS_TAG, HParamsEvent(event.wall_time, values, metrics, groups)))
            elif experiment is not None:
                out.append(("hparams", HPARAMS_TAG, experiment))
        return out


#: What a ``tagged_run_metadata`` is listed as, unshown, under its tag.
_RUN_METADATA = "run_metadata"
_F64 = struct.Struct("<d")
_F32 = struct.Struct("<f")
_SUMMARY_KEY, _VALUE_KEY, _TAG_KEY, _SIMPLE_KEY, _WALL_KEY, _STEP_KEY = 0x2A, 0x0A, 0x0A, 0x15, 0x09, 0x10


def simple_scalar(p: bytes) -> tuple[float, int, str, float] | None:
    """``(wall time, step, tag, value)`` of a serialized ``Event`` that holds exactly one
    ``simple_value`` and nothing else, in the canonical encoding every writer produces
    (``wall_time``, ``step`` if not 0, ``summary`` {``value`` {``tag``, ``simple_value``}},
    lengths below 128); None for anything else, which is then parsed in full. Reading the
    common shape from its bytes costs a fraction of a protobuf parse and its traversal."""
    n = len(p)
    if n < 16 or p[0] != _WALL_KEY:
        return None
    pos = 9
    step = 0
    if p[pos] == _STEP_KEY:
        pos += 1
        shift = 0
        while True:
            if pos >= n or shift > 63:
                return None
            byte = p[pos]
            pos += 1
            step |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
        step &= (1 << 64) - 1  # as protobuf reads a varint: its low 64 bits
        if step >= 1 << 63:
            step -= 1 << 64
    # Lengths of one byte only (below 0x80): a larger byte starts a varint of more.
    if pos + 6 > n or p[pos] != _SUMMARY_KEY or p[pos + 1] != n - pos - 2 or p[pos + 2] != _VALUE_KEY:
        return None
    if p[pos + 3] != n - pos - 4 or p[pos + 4] != _TAG_KEY or p[pos + 1] >= 0x80:
        return None
    tag_len = p[pos + 5]
    tag_end = pos + 6 + tag_len
    if tag_len >= 0x80 or tag_end + 5 != n or p[tag_end] != _SIMPLE_KEY:
        return None
    try:
        tag = p[pos + 6 : tag_end].decode("utf-8")
    except UnicodeDecodeError:
        return None  # protobuf's parse reports it
    return _F64.unpack_from(p, 1)[0], step, tag, _F32.unpack_from(p, tag_end + 1)[0]
