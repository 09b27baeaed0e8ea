"""TensorBoard's projector files in a logdir's runs (tensorboardX's and torch's
``add_embedding``; :mod:`visualdl._formats.projector`), read through the store into
embeddings entries like those of our own records.

The listing names each ``projector_config.pbtxt`` of a run (in the run's directory or in
its ``plugins/projector``). After each poll, :meth:`Projectors.check` stats every config
and the files each of its blocks names, and reads again only what changed: a config that
grew by one block reads that block's files, not the others'. Paths are the store's to
resolve (:meth:`~visualdl._storage.Store.resolve`: relative to the config, and never
outside the logdir), so a local logdir and a bucket are read alike.

Each block is one :class:`~visualdl._kinds.table.EmbeddingsEvent` of tag and step
(``tag:00042``). Its vectors are parsed when it is read (a bad cell is a problem at the
poll, with its line), kept in a bounded cache for :meth:`Projectors.vectors`, and parsed
again once dropped. Its reference is the tensors file with a negative offset, new each
time the block's files change, so nothing cached for older bytes is taken for the new.
What is wrong is a problem naming the file and the line, and loses only its own part:
a block without readable vectors is left out; one whose labels or sprite are wrong keeps
its vectors, and its labels when only the sprite is wrong.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from visualdl._formats.projector import (
    CONFIG_NAME,
    PLUGIN_DIR,
    EmbeddingInfo,
    Metadata,
    ProjectorConfig,
    check_sprite,
    embedding_name,
    parse_config,
    parse_metadata,
    parse_tensors,
)
from visualdl._index.cache import ByteCache
from visualdl._index.tail import Problem
from visualdl._kinds.kind import RecordRef
from visualdl._kinds.table import EmbeddingsEvent
from visualdl._storage import Store
from visualdl.errors import LogFormatError

__all__ = [
    "MAX_CONFIG_BYTES",
    "MAX_METADATA_BYTES",
    "MAX_SPRITE_BYTES",
    "MAX_TENSOR_BYTES",
    "VECTOR_CACHE_BYTES",
    "Projectors",
    "Sprite",
    "config_run",
    "is_config_path",
    "runs_of",
]

log = logging.getLogger("visualdl.reader")

#: Bytes of a config read at most (a block is ~200 bytes: 80,000 blocks).
MAX_CONFIG_BYTES = 16 << 20
#: Bytes of a tensors file read at most: 1 GiB of text is 50M values as torch writes them.
MAX_TENSOR_BYTES = 1 << 30
#: Bytes of a metadata file read at most.
MAX_METADATA_BYTES = 256 << 20
#: Bytes of a sprite read at most (TensorBoard draws sprites up to 8192 x 8192 px).
MAX_SPRITE_BYTES = 64 << 20
#: Bytes of parsed vectors kept for the projector (the least recently used dropped first).
VECTOR_CACHE_BYTES = 256 << 20


def is_config_path(path: str) -> bool:
    """Whether ``path`` (as the listing names it) is a projector config."""
    return path.replace("\\", "/").rpartition("/")[2] == CONFIG_NAME


def config_run(run: str) -> str:
    """The run whose config lies in the directory named ``run`` (a run's own, or
    ``<run>/plugins/projector``)."""
    if run == PLUGIN_DIR:
        return "."
    if run.endswith("/" + PLUGIN_DIR):
        return run[: -len(PLUGIN_DIR) - 1]
    return run


@dataclass(frozen=True, slots=True)
class Sprite:
    """The label images of an entry: the image at ``path`` (``width`` x ``height`` px, of
    ``media_type``) holds one of ``image_width`` x ``image_height`` px per row of vectors,
    ``per_row`` a row of it, from the top left."""

    path: str
    width: int
    height: int
    image_width: int
    image_height: int
    per_row: int
    media_type: str


@dataclass(frozen=True, slots=True)
class _Read:
    """A block as last read: the stats of its files, its event (None: no vectors) and problems."""

    stamp: tuple[object, ...]
    tag: str
    event: EmbeddingsEvent | None
    problems: tuple[Problem, ...]
    vectors: _FileKey | None = None  # the tensors file's, to find (or parse again) its vectors
    sprite: Sprite | None = None


#: A file as parsed: its path, its stamp (identity, size, time) and what its parse depends on
#: (a tensor_shape, a number of rows, an image's size): files named by several blocks are read once.
_FileKey = tuple[str, tuple[object, ...], tuple[int, ...]]


class _Parsed:
    """What the files named in one check parse to, or the error that refused them, by key:
    a file that many blocks name (a config of 100 blocks naming one pair) is read once and
    its arrays and labels are shared."""

    def __init__(self, before: dict[_FileKey, object]) -> None:
        self.before = before  # the last check's (its labels and sprites)
        self.now: dict[_FileKey, object] = {}
        self.stamps: dict[str, tuple[object, ...]] = {}

    def get(self, key: _FileKey, parse: Callable[[], object]) -> object:
        if key in self.now:
            return self.now[key]
        if key in self.before:
            value = self.before[key]
        else:
            try:
                value = parse()
            except (OSError, LogFormatError) as e:
                value = _Refused(_why(e))  # the message alone: an error's traceback holds the file's bytes
            except Exception as e:  # boundary: a parser's bug costs the file it read, nothing else
                log.exception("reading %s failed", key[0])
                value = _Refused(f"reading it failed ({type(e).__name__}: {e})")
        self.now[key] = value
        return value


@dataclass(frozen=True, slots=True)
class _Refused:
    """A file that could not be read or parsed, and why (what its problems say)."""

    why: str


@dataclass(frozen=True, slots=True)
class _Config:
    stamp: tuple[object, ...]
    config: ProjectorConfig


class Projectors:
    """The embeddings that a logdir's projector configs name, kept up to date by :meth:`check`."""

    def __init__(self, store: Store, *, cache_bytes: int = VECTOR_CACHE_BYTES) -> None:
        self.store = store
        self._configs: dict[str, _Config] = {}
        self._blocks: dict[tuple[str, int], _Read] = {}  # (config path, block index) -> as last read
        self._vectors: ByteCache[np.ndarray] = ByteCache(cache_bytes, keep=1)  # by tensors file (_FileKey)
        self._vector_keys: dict[RecordRef, _FileKey] = {}  # live refs -> their tensors file
        self._parsed: dict[_FileKey, object] = {}  # labels and sprites of the last check, by file
        self._sprites: dict[RecordRef, Sprite] = {}  # live refs -> their label images
        self._serial = itertools.count(1)
        self._lock = threading.Lock()
        #: What is wrong in the configs and the files they name, as the latest check found it.
        self.problems: list[Problem] = []

    # -- polls -----------------------------------------------------------------------------

    def check(self, configs: dict[str, list[str]]) -> dict[str, dict[str, dict[str, list[EmbeddingsEvent]]]]:
        """Read what changed of the configs ``{run: [config path, ...]}``: ``{run: {config
        path: {tag: [events by step]}}}``. Events of blocks whose files did not change are
        the same objects as before."""
        out: dict[str, dict[str, dict[str, list[EmbeddingsEvent]]]] = {}
        problems: list[Problem] = []
        blocks: dict[tuple[str, int], _Read] = {}
        configs_seen: dict[str, _Config] = {}
        files = _Parsed(self._parsed)
        for run, paths in configs.items():
            for path in paths:
                try:
                    tags = self._check_config(path, files, problems, configs_seen, blocks)
                except Exception as e:  # boundary: one config, whatever goes wrong with it, is its own problem
                    log.exception("reading %s failed", path)
                    problems.append(Problem(path, 0, f"reading it failed ({type(e).__name__}: {e})"))
                    continue
                if tags is not None:
                    out.setdefault(run, {})[path] = tags
        with self._lock:
            self._configs = configs_seen
            self._blocks = blocks
            self._vector_keys = {r.event.ref: r.vectors for r in blocks.values() if r.event is not None and r.vectors}
            self._sprites = {r.event.ref: r.sprite for r in blocks.values() if r.event is not None and r.sprite}
            self._parsed = {k: v for k, v in files.now.items() if isinstance(v, (Metadata, tuple))}
            old, self.problems = set(self.problems), problems
        for problem in problems:
            if problem not in old:  # said once, while it lasts
                log.warning("%s: %s", problem.path, problem.message)
        return out

    def _check_config(
        self,
        path: str,
        files: _Parsed,
        problems: list[Problem],
        configs_seen: dict[str, _Config],
        blocks: dict[tuple[str, int], _Read],
    ) -> dict[str, list[EmbeddingsEvent]] | None:
        """The entries of one config by tag (None: it cannot be read), its blocks' reads put in ``blocks``."""
        parsed = self._config(path, problems)
        if parsed is None:
            return None
        configs_seen[path] = parsed
        tags: dict[str, list[EmbeddingsEvent]] = {}
        seen: set[EmbeddingInfo] = set()
        for i, info in enumerate(parsed.config.embeddings):
            if dataclasses.replace(info, line=0) in seen:
                continue  # a block appended again (tensorboardX, a script run twice): the same files
            seen.add(dataclasses.replace(info, line=0))
            read = self._block(path, i, info, files)
            blocks[(path, i)] = read
            problems.extend(read.problems)
            if read.event is not None:
                tags.setdefault(read.tag, []).append(read.event)
        for events in tags.values():
            events.sort(key=lambda e: e.step)
        return tags

    def _config(self, path: str, problems: list[Problem]) -> _Config | None:
        try:
            stamp = self._stamp(path)
            before = self._configs.get(path)
            if before is not None and before.stamp == stamp:
                parsed = before
            else:
                parsed = _Config(stamp, parse_config(self._read(path, MAX_CONFIG_BYTES)))
        except (OSError, LogFormatError) as e:
            problems.append(Problem(path, 0, f"cannot read the projector config: {_why(e)}"))
            return None
        config = parsed.config
        if config.problem:
            problems.append(Problem(path, 0, config.problem))
        if not config.embeddings and (config.model_checkpoint_path or config.model_checkpoint_dir):
            problems.append(
                Problem(path, 0, "its embeddings are in a TensorFlow checkpoint, which is not read: write them as TSV")
            )
        return parsed

    def _block(self, config: str, index: int, info: EmbeddingInfo, files: _Parsed) -> _Read:
        tag, step = embedding_name(info)
        shown = tag if len(tag) <= 200 else f"{tag[:200]}…"  # a crafted name of megabytes is not said whole
        where = f"line {info.line}: embeddings {shown!r} (step {step})"
        if not info.tensor_path:
            return _Read((), tag, None, (Problem(config, 0, f"{where} names no tensor_path: vectors in a TensorFlow "
                                                          "checkpoint are not read; write them as TSV"),))  # fmt: skip
        paths: list[str | None] = []
        problems: list[Problem] = []
        named = [info.tensor_path, info.metadata_path, info.sprite.image_path if info.sprite else ""]
        for what, name in zip(("tensor_path", "metadata_path", "sprite image_path"), named, strict=True):
            if not name:
                paths.append(None)
                continue
            try:
                paths.append(self.store.resolve(config, name))
            except ValueError as e:
                problems.append(Problem(config, 0, f"{where}: {what} {e}"))
                paths.append(None)
        tensors = paths[0]
        if tensors is None:
            return _Read((), tag, None, tuple(problems))
        # The same block naming files of the same stats: as read before (its problems too).
        stamps = [self._stamp_or_missing(p, files.stamps) for p in paths]
        stamp = (info, *paths, *stamps)
        before = self._blocks.get((config, index))
        if before is not None and before.stamp == stamp:
            return before
        key: _FileKey = (tensors, stamps[0], info.tensor_shape)
        event, sprite = self._read_block(info, step, key, paths[1:], stamps[1:], files, problems, where)
        return _Read(stamp, tag, event, tuple(problems), key if event is not None else None, sprite)

    def _read_block(
        self,
        info: EmbeddingInfo,
        step: int,
        key: _FileKey,
        paths: list[str | None],
        stamps: list[tuple[object, ...]],
        files: _Parsed,
        problems: list[Problem],
        where: str,
    ) -> tuple[EmbeddingsEvent | None, Sprite | None]:
        tensors, _, shape = key
        vectors = self._vectors.get(key)
        if vectors is None:
            got = files.get(key, lambda: parse_tensors(self._read(tensors, MAX_TENSOR_BYTES), tensors, shape))
            if not isinstance(got, np.ndarray):
                problems.append(Problem(tensors, 0, f"{where}: {_why(got)}"))
                return None, None
            vectors = got
            self._vectors.put(key, vectors, vectors.nbytes)
        rows, dim = vectors.shape
        header: tuple[str, ...] = ()
        labels: tuple[tuple[str, ...], ...] = ()
        metadata_path, sprite_path = paths
        if metadata_path is not None:
            got = files.get(
                (metadata_path, stamps[0], (rows,)),
                lambda: parse_metadata(self._read(metadata_path, MAX_METADATA_BYTES), metadata_path, rows),
            )
            if isinstance(got, Metadata):
                header, labels = got.header, got.rows
                if got.problem:
                    problems.append(Problem(metadata_path, 0, f"{where}: {got.problem}"))
            else:
                problems.append(
                    Problem(metadata_path, 0, f"{where}: {_why(got)}; its vectors are shown without labels")
                )
        sprite = None
        if sprite_path is not None and info.sprite is not None:
            each = info.sprite.single_image_dim
            got = files.get(
                (sprite_path, stamps[1], (*each, rows)),
                lambda: check_sprite(self._read(sprite_path, MAX_SPRITE_BYTES), sprite_path, each, rows),
            )
            if isinstance(got, tuple):
                sprite = Sprite(sprite_path, got[0], got[1], each[0], each[1], got[2], got[3])
            else:
                problems.append(Problem(sprite_path, 0, f"{where}: {_why(got)}"))
        ref = RecordRef(tensors, -next(self._serial))
        modified = self.store.modified(tensors)
        event = EmbeddingsEvent(step, time.time() if modified is None else modified, rows, dim, header, labels, ref)
        return event, sprite

    # -- reads -----------------------------------------------------------------------------

    def owns(self, ref: RecordRef) -> bool:
        """Whether ``ref`` is an entry of a projector file (not a record of a log)."""
        return ref.offset < 0

    def vectors(self, event: EmbeddingsEvent) -> np.ndarray:
        """The vectors of an entry (rows x dimension, float32): kept since the poll, or parsed again."""
        with self._lock:
            key = self._vector_keys.get(event.ref)
        path = event.ref.path
        if key is None:
            raise LogFormatError("the projector config no longer names these vectors", path)
        hit = self._vectors.get(key)
        if hit is not None:
            return hit
        vectors = parse_tensors(self._read(path, MAX_TENSOR_BYTES), path, key[2])
        if vectors.shape != (event.rows, event.dimension):
            raise LogFormatError(
                f"now holds {vectors.shape[0]} x {vectors.shape[1]} values, not the {event.rows} x "
                f"{event.dimension} it held when it was read (it is being rewritten)",
                path,
            )
        self._vectors.put(key, vectors, vectors.nbytes)
        return vectors

    def sprite(self, ref: RecordRef) -> Sprite | None:
        """The label images of an entry (None: it has none, or they did not fit its vectors)."""
        with self._lock:
            return self._sprites.get(ref)

    def read_sprite(self, sprite: Sprite) -> bytes:
        """The bytes of a sprite's image, its header checked again (it may have been rewritten
        since the poll: only an image of the size read then is served)."""
        data = self._read(sprite.path, MAX_SPRITE_BYTES)
        width, height, _, _ = check_sprite(data, sprite.path, (sprite.image_width, sprite.image_height), 1)
        if (width, height) != (sprite.width, sprite.height):
            raise LogFormatError(
                f"is now {width} x {height} px, not the {sprite.width} x {sprite.height} px it was when it was read "
                "(it is being rewritten)",
                sprite.path,
            )
        return data

    # -- the store -------------------------------------------------------------------------

    def _stamp(self, path: str) -> tuple[object, ...]:
        identity, size = self.store.stat(path)
        return (identity, size, self.store.modified(path))

    def _stamp_or_missing(self, path: str | None, known: dict[str, tuple[object, ...]]) -> tuple[object, ...]:
        """``path``'s stamp, stat'ed once per check (``known``: those of this check)."""
        if path is None:
            return ()
        if path not in known:
            try:
                known[path] = self._stamp(path)
            except OSError as e:
                known[path] = ("missing", str(e))
        return known[path]

    def _read(self, path: str, limit: int) -> bytes:
        _, size = self.store.stat(path)
        if size > limit:
            raise LogFormatError(f"is {size:,} bytes, more than the {limit:,} read of such a file", path)
        with self.store.open(path) as f:  # what the stat said, and a byte to see it grew: no buffer of ``limit``
            return f.read(min(size, limit) + 1)


def _why(e: object) -> str:
    """An error's message without the path that the problem names already."""
    if isinstance(e, _Refused):
        return e.why
    if isinstance(e, LogFormatError):
        return e.message
    if isinstance(e, FileNotFoundError):
        return "not found"
    return getattr(e, "strerror", None) or str(e)


def runs_of(directories: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """``{run: [config path, ...]}`` of ``(directory as a run name, config path)`` pairs."""
    out: dict[str, list[str]] = {}
    for directory, path in directories:
        out.setdefault(config_run(directory), []).append(path)
    return out
