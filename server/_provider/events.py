"""The provider's reads of event kinds: a tag's events by step, and the blobs they point at
(images, clips, graphs, embeddings' vectors), read whole or located to be streamed.

Blobs are never held here: an event keeps its record's place in its log file, and a blob is
read (or located, its record's checksums checked) when asked for.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable
from typing import Any, BinaryIO

from visualdl._index.index import Index
from visualdl._kinds.table import EmbeddingsEvent, GraphEvent, HistogramEvent, TextEvent
from visualdl.errors import InvalidArgument, NotFound, VisualDLError
from visualdl.server._data import Embedding, LoggedGraph
from visualdl.server._provider.runs import MAX_TAG_LENGTH, RunCatalog, has_tag, servable

__all__ = ["EventReads", "pick"]

#: What an entry is called in errors, per kind whose blobs are streamed.
_NOUNS = {"images": "image", "audio": "clip"}


class EventReads(RunCatalog):
    """A tag's events of one run, and the blobs they point at."""

    def _events(self, run: str, kind: str, tag: str) -> tuple[Index, list[Any]]:
        """The index of ``run`` and the events of ``tag`` of ``kind`` there, by step
        (:class:`NotFound` for an unknown run or a tag it does not have)."""
        reader, local = self._resolve(run)
        if not has_tag(reader, local, kind, tag):
            raise NotFound(f"run {run!r} has no {kind} tag {tag!r}")
        getters: dict[str, Callable[[str, str], list[Any]]] = {
            "images": reader.images,
            "histograms": reader.histograms,
            "text": reader.texts,
            "audio": reader.audio,
            "pr_curves": reader.pr_curves,
            "roc_curves": reader.roc_curves,
            "embeddings": reader.embeddings,
        }
        return reader, getters[kind](local, tag)

    def read_events(self, *, run: str, kind: str, tag: str) -> list[Any]:
        """The events of ``tag`` of ``kind`` in ``run``, by step."""
        return self._events(run, kind, tag)[1]

    def read_image(
        self, *, run: str, tag: str, index: int | None = None, step: int | None = None, sample: int | None = None
    ) -> bytes:
        """The PNG of the ``index``-th image of ``tag`` by step, or at ``step`` the ``sample``-th
        of its images (the last one logged there without ``sample``)."""
        reader, event, index = self._entry(run, "images", tag, index, step, sample)
        try:
            return reader.read_blob(event)
        except (OSError, VisualDLError) as e:
            raise NotFound(f"image {index} of {tag!r} in {run!r} cannot be read: {e}") from e

    def locate_image(
        self, *, run: str, tag: str, index: int | None = None, step: int | None = None, sample: int | None = None
    ) -> tuple[str, int, int]:
        """Where the PNG of :meth:`read_image` lies (see :meth:`locate_blob`)."""
        return self.locate_blob(run=run, kind="images", tag=tag, index=index, step=step, sample=sample)

    def locate_blob(
        self,
        *,
        run: str,
        kind: str,
        tag: str,
        index: int | None = None,
        step: int | None = None,
        sample: int | None = None,
    ) -> tuple[str, int, int]:
        """Where the bytes of an image (``kind="images"``: its PNG) or a clip (``"audio"``: its
        WAV) lie: ``(path, offset, length)``, its record's checksums checked, so the server
        streams them from the file (:meth:`open_log`) instead of holding them. The ``index``-th
        of ``tag`` by step, or at ``step`` the ``sample``-th (the last one logged there without
        ``sample``)."""
        if kind not in _NOUNS:
            raise InvalidArgument(f"kind must be one of {', '.join(_NOUNS)}; got {kind!r}")
        reader, event, index = self._entry(run, kind, tag, index, step, sample)
        try:
            return reader.open_blob(event)
        except (OSError, VisualDLError) as e:
            raise NotFound(f"{_NOUNS[kind]} {index} of {tag!r} in {run!r} cannot be read: {e}") from e

    def open_log(self, run: str, path: str) -> BinaryIO:
        """The bytes of a log file of ``run`` by the path its reader gave it (where
        :meth:`locate_blob` says a blob lies), from the store of the logdir that listed it."""
        return self._resolve(run)[0].open_log(path)

    def _entry(
        self, run: str, kind: str, tag: str, index: int | None, step: int | None, sample: int | None
    ) -> tuple[Index, Any, int]:
        reader, events = self._events(run, kind, tag)
        at = pick(events, index, step, _NOUNS[kind], f"{tag!r} in {run!r}", sample=sample)
        return reader, events[at], at

    def read_embedding(self, *, run: str, tag: str, index: int | None = None) -> Embedding:
        """Entry ``index`` of the embeddings tag ``tag`` of ``run`` by step (the newest without
        ``index``), with how to read its vectors and its label images (:class:`NotFound` when
        there is no such entry)."""
        reader, events = self._events(run, "embeddings", tag)
        if not events:
            raise NotFound(f"{tag!r} in {run!r} holds no embeddings")
        at = len(events) - 1 if index is None else index
        if not 0 <= at < len(events):
            raise NotFound(f"{tag!r} in {run!r} has {len(events)} embeddings entries; there is no entry {index}")
        event: EmbeddingsEvent = events[at]
        found = reader.embedding_sprite(event)
        sprite, read_sprite = found if found is not None else (None, None)
        return Embedding(at, event, functools.partial(reader.read_blob, event), sprite, read_sprite)

    def read_histograms(self, *, run: str, tag: str, max_entries: int) -> tuple[list[HistogramEvent], int]:
        """At most ``max_entries`` histograms of ``tag``, spread evenly over the steps (first and
        last included), and how many there are."""
        events: list[HistogramEvent] = self.read_events(run=run, kind="histograms", tag=tag)
        return [events[i] for i in _evenly(len(events), max_entries)], len(events)

    def read_text(self, *, run: str, tag: str) -> list[TextEvent]:
        return self.read_events(run=run, kind="text", tag=tag)

    def graph(self, *, run: str, name: str) -> tuple[GraphEvent, Callable[[], bytes]]:
        """The newest graph ``name`` of ``run``, and how to read its model bytes: a caller
        that has the model already (by the event's file and offset) reads nothing."""
        reader, local = self._resolve(run)
        event = next((e for e in reader.graphs(local) if e.name == name), None)
        if event is None:
            raise NotFound(f"run {run!r} has no graph {name!r}")

        def read() -> bytes:
            try:
                return reader.read_blob(event)
            except (OSError, VisualDLError) as e:
                raise NotFound(f"graph {name!r} of {run!r} cannot be read: {e}") from e

        return event, read

    def list_graphs(self) -> list[LoggedGraph]:
        out: list[LoggedGraph] = []
        for name, (reader, run) in sorted(self._runs().items()):
            try:
                graphs: list[GraphEvent] = reader.graphs(run)
            except NotFound:
                continue  # removed meanwhile
            out.extend(
                LoggedGraph(name, g.name, g.size, g.wall_time) for g in graphs if servable(g.name, MAX_TAG_LENGTH)
            )
        return out


def pick(
    events: list[Any], index: int | None, step: int | None, noun: str, where: str, *, sample: int | None = None
) -> int:
    """The position of the event asked for: at ``step`` the ``sample``-th of the events
    logged there (the last one without ``sample``), or the ``index``-th by step (0 by
    default); :class:`NotFound` saying there is no such ``noun`` ("image") ``where``
    ("'tag' in 'run'") otherwise."""
    if step is not None:
        at = bisect.bisect_right(events, step, key=lambda e: e.step) - 1
        if at < 0 or events[at].step != step:
            raise NotFound(f"{where} has no {noun} at step {step}")
        if sample is None:
            return at
        first = bisect.bisect_left(events, step, key=lambda e: e.step)
        if not 0 <= sample <= at - first:
            raise NotFound(f"{noun} sample {sample} out of range: {where} has {at - first + 1} at step {step}")
        return first + sample
    index = index or 0
    if not 0 <= index < len(events):
        raise NotFound(f"{noun} index {index} out of range: {where} has {len(events)}")
    return index


def _evenly(n: int, k: int) -> list[int]:
    """``k`` indices spread evenly over ``range(n)``, first and last included."""
    if n <= k:
        return list(range(n))
    if k == 1:
        return [n - 1]
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)})
