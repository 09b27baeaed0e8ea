"""The fatal-signal sidecar: what ``faulthandler`` wrote when a writer's process died of a
segfault or an abort, in a text file next to its log (``<log file>.fatal``).

The SDK (``sdk/_fatal.py``) opens the sidecar while a writer is open, writes one
:func:`preamble` line naming the writer, and points ``faulthandler`` at it; a clean close
takes the line back (and the file, when it held nothing else). A process that dies of
SIGSEGV, SIGABRT, SIGBUS, SIGFPE or SIGILL leaves, after its line, faulthandler's
``Fatal Python error: Segmentation fault`` and the Python traceback of every thread. A
later writer appending to the same log adds its own line, so a sidecar holds sections;
the reader takes the writer's own (:func:`parse`). Bytes in, a dump out; never opens a file.
Whatever the bytes say, :func:`parse` raises nothing: what is wrong is the dump's ``problem``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MAX_BYTES", "SIGNALS", "SUFFIX", "FatalDump", "is_sidecar_name", "parse", "preamble", "sidecar_of"]

#: The sidecar's name is its log's name and this; no format claims such a name.
SUFFIX = ".fatal"
#: A reader reads the last this many bytes of a sidecar (a dump is a few KiB).
MAX_BYTES = 1 << 20
#: faulthandler's name of each fatal signal it handles.
SIGNALS: dict[str, str] = {
    "Segmentation fault": "SIGSEGV",
    "Aborted": "SIGABRT",
    "Bus error": "SIGBUS",
    "Floating-point exception": "SIGFPE",
    "Floating point exception": "SIGFPE",
    "Illegal instruction": "SIGILL",
}
#: The most digits of a pid read (18 digits are always an int64): more is garbled, not converted.
_MAX_PID_DIGITS = 18
_PREFIX = "visualdl fatal-signal sidecar: writer "
_SECTION = re.compile(r"^visualdl fatal-signal sidecar: writer (\S*) pid (\d+)$", re.MULTILINE)
_FATAL = re.compile(r"^Fatal Python error: (.+)$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class FatalDump:
    """A writer's section of a sidecar: the signal (``"SIGSEGV"``; ``""`` when the dump
    names none) and faulthandler's text (the thread that received the signal first);
    ``problem``: what is wrong with it (garbled, truncated), ``""`` when nothing is."""

    writer_id: str
    pid: int
    signal: str
    traceback: str
    problem: str = ""


def sidecar_of(log_path: str) -> str:
    return log_path + SUFFIX


def is_sidecar_name(name: str) -> bool:
    return name.endswith(SUFFIX) and len(name) > len(SUFFIX)


def preamble(writer_id: str, pid: int) -> bytes:
    """The line a writer's section starts with (a writer id has no white space)."""
    return f"{_PREFIX}{writer_id} pid {pid}\n".encode()


def parse(data: bytes, writer_id: str) -> FatalDump | None:
    """The last section of ``writer_id`` in a sidecar's bytes that holds a dump; None when
    it has none (the writer is alive, or closed). A section whose text is not
    faulthandler's is returned with its ``problem`` and no signal."""
    text = data.decode("utf-8", errors="replace")
    bad_bytes = "\ufffd" in text
    sections = list(_SECTION.finditer(text))
    for i in range(len(sections) - 1, -1, -1):
        match = sections[i]
        if match.group(1) != writer_id:
            continue
        end = sections[i + 1].start() if i + 1 < len(sections) else len(text)
        body = text[match.end() + 1 : end].strip("\n")
        if not body.strip():
            return None
        digits = match.group(2)
        if len(digits) > _MAX_PID_DIGITS:
            shown = f"'{digits[:20]}…' ({len(digits):,} digits)"
            problem = f"the sidecar's line of the writer names pid {shown}, which no process has (garbled)"
            return FatalDump(writer_id, 0, "", body, problem)
        pid = int(digits)
        fatal = _FATAL.search(body)
        if fatal is None:
            return FatalDump(writer_id, pid, "", body, "the sidecar holds no 'Fatal Python error' line (garbled)")
        name = fatal.group(1).strip()
        signal = SIGNALS.get(name, "")
        problem = "" if signal else f"the sidecar names no known fatal signal: {name[:80]!r}"
        if not problem and bad_bytes:
            problem = "the sidecar holds bytes that are not UTF-8 (garbled)"
        if not problem and "(most recent call first)" not in body:
            problem = "the sidecar's traceback is cut short (truncated)"
        return FatalDump(writer_id, pid, signal, _current_first(body[fatal.start() :]), problem)
    return None


def _current_first(text: str) -> str:
    """faulthandler's dump with the thread that received the signal right after the error
    line (faulthandler writes it after the other threads)."""
    blocks = text.split("\n\n")
    current = [i for i, b in enumerate(blocks) if b.startswith("Current thread ")]
    if len(blocks) < 3 or not current or current[0] == 1:
        return text
    block = blocks.pop(current[0])
    return "\n\n".join([blocks[0], block, *blocks[1:]])
