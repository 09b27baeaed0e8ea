"""What a :class:`~visualdl.sdk._writer.LogWriter` was asked for, checked once: :class:`WriterOptions`.

``LogWriter(...)`` keeps its signature (VisualDL 2's arguments, then ours, keyword-only) and
hands every argument to :meth:`WriterOptions.check`, which checks each one (a ``TypeError`` or
``ValueError`` naming it, its value and what it takes) and returns one frozen value: the
default logdir filled in, the file name given its ``.vdlog``, the process's place in its job
resolved against the launcher's environment. The writer, its sink
(:class:`~visualdl.sdk._sink.Sink`) and its system-metrics subscription read that value;
the one check that needs the logdir's store (what waits for an upload counts toward the
memory bound) is :meth:`WriterOptions.check_store`, once the store is open. Pure.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from visualdl._formats.vdlog.logformat import FILE_MARKER, is_log_file
from visualdl.sdk import _convert as convert
from visualdl.sdk import _launcher as launcher
from visualdl.sdk import _sysmetrics as sysmetrics

__all__ = ["WriterOptions", "safe_host"]

#: Characters a file name cannot hold.
_SEPARATORS = frozenset(filter(None, ("/", os.sep, os.altsep, "\x00")))


def _check_seconds(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= threading.TIMEOUT_MAX:
        raise ValueError(f"{name} must be a positive, finite number of seconds; got {value!r}")


def _check_count(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")


def safe_host() -> str:
    """This host's name as a file name may hold it (other characters as ``_``)."""
    host = socket.gethostname() or "localhost"
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in host)


@dataclass(frozen=True, slots=True)
class WriterOptions:
    """LogWriter's arguments, checked (see :class:`~visualdl.sdk._writer.LogWriter` for each).

    Built by :meth:`check`, never by hand."""

    #: As given (a path or a URL), or ``runs/<time>_<host><comment>``.
    logdir: str
    max_queue: int
    flush_secs: float
    filename_suffix: str
    write_to_disk: bool
    #: The writer's name in its file headers, until ``add_meta`` renames it.
    display_name: str
    #: With ``.vdlog`` appended when it had none; "" for a fresh name per file.
    file_name: str
    max_pending_bytes: int
    fsync: bool
    upload_secs: float
    upload_bytes: int
    upload_timeout: float
    close_timeout: float
    #: rank, world_size, local_rank, role, job and attempt, given or detected.
    placement: launcher.Placement
    #: The system-metrics sampler: None (given None) is on for a writer with a rank or a role.
    system_metrics: bool | None
    system_metrics_secs: float
    provenance: bool

    @classmethod
    def check(
        cls,
        *,
        logdir: str | os.PathLike[str] | None,
        comment: str,
        max_queue: int,
        flush_secs: float,
        filename_suffix: str,
        write_to_disk: bool,
        display_name: str,
        file_name: str,
        max_pending_bytes: int,
        fsync: bool,
        upload_secs: float,
        upload_bytes: int,
        upload_timeout: float,
        close_timeout: float,
        rank: int | None,
        world_size: int | None,
        local_rank: int | None,
        role: str | None,
        job: str | None,
        attempt: int | None,
        system_metrics: bool | None,
        system_metrics_secs: float,
        provenance: bool,
        env: Mapping[str, str],
    ) -> WriterOptions:
        """LogWriter's arguments as one value; ``TypeError``/``ValueError`` for the first bad one.
        ``env`` is where the launcher's variables are looked for (the process's environment)."""
        if logdir is None:
            stamp = time.strftime("%b%d_%H-%M-%S")
            logdir = os.path.join("runs", f"{stamp}_{safe_host()}{comment}")
        path = os.fspath(logdir)
        if not path:
            raise ValueError(
                "logdir must not be empty; pass '.' for the current directory, "
                "or None for the default runs/<time>_<host>"
            )
        _check_seconds("flush_secs", flush_secs)
        _check_count("max_pending_bytes", max_pending_bytes)
        _check_seconds("upload_secs", upload_secs)
        _check_count("upload_bytes", upload_bytes)
        _check_seconds("upload_timeout", upload_timeout)
        _check_seconds("close_timeout", close_timeout)
        _check_seconds("system_metrics_secs", system_metrics_secs)
        if system_metrics_secs < sysmetrics.MIN_SECS:
            raise ValueError(
                f"system_metrics_secs must be at least {sysmetrics.MIN_SECS} seconds (sampling more often costs "
                f"the process more than it tells); got {system_metrics_secs!r}"
            )
        if not isinstance(provenance, bool):
            raise TypeError(f"provenance must be True or False; got {provenance!r}")
        if system_metrics is not None and not isinstance(system_metrics, bool):
            raise TypeError(f"system_metrics must be True, False or None (automatic); got {system_metrics!r}")
        convert.check_text(display_name, "display_name")
        convert.check_text(filename_suffix, "filename_suffix")
        _check_count("max_queue", max_queue)
        if _SEPARATORS.intersection(filename_suffix):
            raise ValueError(
                f"filename_suffix must not contain '/' or NUL: it is appended to the file name "
                f"(put subdirectories into logdir instead); got {filename_suffix!r}"
            )
        convert.check_text(file_name, "file_name")
        if file_name and _SEPARATORS.intersection(file_name):
            raise ValueError(f"file_name must be a bare file name (no '/' or NUL); got {file_name!r}")
        if file_name and FILE_MARKER not in file_name:
            file_name += FILE_MARKER
        if file_name and not is_log_file(file_name):
            raise ValueError(
                f"file_name must not start with '.': readers skip hidden files, so its data would never show; "
                f"got {file_name!r}"
            )
        placement = launcher.resolve(
            env, rank=rank, world_size=world_size, local_rank=local_rank, role=role, job=job, attempt=attempt
        )
        return cls(
            logdir=path,
            max_queue=max_queue,
            flush_secs=float(flush_secs),
            filename_suffix=filename_suffix,
            write_to_disk=write_to_disk,
            display_name=display_name,
            file_name=file_name,
            max_pending_bytes=max_pending_bytes,
            fsync=fsync,
            upload_secs=float(upload_secs),
            upload_bytes=upload_bytes,
            upload_timeout=float(upload_timeout),
            close_timeout=float(close_timeout),
            placement=placement,
            system_metrics=system_metrics,
            system_metrics_secs=float(system_metrics_secs),
            provenance=provenance,
        )

    def check_store(self, appends: bool) -> None:
        """The check that needs the logdir's store: one that cannot append (an object store)
        holds what waits for its upload in memory, counted toward ``max_pending_bytes``."""
        if not appends and self.upload_bytes >= self.max_pending_bytes:
            raise ValueError(
                f"upload_bytes ({self.upload_bytes}) must be less than max_pending_bytes ({self.max_pending_bytes}): "
                "what waits for its upload counts toward the memory bound"
            )

    @property
    def samples_system(self) -> bool:
        """Whether the writer samples system metrics: as asked, or (None) when it has a rank or a role."""
        if self.system_metrics is not None:
            return self.system_metrics
        return self.placement.rank >= 0 or bool(self.placement.role)
